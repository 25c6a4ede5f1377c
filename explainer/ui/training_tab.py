"""Training tab: race ELECTRA (RTD) against a BERT-style baseline (MLM) live, on one budget.

Thin wiring only. The race itself is training.race.run (no gradio); the one `races.MANAGER` of this
process runs it in a background thread and owns its state, so a reloaded page, or a second viewer, sees
the same race (nothing about the race lives in a gr.State), and a second start gets a "busy" message.
A 1-second gr.Timer redraws the charts from the race's snapshot; the figures of one snapshot are
built once and shared by every viewer (`_views`). Replays of recorded races: explainer/ui/replay.py.
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import tempfile
import threading
from pathlib import Path
from types import SimpleNamespace

import gradio as gr

from explainer.render import race_headline, style, verdict
from explainer.render import training as view
from explainer.render.style import message_html
from explainer.ui import queues, race_tabs, races
from explainer.ui.named import named
from explainer.ui.race_budget import amount_label, parse_amount, unit_changed
from explainer.ui.races import CURVES_HELP, PAYOFF_HELP, X_AXES
from explainer.ui.replay import build_replay, measured_gaps, recorded_races
from training.models import PRESETS
from training.race.campaign import load_campaign
from training.race.manager import RaceBusy, check_corpus
from training.race.settings import CPU_RACE_FLOPS, CPU_RACE_MINUTES, default_settings, describe_device

TICK_SECONDS = 1.0

INTRO = """
## Race the two objectives on the same compute
**ELECTRA** (orange) learns by spotting replaced words, on *every* token; the **BERT-style baseline** (blue) by
guessing the ~15% it hid. Same size, text and FLOPs; a quick sentiment test (a *probe*) scores them.
"""


_views_lock = threading.Lock()
_views_cache: dict = {}


# a finished race's files, as gradio serves them
DOWNLOADS = Path(tempfile.gettempdir()) / "electra-explainer-downloads"


def servable(path: Path) -> str:
    """`path`, where gradio may serve it. Races live in the cache folder (training.corpus.races_dir), outside the
    folders gradio serves files from (the work tree, the temp folder): handed over as they are, every redraw after
    the race failed and the page froze on "Stopping…". So a finished race's files are linked (or copied) into the
    temp folder once. Widening gradio's allowed_paths to the races folder instead would serve every race's files,
    other visitors' uploaded texts included."""
    folder = f"{path.parent.name}-{hashlib.sha256(str(path.parent.resolve()).encode()).hexdigest()[:8]}"
    target, stamp = DOWNLOADS / folder / path.name, lambda p: (p.stat().st_mtime, p.stat().st_size)
    if not target.exists() or stamp(target) != stamp(path):  # a link, or a copy2 keeping the time: the same stamp
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(target.name + ".part")
        part.unlink(missing_ok=True)
        try:
            os.link(path, part)  # the same file system: no copy
        except OSError:
            shutil.copy2(path, part)
        os.replace(part, target)
    return str(target)


def _version(race) -> str:
    """What a page has drawn: the race's version, and while a trainer loads (no step moves the version) the
    loading clock's second, so the page shows it ticking."""
    if race is None:
        return "-1"
    return f"{race.version}" + (f"+{int(race.loading_for())}" if race.loading() else "")


def _views(race, x_axis: str) -> dict:
    """Status, figures and files of the race's current snapshot, by name, built once per (race, version, axis)."""
    key = (id(race), _version(race), races.MANAGER.job, x_axis)  # the job: "ended" and "idle" follow it
    with _views_lock:
        if key not in _views_cache:
            snapshot = race.snapshot() if race else None
            ended = race is not None and not race.running and races.MANAGER.job != "race"  # files written
            files = [servable(race.folder / name) if ended and (race.folder / name).exists() else None
                     for name in ("metrics.csv", "models.zip")]
            _views_cache.clear()  # one snapshot at a time: the cache never grows
            _views_cache[key] = {
                "status": view.status_html(snapshot), "curves": view.curves_figure(snapshot, x_axis),
                "supervised": view.supervised_figure(snapshot, x_axis), "payoff": view.payoff_figure(snapshot),
                "csv_file": files[0], "zip_file": files[1], "finetune_view": view.finetune_html(snapshot),
                "ended": ended, "idle": ended and races.MANAGER.job is None,
                "running": race is not None and race.running and races.MANAGER.job == "race"}
        return _views_cache[key]


def refresh(x_axis: str, shown: str | None) -> dict:
    """The timer's handler, by component name: redraw only when the race moved since this page last drew it."""
    race = races.MANAGER.race
    key = f"{id(race)}:{_version(race)}:{races.MANAGER.job}:{x_axis}"
    if key == shown:
        return {}
    views = _views(race, x_axis)
    out = {name: views[name] for name in ("status", "curves", "supervised", "payoff", "finetune_view")}
    out |= {"csv_button": gr.update(value=views["csv_file"], interactive=views["csv_file"] is not None),
            "zip_button": gr.update(value=views["zip_file"], interactive=views["zip_file"] is not None),
            "explore_button": gr.update(interactive=views["ended"]), "finetune": gr.update(interactive=views["idle"]),
            "stop": gr.update(interactive=views["running"], variant="stop" if views["running"] else "secondary"),
            "start": _start_button(), "shown": key}
    if views["ended"]:  # once the race has ended, its status line says what was kept
        out["message"] = ""
    return out


def _start_button() -> dict:
    """"Start the race" is awake only when a start would be taken: on a server that runs live races, while no race
    and no fine-tune runs (a second start would only be told "busy"); its label says what it waits for."""
    job = races.MANAGER.job
    label = {"race": "A race is running…", "finetune": "A fine-tune is running…"}.get(job, "Start the race")
    return gr.update(interactive=live_races() and job is None, value=label,
                     variant="secondary" if job else "primary")


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
        settings = default_settings(preset, device, budget=budget, amount=parse_amount(amount), pace=pace,
                                    seed=int(seed or 0), seq_len=int(seq_len), batch_size=int(batch_size),
                                    lr=float(lr), probe_every=int(probe_every),
                                    **({} if corpus == "upload" else {"corpus": corpus}),
                                    **({} if temperature is ... else {"temperature": float(temperature)}))
        race = races.MANAGER.start(settings, upload if corpus == "upload" else None)
    except RaceBusy as busy:
        return message_html(str(busy))
    except (TypeError, ValueError) as error:  # an emptied number box arrives as None
        return message_html(str(error) if isinstance(error, ValueError)
                            else "Fill in every number (More settings too).")
    return f'<p id="race-started">Started in {race.folder.name}; the charts below update every second.</p>'


def stop_race() -> str:
    if races.MANAGER.stop():
        return '<p id="race-stopping">Stopping after the current step; both models are saved as they are.</p>'
    return message_html("No race is running.")


def corpus_check(upload) -> str:
    """Say at once what is wrong with an upload (empty, binary, too big, not UTF-8) or what it holds."""
    if not upload:
        return ""
    try:
        return f"<p>✓ {check_corpus(upload, races.MANAGER.max_upload_bytes)}</p>"
    except ValueError as error:
        return message_html(str(error))


def preset_note(preset: str) -> str:
    """What the preset is: its note, its size and (mini) its default budget."""
    values, note = default_settings(preset), PRESETS[preset]
    size = (f"{note.discriminator.layers} layers × {note.discriminator.hidden} wide "
            f"(generator {note.generator.hidden} wide)")
    return f"*{note.note}: {size}*" + (
        f" Default budget: {values.amount:.1e} training FLOPs per objective, about {CPU_RACE_MINUTES} minutes on a "
        f"2-core CPU.".replace("e+", "e") if preset == "mini" else "")


def preset_changed(preset: str) -> dict:
    """The preset's defaults for every box, by name, its note, and the unit the budget box is in."""
    values = default_settings(preset)
    return {"budget": values.budget, "amount": gr.update(value=view.amount_text(values.amount),
                                                          label=amount_label(values.budget)),
            "seq_len": values.seq_len,
            "batch_size": values.batch_size, "lr": values.lr, "probe_every": values.probe_every,
            "temperature": values.temperature, "preset_note": preset_note(preset), "unit": values.budget}


def budget_unit_changed(unit: str, amount, previous: str | None, preset: str) -> dict:
    """race_budget.unit_changed, with the budget box's label following the new unit, by name."""
    changed = unit_changed(unit, amount, previous, preset)
    return {**changed, "amount": gr.update(value=changed["amount"], label=amount_label(unit))}


def start_finetune(epochs) -> str:
    try:
        races.MANAGER.start_finetune(int(epochs))
    except (RaceBusy, ValueError) as error:
        return message_html(str(error))
    return "<p>Fine-tuning in the background: the ELECTRA discriminator, the MLM encoder, then the untrained floor.</p>"


def latest_race() -> dict | None:
    """The last finished race's final probe scores, for the Classroom's efficiency view."""
    race = races.MANAGER.race
    if race is None or race.running:
        return None
    result = {o: {"flops": p.flops, "accuracy": p.accuracy} for o in ("rtd", "mlm") if (p := race.final_probe(o))}
    return result or None


def open_in_explore() -> dict:
    """The freshly trained pair, for the Explore tab's model box, its status line and its active model."""
    from explainer.ui.explore import model_status

    race = races.MANAGER.race
    if race is None or race.running or not (race.folder / "rtd" / "discriminator").exists():
        return {"status": message_html("Run a race first: its ELECTRA pair appears here when it ends.")}
    status, model = model_status(str(race.folder / "rtd"))
    return {"model": model, "status": status, "active_model": model}



def headline() -> str:
    """The tab's first lines: the recorded race that trained the most, then why the default race is too short
    to tell the two apart (explainer.render.race_headline; the order is its rule, not a file name)."""
    short = next((g for g in measured_gaps() if math.isclose(g["flops"], CPU_RACE_FLOPS, rel_tol=0.01)), None)
    return race_headline.headline_markdown(recorded_races(), short, CPU_RACE_MINUTES, CPU_RACE_FLOPS)


def _build_verdict() -> None:
    """What the shipped measurements say: the recorded race where ELECTRA pulls ahead and the short race's
    limits in sight; the campaign's verdict, the gap across budgets and every setting tried folded below."""
    campaign = load_campaign()
    gr.Markdown(headline() or verdict.verdict_markdown(campaign).strip().partition("\n")[0], elem_id="race-verdict")
    groups = measured_gaps()
    with gr.Accordion("Why: what the measurements found, the gap at each budget, every setting tried",
                      open=False, elem_id="race-why"):
        gr.Markdown(verdict.verdict_markdown(campaign), elem_id="race-verdict")
        if groups:
            gr.Plot(verdict.gap_figure(groups), show_label=False, elem_id="race-gaps")
            gr.HTML(f'<p style="{style.FONT};color:#555">{verdict.gaps_caption(groups)} Each dot is one race; '
                    "the bar is one standard deviation either side of the mean. The paper measured a different "
                    "benchmark (GLUE) with far more compute: its points give the scale, not a target.</p>",
                    elem_id="race-gaps-caption")
        if campaign:
            gr.Markdown("#### What we measured on this CPU: every setting tried, with seeds")
            gr.HTML(verdict.campaign_html(campaign))


def _build_settings(defaults) -> SimpleNamespace:
    """The race's settings: preset, budget, seed, text, device, and the folded "More settings"."""
    limits = races.MANAGER.limits
    with gr.Row():
        preset = gr.Dropdown(list(limits.presets), value=defaults.preset, label="Model size (preset)", scale=1,
                             elem_id="race-preset")
        budget = gr.Radio([("minutes (whole race)", "minutes"), ("steps (each)", "steps"), ("FLOPs (each)", "flops")],
                          value=defaults.budget, label="Budget in", scale=2, elem_id="race-budget")
        amount = gr.Textbox(view.amount_text(defaults.amount), max_lines=1, scale=1, elem_id="race-amount",
                            label=amount_label(defaults.budget))
        seed = gr.Number(0, precision=0, label="Seed", scale=0, min_width=90)
    note = gr.Markdown(preset_note(defaults.preset))
    with gr.Row():  # the two folded sections side by side: Start stays in the first screen at 1280x720
        with gr.Accordion(f"Text and device: IMDB reviews or your own; {describe_device('auto')}", open=False,
                          elem_id="race-text-device"):
            corpus = gr.Radio(CORPORA, value="imdb", label="Text to pretrain on")
            upload = gr.File(file_types=[".txt", ".jsonl"], type="filepath",
                             label="Your corpus: one document per line "
                                   f"(up to {races.MANAGER.max_upload_bytes / 2**20:g} MB)")
            device = gr.Dropdown([("auto", "auto"), ("CPU", "cpu"), ("CUDA GPU", "cuda")], value="auto",
                                 label="Device", info=f"auto = {describe_device('auto')}")
        with gr.Accordion("More settings: pace, block length, batch, learning rate, probes, temperature", open=False,
                          elem_id="race-more-settings"):
            pace = gr.Radio([("equal FLOPs (fair)", "flops"), ("equal steps", "steps"), ("equal time", "time")],
                            value="flops", label="Keep the two level on")
            with gr.Row():
                seq_len = gr.Number(defaults.seq_len, precision=0, label="Tokens per block")
                batch_size = gr.Number(defaults.batch_size, precision=0, label="Blocks per step")
                lr = gr.Number(defaults.lr, label="Peak learning rate")
            with gr.Row():
                temperature = gr.Number(defaults.temperature, label="Generator temperature (above 1: more "
                                        "surprising replacements, easier to spot)", elem_id="race-temperature")
                probe_every = gr.Number(defaults.probe_every, precision=0, label="Probe every N steps (0: at the end)")
    corpus_note = gr.HTML(elem_id="race-corpus-note")
    unit = gr.State(defaults.budget)  # the unit the budget box's value is in (for unit_changed)
    return SimpleNamespace(preset=preset, budget=budget, amount=amount, seed=seed, preset_note=note, unit=unit,
                           corpus=corpus, upload=upload, device=device, corpus_note=corpus_note, pace=pace,
                           seq_len=seq_len, batch_size=batch_size, lr=lr, temperature=temperature,
                           probe_every=probe_every)


def _build_race_view(live: bool) -> SimpleNamespace:
    """Start/stop, the race's status and charts, and the results' buttons (awake once the race has ended)."""
    with gr.Row():
        start = gr.Button("Start the race", variant="primary", elem_id="race-start", interactive=live)
        stop = gr.Button("Stop (keeps what was trained)", variant="secondary", elem_id="race-stop",
                         interactive=False)  # awake while a race runs (refresh)
    message = gr.HTML(elem_id="race-message")
    status = gr.HTML(view.status_html(None), elem_id="race-status-box")
    x_axis = gr.Radio(X_AXES, value="step", label="x-axis of the charts (FLOPs = compare at equal compute)",
                      elem_id="race-x-axis")
    payoff = gr.Plot(show_label=False, elem_id="race-payoff")  # the result first: what each encoder is worth
    with gr.Accordion("How to read the payoff", open=False):
        gr.Markdown(PAYOFF_HELP)
    curves = gr.Plot(show_label=False, elem_id="race-curves")
    with gr.Accordion("How to read the training curves", open=False):
        gr.Markdown(CURVES_HELP)
    supervised = gr.Plot(show_label=False, elem_id="race-supervised")
    gr.Markdown("RTD gets a training signal from every token; MLM only from the ~15% it masked: the denser signal.")
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
    shown = gr.State(None)  # what this page last drew (a view detail, not the race)
    return SimpleNamespace(start=start, stop=stop, message=message, status=status, x_axis=x_axis, curves=curves,
                           supervised=supervised, payoff=payoff, csv_button=csv_button, zip_button=zip_button,
                           explore_button=explore_button, epochs=epochs, finetune=finetune, finetune_view=finetune_view,
                           shown=shown)


def _wire(demo: gr.Blocks, s: SimpleNamespace, r: SimpleNamespace, explore_model: tuple | None) -> gr.Timer:
    """The live race's events: `s` the settings (_build_settings), `r` the race view (_build_race_view); every
    handler with more than one output returns by component name (`named`)."""
    private = dict(api_visibility="private")
    s.preset.change(named(preset_changed, s), [s.preset], [s.budget, s.amount, s.seq_len, s.batch_size, s.lr,
                                                            s.probe_every, s.temperature, s.preset_note, s.unit],
                    **private)
    s.budget.input(named(budget_unit_changed, s), [s.budget, s.amount, s.unit, s.preset], [s.amount, s.unit], **private)
    s.upload.change(corpus_check, [s.upload], [s.corpus_note], **private)
    s.upload.upload(lambda: "upload", None, [s.corpus], **private)
    r.start.click(start_race, [s.preset, s.budget, s.amount, s.corpus, s.upload, s.seed, s.device, s.pace, s.seq_len,
                               s.batch_size, s.lr, s.probe_every, s.temperature], [r.message], **private)
    r.stop.click(stop_race, None, [r.message], **private)
    r.finetune.click(start_finetune, [r.epochs], [r.message], **private)
    outputs = [r.status, r.curves, r.supervised, r.payoff, r.csv_button, r.zip_button, r.explore_button, r.finetune,
               r.finetune_view, r.shown, r.message, r.stop, r.start]
    timer = gr.Timer(TICK_SECONDS, active=False)  # ticks while the tab is open (explainer/ui/app.py): no page
    # on another tab asks the server every second for a race it does not show
    redraw = named(refresh, r)
    timer.tick(redraw, [r.x_axis, r.shown], outputs, show_progress="hidden", concurrency_limit=None, **private)
    r.x_axis.change(redraw, [r.x_axis, r.shown], outputs, show_progress="hidden", **private)
    demo.load(redraw, [r.x_axis, r.shown], outputs, show_progress="hidden", **private)  # a reload reattaches

    if explore_model is not None:  # switch to the Explore tab, then show the pair there
        r.explore_button.click(named(open_in_explore, explore_model), None, list(explore_model), **private,
                               **queues.MODEL,
                               js="() => { [...document.querySelectorAll('button[role=tab]')]"
                                  ".find(b => b.innerText.trim() === 'Explore')?.click(); }")
    return timer


def build_training(demo: gr.Blocks, explore_model: tuple | None = None) -> gr.Timer:
    """The tab's components and events. `explore_model`: the Explore tab's (model dropdown, status HTML,
    active-model state), which build_explore returns; with it, "Open the ELECTRA pair in Explore" works.
    Returns the timer that redraws the live race, asleep: the app wakes it while the tab is open."""
    defaults = default_settings()
    gr.Markdown(INTRO)
    _build_verdict()
    live = live_races()
    with gr.Tabs(selected=race_tabs.opening(live), elem_id="race-tabs"):
        with gr.Tab(race_tabs.LABELS["live"], id="live", elem_id="race-live-tab"):
            if not live:
                gr.Markdown(NO_LIVE, elem_id="race-no-live")
            settings = _build_settings(defaults)
            race_view = _build_race_view(live)
        with gr.Tab(race_tabs.LABELS["replay"], id="replay", elem_id="race-replay-tab"):
            build_replay(demo)
    timer = _wire(demo, settings, race_view, explore_model)
    race_tabs.open_for_each_visitor(demo, live)
    return timer
