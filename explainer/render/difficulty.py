"""The temperature sweep (explainer.lesson.difficulty) -> a plotly figure and escaped HTML (no gradio here).

MLM's blue draws accuracy, RTD's orange the discriminator's ROC-AUC; the weaker generator is dashed.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explainer.lesson.difficulty import WEAKER, Sweep
from explainer.render.style import FONT, MLM_COLOUR, RTD_COLOUR, esc


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
