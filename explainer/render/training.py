"""A race snapshot (training.race.Race.snapshot) -> plotly figures and escaped HTML for the Training tab.

No gradio here: every view renders without a server, so tests call these functions directly.
- `curves_figure`: the masked-word losses (MLM baseline, ELECTRA's generator) above the discriminator
  (raw RTD loss, accuracy, AUC, and what a discriminator that always answers "original" would score);
- `supervised_figure`: cumulative supervised positions, the "denser signal" made visible;
- `payoff_figure`: linear-probe accuracy vs pretraining FLOPs for both objectives and the untrained
  floor, above the paper's published points, labelled as the paper's (two panels, one above the other:
  they read on a 420-px phone as well as on a projector);
- `status_html`, `finetune_html`: one line of where the race is, and the fine-tune results.
Curves are moving averages over the last few steps (per-step losses on small batches are noisy).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explainer.core.race_opening import RUNNING, TEST_PRESETS
from explainer.render.style import FONT, MLM_COLOUR, MUTED, RTD_COLOUR, esc
from training.events import TrainEvent, last_probe
from training.paper import PAPER_POINTS, SHORT_SOURCE
from training.project import PROJECT
from training.race.campaign import budget_text

FLOOR_COLOUR = MUTED  # the untrained encoder, guides
NAMES = {"rtd": "ELECTRA (RTD)", "mlm": "BERT-style (MLM)"}
X_AXES = {  # x-axis choice -> (event key, axis title)
    "step": ("step", "training step"),
    "wall_time": ("wall_time", "wall-clock time since the start (s)"),
    "flops": ("flops", "training FLOPs used"),
    "tokens": ("tokens", "tokens seen"),
}
FLOPS_TICKS = dict(exponentformat="power")  # every FLOPs axis of the tab reads 1×10¹³, never 10T or 1e13
MAX_POINTS = 400  # per curve: enough for the eye, small enough to send every second
SMOOTH = 10  # steps in the moving average
NO_PROBE_AFTER_STOP = ("No probe: the race ended before its first one,<br>and none runs after a Stop. "
                       "Both models are saved:<br>score them with the full fine-tune below.")
LOADING = {"rtd": "loading the text and building ELECTRA's generator and discriminator",
           "mlm": "building the BERT-style model"}  # what a trainer does before its first step


def _thin(xs: list, ys: list) -> tuple[list, list]:
    """At most MAX_POINTS evenly spaced points, always keeping the last."""
    if len(xs) <= MAX_POINTS:
        return xs, ys
    keep = sorted(set(np.linspace(0, len(xs) - 1, MAX_POINTS).round().astype(int).tolist()))
    return [xs[i] for i in keep], [ys[i] for i in keep]


def _series(events: list[TrainEvent], x_key: str, y_key: str, smooth: bool = True) -> tuple[list, list]:
    points = [(x, y) for e in events if (x := e.value(x_key)) is not None and (y := e.value(y_key)) is not None]
    if not points:
        return [], []
    xs, ys = map(list, zip(*points))
    if smooth and len(ys) > 1:
        cumulative = np.cumsum(np.insert(np.asarray(ys, dtype=float), 0, 0.0))
        window = np.minimum(np.arange(1, len(ys) + 1), SMOOTH)
        ys = ((cumulative[1:] - cumulative[np.arange(len(ys)) + 1 - window]) / window).tolist()  # trailing mean
    return _thin(xs, ys)


def _empty(figure: go.Figure, text: str) -> go.Figure:
    figure.add_annotation(text=text, xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False, font=dict(size=15))
    return figure


def _base_rate_loss(p: float) -> float:
    """BCE of a discriminator that always outputs the replaced fraction p (= calls every token original)."""
    return -(p * math.log(p) + (1 - p) * math.log(1 - p)) if 0 < p < 1 else 0.0


def curves_figure(snapshot: dict | None, x_axis: str = "step") -> go.Figure:
    x_key, x_title = X_AXES.get(x_axis, X_AXES["step"])
    events = (snapshot or {}).get("events") or {}
    rtd, mlm = events.get("rtd") or [], events.get("mlm") or []
    if not rtd and not mlm:
        empty = _empty(go.Figure(), "No race yet: start one above.")  # one short box, not two empty panels
        empty.update_xaxes(visible=False)
        empty.update_yaxes(visible=False)
        return figure_layout(empty, 320)
    # Stacked, not side by side (the server cannot know the screen): two ~300-px panels read on a 420-px phone
    # as well as on a projector, every title short enough, or wrapped with <br>, for one phone-wide panel.
    figure = make_subplots(rows=2, cols=1, vertical_spacing=0.16, specs=[[{}], [{"secondary_y": True}]],
                           subplot_titles=("Masked-word loss (lower = better guesses)",
                                           "ELECTRA's discriminator:<br>replaced or original?"))
    figure.update_annotations(font_size=14)  # the two subplot titles
    for name, data, colour, dash in (("MLM baseline (BERT-style)", mlm, MLM_COLOUR, "solid"),
                                     ("ELECTRA's generator (its MLM loss)", rtd, RTD_COLOUR, "dash")):
        xs, ys = _series(data, x_key, "mlm_loss")
        figure.add_trace(go.Scatter(x=xs, y=ys, name=name, mode="lines",
                                    line=dict(color=colour, dash=dash, width=2.5)), 1, 1)
    xs, ys = _series(rtd, x_key, "disc_loss")
    figure.add_trace(go.Scatter(x=xs, y=ys, name="discriminator loss (raw BCE, not ×50)", mode="lines",
                                line=dict(color=RTD_COLOUR, width=2.5)), 2, 1)
    replaced = [e.replaced_fraction for e in rtd[-50:] if e.replaced_fraction is not None]
    if replaced and xs:
        guess = _base_rate_loss(sum(replaced) / len(replaced))
        figure.add_trace(go.Scatter(x=[xs[0], xs[-1]], y=[guess, guess], mode="lines",
                                    line=dict(color=FLOOR_COLOUR, dash="dot"),
                                    name="loss of always answering “original”", hoverinfo="skip"), 2, 1)
    for key, name, colour in (("disc_accuracy", "discriminator accuracy", "#1b7837"),
                              ("disc_auc", "discriminator AUC", "#762a83")):
        xs, ys = _series(rtd, x_key, key)
        figure.add_trace(go.Scatter(x=xs, y=ys, name=name, mode="lines", line=dict(color=colour, width=1.8)), 2, 1,
                         secondary_y=True)
    figure.update_xaxes(title_text=x_title, **(FLOPS_TICKS if x_key == "flops" else {}))
    figure.update_yaxes(title_text="cross-entropy on masked words", row=1, col=1)
    figure.update_yaxes(title_text="loss (BCE per token)", row=2, col=1, secondary_y=False, rangemode="tozero")
    # No 0 on the right-hand axis: it sat on the x-axis's last tick label ("0" over "50T").
    figure.update_yaxes(title_text="accuracy, AUC", row=2, col=1, secondary_y=True, range=[0, 1.02], showgrid=False,
                        tickvals=[0.2, 0.4, 0.6, 0.8, 1.0])
    return stacked_layout(figure, 860)


def supervised_figure(snapshot: dict | None, x_axis: str = "step") -> go.Figure:
    x_key, x_title = X_AXES.get(x_axis, X_AXES["step"])
    figure = go.Figure()
    events = (snapshot or {}).get("events") or {}
    if not any(events.values()):
        empty = _empty(figure, "No race yet: start one above, and the positions<br>each objective learns from "
                       "are counted here.")
        empty.update_xaxes(visible=False)
        empty.update_yaxes(visible=False)
        return figure_layout(empty, 320)
    totals = {}
    for objective, colour in (("rtd", RTD_COLOUR), ("mlm", MLM_COLOUR)):
        xs, ys = _series(events.get(objective) or [], x_key, "supervised_positions", smooth=False)
        totals[objective] = ys[-1] if ys else 0
        figure.add_trace(go.Scatter(x=xs, y=ys, name=NAMES[objective], mode="lines",
                                    line=dict(color=colour, width=2.5)))
    ratio = f"<br>{totals['rtd'] / totals['mlm']:.1f}× as many for RTD" if totals["mlm"] else ""
    figure.update_layout(title=dict(text=f"Positions that gave a learning signal so far{ratio}", font_size=15))
    figure.update_xaxes(title_text=x_title, **(FLOPS_TICKS if x_key == "flops" else {}))
    figure.update_yaxes(title_text="supervised positions (cumulative)", rangemode="tozero")
    return figure_layout(figure, 320)


def payoff_figure(snapshot: dict | None) -> go.Figure:
    """Top: this race's probes (and full fine-tunes) vs FLOPs. Below: the paper's points, for scale."""
    figure = make_subplots(rows=2, cols=1, vertical_spacing=0.2, subplot_titles=(
        "This race: what each encoder<br>is worth downstream", "For scale only:<br>the paper's published results"))
    figure.update_annotations(font_size=14)  # the two subplot titles
    snapshot = snapshot or {}
    probes, floor = snapshot.get("probes") or [], snapshot.get("floor")
    if probes:
        for objective, colour in (("rtd", RTD_COLOUR), ("mlm", MLM_COLOUR)):
            mine = sorted((p for p in probes if p.objective == objective), key=lambda p: p.step)
            figure.add_trace(go.Scatter(
                x=[p.flops for p in mine], y=[100 * p.accuracy for p in mine], mode="lines+markers",
                name=f"{NAMES[objective]}, linear probe", line=dict(color=colour, width=2.5),
                customdata=[p.step for p in mine],
                hovertemplate="step %{customdata}: %{x:.2e} FLOPs, %{y:.1f}%<extra></extra>"), 1, 1)
        if floor:
            xs = [p.flops for p in probes if p.flops > 0]
            figure.add_trace(go.Scatter(x=[min(xs), max(xs)], y=[100 * floor.accuracy] * 2, mode="lines",
                                        line=dict(color=FLOOR_COLOUR, dash="dash"),
                                        name="untrained encoder (the floor)"), 1, 1)
        tuned = ((snapshot.get("extras") or {}).get("finetune") or {}).get("results") or {}
        for objective, colour in (("rtd", RTD_COLOUR), ("mlm", MLM_COLOUR)):
            last = last_probe(probes, objective)
            if objective in tuned and last:
                figure.add_trace(go.Scatter(x=[last.flops], y=[100 * tuned[objective]["accuracy"]], mode="markers",
                                            marker=dict(color=colour, symbol="star", size=15),
                                            name=f"{NAMES[objective]}, full fine-tune"), 1, 1)
        figure.update_xaxes(type="log", title_text="pretraining FLOPs (log scale)", row=1, col=1,
                            **FLOPS_TICKS)
        figure.update_yaxes(title_text="accuracy on held-out review sentences (%)", row=1, col=1)
    else:  # the axes the probes will be drawn on, and what fills them (hidden axes would hide the words too)
        settings = snapshot.get("settings")
        every = (settings or {}).get("probe_every") or 0
        when = (f"every {every:,} steps and at the end" if every else "at the end") if settings else \
            "as the race goes and at the end"
        # plotly.js draws no axes, and no annotation on them, for a panel without a trace: an empty one keeps both
        figure.add_trace(go.Scatter(x=[], y=[], showlegend=False, hoverinfo="skip"), 1, 1)
        lead = "No probe yet." if any((snapshot.get("events") or {}).values()) else "No race yet: start one above."
        text = f"{lead}<br>Each encoder's probe accuracy appears here<br>{when} of the race."
        if snapshot.get("stopping") or snapshot.get("status") in ("stopped", "interrupted", "failed"):
            text = NO_PROBE_AFTER_STOP  # nothing here may promise a probe that will not run
        figure.add_annotation(text=text, xref="x domain", yref="y domain",
                              x=0.5, y=0.5, showarrow=False, font=dict(size=14))
        figure.update_xaxes(type="log", title_text="pretraining FLOPs (log scale)", row=1, col=1, range=[11.8, 16],
                            **FLOPS_TICKS)  # 10^12 clear of the y-axis's lowest label
        figure.update_yaxes(title_text="accuracy on held-out review sentences (%)", row=1, col=1, range=[45, 85])
    for objective, colour, label in (("RTD", RTD_COLOUR, "the paper's ELECTRA"),
                                     ("MLM", MLM_COLOUR, "the paper's BERT")):
        points = [p for p in PAPER_POINTS if p.objective == objective]
        figure.add_trace(go.Scatter(
            x=[p.train_flops for p in points], y=[p.glue for p in points], mode="markers+text", name=label,
            text=[p.model for p in points],
            textposition=["middle right" if p.train_flops < 1e19 else "middle left" for p in points],
            marker=dict(color=colour, size=12, symbol="diamond-open" if objective == "RTD" else "circle-open",
                        line=dict(width=2)),
            hovertemplate="%{text} (paper): %{x:.1e} FLOPs, GLUE %{y}<extra></extra>"), 2, 1)
    figure.update_xaxes(type="log", title_text="pretraining FLOPs (log scale)", row=2, col=1, range=[17.7, 20.5],
                        **FLOPS_TICKS)
    figure.update_yaxes(title_text="GLUE dev score (the paper's benchmark)", row=2, col=1, range=[72, 88])
    figure.add_annotation(text=f"{esc(SHORT_SOURCE)}<br>not measured by this app", xref="x2 domain", yref="y2 domain",
                          x=0.02, y=0.02, xanchor="left", yanchor="bottom", showarrow=False,
                          font=dict(size=11, color=FLOOR_COLOUR))
    return stacked_layout(figure, 880)


def figure_layout(figure: go.Figure, height: int) -> go.Figure:
    figure.update_layout(height=height, template="plotly_white", margin=dict(l=10, r=10, t=60, b=10),
                         legend=dict(orientation="h", y=-0.22), uirevision="race")  # keep the user's zoom on refresh
    return figure


def stacked_layout(figure: go.Figure, height: int) -> go.Figure:
    """`figure_layout` for two panels one above the other: the legend just below the lower panel's axis title."""
    figure_layout(figure, height)
    figure.update_layout(margin_t=70, legend=dict(y=-0.1, yanchor="top"))
    return figure


def amount_text(amount: float) -> str:
    """A budget as people read it: 300, 8, 20000, 1.4e13 (never 14000000000000)."""
    amount = float(amount)
    return f"{amount:.3g}".replace("e+", "e") if abs(amount) >= 1e6 else f"{amount:g}"


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return (f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600
            else f"{seconds // 60}:{seconds % 60:02d}")


def _rate(events: list[TrainEvent]) -> float | None:
    """Tokens per second over this objective's last 20 steps, its own compute time only."""
    recent = [e for e in events[-21:] if e.compute_seconds is not None and e.tokens is not None]
    if len(recent) < 2 or recent[-1].compute_seconds <= recent[0].compute_seconds:
        return recent[-1].tokens_per_second if recent else None
    return (recent[-1].tokens - recent[0].tokens) / (recent[-1].compute_seconds - recent[0].compute_seconds)


def _shown_folder(folder: str) -> str:
    """The race folder as a visitor may see it: relative to the project (runs/races/...), else its
    name alone; never the server's absolute path."""
    path, project = Path(folder), PROJECT
    return str(path.relative_to(project)) if path.is_relative_to(project) else path.name


def status_html(snapshot: dict | None) -> str:
    if not snapshot:
        return f'<p style="{FONT}" id="race-status-line">No race yet on this server.</p>'
    events, settings = snapshot["events"], snapshot["settings"]
    parts = []
    for objective in ("rtd", "mlm"):
        last = (events.get(objective) or [None])[-1]
        if last:
            rate = _rate(events[objective])
            parts.append(f"{objective.upper()} step {last.step:,}" + (f" ({rate:,.0f} tokens/s)" if rate else ""))
    where = " · ".join(parts) or "getting ready…"
    elapsed, progress = snapshot["elapsed"], snapshot.get("progress") or 0.0
    status, loading = snapshot["status"], snapshot.get("loading")
    if status in ("waiting", "running") and loading and not snapshot["stopping"]:
        text = (f"● Getting ready: {LOADING.get(loading, 'loading')}… {_clock(snapshot.get('loading_for') or 0)}"
                f" (not on the race's clock)" + (f" · {where}" if parts else ""))
    elif status in ("waiting", "running"):
        head = "⏹ Stopping after the current step…" if snapshot["stopping"] else "● Running"
        eta = f" · about {_clock(elapsed * (1 - progress) / progress)} left" if progress > 0.02 else ""
        text = f"{head} · {where} · elapsed {_clock(elapsed)}{eta}"
    elif status == "failed":
        text = f"✗ The race failed: {esc(snapshot['error'] or 'unknown error')}"
    elif status == "interrupted":  # the server restarted mid-race: what reached the disk, read-only
        text = (f"⚠ Interrupted: the server stopped during this race · {where} (as saved) · "
                f"models as last checkpointed in {esc(_shown_folder(snapshot['folder']))}")
    elif status == "stopped":  # what was kept, and nothing that will not come
        probes = len(snapshot.get("probes") or [])
        kept = f"the {probes} probe{'s' if probes != 1 else ''} made before it" if probes else "no probe had run yet"
        text = (f"■ Stopped after {_clock(elapsed)} · {where} · kept: both models as trained so far, in "
                f"{esc(_shown_folder(snapshot['folder']))}, and {kept} (none runs after a Stop)")
    else:
        text = (f"✓ Finished after {_clock(elapsed)} · {where} · models saved in "
                f"{esc(_shown_folder(snapshot['folder']))}")
    budget = (f"{settings['amount']:g} {settings['budget']}"
              + (" per objective" if settings["budget"] != "minutes" else ""))
    test = (" (a test size: its scores say nothing about the two objectives)"
            if settings["preset"] in TEST_PRESETS else "")
    detail = (f"{esc(settings['preset'])} preset{test}, seed {settings['seed']}, budget {budget}, "
              f"on {esc(snapshot['device'])}")
    return (f'<div style="{FONT}" id="race-status">{provenance_html(snapshot)}'
            f'<p id="race-status-line" style="font-size: 1.05em; margin: 0">'
            f"<b>{text}</b></p><p style=\"margin: 2px 0 0; color: #555\">{detail}</p></div>")


def _utc(moment: str | None) -> str:
    """An ISO time as "03:46 UTC on 2026-12-05"; "" when unknown or unreadable."""
    try:
        when = datetime.fromisoformat(str(moment)).astimezone(timezone.utc) if moment else None
    except ValueError:
        return ""
    return f"{when:%H:%M} UTC on {when:%Y-%m-%d}" if when else ""


def provenance_html(snapshot: dict) -> str:
    """Whose race the live view shows, and since when: this server's, not the recorded race of the headline."""
    started = _utc(snapshot.get("started"))
    since = f", started at {started}" if started else ""
    if snapshot["status"] in RUNNING:
        says = f"Live on this server now{since}: every visitor of this tab watches the same race."
    else:
        says = f"The last race run on this server{since}."
    return (f'<p id="race-provenance" style="margin: 0 0 2px; color: #555">{esc(says)} It is not the recorded '
            "race the headline above describes.</p>")


def finetune_html(snapshot: dict | None) -> str:
    state = ((snapshot or {}).get("extras") or {}).get("finetune")
    if not state:
        return ""
    rows = "".join(f"<li>{esc(name)}: <b>{100 * r['accuracy']:.1f}%</b> ({r['seconds'] / 60:.1f} min)</li>"
                   for name, r in state.get("results", {}).items())
    head = {"running": "Fine-tuning… (the encoders one after the other)", "finished": "Full fine-tune finished",
            "failed": f"Fine-tune failed: {esc(state.get('error', ''))}",
            "interrupted": "Fine-tune interrupted: the server stopped while it ran"}.get(state.get("status"), "")
    return f'<div style="{FONT}" id="race-finetune"><p><b>{head}</b></p><ul>{rows}</ul></div>'


def replay_status_html(snapshot: dict, record: dict, playing: bool) -> str:
    """Where a replay stands: playing or paused, each objective's step, the race clock, the probes so far."""
    position, events = snapshot["progress"], snapshot["events"]
    parts = [f"{objective.upper()} step {events[objective][-1].step:,}" for objective in ("rtd", "mlm")
             if events.get(objective)]
    head = "▶ Replaying" if playing and position < 1 else ("✓ End of the recording" if position >= 1 else "⏸ Paused")
    probes = len(snapshot["probes"])
    clock = f"race clock {_clock(snapshot['elapsed'])} of {_clock(record.get('elapsed') or 0)}"
    line = " · ".join([head, f"{100 * position:.0f}%", *parts, clock,
                       f"{probes} probe{'s' if probes != 1 else ''} so far" if position < 1 else f"{probes} probes"])
    settings = record["settings"]
    when = f" on {esc(str(record['started'])[:10])}" if record.get("started") else ""
    corpus = str(settings.get("corpus") or "")
    corpus = corpus if corpus.replace("+", "").isalpha() else "uploaded"  # never a server path
    detail = (f"Recorded race “{esc(record['title'])}”: {esc(settings['preset'])} preset, {esc(corpus)} text"
              f", seed {settings['seed']}, budget {esc(budget_text(settings))}, pace: equal {esc(settings['pace'])}; "
              f"run on {esc(record.get('device') or 'an unknown device')}{when}")
    about = (f'<p style="margin: 2px 0 0; color: #555">{esc(record["description"])}</p>'
             if record.get("description") else "")
    return (f'<div style="{FONT}" id="replay-status"><p id="replay-status-line" style="font-size: 1.05em; margin: 0">'
            f"<b>{esc(line)}</b></p><p style=\"margin: 2px 0 0; color: #555\">{detail}</p>{about}</div>")
