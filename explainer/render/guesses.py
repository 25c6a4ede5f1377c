"""The generator's guesses at each masked position, as HTML bars (no chart library).

One card per masked word: what was there, what was drawn and the label that makes, then the top-k
guesses as bars, the drawn one in orange, bold and marked "← drawn" (a cue without colour). Every bar of
the view is drawn to one scale (the view's largest probability is a full bar), so 2.5% never looks as
likely as 56%. A draw from outside the top k gets one line saying why: the generator samples from its
whole distribution, and its top k may hold only a few percent of it (`tail_line`). Plain HTML because this
view is drawn for every sentence: as a plotly chart it cost the page several seconds of the browser's time on a
slow machine before anything
else could update (plotly's script loads and draws on first use), and text bars read on a
projector and to a screen reader as they are.

A blank the user typed gets a wider card: the two generators' top guesses side by side (ELECTRA's own first),
the one that forged this sentence marking its draw, when the other generator can forge for this model too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.core.generators import ELECTRA, label
from explainer.render.style import FONT, esc, pct
from training.words import as_guess

if TYPE_CHECKING:
    from explainer.core.pipeline import Explanation, MaskedPosition

MAX_CARDS = 12  # masked positions drawn; the JSON export has all of them
DRAWN, OTHER = "#e6550d", "#9ecae1"
TITLE = "The generator's top guesses at each masked position (orange = the one drawn)"
# A card's columns: the word, never narrower than its longest word (a word is never broken letter by letter,
# "shi / p"); the bar, what is left (3em at the least); the number, whose note ("← drawn, not in the top 5")
# wraps at its spaces on a phone. A card whose words cannot fit at all scrolls inside itself, not the page.
COLUMNS = "minmax(min-content, max-content) minmax(3em, 1fr) auto"


def card_title(m: MaskedPosition) -> str:
    if m.typed:
        return f"your blank: drew “<bdi>{esc(as_guess(m.sampled))}</bdi>” → label REPLACED (nobody wrote a word there)"
    verdict = "= the original → label ORIGINAL" if not m.replaced else "→ label REPLACED"
    return (f"was “<bdi>{esc(as_guess(m.original))}</bdi>”, drew “<bdi>{esc(as_guess(m.sampled))}</bdi>” "
            f"{verdict}")


def rows(m: MaskedPosition) -> list[tuple[str, float, str]]:
    """(label, probability, note) per bar: the top-k, and the draw when it came from outside them. The
    note is "" or says the bar is the draw ("← drawn", "← drawn, not in the top k")."""
    bars = [(as_guess(p.token) + (" (original)" if p.is_original else ""), p.probability,
             "← drawn" if p.token_id == m.sampled_id else "") for p in m.proposals]
    if not any(note for _, _, note in bars):
        bars.append((as_guess(m.sampled) + (" (original)" if not m.replaced else ""), m.sampled_probability,
                     f"← drawn, not in the top {len(m.proposals)}"))
    return bars


def tail_line(m: MaskedPosition, forger: str, temperature: float) -> str:
    """Why a draw from outside the top k happens, with the share the top k hold ("" for a draw inside them)."""
    if any(p.token_id == m.sampled_id for p in m.proposals):
        return ""
    k, share = len(m.proposals), sum(p.probability for p in m.proposals)
    at = "at temperature 1, as in ELECTRA's pretraining" if temperature == 1 else f"at temperature {temperature:g}"
    text = (f"Why so unlikely a word? {label(forger)} draws at random from all its guesses in proportion to their "
            f"probability ({at}); its top {k} here hold {pct(share)}, so "
            f"{'most draws come' if share < 0.5 else 'a draw can come'} from the long tail of unlikely words.")
    return f'<p class="ee-tail-line" style="font-size: 0.85em; color: #444; margin: 4px 0 0">{esc(text)}</p>'


def _bar(label: str, probability: float, note: str, peak: float) -> str:
    width = 100 * probability / peak if peak > 0 else 0
    drawn = bool(note)
    weight = "font-weight: 700; " if drawn else ""
    number = pct(probability) + (f" {note}" if note else "")
    return (f'<span class="ee-guess-word" style="{weight}text-align: right; overflow-wrap: break-word">'
            f"<bdi>{esc(label)}</bdi></span>"
            f'<span style="background: #f0f0f0; height: 0.9em; border-radius: 2px">'
            f'<span style="display: block; height: 100%; width: {width:.1f}%; background: {DRAWN if drawn else OTHER}; '
            f'border-radius: 2px"></span></span>'
            f'<span class="ee-guess-number" style="{weight}white-space: normal">{number}</span>')


def _grid(bars: list[tuple[str, float, str]], peak: float) -> str:
    """The bars of one card (or one half of a blank's card), `peak` the probability drawn as a full bar."""
    body = "".join(_bar(word, probability, note, peak) for word, probability, note in bars)
    return (f'<div style="display: grid; grid-template-columns: {COLUMNS}; gap: 3px 8px; '
            f'align-items: center; font-size: 0.95em">{body}</div>')


def peak_of(masked) -> float:
    """The largest probability the view draws (a full bar): one scale for every card and column."""
    return max((p for m in masked for p in [b[1] for b in rows(m)] + [o.probability for o in m.others]), default=0.0)


def card(m: MaskedPosition, forger: str = ELECTRA, peak: float | None = None, temperature: float = 1.0) -> str:
    """One masked position's card; `forger`: the key of the generator that drew (explainer.core.generators);
    `peak`: the probability of a full bar (the view's, `peak_of`; this card's largest when None)."""
    peak = peak_of([m]) if peak is None else peak
    if m.typed and m.others:
        return blank_card(m, forger, peak, temperature)
    return (f'<div class="ee-guess-card" style="flex: 1 1 250px; max-width: 420px; min-width: 0; overflow-x: auto; '
            f'border: 1px solid #ccc; border-radius: 6px; padding: 6px 10px">'
            f'<div style="font-size: 0.9em; margin-bottom: 4px">{card_title(m)}</div>{_grid(rows(m), peak)}'
            f"{tail_line(m, forger, temperature)}</div>")


def blank_card(m: MaskedPosition, forger: str, peak: float, temperature: float = 1.0) -> str:
    """A typed blank: both generators' top guesses side by side, ELECTRA's own first; the forger's draw marked."""
    columns = {forger: rows(m), m.others_generator: [(as_guess(p.token), p.probability, "") for p in m.others]}
    halves = "".join(
        f'<div class="ee-guess-half" style="flex: 1 1 200px; min-width: 0">'
        f'<div style="font-weight: 700; font-size: 0.9em; margin-bottom: 2px">{esc(label(key))}'
        f'{" (drew this one)" if key == forger else ""}</div>{_grid(columns[key], peak)}'
        f'{tail_line(m, forger, temperature) if key == forger else ""}</div>'
        for key in sorted(columns, key=lambda k: k != ELECTRA))
    return (f'<div class="ee-guess-card ee-blank-card" style="flex: 1 1 460px; max-width: 820px; min-width: 0; '
            f'overflow-x: auto; border: 2px solid #333; border-radius: 6px; padding: 6px 10px">'
            f'<div style="font-size: 0.9em; margin-bottom: 4px">{card_title(m)}</div>'
            f'<div style="display: flex; flex-wrap: wrap; gap: 6px 18px">{halves}</div></div>')


def guesses_html(explanation: Explanation) -> str:
    """Every masked position's card (up to MAX_CARDS), or a sentence saying why there are none."""
    shown = explanation.masked[:MAX_CARDS]
    if not shown:
        return (f'<p style="{FONT}">Nothing was masked, so the generator made no guesses (detect-only, or no word '
                "chosen).</p>")
    more = len(explanation.masked) - len(shown)
    note = f'<p style="font-size: 0.9em">{more} more masked positions are in the JSON download.</p>' if more else ""
    peak, settings = peak_of(shown), explanation.settings
    cards = "".join(card(m, settings.generator, peak, settings.temperature) for m in shown)
    title = TITLE if explanation.settings.generator == ELECTRA else TITLE.replace("The generator",
                                                                                   "The stronger generator")
    return (f'<div class="ee-guesses" style="{FONT}"><p style="margin: 0 0 6px 0"><b>{esc(title)}</b> '
            f'<span class="ee-guess-scale" style="font-size: 0.9em">(every bar to one scale: a full bar is '
            f"{pct(peak)})</span></p>"
            f'<div style="display: flex; flex-wrap: wrap; gap: 10px">{cards}</div>{note}</div>')
