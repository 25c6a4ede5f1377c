"""A live class on the projector: one screen per phase (explainer/core/live_class/phases.py), sized for a room.
No gradio, no torch.

The stage is a 16:9 panel whose type scales with it (CSS container units: 1.5% of its width, 2.6% of its
height, whichever is smaller: 28 px at 1920x1080, 19 px at 1280x720), so a phase fits one screen at any
projector size, without scrolling. The projector's page shows it fixed over the whole window; the teacher's
page shows the same panel as a preview above the controls (on a phone it flows at 16 px instead).

What each phase shows comes from `TeacherView`, which the server has already cut to what the phase may show;
this module only draws it: the lobby (the QR code, large, the code, who is in), round A (how many answered each
sentence), the reveal (one sentence: its fakes, the class's catches beside ELECTRA's, the fakes that fooled the
most so far), round B (the edits that fooled ELECTRA, live), the results and the end (the class against ELECTRA,
the best fooling edits). Under the title, every phase says which generator forged the round's fakes. Lists are
cut to what fits (the rest counted), and every user text passes through `esc`.

Every number says what it counts: the reveal's two panels are this sentence's points (ELECTRA's own, with its false
alarms, counted once per answer as the class's are), and a line below gives the class so far; an original word
ELECTRA flagged is listed under the fakes, where its false alarm costs it. The results count both rounds by the
rules of explainer/lesson/live_class/match.py, stated under the table. Every verdict is P(replaced) above 50%, and its
label never rounds onto the other side of that line (style.verdict_pct).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.core.live_class.phases import LABELS
from explainer.core.generators import label as forger
from explainer.render.live_class.card import pretty_code, qr_svg
from explainer.lesson.live_class.match import RULE_A, RULE_B, match
from explainer.render.style import FONT, MLM_COLOUR, RTD_COLOUR, esc, p_colour, verdict_pct
from training.words import separators

if TYPE_CHECKING:
    from explainer.lesson.live_class.session import FakeStats, TeacherView
    from explainer.lesson.live_class.teacher_view import AlarmStats, SentenceStats
    from explainer.lesson.beat_electra import Score

NAMES_SHOWN = 30  # nicknames in the lobby; the rest are counted
EDITS_SHOWN = 5
FOOLING_SHOWN = 3
ALARMS_SHOWN = 2  # original words ELECTRA flagged, a row each under a sentence's fakes; the rest in one row
PROGRESS_SHOWN = 10  # sentences: game.MAX_SENTENCES

ROOM_CSS = """
.ee-stage { container-type: size; aspect-ratio: 16 / 9; width: 100%; box-sizing: border-box; overflow: hidden;
  background: #fff; color: #111; border: 1px solid #bbb; border-radius: 8px; }
.ee-stage.ee-full { position: fixed; inset: 0; width: 100vw; height: 100vh; aspect-ratio: auto; z-index: 1000;
  border: 0; border-radius: 0; }
.ee-stage .ee-in { --u: min(1.5cqw, 2.6cqh); font-size: var(--u); line-height: 1.3; height: 100%;
  box-sizing: border-box; padding: 1.2em 1.6em; display: flex; flex-direction: column; gap: .6em; }
.ee-stage .ee-top { display: flex; justify-content: space-between; align-items: baseline; gap: 1em; }
.ee-stage .ee-phase { font-size: 1.6em; font-weight: 700; margin: 0; }
.ee-stage .ee-tag { font-family: ui-monospace, Consolas, monospace; font-weight: 700; font-size: 1.1em; }
.ee-stage .ee-body { flex: 1; min-height: 0; display: flex; gap: 1.5em; }
.ee-stage .ee-col { flex: 1; min-width: 0; display: flex; flex-direction: column; gap: .5em; }
.ee-stage .ee-huge { font-size: 3.2em; font-weight: 800; line-height: 1.05; letter-spacing: .04em; }
.ee-stage .ee-big { font-size: 2.2em; font-weight: 800; line-height: 1.1; }
.ee-stage .ee-qr { height: 100%; aspect-ratio: 1; }
.ee-stage .ee-qr svg { height: 100%; width: auto; max-width: none; display: block; }
.ee-stage .ee-names { display: flex; flex-wrap: wrap; gap: .3em; }
.ee-stage .ee-names span { border: 2px solid #888; border-radius: 1em; padding: 0 .5em; }
.ee-stage .ee-sentence { font-size: 1.45em; line-height: 1.5; margin: 0; }
.ee-stage .ee-fake { text-decoration: underline .12em; text-underline-offset: .15em; font-weight: 800; }
.ee-stage sup { line-height: 0; font-size: .6em; }
.ee-stage tr.ee-alarm-more td { white-space: normal; }
.ee-stage #class-match th { white-space: nowrap; }
.ee-stage #class-match td:first-child { white-space: normal; }
.ee-stage #class-match .ee-total { font-size: 1.6em; font-weight: 800; line-height: 1.1; }
.ee-stage table { border-collapse: collapse; }
.ee-stage th { text-align: left; padding: .15em .8em .15em 0; font-size: .9em; color: #333; }
.ee-stage td { padding: .15em .8em .15em 0; border-bottom: 2px solid #ddd; white-space: nowrap; }
.ee-stage .ee-meter { display: inline-block; width: 8em; height: .7em; border: 2px solid #666; vertical-align: middle;
  margin-right: .3em; background: #eee; }
.ee-stage .ee-meter > span { display: block; height: 100%; background: #2166ac; }
.ee-stage .ee-verdict { padding: 0 .3em; border-radius: .2em; }
.ee-stage .ee-muted { color: #444; }
.ee-stage .ee-panel { border: 2px solid #ccc; border-radius: .4em; padding: .4em .7em; }
.ee-stage h4 { font-size: 1.05em; margin: 0; font-weight: 700; }
.ee-stage .ee-corner { height: 7em; }
@media (max-width: 700px) {
  .ee-stage:not(.ee-full) { container-type: normal; aspect-ratio: auto; }
  .ee-stage:not(.ee-full) .ee-in { --u: 16px; height: auto; }
  .ee-stage:not(.ee-full) .ee-body { flex-direction: column; }
  .ee-stage:not(.ee-full) .ee-qr { height: auto; width: 100%; max-width: 320px; }
  .ee-stage:not(.ee-full) .ee-qr svg { width: 100%; height: auto; }
  .ee-stage:not(.ee-full) td { white-space: normal; }
  .ee-stage:not(.ee-full) .ee-top { flex-direction: column; }
  .ee-stage:not(.ee-full) .ee-huge { font-size: 2.2em; }
  .ee-stage:not(.ee-full) .ee-meter { width: 3em; }
  .ee-stage:not(.ee-full) td:last-child { white-space: nowrap; }
  .ee-stage:not(.ee-full) .ee-corner { height: auto; flex-wrap: wrap; }
  .ee-stage:not(.ee-full) .ee-corner > div:first-child { height: 5em; }
}
"""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _meter(share: float | None) -> str:
    width = 0 if share is None else round(share * 100)
    return f'<span class="ee-meter" aria-hidden="true"><span style="width:{width}%"></span></span>'


def _verdict(fake: FakeStats | AlarmStats, fake_word: bool = True) -> str:
    """ELECTRA's verdict on a word, on the 50% line: a fake flagged (+1) or missed, an original flagged (a false
    alarm, -1 on each answer) or left alone."""
    p = fake.electra_p
    text = (("⚑ flagged" if fake.electra_flagged else "○ missed") if fake_word else
            "⚑ false alarm" if fake.electra_flagged else "○ not flagged")
    return (f'<span class="ee-verdict" style="background:{p_colour(p)};color:{"#fff" if p > 0.6 else "#111"}">'
            f"{text} ({verdict_pct(p)})</span>")


def _caught(fake: FakeStats) -> str:
    if not fake.answered:
        return '<span class="ee-muted">no answers</span>'
    return f"{_meter(fake.share)}{fake.caught_by} of {fake.answered}"


def _points(score: Score) -> str:
    return f"{score.points:+d}"


def _sentence(words: tuple[str, ...], fakes: tuple[FakeStats, ...], alarms: tuple[AlarmStats, ...] = ()) -> str:
    """The sentence with its fakes marked ✗ and the original words ELECTRA flagged (its false alarms) marked ⚑."""
    at = {f.word_index for f in fakes}
    flagged = {a.word_index for a in alarms if a.electra_flagged}
    return "".join(gap + (f'<span class="ee-fake">✗{esc(w)}</span>' if i in at else
                          f'<span class="ee-alarm-word">{esc(w)}<sup>⚑</sup></span>' if i in flagged else esc(w))
                   for i, (gap, w) in enumerate(zip(separators(words), words)))


def _join_corner(view: TeacherView, link: str) -> str:
    """The code and a small QR code, for whoever comes late."""
    return (f'<div class="ee-panel ee-corner" style="display:flex;gap:.6em;align-items:center">'
            f'<div style="height:100%">{qr_svg(link)}</div><div><span class="ee-muted">Join with the code</span><br>'
            f'<span class="ee-big" style="letter-spacing:.04em">{esc(pretty_code(view.code))}</span></div></div>')


def _lobby(view: TeacherView, link: str) -> str:
    names = [esc(e.name) for e in view.roster]
    more = len(names) - NAMES_SHOWN
    chips = "".join(f"<span>{n}</span>" for n in names[:NAMES_SHOWN]) + (
        f'<span class="ee-muted">and {more} more</span>' if more > 0 else "")
    people = (f'<div class="ee-names" id="class-roster">{chips}</div>' if names else
              '<p class="ee-muted" style="margin:0">Nobody has joined yet: scan the QR code or type the code.</p>')
    typed = link.split("?", 1)[0]  # the address without the code, which the student then types (the QR code has both)
    return (f'<div class="ee-body"><div style="height:100%">{qr_svg(link)}</div><div class="ee-col">'
            f'<span>Scan the QR code, or open</span>'
            f'<span style="font-size:1.1em;font-weight:700;overflow-wrap:anywhere" id="class-typed-address">'
            f"{esc(typed)}</span><span>and type the code</span>"
            f'<span class="ee-huge" id="class-stage-code">{esc(pretty_code(view.code))}</span>'
            f'<p style="margin:.4em 0 0"><span class="ee-big" id="class-joined">{view.joined}</span> joined</p>'
            f"{people}</div></div>")


def _round_a(view: TeacherView, link: str) -> str:
    joined = max(view.joined, 1)
    rows = "".join(f"<tr><td>Sentence {i + 1}</td><td>{_meter(n / joined)}</td><td>{n} of {view.joined}</td></tr>"
                   for i, n in enumerate(view.progress[:PROGRESS_SHOWN]))
    done = sum(1 for e in view.roster if e.answered_a >= view.n_sentences)
    return (f'<div class="ee-body"><div class="ee-col"><p style="margin:0">Tick the words you think the generator '
            f"faked. The answers come when everyone is done.</p>"
            f'<table id="class-progress" aria-label="answers per sentence"><tr><th>sentence</th>'
            f'<th colspan="2">answered</th></tr>{rows}</table></div>'
            f'<div class="ee-col" style="flex:0 0 auto;justify-content:space-between">'
            f'<p style="margin:0"><span class="ee-huge" id="class-answered">{done}</span><br>of {view.joined} '
            f"students done</p>{_join_corner(view, link)}</div></div>")


def _fooling(view: TeacherView, shown: int = FOOLING_SHOWN) -> str:
    if not view.most_fooling:
        return ""
    rows = "".join(f"<tr><td>{f.sentence_index + 1}</td><td><b>{esc(f.word)}</b> (was {esc(f.original)})</td>"
                   f"<td>{_caught(f)}</td></tr>" for f in view.most_fooling[:shown])
    more = sum(1 for s in view.sentences for f in s.fakes if f.answered) - min(len(view.most_fooling), shown)
    rest = (f'<p class="ee-muted" style="margin:0" id="class-fooling-more">and {more} more '
            f"{'fake' if more == 1 else 'fakes'}, each caught by as many students or more (the results file lists "
            "them all)</p>" if more > 0 else "")
    return (f'<div><h4>The fakes that fooled the most students</h4><table id="class-fooling">'
            f"<tr><th>sentence</th><th>fake</th><th>caught by</th></tr>{rows}</table>{rest}</div>")


def _alarms(s: SentenceStats) -> str:
    """Rows for the original words ELECTRA flagged: its false alarms, which cost it a point on each answer (the
    class's own false alarms are counted in its panel)."""
    flagged = [a for a in s.alarms if a.electra_flagged]
    rows = "".join(f'<tr class="ee-alarm"><td>{esc(a.word)}<sup>⚑</sup></td><td class="ee-muted">original</td>'
                   f"<td>{a.ticked_by} of {s.answered} ticked it</td><td>{_verdict(a, fake_word=False)}</td></tr>"
                   for a in flagged[:ALARMS_SHOWN])
    rest = flagged[ALARMS_SHOWN:]
    if rest:
        words = ", ".join(esc(a.word) for a in rest[:4]) + (", …" if len(rest) > 4 else "")
        rows += (f'<tr class="ee-alarm-more"><td colspan="4">and {len(rest)} more ⚑ false '
                 f"alarm{'s' if len(rest) != 1 else ''}: {words}</td></tr>")
    return rows


def _alarm_count(n: int) -> str:
    return "no false alarm" if n == 0 else f"−{n} false alarm{'' if n == 1 else 's'}"


def _score_panel(name: str, colour: str, mark: str, points: int, how: str, element_id: str) -> str:
    return (f'<div class="ee-panel" id="{element_id}"><span style="color:{colour}">{mark}</span> {name}<br>'
            f'<span class="ee-big">{points:+d}</span> {"point" if abs(points) == 1 else "points"}'
            f'<br><span class="ee-muted" style="font-size:.8em">{how}</span></div>')


def _reveal(view: TeacherView) -> str:
    s = view.sentences[view.reveal]
    rows = "".join(f"<tr><td><b>{esc(f.word)}</b></td><td>{esc(f.original)}</td><td>{_caught(f)}</td>"
                   f"<td>{_verdict(f)}</td></tr>" for f in s.fakes)
    e, c = s.electra, s.class_score
    electra_how = (f"its +{e.caught} caught, {_alarm_count(e.false_alarms)}: "
                   f"{e.points:+d} × {_plural(s.answered, 'answer')}")
    upto = "sentence 1" if view.reveal == 0 else f"sentences 1–{view.reveal + 1}"
    return (f'<p class="ee-sentence" id="class-revealed">{_sentence(s.words, s.fakes, s.alarms)}</p>'
            f'<div class="ee-body"><div class="ee-col"><table aria-label="the fakes of this sentence">'
            f"<tr><th>fake ✗</th><th>was</th><th>caught by the class</th><th>ELECTRA (⚑ above 50%)</th></tr>"
            f"{rows}{_alarms(s)}</table>{'' if s.electra.false_alarms else _fooling(view)}</div>"
            f'<div class="ee-col" style="flex:0 0 auto;max-width:34%"><h4>This sentence</h4>'
            + _score_panel(f"The class, {_plural(s.answered, 'answer')}", MLM_COLOUR, "●", c.points,
                           f"+{c.caught} caught, {_alarm_count(c.false_alarms)}",
                           "class-sentence-points")
            + _score_panel("ELECTRA on the same answers", RTD_COLOUR, "◆", s.electra_on_answers, electra_how,
                           "electra-sentence-points")
            + f'<p style="margin:0" id="class-so-far"><b>The class so far</b> ({upto}): '
            f"{_points(view.class_total)} against ELECTRA's {_points(view.electra_total)}</p></div></div>")


def _edits(view: TeacherView) -> str:
    if not view.best_edits:
        return '<p class="ee-muted" style="margin:0">No edit has fooled ELECTRA.</p>'
    rows = "".join(f"<tr><td>{e.sentence_index + 1}</td><td>“{esc(e.original_word)}” → <b>“{esc(e.new_word)}”</b></td>"
                   f"<td>{e.fooled} of {e.tries}</td></tr>" for e in view.best_edits[:EDITS_SHOWN])
    return (f'<table id="class-edits"><tr><th>sentence</th><th>edit</th><th>fooled ELECTRA</th></tr>{rows}</table>')


def _round_b(view: TeacherView) -> str:
    return (f'<div class="ee-body"><div class="ee-col"><p style="margin:0">Change one word so the sentence still '
            f"reads right, and bet on ELECTRA's verdict. The edits that fooled it:</p>{_edits(view)}</div>"
            f'<div class="ee-col" style="flex:0 0 auto"><p style="margin:0"><span class="ee-huge" id="class-fooled">'
            f"{view.fool_fooled}</span><br>of {_plural(view.fool_tries, 'edit')} fooled ELECTRA</p></div></div>")


def _results(view: TeacherView) -> str:
    m = match(view)
    verdict = {"class": "The class beat ELECTRA!", "electra": "ELECTRA beat the class.",
               "level": "The class and ELECTRA are level."}[m.winner]
    table = (f'<table id="class-match" aria-label="the class against ELECTRA, both rounds"><tr><th></th>'
             f'<th><span style="color:{MLM_COLOUR}">●</span> class</th>'
             f'<th><span style="color:{RTD_COLOUR}">◆</span> ELECTRA</th></tr>'
             f"<tr><td>Round A: spot the fakes</td><td>{m.class_a:+d}</td><td>{m.electra_a:+d}</td></tr>"
             f"<tr><td>Round B: {view.fool_fooled} of {_plural(view.fool_tries, 'edit')} fooled ELECTRA</td>"
             f"<td>{m.class_b:+d}</td><td>{m.electra_b:+d}</td></tr>"
             f'<tr><td><b>Both rounds</b></td>'
             f'<td><span class="ee-total" id="class-total">{m.class_points:+d}</span></td>'
             f'<td><span class="ee-total" id="electra-total">{m.electra_points:+d}</span></td></tr></table>')
    return (f'<p class="ee-big" style="margin:0">{verdict}</p><div class="ee-body"><div class="ee-col">{table}'
            f"{_fooling(view, 2)}</div><div class=\"ee-col\"><h4>The edits that fooled ELECTRA</h4>{_edits(view)}"
            f'<p class="ee-muted" id="class-rules" style="margin:0;font-size:.85em">{RULE_A}<br>{RULE_B}</p>'
            f"</div></div>")


def room_html(view: TeacherView, link: str, *, full: bool = False) -> str:
    """The stage for the class's phase; `link` is the students' link (its QR code); `full`: over the whole window
    (the projector's page), else a 16:9 preview (the teacher's page)."""
    if view.phase == "reveal":
        title, body = f"The answers: sentence {view.reveal + 1} of {view.n_sentences}", _reveal(view)
    elif view.phase == "lobby":
        title, body = "Join the class: everyone against ELECTRA", _lobby(view, link)
    elif view.phase == "round_a":
        title, body = "Round A: spot the fakes", _round_a(view, link)
    elif view.phase == "round_b":
        title, body = "Round B: fool ELECTRA", _round_b(view)
    else:
        title = "The class has ended: the results" if view.phase == "ended" else "The results"
        body = _results(view)
    top = (f'<div class="ee-top"><p class="ee-phase" id="class-phase">{esc(title)}</p>'
           f'<span class="ee-tag">{esc(pretty_code(view.code))} · {_plural(view.joined, "student")}</span></div>'
           f'<p class="ee-muted" id="class-forger" style="margin:0 0 .3em">'
           f"Fakes forged by {esc(forger(view.generator, in_sentence=True))}"
           "; ELECTRA's discriminator judges them.</p>")
    return (f'<div class="ee-stage{" ee-full" if full else ""}" id="class-stage" data-phase="{esc(view.phase)}" '
            f'role="region" aria-label="the class, {esc(LABELS[view.phase])}" style="{FONT}">'
            f'<div class="ee-in">{top}{body}</div></div>')
