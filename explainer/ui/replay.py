"""The Training tab's replays of recorded races (training.race.record): a shipped record, or this
server's last race, drawn by the live race's charts at a chosen speed, with play/pause and a scrubber.

Thin wiring only. A record file is parsed once and shared by every viewer (`get_record_at`); frames are
drawn on a grid (`FRAME`) and cached, so viewers share them too; the position follows the clock, not
the ticks (`replay_tick`), and a tick in flight cannot undo a pause (`_latest`).
"""

from __future__ import annotations

import functools
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import gradio as gr

from explainer.render import race_headline
from explainer.render import training as view
from explainer.render.style import message_html
from explainer.ui import races
from explainer.ui.named import named
from explainer.ui.races import CURVES_HELP, PAYOFF_HELP, X_AXES
from training.project import ASSETS
from training.race import campaign as campaign_stats
from training.race.campaign import load_campaign
from training.race.manager import RECORD_NAME
from training.race.record import RecordError, list_records, load_record, replay_snapshot

RECORDS_DIR = ASSETS / "races"  # shipped records, written by `python -m training record`
REPLAY_TICK = 1.0  # seconds between replay frames (the position follows the clock, not the ticks)
SPEEDS = [("the whole race in 10 s", 10), ("in 30 s", 30), ("in 1 minute", 60), ("in 2 minutes", 120)]
LAST_RACE = "this server's last race"


def _shipped() -> list[tuple[str, Path, dict]]:
    """(title, path, record) of every shipped record, the race the Training tab leads with first
    (explainer.render.race_headline: the most trained, seeds together), then by training FLOPs."""
    found = [(title, path, get_record_at(path)) for title, path in list_records(RECORDS_DIR, load=get_record_at)]
    leaders = race_headline.leading_races([record for _, _, record in found])
    return sorted(found, key=lambda item: race_headline.record_order(item[2], leaders))


def recorded_races() -> list[dict]:
    """Every shipped record, parsed (once: `get_record_at` caches them)."""
    return [record for _, _, record in _shipped()]


def record_choices() -> list[tuple[str, str]]:
    """(title, value) of every replayable record: the shipped ones (the leading race first), then this server's
    last race."""
    choices = [(title, path.name) for title, path, _ in _shipped()]
    race = races.MANAGER.race
    if race is not None and not race.running and (race.folder / RECORD_NAME).exists():
        choices.append((f"{LAST_RACE.capitalize()} ({race.folder.name})", LAST_RACE))
    return choices


def measured_gaps() -> list[dict]:
    """ELECTRA − BERT-style per budget from the shipped measurements: the campaign and the recorded races."""
    return campaign_stats.gaps_by_budget(load_campaign(), recorded_races())


def record_path(name: str) -> Path:
    """The file of the record called `name` in the list (never a path from the browser); RecordError otherwise."""
    if name == LAST_RACE:
        race = races.MANAGER.race
        if race is None or race.running or not (race.folder / RECORD_NAME).is_file():
            raise RecordError("This server has no finished race to replay yet.")
        return race.folder / RECORD_NAME
    path = RECORDS_DIR / str(name or "")
    if path.parent != RECORDS_DIR or path.suffix != ".json" or not path.is_file():
        raise RecordError(f"No recorded race called {name!r}; choose one from the list.")
    return path


_records_lock = threading.Lock()
_records: dict = {}  # path -> (mtime, record): a record is read once, then shared by every viewer


def _cached(path: str | Path) -> tuple[float, dict]:
    """(mtime, record) of the file at `path`, read again only when the file changes."""
    path = str(path)
    mtime = Path(path).stat().st_mtime
    with _records_lock:
        cached = _records.get(path)
        if cached is None or cached[0] != mtime:
            if len(_records) > 16:
                _records.clear()
            _records[path] = cached = (mtime, load_record(path))
        return cached


def get_record_at(path: str | Path) -> dict:
    """The record in the file at `path` (a path from record_path or the shipped folder), cached."""
    return _cached(path)[1]


def get_record(name: str) -> dict:
    """The record called `name` in the list; RecordError when there is none or it cannot be replayed."""
    return get_record_at(record_path(name))


FRAME = 0.5  # percent: replay frames are drawn on this grid, so viewers share them (_replay_frame)


@functools.lru_cache(maxsize=512)
def _replay_frame(path: str, mtime: float, percent: float, x_axis: str) -> tuple:
    """(snapshot, curves, supervised, payoff) of one frame, built once for every viewer (the file's path and
    mtime are the record's key)."""
    snapshot = replay_snapshot(get_record_at(path), percent / 100)
    return (snapshot, view.curves_figure(snapshot, x_axis), view.supervised_figure(snapshot, x_axis),
            view.payoff_figure(snapshot))


def replay_views(name: str, percent: float, x_axis: str, playing: bool) -> dict:
    """The status line and the charts (curves, supervised, payoff) of the record `name` at `percent` of the race,
    by name; a record that cannot be shown: the status line says why, the charts stay."""
    try:
        path = record_path(name)
        mtime, record = _cached(path)
    except RecordError as error:
        return {"status": message_html(str(error))}
    percent = min(100.0, max(0.0, round(float(percent or 0) / FRAME) * FRAME))
    snapshot, curves, supervised, payoff = _replay_frame(str(path), mtime, percent, x_axis)
    return {"status": view.replay_status_html(snapshot, record, playing), "curves": curves, "supervised": supervised,
            "payoff": payoff}





def _anchor(percent: float, speed: float) -> dict:
    """A playing replay: where and when it (re)started, and how fast; the position follows the clock."""
    return {"t0": time.monotonic(), "p0": float(percent or 0), "speed": max(5.0, float(speed or 60))}


# Each page's latest anchor (None: paused), by gradio session: a tick that was already on its way when the
# page paused or scrubbed finds that out here and draws nothing, so it cannot undo the pause.
_latest: dict[str, dict | None] = {}
_latest_lock = threading.Lock()


def _remember(request: gr.Request | None, anchor: dict | None) -> dict | None:
    if request is not None and getattr(request, "session_hash", None):
        with _latest_lock:
            if len(_latest) > 10_000:  # pages that left without a word
                _latest.clear()
            _latest[request.session_hash] = anchor
    return anchor


def _stale(request: gr.Request | None, anchor: dict | None) -> bool:
    key = getattr(request, "session_hash", None) if request is not None else None
    with _latest_lock:
        return key is not None and key in _latest and _latest[key] != anchor


def replay_play(name: str, percent: float, speed: float, x_axis: str, anchor: dict | None,
                request: gr.Request | None = None) -> dict:
    """Play from where the scrubber stands (from the start once at the end), or pause where it is."""
    if anchor:  # pause
        _remember(request, None)
        return {**replay_views(name, percent, x_axis, False), **_paused()}
    percent = 0.0 if (percent or 0) >= 100 else float(percent or 0)
    return {"scrubber": percent, **replay_views(name, percent, x_axis, True),
            "anchor": _remember(request, _anchor(percent, speed)), "timer": gr.Timer(active=True),
            "play": gr.update(value="⏸ Pause")}


def _paused() -> dict:
    """A replay at rest: no anchor, the timer off, the button offering Play."""
    return {"anchor": None, "timer": gr.Timer(active=False), "play": gr.update(value="▶ Play")}


def replay_tick(name: str, percent: float, speed: float, x_axis: str, anchor: dict | None,
                request: gr.Request | None = None) -> dict:
    """One frame at the position the clock says (a slow frame is skipped, never the replay slowed);
    at the end: stop. A new speed takes over from where the replay stands."""
    if not anchor:  # paused (or a new record) while this tick was on its way
        return {"timer": gr.Timer(active=False), "play": gr.update(value="▶ Play")}
    changed = anchor["speed"] != max(5.0, float(speed or 60))
    if changed and not _stale(request, anchor):
        anchor = _remember(request, _anchor(percent, speed))
    percent = min(100.0, anchor["p0"] + 100 * (time.monotonic() - anchor["t0"]) / anchor["speed"])
    ended = percent >= 100
    views = replay_views(name, percent, x_axis, not ended)
    if _stale(request, anchor):  # paused or scrubbed while this frame was drawn: it must not undo that
        return {}
    if ended:
        _remember(request, None)
        return {"scrubber": 100, **views, **_paused()}
    # The anchor goes back only when it changed: a tick in flight must not undo a pause.
    return {"scrubber": round(percent, 1), **views, **({"anchor": anchor} if changed else {})}


def replay_scrubbed(name: str, percent: float, speed: float, x_axis: str, anchor: dict | None,
                    request: gr.Request | None = None) -> dict:
    """A scrub, a new record or a new x-axis: redraw at once; a playing replay goes on from there."""
    anchor = _remember(request, _anchor(percent, speed)) if anchor else _remember(request, None)
    return {**replay_views(name, percent, x_axis, bool(anchor)), "anchor": anchor}


def replay_other_record(name: str, speed: float, x_axis: str, request: gr.Request | None = None) -> dict:
    """Another record: shown whole (at 100%), paused."""
    return {"scrubber": 100, **replay_scrubbed(name, 100, speed, x_axis, None, request)}


def _layout() -> SimpleNamespace:
    """The replay view's components, top to bottom, by their names here; the first record drawn whole."""
    choices = record_choices()
    gr.Markdown("Watch a whole race that was run and recorded before, on the same charts as a live race, "
                "in a minute instead of hours. Press **Play**, or drag the scrubber to any moment of the race.")
    c = SimpleNamespace()
    with gr.Row():
        c.record = gr.Dropdown(choices, value=choices[0][1] if choices else None, label="Recorded race", scale=3,
                               min_width=320, elem_id="replay-record", allow_custom_value=False)  # a phone: own line
        c.speed = gr.Radio(SPEEDS, value=60, label="Replay speed", scale=2, elem_id="replay-speed")
        c.play = gr.Button("▶ Play", variant="primary", scale=1, elem_id="replay-play")
    c.scrubber = gr.Slider(0, 100, value=100, step=0.1, label="Position in the race (%)", elem_id="replay-scrubber")
    c.x_axis = gr.Radio(X_AXES, value="flops", label="x-axis of the charts (FLOPs = compare at equal compute)",
                        elem_id="replay-x-axis")
    first = replay_views(choices[0][1], 100, "flops", False) if choices else {
        "status": message_html("No recorded race is installed (assets/races/ is empty).")}
    c.status = gr.HTML(first["status"], elem_id="replay-status-box")
    c.payoff = gr.Plot(first.get("payoff"), show_label=False, elem_id="replay-payoff")  # the result first
    with gr.Accordion("How to read the payoff", open=False):
        gr.Markdown(PAYOFF_HELP)
    c.curves = gr.Plot(first.get("curves"), show_label=False, elem_id="replay-curves")
    with gr.Accordion("How to read the training curves", open=False):
        gr.Markdown(CURVES_HELP)
    c.supervised = gr.Plot(first.get("supervised"), show_label=False, elem_id="replay-supervised")
    c.anchor = gr.State(None)  # None: paused; else where and when this page's replay started (replay_tick)
    c.timer = gr.Timer(REPLAY_TICK, active=False)
    return c


def build_replay(demo: gr.Blocks) -> None:
    """The replay view: a shipped record (or this server's last race) drawn by the live race's charts,
    at a chosen speed, with play/pause and a scrubber. Every handler returns by component name (`named`)."""
    c = _layout()
    private = dict(api_visibility="private")
    views = [c.status, c.curves, c.supervised, c.payoff]
    inputs = [c.record, c.scrubber, c.speed, c.x_axis, c.anchor]
    everything = [c.scrubber, *views, c.anchor, c.timer, c.play]
    tick = c.timer.tick(named(replay_tick, c), inputs, everything, show_progress="hidden", concurrency_limit=None,
                        **private)
    # Play/Pause, a scrub, a new axis or record drop a frame still on its way: found current, then slow to leave
    # a busy server, it would arrive after a pause and say "Replaying" again (replay_tick's check is too early).
    c.play.click(named(replay_play, c), inputs, everything, show_progress="hidden", cancels=[tick], **private)
    for event in (c.scrubber.input, c.x_axis.change):
        event(named(replay_scrubbed, c), inputs, [*views, c.anchor], show_progress="hidden",
              trigger_mode="always_last", cancels=[tick], **private)
    c.record.change(named(replay_other_record, c), [c.record, c.speed, c.x_axis], [c.scrubber, *views, c.anchor],
                    show_progress="hidden", cancels=[tick], **private)
    demo.load(lambda: gr.update(choices=record_choices()), None, [c.record], **private)  # a race ended since
