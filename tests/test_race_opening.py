"""Which Training view a new visitor opens on (explainer.core.race_opening, the tab's `opening`), and the live
view's line saying whose race it shows: a stale or test-size race never greets a visitor under the headline."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from explainer.core.race_opening import RECENT, ended_since, opening_view
from explainer.render import training as view

NOW = datetime(2026, 12, 5, 4, 0, tzinfo=timezone.utc)


def ago(minutes: float) -> str:
    return (NOW - timedelta(minutes=minutes)).isoformat(timespec="seconds")


@pytest.mark.parametrize(("status", "preset", "ended", "live", "expected"), [
    (None, None, None, True, "live"),  # no race yet: the form to start one, nothing to misread
    ("running", "tiny", None, True, "live"),  # a race under way is shown to all, whatever its size
    ("waiting", "mini", None, True, "live"),
    ("finished", "mini", ago(3), True, "live"),  # just ended: its runner (or a reload) sees it
    ("stopped", "mini", ago(14), True, "live"),
    ("finished", "mini", ago(16), True, "replay"),  # older than RECENT: history
    ("finished", "tiny", ago(1), True, "replay"),  # a test size: its scores mean nothing
    ("stopped", "tiny", ago(1), True, "replay"),
    ("interrupted", "mini", None, True, "replay"),  # the server died mid-race: no end time, not fresh
    ("finished", "mini", "yesterday", True, "replay"),  # an unreadable time is not a fresh one
    ("finished", "mini", "2026-12-05T03:58:00", True, "replay"),  # no zone: unknown
    ("finished", "mini", ago(-5), True, "replay"),  # in the future: the clock moved, not fresh
    ("running", "mini", None, False, "replay"),  # no live races here: replays only
    (None, None, None, False, "replay"),
])
def test_the_opening_view(status, preset, ended, live, expected):
    assert opening_view(status, preset, ended, NOW, live) == expected


def test_ended_since_reads_aware_iso_times_only():
    assert ended_since(ago(15), NOW) == RECENT
    assert ended_since("2026-12-05T05:00:00+01:00", NOW) == timedelta(0)  # another zone, the same moment
    assert ended_since(None, NOW) is None and ended_since("", NOW) is None and ended_since("soon", NOW) is None


def _race(status: str, preset: str, ended: str | None):
    return SimpleNamespace(status=status, ended_at=ended, settings=SimpleNamespace(preset=preset))


@pytest.mark.parametrize(("race", "live", "expected"), [
    (None, True, "live"), (_race("finished", "tiny", "2000-01-01T00:00:00+00:00"), True, "replay"),
    (_race("running", "tiny", None), True, "live"), (_race("running", "tiny", None), False, "replay"),
])
def test_the_tab_opens_each_visitor_on_the_view_the_servers_race_calls_for(monkeypatch, race, live, expected):
    from explainer.ui import race_tabs, races

    monkeypatch.setattr(races, "MANAGER", SimpleNamespace(race=race))
    monkeypatch.setenv("ELECTRA_LIVE_RACES", "1" if live else "0")
    assert race_tabs.opening(live) == expected


def test_a_just_finished_race_opens_live(monkeypatch):
    from explainer.ui import race_tabs, races

    just = datetime.now(timezone.utc).isoformat(timespec="seconds")
    monkeypatch.setattr(races, "MANAGER", SimpleNamespace(race=_race("finished", "mini", just)))
    monkeypatch.setenv("ELECTRA_LIVE_RACES", "1")
    assert race_tabs.opening(True) == "live"


def snapshot(status: str, preset: str = "tiny", started: str | None = "2026-12-05T03:46:25+00:00") -> dict:
    """A race's snapshot with no step yet: all status_html reads."""
    return {"status": status, "events": {}, "elapsed": 0.0, "progress": 0.0, "loading": None, "stopping": False,
            "error": None, "folder": "race-20261205-034625-tiny-seed0", "device": "CPU", "probes": [],
            "started": started, "settings": {"preset": preset, "seed": 0, "amount": 60, "budget": "steps"}}


def test_the_live_view_says_whose_race_it_shows_and_that_the_headline_is_another():
    running = view.status_html(snapshot("running"))
    assert "Live on this server now, started at 03:46 UTC on 2026-12-05: every visitor" in running
    assert "not the recorded race the headline above describes" in running
    assert "tiny preset (a test size: its scores say nothing about the two objectives)" in running
    assert "budget 60 steps per objective" in running
    ended = view.status_html(snapshot("finished", preset="mini", started=None))
    assert "The last race run on this server. It is not the recorded race" in ended
    assert "Live on this server" not in ended and "test size" not in ended and "mini preset, seed 0" in ended
    assert "No race yet on this server" in view.status_html(None)
