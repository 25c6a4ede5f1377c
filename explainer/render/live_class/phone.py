"""What a student's phone shows in a live class (explainer/lesson/live_class/session.py), as escaped HTML: who
they are and how far they got, the waiting screen of each phase (and their own answer in the reveal), round B's
chosen sentence and the verdict on their edit. No gradio, no torch.

Every nickname, word and edit came from a user or the generator and passes through `esc`; each mark is a symbol
and words as well as a colour. The frame and CSS are the teacher's card's (explainer/render/live_class/card.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.render.live_class.card import class_html, pretty_code
from explainer.render.style import FLAG_THRESHOLD, chip, esc, p_colour, verdict_pct

if TYPE_CHECKING:
    from explainer.lesson.live_class.session import FoolOutcome, StudentRound


def fool_sentence_html(sentence: str, index: int, total: int) -> str:
    """Round B's chosen sentence in full, wrapped (its dropdown shows only the start of a long one)."""
    return class_html(f'<p class="ee-muted" style="margin:0">Sentence {index + 1} of {total}</p>'
                 f'<p class="ee-sentence">{esc(sentence)}</p>', "class-b-chosen")


def _points(n: int) -> str:
    return f"<b>{n:+d}</b> point{'s' if abs(n) != 1 else ''}"


def round_a_score(round_: StudentRound) -> str:
    """The student's round-A points, said for what they count: nothing before the reveal; in the reveal, the
    sentences the teacher has revealed so far (a sentence the student did not answer counts 0); from round B on,
    every sentence (round B shows them all as written, so all are scored, even those the projector skipped)."""
    if round_.phase in ("lobby", "round_a") or not round_.answered_a:
        return ""
    if round_.phase == "reveal":
        return (f", {_points(round_.points)} so far ({round_.reveal + 1} of {round_.n_sentences} sentences "
                "revealed)")
    return f", {_points(round_.points)} in all"


def student_status_html(round_: StudentRound) -> str:
    """Who you are in this class, how far you got, and (from the reveal on) your points."""
    n = round_.n_sentences
    b = (f" Round B: {len(round_.answered_b)} of {n} sentences."
         if round_.phase in ("round_b", "results", "ended") else "")
    return class_html(f'<p style="margin:0">You are <b>{esc(round_.display_name)}</b> in class '
                 f'<b>{esc(pretty_code(round_.code))}</b>. Round A: {len(round_.answered_a)} of {n} sentences '
                 f"answered{round_a_score(round_)}.{b}</p>", "class-me")


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
        text += f" Your round A: {_points(round_.points)}."
    missing = ""
    if round_.phase == "reveal" and not any(r.sentence_index == round_.reveal for r in round_.revealed):
        missing = '<p class="ee-muted">You did not answer this sentence.</p>'
    return class_html(f'<p style="font-size:1.4em;font-weight:700;margin:0 0 4px">{esc(title)}</p>'
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
    guess = ("" if outcome.bet is None else  # no bet stored (an old file): no word about a prediction
             " You predicted that right ✓." if outcome.student_right else " You predicted the opposite ✗.")
    again = ("" if outcome.new else
             '<p class="ee-muted">You had already answered this sentence: this is your first answer, which counts.</p>')
    return class_html(f"<p style='margin:0'><b>Your edit of sentence {outcome.sentence_index + 1}</b></p>{chips}"
                 f"<p>“{esc(outcome.original_word)}” → “{esc(outcome.new_word)}”: P(replaced) = "
                 f"<b>{verdict_pct(outcome.p_edited)}</b>. {verdict}.{guess}</p>{again}", "class-fool-result")
