"""A live class (explainer/lesson/class_session.py) as escaped HTML, off the projector: the teacher's card with
the class code, the students' link and its QR code and the projector's view-only link, and what a student's
phone shows in each phase. No gradio, no torch. The projector's stage is explainer/render/class_room.py.

Everything wraps to one column at 420 px. Every nickname, word and edit came from a user or the generator and
passes through `esc`; each mark is a symbol and words as well as a colour. The QR code is drawn by segno (a
maintained QR library), as inline SVG: nothing is fetched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import segno

from explainer.render.style import FLAG_THRESHOLD, FONT, chip, esc, p_colour, verdict_pct

if TYPE_CHECKING:
    from explainer.lesson.class_session import FoolOutcome, StudentRound

CLASS_CSS = """
.ee-class { line-height: 1.4; }
.ee-class .ee-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 230px), 1fr)); gap: 10px; }
.ee-class .ee-code { font-family: ui-monospace, Consolas, monospace; font-size: 1.6em; font-weight: 700;
  letter-spacing: .08em; overflow-wrap: anywhere; }
.ee-class .ee-sentence { font-size: 1.15em; margin: 4px 0; overflow-wrap: anywhere; }
.ee-class .ee-qr svg { width: 100%; max-width: 240px; height: auto; background: #fff; display: block; margin: auto; }
.ee-class .ee-muted { color: #555; }
#class-wait { font-size: 1.15em; padding: 8px 0; }
#class-b-sentence input { padding-right: 2em; text-overflow: ellipsis; }
"""


def _wrap(inner: str, element_id: str, extra: str = "") -> str:
    return f'<div class="ee-class{extra}" id="{element_id}" style="{FONT}">{inner}</div>'


def fool_sentence_html(sentence: str, index: int, total: int) -> str:
    """Round B's chosen sentence in full, wrapped (its dropdown shows only the start of a long one)."""
    return _wrap(f'<p class="ee-muted" style="margin:0">Sentence {index + 1} of {total}</p>'
                 f'<p class="ee-sentence">{esc(sentence)}</p>', "class-b-chosen")


def pretty_code(code: str) -> str:
    """ABCDEF -> ABC-DEF: easier to read out and to type (the dash is optional when typed)."""
    return f"{code[:3]}-{code[3:]}" if len(code) == 6 else code


def qr_svg(link: str) -> str:
    """The link as a QR code (segno, error correction M), inline SVG sized by its container."""
    svg = segno.make(link, error="m").svg_inline(scale=4, border=2, omitsize=True, dark="#000", light="#fff")
    return f'<div class="ee-qr" role="img" aria-label="QR code of the class link">{svg}</div>'


def address_note_html(note: str, command: str = "") -> str:
    """One line for the teacher when phones cannot open the students' link (a server on this computer only), and
    the command that lets them in, in code type."""
    if not note:
        return ""
    said = f"{esc(note)}: <code>{esc(command)}</code>" if command else esc(note)
    return f'<p id="class-address-note" role="status" style="margin:4px 0 6px;font-weight:600">⚠ {said}</p>'


def plays_note_html(played: int, chosen: int) -> str:
    """When a teacher's own sentences set the round's length: how many the class plays ("" when as chosen)."""
    if played == chosen:
        return ""
    return (f'<p id="class-plays" role="status" style="margin:4px 0">Your own sentences: this class plays '
            f"{played} sentence{'s' if played != 1 else ''} per round (your {played}), not the {chosen} chosen "
            "with the slider.</p>")


def links_card_html(code: str, student_link: str, view_link: str, note: str = "", command: str = "") -> str:
    """The teacher's two links: the students' (with its QR code) and the projector's, view-only, and `note` (with
    `command`) when phones cannot open them (explainer/core/addresses.py). The teacher key is in neither: it stays
    in this browser's storage."""
    return _wrap(
        f'<div class="ee-grid" style="align-items:center"><div>'
        f'<p style="margin:0">Class code <span class="ee-code" id="class-code">{esc(pretty_code(code))}</span></p>'
        f'{address_note_html(note, command)}'
        f'<p style="margin:4px 0 0">Students join at</p><p style="margin:2px 0 8px;overflow-wrap:anywhere">'
        f'<a id="class-student-link" href="{esc(student_link)}" target="_blank" rel="noopener">'
        f'{esc(student_link)}</a></p>'
        f'<p style="margin:0">Open this on the projector (it shows the class and moves nothing):</p>'
        f'<p style="margin:2px 0 8px;overflow-wrap:anywhere"><a id="class-view-link" href="{esc(view_link)}" '
        f'target="_blank" rel="noopener">{esc(view_link)}</a></p>'
        f'<p class="ee-muted" style="margin:0">Your controls are below; only this browser holds the key that moves '
        f"the class, and no page or address shows it.</p></div>{qr_svg(student_link)}</div>", "class-join-card")


# --- the student's side ----------------------------------------------------------------------------------

def student_status_html(round_: StudentRound) -> str:
    """Who you are in this class, how far you got, and (from the reveal on) your points."""
    n = round_.n_sentences
    points = (f", <b>{round_.points:+d}</b> point{'s' if abs(round_.points) != 1 else ''} on the "
              f"{len(round_.revealed)} revealed" if round_.revealed else "")
    b = (f" Round B: {len(round_.answered_b)} of {n} sentences."
         if round_.phase in ("round_b", "results", "ended") else "")
    return _wrap(f'<p style="margin:0">You are <b>{esc(round_.display_name)}</b> in class '
                 f'<b>{esc(pretty_code(round_.code))}</b>. Round A: {len(round_.answered_a)} of {n} sentences '
                 f"answered{points}.{b}</p>", "class-me")


WAITING = {
    "lobby": ("You are in!", "Wait for your teacher to start round A: this page follows by itself."),
    "round_a": ("Round A is done", "Your answers are saved. The answers come when your teacher reveals them."),
    "reveal": ("The teacher is showing the answers", "Look at the projector. Your own answer to this sentence:"),
    "round_b": ("Round B is done", "You tried every sentence. The projector shows the edits that fooled ELECTRA."),
    "results": ("The results", "Look at the projector: the class against ELECTRA."),
    "ended": ("This class has ended", "Thank you for playing. Answers are closed; the results stay on the projector."),
}


def student_wait_html(round_: StudentRound) -> str:
    """What a phone shows between answers: a waiting screen in the lobby, the teacher's reveal, the results."""
    title, text = WAITING[round_.phase]
    if round_.phase in ("results", "ended"):
        text += f" Your round A: <b>{round_.points:+d}</b> point{'s' if abs(round_.points) != 1 else ''}."
    missing = ""
    if round_.phase == "reveal" and not any(r.sentence_index == round_.reveal for r in round_.revealed):
        missing = '<p class="ee-muted">You did not answer this sentence.</p>'
    return _wrap(f'<p style="font-size:1.4em;font-weight:700;margin:0 0 4px">{esc(title)}</p>'
                 f'<p style="margin:0">{text}</p>{missing}', "class-wait")


def class_fool_html(outcome: FoolOutcome) -> str:
    """Round B's verdict on a student's edit (the discriminator's view of every word when it was just judged)."""
    if outcome.explanation is not None:
        chips = "".join(chip(esc(w.corrupted), p_colour(w.p_replaced), verdict_pct(w.p_replaced),
                             f"P(replaced) = {w.p_replaced:.3f}",
                             "3px solid #111" if w.index == outcome.word_index else "1px solid #ccc",
                             flagged=w.p_replaced > FLAG_THRESHOLD)  # bold above the verdict's 50% line
                        for w in outcome.explanation.words)
        chips = f'<p style="font-size:1.3em;line-height:1.8;margin:4px 0">{chips}</p>'
    else:
        chips = f'<p class="ee-sentence">{esc(outcome.edited)}</p>'
    verdict = ("ELECTRA <b>flagged</b> your word ⚑" if outcome.flagged else
               "ELECTRA was <b>fooled</b>: it did not flag your word")
    guess = "You predicted that right ✓" if outcome.student_right else "You predicted the opposite ✗"
    again = ("" if outcome.new else
             '<p class="ee-muted">You had already answered this sentence: this is your first answer, which counts.</p>')
    return _wrap(f"<p style='margin:0'><b>Sentence {outcome.sentence_index + 1}</b></p>{chips}"
                 f"<p>“{esc(outcome.original_word)}” → “{esc(outcome.new_word)}”: P(replaced) = "
                 f"<b>{verdict_pct(outcome.p_edited)}</b>. {verdict}. {guess}.</p>{again}", "class-fool-result")
