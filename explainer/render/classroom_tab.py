"""Classroom results -> escaped HTML (no gradio here), in the style and colours of `explainer.render.explore`:
the supervised positions, the knowledge check, the tab's CSS, and the token chip the walk-through shares.

MLM (BERT) is drawn in blue, RTD (ELECTRA) in orange throughout. Every token, sentence and answer
passes through `style.esc`. Presenter mode is a body class (`ee-present`) that `CLASSROOM_CSS` turns
into a full-screen, large-type, black-on-white stage: the views' tab bar and whichever view is open. The other
views: the walk-through (explainer/render/walkthrough.py), the temperature sweep (explainer/render/difficulty.py), the
Efficiency chart (explainer/render/efficiency.py).
"""

from __future__ import annotations

from explainer.lesson.supervision import MASK, SupervisedPositions
from explainer.lesson.quiz import Grade, Question
from explainer.render.style import FONT, MLM_COLOUR, MUTED, RTD_COLOUR, esc, full_stop

# Gradio's `.prose *` gives every element the body colour; inside our views colours are inherited
# instead, so a white label on a dark chip stays white (the doubled class outranks gradio's rule). The
# walk-through's step pills and "drew back" badges wrap as whole boxes on a phone, never "4 / Detect".
# Presenter mode fills the screen with the stage: the switch and the views' tab bar (every view one click away) stay
# at the top, and the open view scrolls beneath them, in large type. Gradio sizes its text by theme variables
# resolved on :root, so the stage sets them again (each derived one too, or it would keep :root's value); the views'
# own HTML is sized in em and follows.
CLASSROOM_CSS = """
div.ee-c.ee-c * { color: inherit; }
.ee-step p.ee-para { font-size: 1.1em; line-height: 1.55; max-width: 70em; }
.ee-walk-tokens { line-height: 2.4; }
.ee-progress > span { display: inline-block; white-space: nowrap; margin-bottom: 4px; }
.ee-badge { white-space: nowrap; }
body.ee-present #classroom-stage { position: fixed; inset: 0; z-index: 1000; overflow: clip; background: #fff;
  padding: 1rem 3rem; margin: 0; max-width: none; display: flex; flex-direction: column; flex-wrap: nowrap;
  --text-xxs: 15px; --text-xs: 18px; --text-sm: 20px; --text-md: 24px; --text-lg: 28px; --text-xl: 34px;
  --text-xxl: 42px; --body-text-size: var(--text-md); --prose-text-size: var(--text-md);
  --block-info-text-size: var(--text-sm); --block-label-text-size: var(--text-sm);
  --block-title-text-size: var(--text-md); --section-header-text-size: var(--text-md);
  --checkbox-label-text-size: var(--text-md); --input-text-size: var(--text-md);
  --button-large-text-size: var(--text-lg); --button-medium-text-size: var(--text-md);
  --button-small-text-size: var(--text-sm); }
body.ee-present #classroom-stage .ee-muted { color: #222 !important; }
body.ee-present #classroom-stage .cm-editor { font-size: 20px; }
body.ee-present #classroom-stage > :not(#classroom-views) { flex: none; }  /* the switch (in gradio's form box) */
body.ee-present #classroom-views { flex: 1 1 auto; min-height: 0; display: flex; flex-direction: column; }
body.ee-present #classroom-views > .tab-wrapper { flex: none; height: auto; }
body.ee-present #classroom-views > .tabitem { flex: 1 1 auto; min-height: 0; overflow: auto; }
body.ee-present #walk-panel .ee-step { font-size: 1.6rem; color: #000; }
body.ee-present #walk-panel .ee-step h3 { font-size: 1.5em; }
body.ee-present #walk-panel .ee-token { border: 2px solid #000; }
body.ee-present #walk-panel button { font-size: 1.3rem; min-height: 3rem; }
"""


def token_html(text: str, style: str = "", cls: str = "", title: str = "") -> str:
    """One token as an outlined box (the supervised positions' table and the walk-through)."""
    return (f'<span class="ee-token {cls}" title="{esc(title)}" style="display: inline-block; border-radius: 6px; '
            f'padding: 1px 6px; margin: 2px; border: 1px solid #bbb; white-space: pre; {style}">'
            f"<bdi>{esc(text)}</bdi></span>")


def special_style() -> str:
    """[CLS] and [SEP]: muted and dotted."""
    return f"color: {MUTED}; border-style: dotted; font-size: 0.85em"


# --- supervised positions ------------------------------------------------------------------------

def _cell(content: str, style: str = "") -> str:
    return f'<td style="padding: 3px 2px; text-align: center; vertical-align: top; {style}">{content}</td>'


def supervised_html(data: SupervisedPositions) -> str:
    """One table, a column per position: what MLM and RTD read and learn there; counts underneath."""
    rows = {name: [] for name in ("token", "mlm_in", "mlm_out", "rtd_in", "rtd_out")}
    for p in data.positions:
        rows["token"].append(_cell(f'<b><bdi>{esc(p.original)}</bdi></b><div class="ee-muted" style="color: {MUTED}; '
                                   f'font-size: 0.75em">#{p.position}</div>'))
        rows["mlm_in"].append(_cell(token_html(p.mlm_input, "background: #333; color: #fff", "ee-mask")
                                    if p.mlm_input == MASK
                                    else token_html(p.mlm_input, special_style() if p.special else "")))
        if p.mlm:
            rows["mlm_out"].append(_cell(
                f'<div style="background: #deebf7; border: 2px solid {MLM_COLOUR}; border-radius: 6px; '
                f'padding: 1px 4px"><b><bdi>{esc(p.original)}</bdi></b>'
                f'<div style="font-size: 0.7em">1 of {data.vocab_size:,}</div></div>'))
        else:
            rows["mlm_out"].append(_cell(f'<span class="ee-muted" style="color: {MUTED}; font-size: 0.85em">–</span>'))
        changed = "font-weight: bold; border: 2px solid #111" if p.replaced else ""
        rows["rtd_in"].append(_cell(token_html(p.rtd_input, changed or (special_style() if p.special else ""))))
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
    # A box that scrolls sideways on a phone is reachable by keyboard (arrow keys) and named for screen readers.
    table = (f'<div style="overflow-x: auto" tabindex="0" role="region" aria-label="Supervised positions, position by '
             f'position">'
             f'<table class="ee-supervised" style="border-collapse: collapse; '
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


# --- knowledge check ---------------------------------------------------------------------------------

KIND_HINT = {"choice": "Pick one answer.", "true_false": "True or false?", "short": "Type a short answer."}


def question_html(question: Question, index: int, total: int) -> str:
    return (f'<div class="ee-c ee-question" style="{FONT}">'
            f'<div class="ee-muted" style="color: {MUTED}; font-size: 0.85em">'
            f"Question {index + 1} of {total} · {KIND_HINT[question.kind]}</div>"
            f'<p style="font-size: 1.2em; margin: 4px 0"><b>{esc(question.prompt)}</b></p></div>')


def feedback_html(grade: Grade) -> str:
    if not grade.answered:
        return f'<div style="{FONT}" role="status">Choose or type an answer first.</div>'
    head = ("✓ Correct." if grade.correct else
            f"✗ Not quite. The answer: <b>{esc(grade.answer)}</b>{full_stop(grade.answer)}")
    colour, background = ("#1a7f37", "#e6f4ea") if grade.correct else ("#b42318", "#fde8e8")
    return (f'<div class="ee-c ee-feedback" role="status" style="{FONT}; border-left: 5px solid {colour}; '
            f'background: {background}; padding: 8px 12px; border-radius: 4px"><div style="font-size: 1.1em">'
            f"{head}</div><div>{esc(grade.explanation)}{full_stop(grade.explanation)}</div></div>")


def _numbers(numbers: tuple[int, ...]) -> str:
    """"question 4", "questions 3 and 7", "questions 2, 5 and 9"."""
    listed = ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}" if len(numbers) > 1 else str(numbers[0])
    return f"question{'s' if len(numbers) > 1 else ''} {listed}"


def quiz_score_html(correct: int, answered: int, total: int, revisit: tuple[str, ...] = (),
                    unanswered: tuple[int, ...] = ()) -> str:
    """The running score (first tries count); with every question answered, the end-of-quiz summary: the score and
    the topics of the questions missed (`revisit`). `unanswered`: question numbers (from 1) still open, named once
    the last question is answered."""
    if answered < total:
        gaps = (f" Not answered yet: {_numbers(unanswered)} (“← Previous” goes back)." if unanswered else "")
        return (f'<div class="ee-quiz-score" style="{FONT}; font-size: 1.1em">Score: <b>{correct}</b> / {answered} '
                f"answered, {total} questions (first tries count).{gaps}</div>")
    if not revisit:
        advice = "<p>Every question right on the first try: you have the lesson.</p>"
    else:
        items = "".join(f"<li>{esc(topic)}</li>" for topic in revisit)
        advice = (f'<p style="margin: 6px 0 2px">Worth another look (the questions you missed were about):</p>'
                  f'<ul style="margin: 0">{items}</ul>')
    return (f'<div class="ee-c ee-quiz-score ee-quiz-summary" role="status" style="{FONT}; font-size: 1.1em; '
            f'border: 2px solid {RTD_COLOUR}; border-radius: 6px; padding: 8px 12px">'
            f"<b>All done: {correct} of {total} right on the first try ({correct / max(1, total):.0%}).</b>"
            f"{advice}<p style=\"margin: 6px 0 0\">“Start over” (with the shuffle, a new order) to try again.</p>"
            "</div>")
