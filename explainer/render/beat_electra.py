"""The game "Can you beat ELECTRA?" (explainer.lesson.beat_electra) as escaped HTML. No gradio, no torch.

The reveal is one card per word, in reading order, wrapping like the sentence: the word as everyone read it,
what the student ticked, what ELECTRA's discriminator flagged (with its P(replaced), on Explore's colour scale),
and the truth (with the original word). A key above says what each line of a card is. Every mark is a symbol and
words as well as a colour, so it reads in black and white, and a long sentence wraps on a laptop and on a phone
instead of running off the right edge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.render.style import FLAG_THRESHOLD, FONT, MLM_COLOUR, RTD_COLOUR, chip, esc, p_colour, verdict_pct
from training.words import joined

if TYPE_CHECKING:
    from explainer.lesson.beat_electra import FoolResult, Score, SpotItem, SpotResult

PUNCTUATION = ".,;:!?\"'()[]{}“”‘’«»…`-—"  # around a word; a word of punctuation alone is kept as it is
GAME_CSS = """
.ee-game ul.ee-cards { display: flex; flex-wrap: wrap; gap: 6px; margin: 6px 0 !important; padding: 0 !important;
  list-style: none; }
.ee-game .ee-card { display: flex; flex-direction: column; align-items: stretch; text-align: center; min-width: 4.2em;
  border: 1px solid #bbb; border-radius: 6px; overflow: hidden; margin: 0; padding: 0; }
.ee-game .ee-card > span { padding: 2px 8px; white-space: nowrap; }
.ee-game .ee-card .ee-word { font-weight: 700; font-size: 1.1em; border-bottom: 1px solid #ddd; }
.ee-game .ee-card.ee-faked { border: 3px solid #111; }
.ee-game .ee-key { color: #555; margin: 4px 0; }
.ee-game .ee-big { font-size: 1.5em; line-height: 1.6; }
body.ee-present .ee-game { font-size: 1.35em; }
"""


def words_list(words) -> str:
    """Words for a sentence, escaped, each in quotes and without the punctuation around it, so a fake comma
    and a word with its comma read as words: “`”, “sally” and “ships” (in the order given, each once)."""
    bare = [w.strip(PUNCTUATION) or w for w in words]
    quoted = [f"“{esc(w)}”" for w in dict.fromkeys(bare)]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}" if quoted else ""


def _wrap(inner: str, element_id: str) -> str:
    return f'<div class="ee-game" id="{element_id}" style="{FONT}">{inner}</div>'


def spot_sentence_html(item: SpotItem, index: int, total: int) -> str:
    """The sentence to judge, big, with what to do."""
    return words_prompt_html(item.words, index, total)


def words_prompt_html(words: tuple[str, ...], index: int, total: int, button: str = "Reveal", label: str = "Sentence"
                      ) -> str:
    """Round A's prompt for a sentence's words (the single-browser game's, and a live class's with its own
    button and label)."""
    shown = esc(joined(words))
    return _wrap(
        f'<p style="color:#555;margin:0">{esc(label)} {index + 1} of {total}. '
        f"The generator changed some of these words (at least one). "
        f"Tick the words you think are fakes, then press <b>{esc(button)}</b>.</p>"
        f'<p class="ee-big" style="margin:6px 0">{shown}</p>', "game-sentence")


def _score_line(name: str, score: Score) -> str:
    return (f"<b>{esc(name)}</b>: caught {score.caught}, missed {score.missed}, false alarms {score.false_alarms} "
            f"→ <b>{score.points:+d}</b> point{'s' if abs(score.points) != 1 else ''}")


def spot_reveal_html(item: SpotItem, result: SpotResult, picked, scores: bool = True) -> str:
    """The truth beside the student's ticks and the discriminator's flags, and (`scores`) both scores on this
    sentence; the game leaves them to its score box (`round_html`), which shows them once, beside the round's."""
    picked = {int(i) for i in (picked or ())}
    cards = []
    for i, (word, p, flag, replaced, back, original) in enumerate(zip(
            item.words, item.p_replaced, item.flagged, item.replaced, item.drawn_back, item.originals)):
        truth = (f"✗ fake<br><small>was “{esc(original)}”</small>" if replaced else
                 "original<br><small>drawn back ↺</small>" if back else "original")
        you = "☑ ticked" if i in picked else "·"
        cards.append(
            f'<li class="ee-card{" ee-faked" if replaced else ""}"><span class="ee-word">{esc(word)}</span>'
            f"<span>{you}</span>"
            f'<span title="P(replaced) = {p:.3f}" '
            f'style="background:{p_colour(p)};color:{"#fff" if p > 0.6 else "#111"}">'
            f"{'⚑ ' if flag else ''}{verdict_pct(p)}</span><span>{truth}</span></li>")
    table = ('<p class="ee-key">Under each word: what you ticked ☑, ELECTRA\'s P(replaced) (flagged ⚑ above 50%), '
             "and the truth.</p>"
             f'<ul class="ee-cards" aria-label="the reveal, word by word">{"".join(cards)}</ul>')
    back = sum(item.drawn_back)
    rule = (f"<p style='color:#555'>↺ {back} masked word{'s' if back != 1 else ''} got the original drawn back: "
            "that counts as <b>original</b> (label 0), as in ELECTRA's training; there was nothing to catch.</p>"
            if back else "")
    fooled = []
    if result.fooled_student:
        fooled.append(f"Fooled you: {words_list(result.fooled_student)}.")
    if result.fooled_electra:
        fooled.append(f"Fooled ELECTRA: {words_list(result.fooled_electra)}.")
    lines = (f'<p style="margin:6px 0">This sentence: <span style="color:{MLM_COLOUR}">●</span> '
             f'{_score_line("You", result.student)}<br><span style="color:{RTD_COLOUR}">◆</span> '
             f'{_score_line("ELECTRA", result.electra)}</p>' if scores else "")
    return _wrap(table + rule + lines + (f"<p>{' '.join(fooled)}</p>" if fooled else ""), "game-reveal")


def round_html(student: Score, electra: Score, done: int, total: int, code: str, results: list[SpotResult],
               generator: str = "electra") -> str:
    """The running score of the round; at the end, who won and which words fooled whom. `generator`: who forged
    (the stronger one is the harder level, said beside the round code)."""
    if done < total:
        status = f"After {done} of {total} sentences"
    elif student.points > electra.points:
        status = "Round over: <b>you beat ELECTRA!</b>"
    elif student.points < electra.points:
        status = "Round over: <b>ELECTRA wins this round.</b>"
    else:
        status = "Round over: <b>a draw.</b>"
    level = ", harder level: a stronger generator forged the fakes" if generator == "stronger" else ""
    lines = [f"<p style='font-size:1.15em;margin:4px 0'>{status} (round code {esc(str(code))}{level})</p>"]
    if results and done:  # the sentence just revealed, then the round so far: each score once, each labelled
        last = results[-1]
        lines.append(f'<p style="margin:0 0 4px" id="game-this-sentence">Sentence {done}: <span style="color:'
                     f'{MLM_COLOUR}">●</span> you <b>{last.student.points:+d}</b>, <span style="color:{RTD_COLOUR}">◆'
                     f"</span> ELECTRA <b>{last.electra.points:+d}</b></p>")
    lines.append(f'<p style="margin:0" id="game-so-far">{"The round so far" if done else "The round"}:<br>'
                 f'<span style="color:{MLM_COLOUR}">●</span> {_score_line("You", student)}<br>'
                 f'<span style="color:{RTD_COLOUR}">◆</span> {_score_line("ELECTRA", electra)}</p>')
    if done == total and results:
        only_you = sorted({w for r in results for w in r.fooled_electra}
                          - {w for r in results for w in r.fooled_student})
        only_electra = sorted({w for r in results for w in r.fooled_student}
                              - {w for r in results for w in r.fooled_electra})
        if only_you:
            lines.append(f"<p>You caught what fooled ELECTRA: {words_list(only_you)}.</p>")
        if only_electra:
            lines.append(f"<p>ELECTRA caught what fooled you: {words_list(only_electra)}.</p>")
        lines.append("<p style='color:#555'>ELECTRA's discriminator judges every word from its context alone, as "
                     "it was trained to. A word that fits the sentence well fools it; so does a change it never "
                     "saw in training.</p>")
    return _wrap("".join(lines), "game-score")


def fool_html(result: FoolResult, tries: int, fooled: int, right: int) -> str:
    """Round B: the discriminator's P(replaced) for every word of the edited sentence, and the verdict."""
    chips = [chip(esc(w.corrupted), p_colour(w.p_replaced), verdict_pct(w.p_replaced),
                  f"P(replaced) = {w.p_replaced:.3f}",
                  "3px solid #111" if w.index == result.word_index else "1px solid #ccc",
                  flagged=w.p_replaced > FLAG_THRESHOLD)
             for w in result.explanation.words]  # Explore's chips (flagged above 50%: bold): the edited word outlined
    verdict = ("ELECTRA <b>flagged</b> your word ⚑" if result.flagged else "ELECTRA was <b>fooled</b>: it did not flag "
               "your word")
    guess = "You predicted that right ✓" if result.student_right else "You predicted the opposite ✗"
    return _wrap(
        f'<p class="ee-big" style="margin:4px 0">{"".join(chips)}</p>'
        f"<p>“{esc(result.original_word)}” → “{esc(result.new_word)}”: "
        f"P(replaced) = <b>{verdict_pct(result.p_edited)}</b>. "
        f"{verdict}. {guess}.</p>"
        f"<p style='color:#555'>So far: you fooled ELECTRA {fooled} time{'s' if fooled != 1 else ''} in {tries}, "
        f"and predicted its verdict right {right} time{'s' if right != 1 else ''}.</p>", "game-fool")
