"""Which of the Training tab's two views a visitor opens on: this server's live race, or the replay of the
recorded race the headline describes.

The live view shows the server's one race to every visitor (watching a race as it runs is its point). A race
that has ended is shown first only while it is fresh and of a size that means something: an old race, or one of
a test size (`TEST_PRESETS`), would be read under the headline as its result. Pure: the tab passes what it knows.
"""

from __future__ import annotations

from datetime import datetime, timedelta

RECENT = timedelta(minutes=15)  # a race that ended longer ago than this is history, not what a visitor came for
TEST_PRESETS = ("tiny",)  # sizes for tests: their probe scores say nothing about the two objectives
RUNNING = ("waiting", "running")


def ended_since(ended: str | None, now: datetime) -> timedelta | None:
    """How long ago a race ended (`ended`: its ISO time with a zone); None when unknown or unreadable."""
    try:
        when = datetime.fromisoformat(str(ended)) if ended else None
    except ValueError:
        return None
    return None if when is None or when.tzinfo is None else now - when


def opening_view(status: str | None, preset: str | None, ended: str | None, now: datetime, live: bool) -> str:
    """"live" or "replay": the view a new visitor opens on. `status`, `preset`, `ended` describe the server's
    last race (all None when there is none), `now` is an aware time, `live` whether the server runs live races.

    - no live races on this server: the replay;
    - a race running (or getting ready): the live race, whatever its size, labelled as such;
    - no race yet: the live view, which offers to start one and shows nothing to misread;
    - a race that ended: the live view only if it ended less than `RECENT` ago and is not of a test size."""
    if not live:
        return "replay"
    if status is None or status in RUNNING:
        return "live"
    if preset in TEST_PRESETS:
        return "replay"
    since = ended_since(ended, now)
    return "live" if since is not None and timedelta(0) <= since <= RECENT else "replay"
