"""A live class (explainer/lesson/class_session.py) as escaped HTML: the projector view the teacher shows,
the join card with the class code, link and QR code, and what a student's phone shows. No gradio, no torch.

The projector view is read from the back of a room and on a phone alike: big figures in a grid that wraps
(one column at 420 px), sentences that wrap, tables that scroll sideways. Every nickname, word and edit
came from a user or the generator and passes through `esc`; each mark is a symbol and words as well as a
colour. The QR code is drawn by segno (a maintained QR library), as inline SVG: nothing is fetched.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import segno

from explainer.render.style import FONT, MLM_COLOUR, RTD_COLOUR, chip, esc, p_colour, pct

if TYPE_CHECKING:
    from explainer.lesson.class_session import FakeStats, FoolOutcome, StudentRound, TeacherView
    from explainer.lesson.game import Score

CLASS_CSS = """
.ee-class { line-height: 1.4; }
.ee-class h3 { font-size: 1.5em !important; font-weight: 700; margin: 20px 0 8px !important; line-height: 1.3; }
.ee-class .ee-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 230px), 1fr)); gap: 10px; }
.ee-class .ee-card { border: 1px solid #ccc; border-radius: 8px; padding: 10px 14px; background: #fff; }
.ee-class .ee-n { font-size: 2.6em; font-weight: 700; line-height: 1.1; display: block; }
.ee-class .ee-code { font-family: ui-monospace, Consolas, monospace; font-size: 2.2em; font-weight: 700;
  letter-spacing: .08em; overflow-wrap: anywhere; }
.ee-class .ee-sentence { font-size: 1.15em; margin: 4px 0; overflow-wrap: anywhere; }
.ee-class .ee-fake { text-decoration: underline 3px; text-underline-offset: 3px; font-weight: 700; }
.ee-class table { border-collapse: collapse; }
.ee-class th { text-align: left; font-weight: 700; padding: 4px 12px 4px 0; }
.ee-class td { padding: 4px 12px 4px 0; border-bottom: 1px solid #ddd; vertical-align: middle; }
.ee-class .ee-scroll { overflow-x: auto; max-width: 100%; }
.ee-class .ee-bar { display: inline-block; width: 8em; max-width: 30vw; height: .8em; background: #eee;
  border: 1px solid #999; vertical-align: middle; margin-right: 6px; }
.ee-class .ee-bar > span { display: block; height: 100%; background: #2166ac; }
.ee-class .ee-qr svg { width: 100%; max-width: 320px; height: auto; background: #fff; display: block; margin: auto; }
#class-join-card { font-size: 1.25em; }
#class-join-card .ee-code { font-size: 2.6em; }
.ee-class .ee-names { display: flex; flex-wrap: wrap; gap: 6px; }
.ee-class .ee-names span { border: 1px solid #bbb; border-radius: 12px; padding: 1px 10px; }
.ee-class .ee-muted { color: #555; }
@media (min-width: 1600px) { .ee-class.ee-projector, #class-join-card { font-size: 1.4em; } }
"""


def _wrap(inner: str, element_id: str, extra: str = "") -> str:
    return f'<div class="ee-class{extra}" id="{element_id}" style="{FONT}">{inner}</div>'


def pretty_code(code: str) -> str:
    """ABCDEF -> ABC-DEF: easier to read out and to type (the dash is optional when typed)."""
    return f"{code[:3]}-{code[3:]}" if len(code) == 6 else code


def qr_svg(link: str) -> str:
    """The link as a QR code (segno, error correction M), inline SVG sized by its container."""
    svg = segno.make(link, error="m").svg_inline(scale=4, border=2, omitsize=True, dark="#000", light="#fff")
    return f'<div class="ee-qr" role="img" aria-label="QR code of the class link">{svg}</div>'


def join_card_html(code: str, link: str, expires: float, *, teacher_link: str = "") -> str:
    """What the teacher projects so the class can join: the code, the link and its QR code (and, for the
    teacher's eyes, the link that reopens this view: it carries the teacher key)."""
    hours = max(0.0, (expires - time.time()) / 3600)
    private = (f'<details><summary>Your teacher link (keep it to yourself)</summary><p class="ee-muted">It reopens this '
               f"view from any device, for as long as the class lasts; students never get it.</p>"
               f'<p><code id="class-teacher-link" style="overflow-wrap:anywhere">{esc(teacher_link)}</code></p></details>'
               if teacher_link else "")
    return _wrap(
        f'<div class="ee-grid" style="align-items:center"><div>'
        f'<p style="margin:0">Join the class at</p><p style="margin:2px 0 8px;overflow-wrap:anywhere">'
        f'<a id="class-student-link" href="{esc(link)}" target="_blank" rel="noopener">{esc(link)}</a></p>'
        f'<p style="margin:0">Class code</p><p class="ee-code" id="class-code" style="margin:0">{esc(pretty_code(code))}</p>'
        f'<p class="ee-muted">No account, no name needed. The class lasts {hours:.0f} more hours.</p>{private}</div>'
        f"{qr_svg(link)}</div>", "class-join-card")


# --- the projector view ----------------------------------------------------------------------------------

def _score(score: Score) -> str:
    return (f"<b>{score.points:+d}</b> point{'s' if abs(score.points) != 1 else ''} "
            f'<span class="ee-muted">(caught {score.caught}, missed {score.missed}, false alarms {score.false_alarms})</span>')


def _bar(share: float | None) -> str:
    width = 0 if share is None else round(share * 100)
    return f'<span class="ee-bar" aria-hidden="true"><span style="width:{width}%"></span></span>'


def _electra(fake: FakeStats) -> str:
    p = fake.electra_p
    style = f'background:{p_colour(p)};color:{"#fff" if p > 0.6 else "#111"};padding:1px 6px;border-radius:4px'
    verdict = "⚑ flagged it" if fake.electra_flagged else "○ missed it"
    return f'<span style="{style}">{verdict} ({pct(p)})</span>'


def _caught(fake: FakeStats) -> str:
    if not fake.answered:
        return '<span class="ee-muted">no answers yet</span>'
    return f"{_bar(fake.share)}{fake.caught_by} of {fake.answered} ({fake.share:.0%})"


def _fake_row(fake: FakeStats, with_sentence: bool = False) -> str:
    where = f"<td>{fake.sentence_index + 1}</td>" if with_sentence else ""
    return (f"<tr>{where}<td><b>{esc(fake.word)}</b></td><td>{esc(fake.original)}</td><td>{_caught(fake)}</td>"
            f"<td>{_electra(fake)}</td></tr>")


def _sentence_html(words: tuple[str, ...], fakes: tuple[FakeStats, ...]) -> str:
    fake_at = {f.word_index for f in fakes}
    return " ".join(f'<span class="ee-fake" title="a fake">✗{esc(w)}</span>' if i in fake_at else esc(w)
                    for i, w in enumerate(words))


def teacher_view_html(view: TeacherView) -> str:
    """The class against ELECTRA, for the projector: who is in, the scores, each sentence's fakes (the share
    of the class that caught each, beside ELECTRA's verdict), what fooled the most, and round B's edits."""
    answers = sum(s.answered for s in view.sentences)
    lead = view.class_total.points - view.electra_total.points
    if not answers:
        verdict = "No answers yet: the scores appear as the class answers."
    elif lead > 0:
        verdict = f"The class is <b>ahead of ELECTRA by {lead}</b> point{'s' if lead != 1 else ''}."
    elif lead < 0:
        verdict = f"<b>ELECTRA is ahead by {-lead}</b> point{'s' if lead != -1 else ''}."
    else:
        verdict = "The class and ELECTRA are <b>level</b>."
    head = (f'<div class="ee-grid">'
            f'<div class="ee-card"><span class="ee-muted">Class code</span><span class="ee-code" style="display:block">'
            f"{esc(pretty_code(view.code))}</span></div>"
            f'<div class="ee-card" id="class-joined"><span class="ee-n">{view.joined}</span>joined</div>'
            f'<div class="ee-card" id="class-answered"><span class="ee-n">{view.answered}</span>answered '
            f'<span class="ee-muted">({answers} of {view.joined * view.n_sentences} sentence answers)</span></div></div>')
    versus = (f'<h3>The class against ELECTRA <span class="ee-muted" style="font-size:.6em;font-weight:400">(this view '
              f"refreshes by itself as students answer)</span></h3>"
              f'<div class="ee-grid" id="class-versus">'
              f'<div class="ee-card"><span style="color:{MLM_COLOUR}">●</span> <b>The class</b>, every answer summed<br>'
              f'<span class="ee-n" id="class-total">{view.class_total.points:+d}</span>{_score(view.class_total)}</div>'
              f'<div class="ee-card"><span style="color:{RTD_COLOUR}">◆</span> <b>ELECTRA</b> on the same {answers} '
              f'answer{"s" if answers != 1 else ""}<br><span class="ee-n" id="electra-total">'
              f"{view.electra_total.points:+d}</span>{_score(view.electra_total)}</div></div>"
              f'<p style="font-size:1.15em">{verdict} <span class="ee-muted">One point per fake caught, minus one per '
              f"false alarm; ELECTRA flags a word when it rates it over 50% replaced.</span></p>")
    rows = []
    for s in view.sentences:
        table = "".join(_fake_row(f) for f in s.fakes)
        rows.append(f'<div class="ee-card" style="margin:8px 0"><p class="ee-sentence"><b>{s.index + 1}.</b> '
                    f"{_sentence_html(s.words, s.fakes)}</p>"
                    f'<p class="ee-muted" style="margin:2px 0">{s.answered} answer{"s" if s.answered != 1 else ""}; '
                    f"the class scored {s.class_score.points:+d} points in all, ELECTRA {s.electra.points:+d} per answer.</p>"
                    f'<div class="ee-scroll" tabindex="0" role="region" aria-label="sentence {s.index + 1}: its fakes">'
                    f'<table><tr><th>fake</th><th>was</th><th>caught by the class</th>'
                    f"<th>ELECTRA</th></tr>{table}</table></div></div>")
    sentences = "<h3>Sentence by sentence <span class=\"ee-muted\">(✗ marks the fakes)</span></h3>" + "".join(rows)
    if view.most_fooling:
        fooling = ("<h3>The fakes that fooled the most students</h3><div class=\"ee-scroll\" tabindex=\"0\" role=\"region\" "
                   "aria-label=\"the fakes that fooled the most students\"><table id=\"class-fooling\">"
                   "<tr><th>sentence</th><th>fake</th><th>was</th><th>caught by the class</th><th>ELECTRA</th></tr>"
                   + "".join(_fake_row(f, with_sentence=True) for f in view.most_fooling) + "</table></div>")
    else:
        fooling = ""
    if view.fool_tries:
        edits = "".join(f"<tr><td>{e.sentence_index + 1}</td><td>“{esc(e.original_word)}” → “{esc(e.new_word)}”</td>"
                        f"<td>{e.fooled} of {e.tries}</td></tr>" for e in view.best_edits)
        table = (f'<div class="ee-scroll" tabindex="0" role="region" aria-label="the edits that fooled ELECTRA">'
                 f'<table id="class-edits"><tr><th>sentence</th><th>edit</th>'
                 f"<th>fooled ELECTRA</th></tr>{edits}</table></div>" if edits else
                 "<p>No edit has fooled ELECTRA yet.</p>")
        round_b = (f"<h3>Round B: fool the discriminator</h3><p>{view.fool_tries} edit{'s' if view.fool_tries != 1 else ''}"
                   f" tried; <b>{view.fool_fooled}</b> fooled ELECTRA (it did not flag the new word); students "
                   f"predicted ELECTRA's verdict right {view.fool_bets_right} time{'s' if view.fool_bets_right != 1 else ''}."
                   f"</p>{table}")
    else:
        round_b = ""
    names = "".join(f'<span title="round A: {e.answered_a} of {view.n_sentences}; round B: {e.answered_b}">'
                    f"{esc(e.name)} · {e.answered_a}/{view.n_sentences}</span>" for e in view.roster)
    roster = (f'<h3>Who is in <span class="ee-muted">(sentences answered in round A)</span></h3>'
              f'<div class="ee-names" id="class-roster">{names}</div>' if names else
              '<p class="ee-muted">Nobody has joined yet: show the class the code or the QR code.</p>')
    return _wrap(head + versus + fooling + sentences + round_b + roster, "class-view", " ee-projector")


# --- the student's side ----------------------------------------------------------------------------------

def student_status_html(round_: StudentRound) -> str:
    """Who you are in this class and how far you got."""
    n = len(round_.sentences)
    return _wrap(f'<p style="margin:0">You are <b>{esc(round_.display_name)}</b> in class '
                 f'<b>{esc(pretty_code(round_.code))}</b>. Round A: {len(round_.answered_a)} of {n} sentences '
                 f"answered, <b>{round_.points:+d}</b> point{'s' if abs(round_.points) != 1 else ''}. Round B: "
                 f"{len(round_.answered_b)} of {n} sentences.</p>", "class-me")


def class_fool_html(outcome: FoolOutcome) -> str:
    """Round B's verdict on a student's edit (the discriminator's view of every word when it was just judged)."""
    if outcome.explanation is not None:
        chips = "".join(chip(esc(w.corrupted), p_colour(w.p_replaced), pct(w.p_replaced), f"P(replaced) = {w.p_replaced:.3f}",
                             "3px solid #111" if w.index == outcome.word_index else "1px solid #ccc", w.p_replaced > 0.6)
                        for w in outcome.explanation.words)
        chips = f'<p style="font-size:1.3em;line-height:1.8;margin:4px 0">{chips}</p>'
    else:
        chips = f'<p class="ee-sentence">{esc(outcome.edited)}</p>'
    verdict = ("ELECTRA <b>flagged</b> your word ⚑" if outcome.flagged else
               "ELECTRA was <b>fooled</b>: it did not flag your word")
    guess = "You predicted that right ✓" if outcome.student_right else "You predicted the opposite ✗"
    again = ("" if outcome.new else
             '<p class="ee-muted">You had already answered this sentence: this is your first answer, which counts.</p>')
    return _wrap(f"<p style='margin:0'><b>Sentence {outcome.sentence_index + 1}</b></p>{chips}<p>“{esc(outcome.original_word)}” → “{esc(outcome.new_word)}”: P(replaced) = "
                 f"<b>{pct(outcome.p_edited)}</b>. {verdict}. {guess}.</p>{again}", "class-fool-result")
