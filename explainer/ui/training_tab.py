"""Training tab: race ELECTRA (RTD) against a BERT-style baseline (MLM) live, on one budget.

Thin wiring only. The race itself is training.race.run (no gradio); the one `MANAGER` of this process
runs it in a background thread and owns its state, so a reloaded page, or a second viewer, sees the
same race (nothing about the race lives in a gr.State), and a second start gets a "busy" message.
A 1-second gr.Timer redraws the charts from the race's snapshot; the figures of one snapshot are
built once and shared by every viewer (`_views`).
"""

from __future__ import annotations

import functools
import os
import threading
import time
from pathlib import Path

import gradio as gr

from explainer.render import style, verdict
from explainer.render import training as view
from explainer.render.style import message_html
from explainer.ui import queues
from training.models import PRESETS
from training.project import PROJECT
from training.race import campaign as campaign_stats
from training.race.campaign import load_campaign
from training.race.manager import RECORD_NAME, RaceBusy, RaceManager, check_corpus
from training.race.record import RecordError, list_records, load_record, replay_snapshot
from training.race.settings import CPU_RACE_MINUTES, RaceLimits, default_settings, describe_device


def _limits() -> RaceLimits:
    """The server's bound on one race; a host can lower (or raise) it with environment variables."""
    default = RaceLimits()
    return RaceLimits(max_minutes=float(os.environ.get("ELECTRA_RACE_MAX_MINUTES", default.max_minutes)),
                      max_steps=int(os.environ.get("ELECTRA_RACE_MAX_STEPS", default.max_steps)),
                      max_flops=float(os.environ.get("ELECTRA_RACE_MAX_FLOPS", default.max_flops)))


MAX_UPLOAD_MB = float(os.environ.get("ELECTRA_MAX_UPLOAD_MB", 50))  # app.py gives gradio's upload route the same limit
MANAGER = RaceManager(os.environ.get("ELECTRA_RACE_DIR") or PROJECT / "runs" / "races", _limits(),
                      max_upload_bytes=int(MAX_UPLOAD_MB * 2**20))
TICK_SECONDS = 1.0

INTRO = """
## Race the two objectives on the same compute
Both models have the same encoder size and read the same text. **ELECTRA** (orange) learns by spotting
replaced words, a judgement on *every* token; the **BERT-style baseline** (blue) learns by guessing the
~15% of words it hid. The race gives each the same budget (by default the same number of training FLOPs:
whichever is behind takes the next step), and every so often scores what each encoder has learned with a
quick test on movie-review sentiment.
"""

CURVES_HELP = ("**Left:** how well each model guesses hidden words; ELECTRA's generator is smaller, and its job is "
               "only to make plausible replacements. **Right:** the discriminator's own loss, not comparable with "
               "the left one. The grey dotted line is what it would score by calling every token “original”: "
               "it has only learned something once its loss drops below that line and its AUC rises above 0.5. "
               "Under equal FLOPs the MLM baseline takes more steps than ELECTRA (its steps are cheaper: there is "
               "no generator), so its curve is longer against *step*; switch the x-axis to *FLOPs* to line them up.")
PAYOFF_HELP = ("**The payoff.** Each point freezes an encoder checkpoint, averages its word vectors per sentence and fits "
               "a logistic regression that reads positive or negative from them, on short movie-review sentences never "
               "used for pretraining (a *linear probe*, seconds per checkpoint); the score is its accuracy on other "
               "such sentences, and 50% is a coin toss. The dashed line is the same encoder with random weights: "
               "pretraining has helped only above it. On the right, for scale only: the paper's published GLUE "
               "scores, a different benchmark measured with far more compute. Compare the two objectives with each "
               "other, not with the paper.")

_views_lock = threading.Lock()
_views_cache: dict = {}


def _views(race, x_axis: str) -> tuple:
    """Status, figures and files of the race's current snapshot, built once per (race, version, axis)."""
    key = (id(race), race.version if race else -1, x_axis)
    with _views_lock:
        if key not in _views_cache:
            snapshot = race.snapshot() if race else None
            ended = race is not None and not race.running and MANAGER.job != "race"  # files written
            files = [str(race.folder / name) if ended and (race.folder / name).exists() else None
                     for name in ("metrics.csv", "models.zip")]
            _views_cache.clear()  # one snapshot at a time: the cache never grows
            _views_cache[key] = (view.status_html(snapshot), view.curves_figure(snapshot, x_axis),
                                 view.supervised_figure(snapshot, x_axis), view.payoff_figure(snapshot),
                                 *files, view.finetune_html(snapshot), ended, ended and MANAGER.job is None)
        return _views_cache[key]


def refresh(x_axis: str, shown: str | None):
    """The timer's handler: redraw only when the race moved since this page last drew it."""
    race = MANAGER.race
    key = f"{id(race)}:{race.version if race else -1}:{x_axis}"
    if key == shown:
        return (gr.skip(),) * 10
    status, curves, supervised, payoff, csv_file, zip_file, finetune, ended, idle = _views(race, x_axis)
    return (status, curves, supervised, payoff,
            gr.update(value=csv_file, interactive=csv_file is not None),
            gr.update(value=zip_file, interactive=zip_file is not None),
            gr.update(interactive=ended), gr.update(interactive=idle), finetune, key)


# --- replays of recorded races (training.race.record) ------------------------------------------------

RECORDS_DIR = PROJECT / "assets" / "races"  # shipped records, written by `python -m training record`
REPLAY_TICK = 1.0  # seconds between replay frames (the position follows the clock, not the ticks)
SPEEDS = [("the whole race in 10 s", 10), ("in 30 s", 30), ("in 1 minute", 60), ("in 2 minutes", 120)]
LAST_RACE = "this server's last race"
NO_LIVE = ("This server does not run live races (a race would hold its CPU for minutes for every visitor): "
           "**replay a recorded race** instead, in the next tab. Run the app on your own machine to race live.")


def live_races() -> bool:
    """Whether this server offers live races. ELECTRA_LIVE_RACES=0 turns them off (replays only), =1 on;
    by default they are on, except on a Hugging Face Space without a GPU, where one race would hold
    the only CPU for every visitor for minutes."""
    setting = os.environ.get("ELECTRA_LIVE_RACES", "").strip()
    if setting in ("0", "1"):
        return setting == "1"
    if not os.environ.get("SPACE_ID"):
        return True
    import importlib.util

    import torch
    return torch.cuda.is_available() or importlib.util.find_spec("spaces") is not None


def record_choices() -> list[tuple[str, str]]:
    """(title, value) of every replayable record: the shipped ones, then this server's last race."""
    choices = [(title, path.name) for title, path in list_records(RECORDS_DIR, load=get_record_at)]
    race = MANAGER.race
    if race is not None and not race.running and (race.folder / RECORD_NAME).exists():
        choices.append((f"{LAST_RACE.capitalize()} ({race.folder.name})", LAST_RACE))
    return choices


def measured_gaps() -> list[dict]:
    """ELECTRA − BERT-style per budget from the shipped measurements: the campaign and the recorded races."""
    records = [get_record_at(path) for _, path in list_records(RECORDS_DIR, load=get_record_at)]  # parsed once
    return campaign_stats.gaps_by_budget(load_campaign(), records)


def record_path(name: str) -> Path:
    """The file of the record called `name` in the list (never a path from the browser); RecordError otherwise."""
    if name == LAST_RACE:
        race = MANAGER.race
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


def replay_views(name: str, percent: float, x_axis: str, playing: bool) -> tuple:
    """(status, curves, supervised, payoff) of the record `name` at `percent` of the race."""
    try:
        path = record_path(name)
        mtime, record = _cached(path)
    except RecordError as error:
        return message_html(str(error)), *(gr.skip(),) * 3
    percent = min(100.0, max(0.0, round(float(percent or 0) / FRAME) * FRAME))
    snapshot, *figures = _replay_frame(str(path), mtime, percent, x_axis)
    return view.replay_status_html(snapshot, record, playing), *figures


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
                request: gr.Request | None = None):
    """Play from where the scrubber stands (from the start once at the end), or pause where it is."""
    if anchor:  # pause
        _remember(request, None)
        return (gr.skip(), *replay_views(name, percent, x_axis, False), None, gr.Timer(active=False),
                gr.update(value="▶ Play"))
    percent = 0.0 if (percent or 0) >= 100 else float(percent or 0)
    return (percent, *replay_views(name, percent, x_axis, True), _remember(request, _anchor(percent, speed)),
            gr.Timer(active=True), gr.update(value="⏸ Pause"))


def replay_tick(name: str, percent: float, speed: float, x_axis: str, anchor: dict | None,
                request: gr.Request | None = None):
    """One frame at the position the clock says (a slow frame is skipped, never the replay slowed);
    at the end: stop. A new speed takes over from where the replay stands."""
    if not anchor:  # paused (or a new record) while this tick was on its way
        return (gr.skip(),) * 6 + (gr.Timer(active=False), gr.update(value="▶ Play"))
    changed = anchor["speed"] != max(5.0, float(speed or 60))
    if changed and not _stale(request, anchor):
        anchor = _remember(request, _anchor(percent, speed))
    percent = min(100.0, anchor["p0"] + 100 * (time.monotonic() - anchor["t0"]) / anchor["speed"])
    ended = percent >= 100
    views = replay_views(name, percent, x_axis, not ended)
    if _stale(request, anchor):  # paused or scrubbed while this frame was drawn: it must not undo that
        return (gr.skip(),) * 8
    if ended:
        _remember(request, None)
        return (100, *views, None, gr.Timer(active=False), gr.update(value="▶ Play"))
    # The anchor goes back only when it changed: a tick in flight must not undo a pause.
    return (round(percent, 1), *views, anchor if changed else gr.skip(), gr.skip(), gr.skip())


def replay_scrubbed(name: str, percent: float, speed: float, x_axis: str, anchor: dict | None,
                    request: gr.Request | None = None):
    """A scrub, a new record or a new x-axis: redraw at once; a playing replay goes on from there."""
    anchor = _remember(request, _anchor(percent, speed)) if anchor else _remember(request, None)
    return (*replay_views(name, percent, x_axis, bool(anchor)), anchor)


def replay_other_record(name: str, speed: float, x_axis: str, request: gr.Request | None = None):
    """Another record: shown whole (at 100%), paused."""
    return (100, *replay_scrubbed(name, 100, speed, x_axis, None, request))


def build_replay(demo: gr.Blocks) -> None:
    """The replay view: a shipped record (or this server's last race) drawn by the live race's charts,
    at a chosen speed, with play/pause and a scrubber."""
    choices = record_choices()
    gr.Markdown("Watch a whole race that was run and recorded before, on the same charts as a live race, "
                "in a minute instead of hours. Press **Play**, or drag the scrubber to any moment of the race.")
    with gr.Row():
        record = gr.Dropdown(choices, value=choices[0][1] if choices else None, label="Recorded race", scale=3,
                             elem_id="replay-record", allow_custom_value=False)
        speed = gr.Radio(SPEEDS, value=60, label="Replay speed", scale=2, elem_id="replay-speed")
        play = gr.Button("▶ Play", variant="primary", scale=1, elem_id="replay-play")
    scrubber = gr.Slider(0, 100, value=100, step=0.1, label="Position in the race (%)", elem_id="replay-scrubber")
    x_axis = gr.Radio([("step", "step"), ("wall-clock", "wall_time"), ("FLOPs", "flops"), ("tokens seen", "tokens")],
                      value="flops", label="x-axis of the charts (FLOPs = compare at equal compute)",
                      elem_id="replay-x-axis")
    first = replay_views(choices[0][1], 100, "flops", False) if choices else (
        message_html("No recorded race is installed (assets/races/ is empty)."), None, None, None)
    status = gr.HTML(first[0], elem_id="replay-status-box")
    curves = gr.Plot(first[1], show_label=False, elem_id="replay-curves")
    gr.Markdown(CURVES_HELP)
    supervised = gr.Plot(first[2], show_label=False, elem_id="replay-supervised")
    payoff = gr.Plot(first[3], show_label=False, elem_id="replay-payoff")
    gr.Markdown(PAYOFF_HELP)
    anchor = gr.State(None)  # None: paused; else where and when this page's replay started (replay_tick)
    timer = gr.Timer(REPLAY_TICK, active=False)

    private = dict(api_visibility="private")
    views = [status, curves, supervised, payoff]
    play.click(replay_play, [record, scrubber, speed, x_axis, anchor], [scrubber, *views, anchor, timer, play],
               show_progress="hidden", **private)
    timer.tick(replay_tick, [record, scrubber, speed, x_axis, anchor], [scrubber, *views, anchor, timer, play],
               show_progress="hidden", concurrency_limit=None, **private)
    for event in (scrubber.input, x_axis.change):
        event(replay_scrubbed, [record, scrubber, speed, x_axis, anchor], [*views, anchor], show_progress="hidden",
              trigger_mode="always_last", **private)
    record.change(replay_other_record, [record, speed, x_axis], [scrubber, *views, anchor], show_progress="hidden",
                  **private)
    demo.load(lambda: gr.update(choices=record_choices()), None, [record], **private)  # a race ended since


CORPORA = [("Built-in IMDB movie reviews", "imdb"),
           ("Built-in broad English (news, encyclopedia, books, conversation)", "english"),
           ("My own text (.txt or .jsonl)", "upload")]  # the tab's choices; the built-in ones are training.data's names


def start_race(preset, budget, amount, corpus, upload, seed, device, pace, seq_len, batch_size, lr, probe_every,
               temperature=...):  # left out (...): the preset's default; an emptied box (None) is an error
    if not live_races():
        return message_html(NO_LIVE)
    if corpus == "upload" and not upload:
        return message_html("Choose a .txt or .jsonl file to upload, or pick a built-in text.")
    if corpus not in [value for _, value in CORPORA]:  # never a path from the browser: only uploads are files
        return message_html(f"Unknown text {corpus!r}; pick a built-in text or upload your own.")
    try:
        settings = default_settings(preset, device, budget=budget, amount=float(amount or 0), pace=pace,
                                    seed=int(seed or 0), seq_len=int(seq_len), batch_size=int(batch_size),
                                    lr=float(lr), probe_every=int(probe_every),
                                    **({} if corpus == "upload" else {"corpus": corpus}),
                                    **({} if temperature is ... else {"temperature": float(temperature)}))
        race = MANAGER.start(settings, upload if corpus == "upload" else None)
    except RaceBusy as busy:
        return message_html(str(busy))
    except (TypeError, ValueError) as error:  # an emptied number box arrives as None
        return message_html(str(error) if isinstance(error, ValueError) else "Fill in every number (More settings too).")
    return f'<p id="race-started">Started in {race.folder.name}; the charts below update every second.</p>'


def stop_race() -> str:
    if MANAGER.stop():
        return '<p id="race-stopping">Stopping after the current step; both models are saved as they are.</p>'
    return message_html("No race is running.")


def corpus_check(upload) -> str:
    """Say at once what is wrong with an upload (empty, binary, too big, not UTF-8) or what it holds."""
    if not upload:
        return ""
    try:
        return f"<p>✓ {check_corpus(upload, MANAGER.max_upload_bytes)}</p>"
    except ValueError as error:
        return message_html(str(error))


def preset_changed(preset: str):
    values = default_settings(preset)
    note = PRESETS[preset]
    size = f"{note.discriminator.layers} layers × {note.discriminator.hidden} wide (generator {note.generator.hidden} wide)"
    return (values.budget, values.amount, values.seq_len, values.batch_size, values.lr, values.probe_every,
            values.temperature, f"*{note.note}: {size}*" + (
                f" Default budget: {values.amount:.1e} training FLOPs per objective, about {CPU_RACE_MINUTES} minutes on a 2-core "
                f"CPU.".replace("e+", "e") if preset == "mini" else ""))


def start_finetune(epochs) -> str:
    try:
        MANAGER.start_finetune(int(epochs))
    except (RaceBusy, ValueError) as error:
        return message_html(str(error))
    return "<p>Fine-tuning in the background: the ELECTRA discriminator, the MLM encoder, then the untrained floor.</p>"


def latest_race() -> dict | None:
    """The last finished race's final probe scores, for the Classroom's efficiency view."""
    race = MANAGER.race
    if race is None or race.running:
        return None
    result = {o: {"flops": p["flops"], "accuracy": p["accuracy"]} for o in ("rtd", "mlm") if (p := race.final_probe(o))}
    return result or None


def open_in_explore():
    """The freshly trained pair, for the Explore tab's model box."""
    from explainer.ui.explore import model_status

    race = MANAGER.race
    if race is None or race.running or not (race.folder / "rtd" / "discriminator").exists():
        return gr.skip(), message_html("Run a race first: its ELECTRA pair appears here when it ends."), gr.skip()
    folder = str(race.folder / "rtd")
    status, model = model_status(folder)
    return model, status, model


def build_training(demo: gr.Blocks, explore_model: tuple | None = None) -> None:
    """The tab's components and events. `explore_model`: the Explore tab's (model dropdown, status HTML,
    active-model state), which build_explore returns; with it, "Open the ELECTRA pair in Explore" works."""
    defaults = default_settings()
    gr.Markdown(INTRO)
    campaign = load_campaign()
    gr.Markdown(verdict.verdict_markdown(campaign), elem_id="race-verdict")
    groups = measured_gaps()
    if groups:
        gr.Plot(verdict.gap_figure(groups), show_label=False, elem_id="race-gaps")
        gr.HTML(f'<p style="{style.FONT};color:#555">{verdict.gaps_caption(groups)} Each dot is one race; the bar is one '
                "standard deviation either side of the mean. The paper measured a different benchmark (GLUE) with "
                "far more compute: its points give the scale, not a target.</p>", elem_id="race-gaps-caption")
    if campaign:
        with gr.Accordion("What we measured on this CPU: every setting tried, with seeds", open=False):
            gr.HTML(verdict.campaign_html(campaign))
    live = live_races()
    with gr.Tabs(selected="live" if live else "replay", elem_id="race-tabs"):
        with gr.Tab("Race live on this server", id="live", elem_id="race-live-tab"):
            if not live:
                gr.Markdown(NO_LIVE, elem_id="race-no-live")
            limits = MANAGER.limits
            with gr.Row():
                preset = gr.Dropdown(list(limits.presets), value=defaults.preset, label="Model size (preset)", scale=1,
                                     elem_id="race-preset")
                budget = gr.Radio([("minutes (whole race)", "minutes"), ("steps (each)", "steps"), ("FLOPs (each)", "flops")],
                                  value=defaults.budget, label="Budget in", scale=2, elem_id="race-budget")
                amount = gr.Number(defaults.amount, label=f"Budget (at most {limits.max_minutes:g} min, {limits.max_steps:,} "
                                   f"steps or {limits.max_flops:.0e} FLOPs)".replace("e+", "e"), scale=1, elem_id="race-amount")
                seed = gr.Number(0, precision=0, label="Seed", scale=0, min_width=90)
            preset_note = gr.Markdown(preset_changed(defaults.preset)[-1])
            with gr.Row():
                corpus = gr.Radio(CORPORA, value="imdb", label="Text to pretrain on", scale=2)
                upload = gr.File(file_types=[".txt", ".jsonl"], type="filepath", scale=2,
                                 label=f"Your corpus: one document per line (up to {MANAGER.max_upload_bytes / 2**20:g} MB)")
                device = gr.Dropdown([("auto", "auto"), ("CPU", "cpu"), ("CUDA GPU", "cuda")], value="auto", scale=1,
                                     label="Device", info=f"auto = {describe_device('auto')}")
            corpus_note = gr.HTML(elem_id="race-corpus-note")
            with gr.Accordion("More settings: pace, block length, batch, learning rate, probe interval, generator temperature",
                              open=False):
                with gr.Row():
                    pace = gr.Radio([("equal FLOPs (fair)", "flops"), ("equal steps", "steps"), ("equal time", "time")],
                                    value="flops", label="Keep the two level on")
                    seq_len = gr.Number(defaults.seq_len, precision=0, label="Tokens per block")
                    batch_size = gr.Number(defaults.batch_size, precision=0, label="Blocks per step")
                    lr = gr.Number(defaults.lr, label="Peak learning rate")
                    temperature = gr.Number(defaults.temperature, label="Generator temperature (above 1: more surprising "
                                            "replacements, easier to spot)", elem_id="race-temperature")
                    probe_every = gr.Number(defaults.probe_every, precision=0, label="Probe every N steps (0: at the end)")
            with gr.Row():
                start = gr.Button("Start the race", variant="primary", elem_id="race-start", interactive=live)
                stop = gr.Button("Stop (keeps what was trained)", variant="stop", elem_id="race-stop")
            message = gr.HTML(elem_id="race-message")
            status = gr.HTML(view.status_html(None), elem_id="race-status-box")
            x_axis = gr.Radio([("step", "step"), ("wall-clock", "wall_time"), ("FLOPs", "flops"), ("tokens seen", "tokens")],
                              value="step", label="x-axis of the charts (FLOPs = compare at equal compute)", elem_id="race-x-axis")
            curves = gr.Plot(show_label=False, elem_id="race-curves")
            gr.Markdown(CURVES_HELP)
            supervised = gr.Plot(show_label=False, elem_id="race-supervised")
            gr.Markdown("RTD gets a training signal from every token; MLM only from the ~15% it masked: the denser signal.")
            payoff = gr.Plot(show_label=False, elem_id="race-payoff")
            gr.Markdown(PAYOFF_HELP)
            gr.Markdown("### Results\nThese buttons wake up when the race has ended (or been stopped).")
            with gr.Row():
                csv_button = gr.DownloadButton("Metrics (CSV)", interactive=False, elem_id="race-csv")
                zip_button = gr.DownloadButton("Trained models (zip)", interactive=False, elem_id="race-zip")
                explore_button = gr.Button("Open the ELECTRA pair in Explore", interactive=False, elem_id="race-explore")
            with gr.Row():
                epochs = gr.Number(3, precision=0, label="Fine-tune epochs", scale=0, min_width=140)
                finetune = gr.Button("Full fine-tune of both encoders and the floor (about 6 min each on a CPU)",
                                     interactive=False, elem_id="race-finetune-start")
            finetune_view = gr.HTML(elem_id="race-finetune-box")
        with gr.Tab("Replay a recorded race", id="replay", elem_id="race-replay-tab"):
            build_replay(demo)
    shown = gr.State(None)  # what this page last drew (a view detail, not the race)

    private = dict(api_visibility="private")
    preset.change(preset_changed, [preset], [budget, amount, seq_len, batch_size, lr, probe_every, temperature, preset_note],
                   **private)
    upload.change(corpus_check, [upload], [corpus_note], **private)
    upload.upload(lambda: "upload", None, [corpus], **private)
    start.click(start_race, [preset, budget, amount, corpus, upload, seed, device, pace, seq_len, batch_size, lr,
                             probe_every, temperature], [message], **private)
    stop.click(stop_race, None, [message], **private)
    finetune.click(start_finetune, [epochs], [message], **private)
    outputs = [status, curves, supervised, payoff, csv_button, zip_button, explore_button, finetune, finetune_view, shown]
    timer = gr.Timer(TICK_SECONDS)
    timer.tick(refresh, [x_axis, shown], outputs, show_progress="hidden", concurrency_limit=None, **private)
    x_axis.change(refresh, [x_axis, shown], outputs, show_progress="hidden", **private)
    demo.load(refresh, [x_axis, shown], outputs, show_progress="hidden", **private)  # a reload reattaches

    explore = explore_model
    if explore is not None:  # switch to the Explore tab, then show the pair there
        explore_button.click(open_in_explore, None, list(explore), **private, **queues.MODEL,
                             js="() => { [...document.querySelectorAll('button[role=tab]')]"
                                ".find(b => b.innerText.trim() === 'Explore')?.click(); }")
