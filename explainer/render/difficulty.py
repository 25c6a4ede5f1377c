"""The generator's difficulty as plotly figures and escaped HTML (no gradio here): the temperature sweep
(explainer.lesson.difficulty) and the generator-strength study (explainer.lesson.strength, the paper's Figure 3).

MLM's blue draws accuracy, RTD's orange the discriminator's ROC-AUC; the weaker generator is dashed. In the
strength figure the shipped generator is RTD's orange star, the stronger generator the app offers a black diamond,
the others grey. `forger_line_html` is the one line the choice of generator shows beside it (Explore, the game,
the live class): what the study measured for each of the two.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explainer.lesson.difficulty import WEAKER, Sweep
from explainer.lesson.strength import MEASURE_COMMAND, StrengthPoint, StrengthStudy
from explainer.render.style import FONT, MLM_COLOUR, MUTED, RTD_COLOUR, esc


def sweep_figure(sweep: Sweep) -> go.Figure:
    """Top: how many tokens really get replaced; below: how well the discriminator spots them. Stacked, and
    every title short enough (or wrapped) to fit a 420-px phone screen as well as a projector."""
    figure = make_subplots(rows=2, cols=1, vertical_spacing=0.2, subplot_titles=(
        "Tokens really replaced (of all tokens)", "Discriminator: ROC-AUC (solid)<br>and accuracy (dotted)"))
    figure.update_annotations(font_size=14)  # the two subplot titles
    for variant, dash in (("full", "solid"), (WEAKER, "dash")):
        points = [p for p in sweep.points if p.generator == variant]
        if not points:
            continue
        label = "generator" if variant == "full" else f"weaker generator ({WEAKER})"
        x = [p.temperature for p in points]
        top1 = f" · top-1 {points[0].generator_top1:.0%}"
        figure.add_trace(go.Scatter(x=x, y=[p.replaced_fraction for p in points], mode="lines+markers",
                                    name=f"replaced, {label}{top1}", line=dict(color="#555", dash=dash)), 1, 1)
        figure.add_trace(go.Scatter(x=x, y=[p.auc for p in points], mode="lines+markers", name=f"AUC, {label}",
                                    line=dict(color=RTD_COLOUR, dash=dash)), 2, 1)
        figure.add_trace(go.Scatter(x=x, y=[p.accuracy for p in points], mode="lines+markers",
                                    name=f"accuracy, {label}", line=dict(color=MLM_COLOUR, dash="dot"),
                                    marker=dict(symbol="circle-open" if variant == "full" else "x")), 2, 1)
    figure.add_hline(y=sweep.masked / sweep.tokens, line=dict(color="#999", width=1, dash="dot"), row=1, col=1,
                     annotation_text="ceiling: the tokens masked", annotation_position="top left")
    figure.add_hline(y=0.5, line=dict(color="#999", width=1, dash="dot"), row=2, col=1,
                     annotation_text="AUC 0.5 = guessing", annotation_position="bottom right")
    for row in (1, 2):
        figure.add_vline(x=1.0, line=dict(color="#bbb", width=1), row=row, col=1)
    figure.update_xaxes(title_text="generator temperature<br>(1 = as trained; higher = wilder draws)")
    peak = max(p.replaced_fraction for p in sweep.points)
    figure.update_yaxes(range=[0, max(sweep.masked / sweep.tokens, peak) * 1.25], row=1, col=1, tickformat=".0%")
    figure.update_yaxes(range=[0, 1.02], row=2, col=1)
    figure.update_layout(height=880, template="plotly_white", margin=dict(l=10, r=10, t=40, b=10),
                         legend=dict(orientation="h", y=-0.12, yanchor="top"))
    return figure


def sweep_summary_html(sweep: Sweep) -> str:
    full = [p for p in sweep.points if p.generator == "full"]
    if not full:
        return ""
    cold, hot = full[0], full[-1]
    weak = [p for p in sweep.points if p.generator == WEAKER]
    at_one = {p.generator: p for p in sweep.points if p.temperature == 1.0}
    compare = ""
    if weak and set(at_one) == {"full", WEAKER}:
        f, w = at_one["full"], at_one[WEAKER]
        compare = (f" Where it sees [MASK], the generator's top guess is the hidden word {f.generator_top1:.0%} of the "
                   f"time; cut after its "
                   f"first layer, {w.generator_top1:.0%}. At temperature 1 the discriminator's AUC is {f.auc:.2f} "
                   f"against the full generator and {w.auc:.2f} against the weaker one.")
    return (f'<div class="ee-c" style="{FONT}"><p>{sweep.sentences} held-out sentences ({sweep.tokens} tokens, '
            f"{sweep.masked} of them masked, the same ones at every temperature), corrupted by the generator of "
            f"<b>{esc(sweep.model)}</b>. At temperature {cold.temperature:g} the generator mostly draws its top "
            f"guess: {cold.replaced_fraction:.0%} of tokens end up replaced and the discriminator's AUC is "
            f"{cold.auc:.2f}. At {hot.temperature:g} the draws get wild: {hot.replaced_fraction:.0%} replaced, AUC "
            f"{hot.auc:.2f}.{compare}</p><p><b>The lesson:</b> too weak a generator (hot, or shallow) makes "
            "detection trivial and teaches little; too strong a one leaves few, subtle replacements. The paper's "
            "best generators were 1/4 to 1/2 the discriminator's size. Accuracy alone misleads: calling every token "
            f"original already scores {1 - cold.replaced_fraction:.0%} at {cold.temperature:g}.</p></div>")


# --- the generator-strength study: several generators against one discriminator -----------------------

def _pct(value: float, digits: int = 0) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}%}"  # NaN: nothing to count (no replaced word)


def _strength_hover(p: StrengthPoint, current: str | None) -> str:
    role = " (shipped)" if p.shipped else " (the stronger generator you can choose)" if p.stronger else ""
    role += " · in use" if p.name == current else ""
    return (f"<b>{esc(p.name)}</b>{role}<br>{p.layers} layers × {p.hidden}<br>"
            f"generator at [MASK]: top-1 {_pct(p.top1_at_mask, 1)}, top-5 {_pct(p.top5_at_mask, 1)}<br>"
            f"held-out English: ROC-AUC {p.auc:.3f}, recall {_pct(p.recall, 1)}, "
            f"false alarms {_pct(p.false_alarm_rate, 1)}<br>"
            f"classroom: {_pct(p.classroom_recall)} of replaced words flagged, "
            f"{_pct(p.classroom_false_alarms)} of original words;<br>top-rated word replaced in "
            f"{_pct(p.classroom_top_word)} of scenes")


def strength_figure(study: StrengthStudy, current: str | None = None) -> go.Figure:
    """Top: the discriminator's ROC-AUC against each generator; below: the replaced words it flags in the
    classroom sentences; x: each generator's top-1 where it saw [MASK]. The shipped generator is a star;
    `current` (a point's name) is ringed as the generator in use. Stacked to fit a phone and a projector."""
    figure = make_subplots(rows=2, cols=1, vertical_spacing=0.24, subplot_titles=(
        "Discriminator: ROC-AUC<br>on held-out English", "Replaced words it flags<br>(classroom sentences)"))
    figure.update_annotations(font_size=14)  # the two subplot titles
    points = sorted(study.points, key=lambda p: p.top1_at_mask)
    x = [p.top1_at_mask for p in points]
    low, high = min(x), max(x)
    pad = max(high - low, 0.1) * 0.15
    symbols = iter(("circle", "square", "diamond", "triangle-up", "triangle-down", "pentagon", "hexagon", "cross", "x"))
    style = {p.name: ("star", 20, RTD_COLOUR) if p.shipped else ("diamond", 16, "#111") if p.stronger else
             (next(symbols, "circle"), 12, "#555") for p in points}
    for row, metric in ((1, "auc"), (2, "classroom_recall")):
        figure.add_trace(go.Scatter(x=x, y=[getattr(p, metric) for p in points], mode="lines", showlegend=False,
                                    line=dict(color=MUTED, width=1, dash="dot"), hoverinfo="skip"), row, 1)
        # one trace per generator: its own marker and legend entry (labels beside close points overlap)
        for p in points:
            symbol, size, colour = style[p.name]
            figure.add_trace(go.Scatter(
                x=[p.top1_at_mask], y=[getattr(p, metric)], mode="markers", name=esc(p.name), legendgroup=p.name,
                showlegend=row == 1, cliponaxis=False,
                marker=dict(symbol=symbol, size=size, color=colour, line=dict(color="#fff", width=1)),
                hovertext=[_strength_hover(p, current)], hoverinfo="text"), row, 1)
        used = [p for p in points if p.name == current]
        if used:
            figure.add_trace(go.Scatter(
                x=[used[0].top1_at_mask], y=[getattr(used[0], metric)], mode="markers", hoverinfo="skip",
                marker=dict(symbol="circle-open", size=30, color="#111", line=dict(width=2)),
                name="the generator in use", legendgroup="current", showlegend=row == 1), row, 1)
    lowest = min(p.auc for p in points)
    figure.add_hline(y=0.5, line=dict(color="#999", width=1, dash="dot"), row=1, col=1,
                     annotation_text="AUC 0.5 = guessing", annotation_position="bottom right")
    figure.update_xaxes(title_text="generator's top-1 where it saw [MASK]<br>(stronger generator →)",
                        tickformat=".0%", range=[max(low - pad, 0), min(high + pad, 1)])
    figure.update_yaxes(range=[min(0.45, lowest - 0.05), 1.02], row=1, col=1)
    figure.update_yaxes(range=[0, min(1.0, max(p.classroom_recall for p in points) * 1.25 + 0.05)], tickformat=".0%",
                        row=2, col=1)
    figure.update_layout(height=820, template="plotly_white", margin=dict(l=10, r=10, t=40, b=10),
                         legend=dict(orientation="h", y=-0.14, yanchor="top"))
    return figure


def strength_summary_html(study: StrengthStudy | None, matches: bool) -> str:
    """What the points are, the shipped generator's figures, the weakest's and the strongest's, and the lesson;
    a note when the study belongs to another discriminator than the model in use (`matches` False)."""
    if study is None:
        return (f'<div class="ee-c" style="{FONT}"><p>The generator-strength study has not been measured for this '
                "model yet. To measure it (several generators against the bundled discriminator, a few minutes on "
                f"a CPU):</p><pre><code>{esc(MEASURE_COMMAND)}</code></pre></div>")
    note = "" if matches else (
        '<p class="ee-strength-other" role="note" style="background: #fff4e5; border: 1px solid #e6a23c; '
        'border-radius: 6px; padding: 6px 10px"><b>Note:</b> these points were measured against the bundled '
        "model's discriminator, not the model in use: they show the trade-off, not this model's figures.</p>")
    points = sorted(study.points, key=lambda p: p.top1_at_mask)
    weakest, strongest = points[0], points[-1]
    n = len(points)
    intro = (f"<p>{n} generator{'s' if n != 1 else ''} against one discriminator ({esc(study.discriminator)}), "
             f"each point one generator: its top-1 where it saw [MASK] and the discriminator's ROC-AUC on "
             f"{study.blocks} held-out blocks of broad English, and the share of replaced words it flags in the "
             f"{study.sentences} classroom sentences under {len(study.seeds)} "
             f"seed{'s' if len(study.seeds) != 1 else ''}.</p>")

    def figures(p: StrengthPoint) -> str:
        return (f"<b>{esc(p.name)}</b>: top guess right {_pct(p.top1_at_mask)} of the time, ROC-AUC {p.auc:.2f}, "
                f"{_pct(p.classroom_recall)} of the classroom's replaced words flagged "
                f"({_pct(p.classroom_false_alarms, 1)} of the original words)")

    shipped, stronger = study.forgers()
    lines = [f"The shipped generator (★), {figures(shipped)}." if shipped else ""]
    if stronger is not None:
        lines.append(f"The stronger generator (◆) you can choose in Explore, the game and the live class, "
                     f"{figures(stronger)}.")
    if n > 1:
        ends = [(label, p) for label, p in (("weakest", weakest), ("strongest", strongest))
                if p is not shipped and p is not stronger]
        lines += [f"The {label}, {figures(p)}." for label, p in ends]
        lines += [f"The shipped generator is the {label} here." for label, p in
                  (("weakest", weakest), ("strongest", strongest)) if p is shipped]
    if n > 1 and strongest.auc < weakest.auc:
        here = " Here too: the discriminator's AUC falls as the generator gets stronger."
    elif n > 1:
        here = " These points do not show that fall; a few hundred blocks leave the AUC a little noisy."
    else:
        here = ""
    lesson = ("<p><b>The lesson:</b> the stronger the generator, the subtler its fakes: they are plausible words, "
              f"and the discriminator catches fewer of them.{here} Too weak a generator makes fakes that are easy "
              "to spot and teaches the discriminator little; the paper (Figure 3) found generators 1/4 to 1/2 the "
              "discriminator's size work best.</p>")
    if stronger is not None:
        lesson += ("<p>The discriminator trained against the shipped generator (★) only: the stronger one (◆) is "
                   "an opponent it never trained against. Its figures show how hard that generator's fakes are to "
                   "catch, not what a discriminator trained against it would learn.</p>")
    return (f'<div class="ee-c" style="{FONT}">{note}{intro}'
            f'<p>{" ".join(line for line in lines if line)}</p>{lesson}</div>')


def _forger_figures(p: StrengthPoint) -> str:
    return (f"flags {_pct(p.classroom_recall)} of the fakes; its top-rated word is a fake in "
            f"{_pct(p.classroom_top_word)} of the sentences")


def forger_line_html(study: StrengthStudy | None) -> str:
    """The measured consequence of the choice of generator, in one line: for ELECTRA's generator and the stronger
    one, the share of fakes the discriminator flags on the classroom sentences and how often its top-rated word is
    a fake (assets/generator_strength.json). The shipped figures alone when the study has no stronger point; ""
    when there is no study."""
    shipped, stronger = study.forgers() if study is not None else (None, None)
    if shipped is None:
        return ""
    text = ("Measured on the classroom sentences: against ELECTRA's generator the discriminator "
            f"{_forger_figures(shipped)}")
    if stronger is not None:
        text += (f"; against the stronger one it flags {_pct(stronger.classroom_recall)}, and its top-rated word is "
                 f"a fake in {_pct(stronger.classroom_top_word)}")
    return f'<p class="ee-forger-line" style="{FONT}; font-size: 0.9em; margin: 2px 0">{text}.</p>'
