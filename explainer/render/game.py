"""The game "Can you beat ELECTRA?" (explainer.lesson.game) as escaped HTML. No gradio, no torch.

The reveal is a small table, one column per word: the sentence as everyone read it, what the student
ticked, what ELECTRA's discriminator flagged (with its P(replaced), on Explore's colour scale), and the
truth (with the original word). Every mark is a symbol and words as well as a colour, so the table
reads in black and white and on a phone (it scrolls sideways).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.render.style import FONT, MLM_COLOUR, RTD_COLOUR, chip, esc, p_colour, pct

if TYPE_CHECKING:
    from explainer.lesson.game import FoolResult, Score, SpotItem, SpotResult

GAME_CSS = """
.ee-game table { border-collapse: collapse; font-size: 1.05em; }
.ee-game th { text-align: left; font-weight: 600; padding: 4px 10px 4px 0; white-space: nowrap; }
.ee-game td { text-align: center; padding: 4px 6px; border-bottom: 1px solid #ddd; white-space: nowrap; }
.ee-game .ee-scroll { overflow-x: auto; max-width: 100%; }
.ee-game .ee-big { font-size: 1.5em; line-height: 1.6; }
body.ee-present .ee-game { font-size: 1.35em; }
"""


def _wrap(inner: str, element_id: str) -> str:
    return f'<div class="ee-game" id="{element_id}" style="{FONT}">{inner}</div>'


def spot_sentence_html(item: SpotItem, index: int, total: int) -> str:
    """The sentence to judge, big, with what to do."""
    return words_prompt_html(item.words, index, total)


def words_prompt_html(words: tuple[str, ...], index: int, total: int, button: str = "Reveal", label: str = "Sentence"
                      ) -> str:
    """Round A's prompt for a sentence's words (the single-browser game's, and a live class's with its own
    button and label)."""
    shown = " ".join(esc(w) for w in words)
    return _wrap(
        f'<p style="color:#555;margin:0">{esc(label)} {index + 1} of {total}. The generator changed some of these words '
        f"(at least one). Tick the words you think are fakes, then press <b>{esc(button)}</b>.</p>"
        f'<p class="ee-big" style="margin:6px 0">{shown}</p>', "game-sentence")


def _score_line(name: str, score: Score) -> str:
    return (f"<b>{esc(name)}</b>: caught {score.caught}, missed {score.missed}, false alarms {score.false_alarms} "
            f"→ <b>{score.points:+d}</b> point{'s' if abs(score.points) != 1 else ''}")


def spot_reveal_html(item: SpotItem, result: SpotResult, picked) -> str:
    """The truth beside the student's ticks and the discriminator's flags, and both scores."""
    picked = {int(i) for i in (picked or ())}
    head = "".join(f"<td><b>{esc(w)}</b></td>" for w in item.words)
    you = "".join(f"<td>{'☑' if i in picked else '·'}</td>" for i in range(len(item.words)))
    electra = "".join(
        f'<td title="P(replaced) = {p:.3f}" style="background:{p_colour(p)};color:{"#fff" if p > 0.6 else "#111"}">'
        f"{'⚑ ' if f else ''}{pct(p)}</td>" for p, f in zip(item.p_replaced, item.flagged))
    truth = "".join(
        f"<td>✗ fake<br><small>was “{esc(o)}”</small></td>" if r else
        ("<td>original<br><small>drawn back ↺</small></td>" if d else "<td>original</td>")
        for r, d, o in zip(item.replaced, item.drawn_back, item.originals))
    table = (f'<div class="ee-scroll" tabindex="0" role="region" aria-label="the reveal, word by word">'
             f'<table aria-label="the reveal">'
             f"<tr><th>the sentence</th>{head}</tr><tr><th>you ticked ☑</th>{you}</tr>"
             f"<tr><th>ELECTRA flagged ⚑ (P &gt; 50%)</th>{electra}</tr><tr><th>the truth</th>{truth}</tr></table></div>")
    back = sum(item.drawn_back)
    rule = (f"<p style='color:#555'>↺ {back} masked word{'s' if back != 1 else ''} got the original drawn back: "
            "that counts as <b>original</b> (label 0), as in ELECTRA's training; there was nothing to catch.</p>"
            if back else "")
    fooled = []
    if result.fooled_student:
        fooled.append(f"Fooled you: {esc(', '.join(result.fooled_student))}.")
    if result.fooled_electra:
        fooled.append(f"Fooled ELECTRA: {esc(', '.join(result.fooled_electra))}.")
    scores = (f'<p style="margin:6px 0"><span style="color:{MLM_COLOUR}">●</span> {_score_line("You", result.student)}'
              f'<br><span style="color:{RTD_COLOUR}">◆</span> {_score_line("ELECTRA", result.electra)}</p>')
    return _wrap(table + rule + scores + (f"<p>{' '.join(fooled)}</p>" if fooled else ""), "game-reveal")


def round_html(student: Score, electra: Score, done: int, total: int, code: int, results: list[SpotResult],
               generator: str = "electra") -> str:
    """The running score of the round; at the end, who won and which words fooled whom. `generator`: who forged
    (the stronger one is the harder level, said beside the class code)."""
    if done < total:
        status = f"After {done} of {total} sentences"
    elif student.points > electra.points:
        status = "Round over: <b>you beat ELECTRA!</b>"
    elif student.points < electra.points:
        status = "Round over: <b>ELECTRA wins this round.</b>"
    else:
        status = "Round over: <b>a draw.</b>"
    level = ", harder level: a stronger generator forged the fakes" if generator == "stronger" else ""
    lines = [f"<p style='font-size:1.15em;margin:4px 0'>{status} (class code {code}{level})</p>",
             f'<p style="margin:0"><span style="color:{MLM_COLOUR}">●</span> {_score_line("You", student)}<br>'
             f'<span style="color:{RTD_COLOUR}">◆</span> {_score_line("ELECTRA", electra)}</p>']
    if done == total and results:
        only_you = sorted({w for r in results for w in r.fooled_electra} - {w for r in results for w in r.fooled_student})
        only_electra = sorted({w for r in results for w in r.fooled_student} - {w for r in results for w in r.fooled_electra})
        if only_you:
            lines.append(f"<p>You caught what fooled ELECTRA: {esc(', '.join(only_you))}.</p>")
        if only_electra:
            lines.append(f"<p>ELECTRA caught what fooled you: {esc(', '.join(only_electra))}.</p>")
        lines.append("<p style='color:#555'>ELECTRA's discriminator judges every word from its context alone, as "
                     "it was trained to. A word that fits the sentence well fools it; so does a change it never "
                     "saw in training.</p>")
    return _wrap("".join(lines), "game-score")


def fool_html(result: FoolResult, tries: int, fooled: int, right: int) -> str:
    """Round B: the discriminator's P(replaced) for every word of the edited sentence, and the verdict."""
    chips = [chip(esc(w.corrupted), p_colour(w.p_replaced), pct(w.p_replaced), f"P(replaced) = {w.p_replaced:.3f}",
                  "3px solid #111" if w.index == result.word_index else "1px solid #ccc", w.p_replaced > 0.6)
             for w in result.explanation.words]  # Explore's chips: the edited word outlined
    verdict = ("ELECTRA <b>flagged</b> your word ⚑" if result.flagged else "ELECTRA was <b>fooled</b>: it did not flag "
               "your word")
    guess = "You predicted that right ✓" if result.student_right else "You predicted the opposite ✗"
    return _wrap(
        f'<p class="ee-big" style="margin:4px 0">{"".join(chips)}</p>'
        f"<p>“{esc(result.original_word)}” → “{esc(result.new_word)}”: P(replaced) = <b>{pct(result.p_edited)}</b>. "
        f"{verdict}. {guess}.</p>"
        f"<p style='color:#555'>So far: you fooled ELECTRA {fooled} time{'s' if fooled != 1 else ''} in {tries}, "
        f"and predicted its verdict right {right} time{'s' if right != 1 else ''}.</p>", "game-fool")
