"""The walk-through's steps -> escaped HTML (no gradio here), in the style and colours of `explainer.render.explore`.

P(replaced) keeps Explore's white -> red scale and its borders (thick = really replaced, dashed =
masked but drew the original). A position where the generator drew the original back
(`WalkStep.drawn_back`) also gets a "drew back" badge, a tooltip and an aria-label: label 0, not
replaced. Every token passes through `style.esc`.
"""

from __future__ import annotations

from explainer.lesson.supervision import MASK
from explainer.lesson.walkthrough import STEP_NAMES, WalkStep
from explainer.render.classroom_tab import special_style, token_html
from explainer.render.style import FONT, MUTED, RTD_COLOUR, chip, esc, legend_html, p_colour, pct

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
            # a line of its own
            was = (f'<span style="display: block">was <b>{esc(drawn[position].original)}</b></span>'
                   if replaced and position in drawn else "")
            below = pct(p) + was
            border = "3px solid #111" if replaced else "1px solid #ccc"
            chips.append(chip(esc(token), p_colour(p), below, title, border, p > 0.6))
        elif token == MASK:
            chips.append(token_html(token, "background: #333; color: #fff; font-family: ui-monospace, monospace",
                                    "ee-mask"))
        elif step.name == "swap" and position in drawn:
            m = drawn[position]
            if position in back or not m.replaced:
                marked = token_html(token, f"border: {DRAWN_BACK_BORDER}", "", DRAWN_BACK)
                note = f'<span style="font-size: 0.75em">{_badge()} label 0</span>'
                chips.append(_drawn_back(f'<span style="{COLUMN}">{marked}{note}</span>'))
                continue
            style = "border: 3px solid #111; font-weight: bold; background: #fde0d2"
            chips.append(f'<span style="{COLUMN}">'
                         f'{token_html(token, style)}'
                         f'<span style="font-size: 0.75em">was {esc(m.original)}</span></span>')
        else:
            underline = "border-bottom: 3px dotted #111" if position in focus else ""
            chips.append(token_html(token, special_style() if special else underline))
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
