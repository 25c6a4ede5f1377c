"""The Classroom's Efficiency view: the paper's points (data in `training.paper`) beside this app's
own measured races and the user's race, as one plotly figure (no gradio here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explainer.render.style import MLM_COLOUR, MUTED, RTD_COLOUR, esc
from training.paper import PAPER_POINTS, SHORT_SOURCE


@dataclass(frozen=True)
class RacePoint:
    objective: str  # "RTD" or "MLM" (upper case), or whatever the race named
    flops: float
    accuracy: float  # percent


def race_points(race: dict | None) -> tuple[RacePoint, ...]:
    """The usable entries of a race result; malformed ones are left out (None -> no race yet)."""
    points = []
    for objective, result in (race or {}).items():
        try:
            flops, accuracy = float(result["flops"]), float(result["accuracy"])
        except (KeyError, TypeError, ValueError):
            continue
        if not (math.isfinite(flops) and flops > 0 and math.isfinite(accuracy) and 0 <= accuracy <= 100):
            continue
        points.append(RacePoint(str(objective).upper(), flops, accuracy * 100 if accuracy <= 1 else accuracy))
    return tuple(points)


COLOURS = {"RTD": RTD_COLOUR, "MLM": MLM_COLOUR, "LM": MUTED}  # the paper's objectives


def my_gap(race: dict | None) -> dict | None:
    """{"flops", "gap"} of a race with both final probes (accuracy 0..1 or percent), else None."""
    points = {p.objective: p for p in race_points(race)}
    if "RTD" not in points or "MLM" not in points:
        return None
    return {"flops": points["RTD"].flops, "gap": (points["RTD"].accuracy - points["MLM"].accuracy) / 100}


def efficiency_figure(race: dict | None = None, groups: list[dict] | None = None):
    """Top: the paper's points (log FLOPs vs GLUE). Below: this app's measured races, ELECTRA − BERT-style
    by budget (`groups`, training.race.campaign.gaps_by_budget: shipped with the app), and the user's own
    race when there is one; "no race yet" when there is neither."""
    from explainer.render.verdict import gap_traces

    mine = my_gap(race)
    right = ("This app's races: ELECTRA − BERT-style<br>probe accuracy"
             + (" (★ yours)" if mine else " (measured, shipped)")
             if groups or mine else "Your race: ELECTRA − BERT-style")
    # Stacked, not side by side: the server cannot know the screen, and two ~300-px panels read on a phone
    # as well as on a projector; every title fits one 420-px screen's width (long ones wrap with <br>).
    figure = make_subplots(rows=2, cols=1, vertical_spacing=0.17, subplot_titles=(
        "The paper: GLUE dev score vs. compute", right))
    figure.update_annotations(font_size=14)  # the two subplot titles
    for objective, name in (("RTD", "ELECTRA (RTD)"), ("MLM", "BERT (MLM)"), ("LM", "ELMo / GPT (language models)")):
        points = [p for p in PAPER_POINTS if p.objective == objective]
        figure.add_trace(go.Scatter(
            x=[p.train_flops for p in points], y=[p.glue for p in points], mode="markers+text", name=name,
            text=[p.model for p in points],  # labels beside the marker, towards the middle of the panel
            textposition=["bottom center" if objective == "MLM" else "middle right" if p.train_flops < 1e19
                          else "middle left" for p in points],
            marker=dict(size=14, color=COLOURS[objective], symbol="diamond" if objective == "RTD" else "circle"),
            hovertemplate="%{text}: %{x:.1e} FLOPs, GLUE %{y}<extra></extra>"), 1, 1)
    for small, big in (("BERT-Small", "ELECTRA-Small"), ("BERT-Base", "ELECTRA-Base")):
        a, b = (next(p for p in PAPER_POINTS if p.model == m) for m in (small, big))
        figure.add_annotation(x=math.log10(b.train_flops), y=b.glue, ax=math.log10(a.train_flops), ay=a.glue,
                              xref="x", yref="y", axref="x", ayref="y", showarrow=True, arrowhead=3,
                              arrowwidth=2, arrowcolor=COLOURS["RTD"], text="")
        inward = a.train_flops < 1e19  # the label on the side of the arrow towards the panel's middle
        figure.add_annotation(x=math.log10(a.train_flops), y=(a.glue + b.glue) / 2, xref="x", yref="y",
                              text=f"same compute: +{b.glue - a.glue:.1f}", showarrow=False,
                              xanchor="left" if inward else "right", xshift=8 if inward else -8,
                              font=dict(color=COLOURS["RTD"]))
    figure.update_xaxes(type="log", title_text="pretraining FLOPs (log scale)", row=1, col=1, range=[17.8, 20.3])
    figure.update_yaxes(title_text="GLUE dev score", row=1, col=1, range=[66.5, 88])
    figure.add_annotation(text=f"Source: {esc(SHORT_SOURCE).replace(', ICLR', ',<br>ICLR')} (GLUE dev)",
                          xref="x domain", yref="y domain", x=0.99, y=0.02, xanchor="right", yanchor="bottom",
                          align="right", showarrow=False, font=dict(size=11, color="#555"))

    traces = gap_traces(groups or [], mine)
    if traces:
        for trace in traces:
            figure.add_trace(trace, 2, 1)
        figure.add_hline(y=0, line=dict(color=MUTED, dash="dot"), row=2, col=1)
        figure.update_xaxes(type="log", title_text="pretraining FLOPs per objective (log scale)", row=2, col=1,
                            exponentformat="power")
        figure.update_yaxes(title_text="ELECTRA − BERT-style (points)", row=2, col=1, zeroline=False)
    else:
        bottom, top = figure.layout.yaxis2.domain  # paper coordinates: an empty subplot has no axes to refer to
        figure.add_annotation(text="No race yet.<br>Run a race in the Training tab<br>and it appears here.",
                              xref="paper", yref="paper", x=0.5, y=(bottom + top) / 2, showarrow=False,
                              font=dict(size=15, color="#555"), bordercolor="#bbb", borderwidth=1, borderpad=12)
        figure.update_xaxes(visible=False, row=2, col=1)
        figure.update_yaxes(visible=False, row=2, col=1)
    figure.update_layout(height=880, template="plotly_white", margin=dict(l=10, r=10, t=50, b=10),
                         legend=dict(orientation="h", y=-0.1, yanchor="top"), title_font_size=14)
    return figure
