"""Classroom results -> escaped HTML (no gradio here), in the style and colours of `explainer.render.explore`.

MLM (BERT) is drawn in blue, RTD (ELECTRA) in orange throughout; P(replaced) keeps Explore's white ->
red scale and its borders (thick = really replaced, dashed = masked but drew the original). A position
where the generator drew the original back (`WalkStep.drawn_back`) also gets a "drew back" badge, a
tooltip and an aria-label: label 0, not replaced. Every token, sentence and answer passes through
`style.esc`. Presenter mode is a body class
(`ee-present`) that `CLASSROOM_CSS` turns into a full-screen, large-type, black-on-white view.
The Efficiency view draws the paper's points (data in `training.paper`) beside this app's own races.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explainer.lesson.classroom import MASK, STEP_NAMES, WEAKER, SupervisedPositions, Sweep, WalkStep
from explainer.lesson.quiz import Grade, Question
from explainer.render.style import FONT, MLM_COLOUR, MUTED, RTD_COLOUR, chip, esc, legend_html, p_colour, pct
from training.paper import PAPER_POINTS, SHORT_SOURCE

# Gradio's `.prose *` gives every element the body colour; inside our views colours are inherited
# instead, so a white label on a dark chip stays white (the doubled class outranks gradio's rule).
CLASSROOM_CSS = """
div.ee-c.ee-c * { color: inherit; }
.ee-step p.ee-para { font-size: 1.1em; line-height: 1.55; max-width: 70em; }
.ee-walk-tokens { line-height: 2.4; }
body.ee-present #walk-panel { position: fixed; inset: 0; z-index: 1000; overflow: auto; background: #fff;
  padding: 1.5rem 3rem; }
body.ee-present #walk-panel .ee-step { font-size: 1.6rem; color: #000; }
body.ee-present #walk-panel .ee-step h3 { font-size: 1.5em; }
body.ee-present #walk-panel .ee-token { border: 2px solid #000; }
body.ee-present #walk-panel .ee-muted { color: #222 !important; }
body.ee-present #walk-panel button { font-size: 1.3rem; min-height: 3rem; }
"""


def _token(text: str, style: str = "", cls: str = "", title: str = "") -> str:
    return (f'<span class="ee-token {cls}" title="{esc(title)}" style="display: inline-block; border-radius: 6px; '
            f'padding: 1px 6px; margin: 2px; border: 1px solid #bbb; white-space: pre; {style}"><bdi>{esc(text)}</bdi></span>')


def _special_style() -> str:
    return f"color: {MUTED}; border-style: dotted; font-size: 0.85em"


DRAWN_BACK = "masked, but the generator drew the original back: label 0"  # tooltip and aria-label
DRAWN_BACK_BORDER = "2px dashed #777"  # Explore's mark for the same positions (`style.legend_html`)
COLUMN = "display: inline-flex; flex-direction: column; align-items: center; margin: 0 3px"  # a token, a note below


def _badge() -> str:
    """The small "drew back" tag under a drawn-back token (dashed like its outline, no colour of its own)."""
    return ('<span class="ee-badge" style="border: 1px dashed #555; border-radius: 999px; padding: 0 5px; '
            'color: #333; font-size: 0.95em">drew back</span>')


def _drawn_back(chip: str) -> str:
    """A token chip wrapped as a labelled group: screen readers and tooltips say what the mark means."""
    return (f'<span class="ee-drawn-back" role="group" aria-label="{esc(DRAWN_BACK)}" title="{esc(DRAWN_BACK)}" '
            f'style="display: inline-block; vertical-align: top">{chip}</span>')


def _label_legend() -> str:
    """What the Detect step's outlines mean as training labels (the colour scale is `style.legend_html`'s)."""
    sample = "border-radius: 4px; padding: 0 6px"
    return (f'<div class="ee-label-legend" style="{FONT}; font-size: 0.85em; margin-top: 4px; '
            f'display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center">'
            f'<span>Labels the discriminator is trained on:</span>'
            f'<span><span style="border: 3px solid #111; {sample}">word</span> replaced: label 1</span>'
            f'<span><span style="border: {DRAWN_BACK_BORDER}; {sample}">word</span> {_badge()} {esc(DRAWN_BACK)}, '
            f'not replaced</span>'
            f'<span><span style="border: 1px solid #ccc; {sample}">word</span> not masked: label 0</span></div>')


# --- supervised positions ------------------------------------------------------------------------

def _cell(content: str, style: str = "") -> str:
    return f'<td style="padding: 3px 2px; text-align: center; vertical-align: top; {style}">{content}</td>'


def supervised_html(data: SupervisedPositions) -> str:
    """One table, a column per position: what MLM and RTD read and learn there; counts underneath."""
    rows = {name: [] for name in ("token", "mlm_in", "mlm_out", "rtd_in", "rtd_out")}
    for p in data.positions:
        rows["token"].append(_cell(f'<b><bdi>{esc(p.original)}</bdi></b><div class="ee-muted" style="color: {MUTED}; '
                                   f'font-size: 0.75em">#{p.position}</div>'))
        rows["mlm_in"].append(_cell(_token(p.mlm_input, "background: #333; color: #fff", "ee-mask")
                                    if p.mlm_input == MASK else _token(p.mlm_input, _special_style() if p.special else "")))
        if p.mlm:
            rows["mlm_out"].append(_cell(
                f'<div style="background: #deebf7; border: 2px solid {MLM_COLOUR}; border-radius: 6px; padding: 1px 4px">'
                f'<b><bdi>{esc(p.original)}</bdi></b><div style="font-size: 0.7em">1 of {data.vocab_size:,}</div></div>'))
        else:
            rows["mlm_out"].append(_cell(f'<span class="ee-muted" style="color: {MUTED}; font-size: 0.85em">–</span>'))
        changed = "font-weight: bold; border: 2px solid #111" if p.replaced else ""
        rows["rtd_in"].append(_cell(_token(p.rtd_input, changed or (_special_style() if p.special else ""))))
        label = "replaced" if p.replaced else "original"
        strong = f"background: {RTD_COLOUR}; color: #fff" if p.replaced else "background: #fdd0a2; color: #111"
        rows["rtd_out"].append(_cell(
            f'<div style="{strong}; border: 2px solid {RTD_COLOUR}; border-radius: 6px; padding: 1px 3px; '
            f'font-size: 0.8em"><b>{label}</b></div>'))
    heads = {
        "token": "Position",
        "mlm_in": f'<span style="color: {MLM_COLOUR}">MLM (BERT) reads</span>',
        "mlm_out": f'<span style="color: {MLM_COLOUR}">MLM target: the original<br>token ( – = no loss)</span>',
        "rtd_in": f'<span style="color: {RTD_COLOUR}">RTD (ELECTRA) reads</span>',
        "rtd_out": f'<span style="color: {RTD_COLOUR}">RTD target:<br>replaced or original?</span>',
    }
    body = "".join(
        f'<tr><th style="text-align: right; padding: 4px 8px; white-space: nowrap; font-size: 0.9em">{heads[k]}</th>'
        f'{"".join(cells)}</tr>' for k, cells in rows.items())
    table = (f'<div style="overflow-x: auto"><table class="ee-supervised" style="border-collapse: collapse; '
             f'font-size: 0.92em">'
             f"{body}</table></div>")
    return f'<div class="ee-c ee-positions" style="{FONT}">{table}{supervised_counts_html(data)}</div>'


def supervised_counts_html(data: SupervisedPositions) -> str:
    n = len(data.positions)
    ratio = data.rtd_count / max(1, data.mlm_count)

    def bar(label: str, count: int, colour: str, detail: str, cls: str) -> str:
        return (f'<div class="{cls}" style="margin: 6px 0"><div style="font-size: 1.05em"><b style="color: {colour}">'
                f"{label}</b>: <b>{count}</b> of {n} positions give a loss · {detail}</div>"
                f'<div style="background: #eee; height: 14px; border-radius: 7px; max-width: 640px">'
                f'<div style="width: {100 * count / max(1, n):.1f}%; background: {colour}; height: 14px; '
                f'border-radius: 7px"></div></div></div>')

    return (
        '<div style="margin-top: 12px">'
        + bar("MLM (BERT)", data.mlm_count, MLM_COLOUR,
              f"each a softmax over all {data.vocab_size:,} tokens of the vocabulary", "ee-count-mlm")
        + bar("RTD (ELECTRA)", data.rtd_count, RTD_COLOUR,
              f"each {data.rtd_outputs} output (one logit: P(replaced))", "ee-count-rtd")
        + f'<p style="font-size: 1.05em">From this one sentence RTD gets <b>{ratio:.1f}×</b> as many training '
          "targets as MLM. Each is an easier question (yes/no instead of “which of all the words?”), but "
          "every token of every sentence teaches the discriminator something. [CLS] and [SEP] are judged too: "
          "they are never replaced, so they are the easiest positions.</p></div>"
    )


# --- walk-through --------------------------------------------------------------------------------

def _progress(step: WalkStep) -> str:
    pills = []
    for i, name in enumerate(STEP_NAMES, 1):
        on = i == step.number
        style = ("background: #111; color: #fff" if on else "background: #fff; color: #111" if i < step.number
                 else f"background: #fff; color: {MUTED}")
        pills.append(f'<span style="{style}; border: 2px solid #111; border-radius: 999px; padding: 2px 12px; '
                     f'margin-right: 4px; font-weight: {700 if on else 400}">{i} {name.capitalize()}</span>')
    return f'<div class="ee-progress" style="margin-bottom: 8px">{"".join(pills)}</div>'


def _walk_tokens(step: WalkStep) -> str:
    focus = set(step.focus)
    drawn = {m.position: m for m in step.proposals}
    back = set(step.drawn_back)
    chips = []
    for position, token in enumerate(step.tokens):
        special = token in ("[CLS]", "[SEP]")
        if step.name == "detect":
            p = step.p_replaced[position]
            replaced = step.replaced[position]
            title = f"P(replaced) = {p:.3f}"
            if position in back or (position in drawn and not replaced):  # label 0, apart from both others
                chips.append(_drawn_back(chip(esc(token), p_colour(p), f"{pct(p)} · {_badge()}",
                                               f"{title} · {esc(DRAWN_BACK)}", DRAWN_BACK_BORDER, p > 0.6)))
                continue
            below = pct(p) + (f" · was <b>{esc(drawn[position].original)}</b>" if replaced else "")
            border = "3px solid #111" if replaced else "1px solid #ccc"
            chips.append(chip(esc(token), p_colour(p), below, title, border, p > 0.6))
        elif token == MASK:
            chips.append(_token(token, "background: #333; color: #fff; font-family: ui-monospace, monospace", "ee-mask"))
        elif step.name == "swap" and position in drawn:
            m = drawn[position]
            if position in back or not m.replaced:
                marked = _token(token, f"border: {DRAWN_BACK_BORDER}", "", DRAWN_BACK)
                note = f'<span style="font-size: 0.75em">{_badge()} label 0</span>'
                chips.append(_drawn_back(f'<span style="{COLUMN}">{marked}{note}</span>'))
                continue
            style = "border: 3px solid #111; font-weight: bold; background: #fde0d2"
            chips.append(f'<span style="{COLUMN}">'
                         f'{_token(token, style)}<span style="font-size: 0.75em">was {esc(m.original)}</span></span>')
        else:
            underline = "border-bottom: 3px dotted #111" if position in focus else ""
            chips.append(_token(token, _special_style() if special else underline))
    return f'<div class="ee-walk-tokens" style="font-size: 1.15em">{"".join(chips)}</div>'


def _proposal_bars(step: WalkStep) -> str:
    show_draw = step.name != "propose"
    blocks = []
    for number, m in enumerate(step.proposals, 1):
        peak = max([p.probability for p in m.proposals] + [1e-9])
        lines = []
        for p in m.proposals:
            drawn = show_draw and p.token_id == m.sampled_id
            colour = RTD_COLOUR if drawn else "#9ecae1"
            tags = (" (original)" if p.is_original else "") + (" ← drawn" if drawn else "")
            lines.append(f'<div style="display: flex; align-items: center; gap: 6px; margin: 1px 0">'
                         f'<span style="width: 9em; text-align: right; white-space: nowrap; overflow: hidden"><bdi>'
                         f'{esc(p.token)}</bdi></span><span style="display: inline-block; height: 0.9em; '
                         f'width: {max(2.0, 9 * p.probability / peak):.1f}em; background: {colour}"></span>'
                         f"<span>{pct(p.probability)}{tags}</span></div>")
        if show_draw and not any(p.token_id == m.sampled_id for p in m.proposals):
            lines.append(f'<div style="margin-left: 9.4em">… drew <b>{esc(m.sampled)}</b> '
                         f"({pct(m.sampled_probability)}), outside the top guesses</div>")
        blocks.append(f'<div style="min-width: 17em; margin: 6px 18px 6px 0"><div><b>Position #{m.position}</b> '
                      f'(was “{esc(m.original)}”)</div>{"".join(lines)}</div>')
    return f'<div style="display: flex; flex-wrap: wrap; font-size: 0.95em">{"".join(blocks)}</div>'


def walk_step_html(step: WalkStep) -> str:
    state = _walk_tokens(step)
    if step.name in ("propose", "swap"):
        state += _proposal_bars(step)
    if step.name == "detect":
        state += legend_html() + _label_legend()
    return (f'<div class="ee-c ee-step" data-step="{step.name}" style="{FONT}">{_progress(step)}'
            f'<h3 style="margin: 4px 0">Step {step.number} of {len(STEP_NAMES)}: {step.title}</h3>'
            f'<p class="ee-para">{esc(step.paragraph)}</p>{state}</div>')


# --- knowledge check ---------------------------------------------------------------------------------

KIND_HINT = {"choice": "Pick one answer.", "true_false": "True or false?", "short": "Type a short answer."}


def question_html(question: Question, index: int, total: int) -> str:
    return (f'<div class="ee-c ee-question" style="{FONT}"><div class="ee-muted" style="color: {MUTED}; font-size: 0.85em">'
            f"Question {index + 1} of {total} · {KIND_HINT[question.kind]}</div>"
            f'<p style="font-size: 1.2em; margin: 4px 0"><b>{esc(question.prompt)}</b></p></div>')


def feedback_html(grade: Grade) -> str:
    if not grade.answered:
        return f'<div style="{FONT}" role="status">Choose or type an answer first.</div>'
    head = ("✓ Correct." if grade.correct else f"✗ Not quite. The answer: <b>{esc(grade.answer)}</b>.")
    colour, background = ("#1a7f37", "#e6f4ea") if grade.correct else ("#b42318", "#fde8e8")
    return (f'<div class="ee-c ee-feedback" role="status" style="{FONT}; border-left: 5px solid {colour}; '
            f'background: {background}; padding: 8px 12px; border-radius: 4px"><div style="font-size: 1.1em">'
            f"{head}</div><div>{esc(grade.explanation)}</div></div>")


def quiz_score_html(correct: int, answered: int, total: int) -> str:
    done = " All done." if answered == total else ""
    return (f'<div class="ee-quiz-score" style="{FONT}; font-size: 1.1em">Score: <b>{correct}</b> / {answered} '
            f"answered, {total} questions (first tries count).{done}</div>")


# --- generator quality sets the difficulty -------------------------------------------------------------

def sweep_figure(sweep: Sweep) -> go.Figure:
    """Left: how many tokens really get replaced; right: how well the discriminator spots them."""
    figure = make_subplots(rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=(
        "Tokens really replaced (of all tokens)", "Discriminator: ROC-AUC (solid) and accuracy (dotted)"))
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
                                    line=dict(color=RTD_COLOUR, dash=dash)), 1, 2)
        figure.add_trace(go.Scatter(x=x, y=[p.accuracy for p in points], mode="lines+markers",
                                    name=f"accuracy, {label}", line=dict(color=MLM_COLOUR, dash="dot"),
                                    marker=dict(symbol="circle-open" if variant == "full" else "x")), 1, 2)
    figure.add_hline(y=sweep.masked / sweep.tokens, line=dict(color="#999", width=1, dash="dot"), row=1, col=1,
                     annotation_text="ceiling: the tokens masked", annotation_position="top left")
    figure.add_hline(y=0.5, line=dict(color="#999", width=1, dash="dot"), row=1, col=2,
                     annotation_text="AUC 0.5 = guessing", annotation_position="bottom right")
    for col in (1, 2):
        figure.add_vline(x=1.0, line=dict(color="#bbb", width=1), row=1, col=col)
    figure.update_xaxes(title_text="generator temperature (1 = as trained; higher = wilder draws)")
    peak = max(p.replaced_fraction for p in sweep.points)
    figure.update_yaxes(range=[0, max(sweep.masked / sweep.tokens, peak) * 1.25], row=1, col=1, tickformat=".0%")
    figure.update_yaxes(range=[0, 1.02], row=1, col=2)
    figure.update_layout(height=430, template="plotly_white", margin=dict(l=10, r=10, t=40, b=10),
                         legend=dict(orientation="h", y=-0.25))
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
        compare = (f" The generator guesses {f.generator_top1:.0%} of the masked words right (top-1); cut after its "
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


# --- the Efficiency view: the paper's points, this app's measured races, the user's race ----------------

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
    """Left: the paper's points (log FLOPs vs GLUE). Right: this app's measured races, ELECTRA − BERT-style
    by budget (`groups`, training.race.campaign.gaps_by_budget: shipped with the app), and the user's own
    race when there is one; "no race yet" when there is neither."""
    from explainer.render.verdict import gap_traces

    mine = my_gap(race)
    right = ("This app's races: ELECTRA − BERT-style" + (" (★ yours)" if mine else " (measured, shipped)")
             if groups or mine else "Your race: ELECTRA − BERT-style")
    figure = make_subplots(rows=1, cols=2, column_widths=[0.58, 0.42], horizontal_spacing=0.1, subplot_titles=(
        "The paper: GLUE dev score vs. pretraining compute", right))
    for objective, name in (("RTD", "ELECTRA (RTD)"), ("MLM", "BERT (MLM)"), ("LM", "ELMo / GPT (language models)")):
        points = [p for p in PAPER_POINTS if p.objective == objective]
        figure.add_trace(go.Scatter(
            x=[p.train_flops for p in points], y=[p.glue for p in points], mode="markers+text", name=name,
            text=[p.model for p in points], textposition="middle right" if objective != "MLM" else "bottom center",
            marker=dict(size=14, color=COLOURS[objective], symbol="diamond" if objective == "RTD" else "circle"),
            hovertemplate="%{text}: %{x:.1e} FLOPs, GLUE %{y}<extra></extra>"), 1, 1)
    for small, big in (("BERT-Small", "ELECTRA-Small"), ("BERT-Base", "ELECTRA-Base")):
        a, b = (next(p for p in PAPER_POINTS if p.model == m) for m in (small, big))
        figure.add_annotation(x=math.log10(b.train_flops), y=b.glue, ax=math.log10(a.train_flops), ay=a.glue,
                              xref="x", yref="y", axref="x", ayref="y", showarrow=True, arrowhead=3,
                              arrowwidth=2, arrowcolor=COLOURS["RTD"], text="")
        figure.add_annotation(x=math.log10(a.train_flops), y=(a.glue + b.glue) / 2, xref="x", yref="y",
                              text=f"same compute: +{b.glue - a.glue:.1f}", showarrow=False, xanchor="right",
                              xshift=-8, font=dict(color=COLOURS["RTD"]))
    figure.update_xaxes(type="log", title_text="pretraining FLOPs (log scale)", row=1, col=1, range=[17.8, 20.3])
    figure.update_yaxes(title_text="GLUE dev score", row=1, col=1, range=[69, 88])

    traces = gap_traces(groups or [], mine)
    if traces:
        for trace in traces:
            figure.add_trace(trace, 1, 2)
        figure.add_hline(y=0, line=dict(color=MUTED, dash="dot"), row=1, col=2)
        figure.update_xaxes(type="log", title_text="pretraining FLOPs per objective (log scale)", row=1, col=2,
                            exponentformat="power")
        figure.update_yaxes(title_text="ELECTRA − BERT-style probe accuracy (points)", row=1, col=2, zeroline=False)
    else:
        left, right = figure.layout.xaxis2.domain  # paper coordinates: an empty subplot has no axes to refer to
        figure.add_annotation(text="No race yet.<br>Run a race in the Training tab<br>and it appears here.",
                              xref="paper", yref="paper", x=(left + right) / 2, y=0.5, showarrow=False,
                              font=dict(size=15, color="#555"), bordercolor="#bbb", borderwidth=1, borderpad=12)
        figure.update_xaxes(visible=False, row=1, col=2)
        figure.update_yaxes(visible=False, row=1, col=2)
    figure.add_annotation(text=f"Source: {esc(SHORT_SOURCE)} (GLUE dev)", xref="paper", yref="paper", x=0, y=-0.3,
                          showarrow=False, xanchor="left", font=dict(size=11, color="#555"))
    figure.update_layout(height=480, template="plotly_white", margin=dict(l=10, r=10, t=60, b=120),
                         legend=dict(orientation="h", y=-0.17), title_font_size=14)
    return figure
