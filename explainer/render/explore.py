"""Results -> escaped HTML and plotly figures. No gradio here: everything renders without a server.

Every string that came from the user or a vocabulary passes through `esc` (HTML escaping plus
removal of invisible and direction-changing characters), in HTML and in plotly labels alike
(plotly reads a few HTML tags in its labels). Colours use fixed scales, so the same colour means
the same probability in every sentence:
- P(replaced): white (0, looks original) -> red (1, looks replaced);
- attributions: blue (pushes towards "original") <- white -> red (pushes towards "replaced").
Every view that colours words takes `palette=` (a name in `style.PALETTES`: "standard", the above,
or "colour-blind safe": white -> orange -> brown, and blue <- white -> orange). Nothing is told by
colour alone: every chip prints its number, flagged words (P > 50%) are bold and underlined,
attribution numbers carry ▲/▼, and each chip is one image to a screen reader, named by one phrase.
Left out: themes; the chips carry their own colours so they read the same in dark mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import plotly.graph_objects as go

from explainer.render import figures
from training.words import is_piece
from explainer.render.style import (
    DEFAULT_PALETTE,
    FLAG_THRESHOLD,
    FONT,
    Palette,
    chip,
    diverging_colourscale,
    esc,
    get_palette,
    legend_html,
    p_colour,
    share_colour,
    word_label,
)

# Large type, for a projector: a body class (`ee-explore-large`, the tab's switch) that scales the results ②-④, whose
# sizes are all in em, from the page's 14 px to 28 px (the live class's projector size): the chips' percentages
# read at 21 px, not 10.5. The guess cards drop their 420-px cap so their bars keep room. The Classroom's presenter
# mode is the same idea (explainer/render/classroom_tab.py).
LARGE_CSS = """
body.ee-explore-large :is(#explore-generator-input, #explore-proposals, #explore-verdict, #explore-notices) .prose {
  font-size: 28px; }
body.ee-explore-large .ee-results-head h3 { font-size: 30px; }
body.ee-explore-large #explore-proposals .ee-guess-card { max-width: none !important; flex-basis: 16em !important; }
"""

if TYPE_CHECKING:  # types only: the views never run a model
    from explainer.core.attributions import Attribution, AttributionMatrix
    from explainer.core.pipeline import Explanation




def sentence_units(explanation: Explanation, merged: bool):
    """(shown text, original text, p_replaced, masked, replaced) per word or per token."""
    if merged:
        return [(w.corrupted, w.text, w.p_replaced, w.masked, w.replaced) for w in explanation.words]
    return [(t.corrupted, t.original, t.p_replaced, t.masked, t.replaced) for t in explanation.tokens]


def blank_units(explanation: Explanation, merged: bool) -> list[bool]:
    """Per word (or token), as `sentence_units` lists them: whether it holds a blank the user typed."""
    if merged:
        return [w.blank for w in explanation.words]
    return [t.blank for t in explanation.tokens]


BLANK_UNJUDGED = "a blank you typed: not judged (nobody wrote a word there)"


def sentence_chips(explanation: Explanation, merged: bool = True, palette: str | Palette = DEFAULT_PALETTE) -> str:
    """The chips alone: every word (or token) coloured by its P(replaced), flagged ones bold and underlined. A
    blank the user typed reads "filled your blank" once the generator filled it; unfilled (detect-only) it is
    grey, without a number: a blank is not judged."""
    chosen = get_palette(palette)
    chips = []
    for (shown, original, p, masked, replaced), blank in zip(sentence_units(explanation, merged),
                                                             blank_units(explanation, merged)):
        below = f"{p:.0%}"
        border = "1px solid #ccc"
        if blank and not masked:
            chips.append(chip(esc(shown), "#eeeeee", "blank · not judged", esc(f"{shown}, {BLANK_UNJUDGED}"),
                              "2px dashed #777", labelled=True))
            continue
        if blank and replaced:  # on a line of its own, as every caption under a chip
            border = "3px solid #111"
            below += '<span style="display: block">filled your blank</span>'
            original = "a blank you typed"
        elif replaced:  # the original on a line of its own: two replaced neighbours' captions never run together
            border = "3px solid #111"
            below += f'<span style="display: block">was <b>{esc(original)}</b></span>'
        elif masked:
            border = "2px dashed #777"
            below += '<span style="display: block">original</span>'
        chips.append(chip(esc(shown), p_colour(p, chosen), below, word_label(shown, p, replaced, masked, original),
                          border, flagged=p > FLAG_THRESHOLD, labelled=True))
    return "".join(chips)


def sentence_html(explanation: Explanation, merged: bool = True, palette: str | Palette = DEFAULT_PALETTE) -> str:
    """The sentence the discriminator read, every word (or token) coloured by its P(replaced), and the legend (its
    outlines for what was really replaced only where there is a truth: not in detect-only)."""
    return (f'<div class="ee-sentence" style="{FONT}">{sentence_chips(explanation, merged, palette)}</div>'
            f"{legend_html(palette, flag_cue=True, truth=explanation.settings.mode != 'detect')}")


MASK_CHIP = ('<span style="background: #333; color: #fff; border-radius: 4px; padding: 1px 6px; '
             'font-family: ui-monospace, monospace; font-size: 0.9em">[MASK]</span>')
KEPT_TITLE = "selected but left unmasked (15% of the selected, as in the official ELECTRA code)"


def _kept(text: str) -> str:
    return f'<span title="{KEPT_TITLE}" style="border-bottom: 2px dotted #333"><bdi>{esc(text)}</bdi></span>'


def _seen_word(explanation: Explanation, word, shown_as_mask: set[int], kept: set[int]) -> str:
    """One word as the generator read it. A word masked whole is one [MASK] (a ticked word, "U.S." in manual mode);
    a word only some of whose tokens were masked is written token by token, so nothing it saw is hidden: its
    unmasked pieces as typed, a [MASK] at each masked token ("[MASK].S." when only the "u" of "U.S." was)."""
    masked = [p in shown_as_mask for p in word.tokens]
    if all(masked):
        return MASK_CHIP
    if not any(masked):
        return _kept(word.text) if any(p in kept for p in word.tokens) else f"<bdi>{esc(word.text)}</bdi>"
    text, parts, cursor = explanation.text, [], word.start
    for position in word.tokens:
        token = explanation.tokens[position]
        if position in shown_as_mask:  # the characters the tokenizer dropped before it stay with the text before
            parts.append(esc(text[cursor:token.start]) + MASK_CHIP)
        else:
            piece = text[cursor:token.end]
            parts.append(_kept(piece) if position in kept else esc(piece))
        cursor = max(cursor, token.end)
    parts.append(esc(text[cursor:word.end]))
    return f"<bdi>{''.join(parts)}</bdi>"


def generator_input_html(explanation: Explanation, merged: bool = True) -> str:
    """The sentence as the generator saw it: masked positions shown as [MASK] (`_seen_word` per word)."""
    if not explanation.masked:
        return f'<p style="{FONT}">Nothing was masked: the discriminator judges your text as it is.</p>'
    shown_as_mask = {m.position for m in explanation.masked if m.shown_as_mask}
    kept = {m.position for m in explanation.masked if not m.shown_as_mask}
    pieces = []
    units = explanation.words if merged else [t for t in explanation.tokens if not t.special]
    for n, unit in enumerate(units):
        # Words as typed: no space where none was ("arrived" [MASK] for "arrived."), one where any was.
        touching = merged and n > 0 and not any(c.isspace() for c in explanation.text[units[n - 1].end:unit.start])
        pieces.append("" if n == 0 or touching else " ")
        if merged:
            pieces.append(_seen_word(explanation, unit, shown_as_mask, kept))
        elif unit.position in shown_as_mask:
            pieces.append(MASK_CHIP)
        else:
            pieces.append(_kept(unit.original) if unit.position in kept else f"<bdi>{esc(unit.original)}</bdi>")
    legend = ""
    if kept:
        legend = (f'<div style="{FONT}; font-size: 0.85em; color: #444">Dotted underline: chosen, but left '
                  "visible (ELECTRA leaves 15% of the chosen words unmasked); the generator still guesses it.</div>")
    return f'<div class="ee-masked" style="{FONT}; font-size: 1.15em; line-height: 2">{"".join(pieces)}</div>{legend}'


def _alarms(n: int) -> str:
    """The false alarms counted in words: no false alarms, 1 false alarm, 3 false alarms (the number in bold)."""
    return "<b>no</b> false alarms" if n == 0 else f"<b>{n}</b> false alarm{'' if n == 1 else 's'}"


def score_html(explanation: Explanation) -> str:
    score = explanation.score()
    if not score:
        blank = (" A blank you typed is not judged: fill it in, or choose another mode, where the generator fills it."
                 if any(w.blank for w in explanation.words) else "")
        return (f'<p style="{FONT}">Detect-only: nobody knows which words are replaced; the colours are the '
                f"discriminator's guess alone.{blank}</p>")
    return (
        f'<p class="ee-score" style="{FONT}">The generator replaced <b>{score["replaced"]}</b> of '
        f'{score["tokens"]} tokens; the discriminator flagged <b>{score["caught"]}</b> of them '
        f"(P &gt; 50%) and raised {_alarms(score['false_alarms'])}. "
        f'<span class="ee-seed" style="color: #555">Draw {explanation.settings.seed:d}: press the button again '
        "for another draw; the seed in Settings gives this one back.</span></p>"
    )


def model_html(name: str, layers: int, hidden: int, vocabulary: int, max_tokens: int, has_generator: bool) -> str:
    """The model Explore runs, in one line: its name, the discriminator's size, what it reads."""
    note = "" if has_generator else " It has no generator: only “Detect only” works."
    return (f'<p style="{FONT}; font-size: 0.9em">Model <b>{esc(name)}</b>: discriminator {layers} layers × {hidden}, '
            f"{vocabulary:,}-token vocabulary, reads up to {max_tokens} tokens.{note}</p>")


def notices_html(notices: tuple[str, ...] | list[str]) -> str:
    if not notices:
        return ""
    items = "".join(f"<li>{esc(n)}</li>" for n in notices)
    return (f'<div class="ee-notice" role="status" style="{FONT}; background: #fff4ce; border: 1px solid #e0c050; '
            f'border-radius: 6px; padding: 6px 12px; margin: 6px 0"><ul style="margin: 0">{items}</ul></div>')


def attribution_units(attribution: Attribution, explanation: Explanation, merged: bool):
    """(text, share, is target) per word (shares of its tokens summed: completeness is kept) or token."""
    if merged:
        return [(w.corrupted, sum(attribution.scores[p] for p in w.tokens), attribution.target in w.tokens)
                for w in explanation.words]
    return [(t.corrupted, attribution.scores[t.position], t.position == attribution.target)
            for t in explanation.tokens if not t.special]


def sign_mark(share: float) -> str:
    """▲ for a share towards replaced, ▼ towards original: the sign without colour (and besides its +/-)."""
    return "▲" if share > 0 else "▼" if share < 0 else "·"


def share_label(text: str, share: float, is_target: bool) -> str:
    """An attribution chip's accessible name and tooltip, escaped."""
    towards = "towards replaced" if share > 0 else "towards original" if share < 0 else "neither way"
    label = f"{esc(text)}, share {share:+.4f}, pushes {towards}"
    return label + (", the word being explained" if is_target else "")


def attribution_chips(attribution: Attribution, explanation: Explanation, merged: bool = True,
                      palette: str | Palette = DEFAULT_PALETTE) -> str:
    """The attribution chips alone, coloured by share scaled to the largest, ▲/▼ and the share under each."""
    chosen = get_palette(palette)
    units = attribution_units(attribution, explanation, merged)
    peak = max((abs(share) for _, share, _ in units), default=0) or 1.0
    chips = []
    for text, share, is_target in units:
        chips.append(chip(esc(text), share_colour(share / peak, chosen), f"{sign_mark(share)} {share:+.3f}",
                          share_label(text, share, is_target), "3px solid #111" if is_target else "1px solid #ccc",
                          labelled=True))
    return "".join(chips)


def attribution_html(attribution: Attribution, explanation: Explanation, merged: bool = True,
                     palette: str | Palette = DEFAULT_PALETTE) -> str:
    """Words (or tokens) coloured by their share of the target's replaced-logit, scaled to the largest."""
    chosen = get_palette(palette)
    chips = attribution_chips(attribution, explanation, merged, chosen)
    target = explanation.tokens[attribution.target]
    word = explanation.words[target.word]
    name = f"“{esc(target.corrupted)}”" + (" (a piece of a word)" if is_piece(target.corrupted) else "")
    if merged and len(word.tokens) > 1:
        name = f"“{esc(word.corrupted)}” (its piece “{esc(target.corrupted)}”)"
    delta = "" if attribution.delta is None else (
        f" Integrated gradients from a {attribution.settings.baseline.upper()} baseline with "
        f"{attribution.points or attribution.settings.n_steps} points: the shares add up to "
        "logit(sentence) − logit(baseline) = "
        f"{attribution.logit - attribution.baseline_logit:+.3f} within {abs(attribution.delta):.1e} "
        f"(convergence delta).")
    head = (f'<p style="{FONT}">Why is <b>{name}</b> (outlined) rated {attribution.p_replaced:.0%} '
            f"replaced? {chosen.replaced_word.capitalize()} words (▲) push it towards <i>replaced</i>, "
            f"{chosen.original_word} words (▼) towards <i>original</i>; the number is each "
            f"word's share of the score (its logit).{delta}</p>")
    return f'{head}<div class="ee-attribution" style="{FONT}">{chips}</div>'


def attribution_figure(attribution: Attribution, explanation: Explanation, merged: bool = True,
                       palette: str | Palette = DEFAULT_PALETTE) -> go.Figure:
    positive, negative = get_palette(palette).bars
    units = attribution_units(attribution, explanation, merged)
    labels = [esc(text) for text, _, _ in units]
    scores = [share for _, share, _ in units]
    bars = {"type": "bar", "x": list(range(len(units))), "y": scores,
            "marker": {"color": [positive if s >= 0 else negative for s in scores],
                       "line": {"width": [3 if t else 0 for _, _, t in units], "color": "#111"}},
            "customdata": labels, "hovertemplate": "%{customdata}: %{y:+.4f}<extra></extra>"}
    target = esc(explanation.tokens[attribution.target].corrupted)
    return figures.figure([bars], {
        "xaxis": {"tickvals": list(range(len(units))), "ticktext": labels, "tickangle": -45},
        "yaxis": {"title": {"text": "share of the logit"}},
        "height": 320, "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "title": {"text": f"Each {'word' if merged else 'token'}'s share of “{target}”'s replaced-logit",
                  "font": {"size": 14}},
    })


def _token_axis(explanation: Explanation, positions) -> list[str]:
    return [esc(explanation.tokens[p].corrupted) for p in positions]


def matrix_figure(matrix: AttributionMatrix, explanation: Explanation,
                  palette: str | Palette = DEFAULT_PALETTE) -> go.Figure:
    """Heatmap: row = the token being judged, column = the token it looks at; rows scaled to +-1."""
    chosen = get_palette(palette)
    columns = [t.position for t in explanation.tokens if not t.special]
    z = []
    for row in matrix.scores:
        values = [row[p] for p in columns]
        peak = max(abs(v) for v in values) or 1.0
        z.append([v / peak for v in values])
    heatmap = {"type": "heatmap", "z": z, "zmin": -1, "zmax": 1, "colorscale": diverging_colourscale(chosen),
               "colorbar": {"title": {"text": "share"}, "tickvals": [-1, 0, 1],
                            "ticktext": ["→ original", "0", "→ replaced"]},
               "hovertemplate": "judging %{y}, looking at %{x}: %{z:+.2f}<extra></extra>",
               "x": list(range(len(columns))), "y": list(range(len(matrix.targets)))}
    size = 22 * max(len(columns), len(matrix.targets))
    return figures.figure([heatmap], {
        "xaxis": {"tickvals": list(range(len(columns))), "ticktext": _token_axis(explanation, columns),
                  "tickangle": -45, "side": "top"},
        "yaxis": {"tickvals": list(range(len(matrix.targets))), "ticktext": _token_axis(explanation, matrix.targets),
                  "autorange": "reversed"},
        "height": min(1400, 180 + size), "margin": {"l": 10, "r": 10, "t": 90, "b": 10},
        "title": {"text": f"Row = a word being judged; {chosen.replaced_word} columns pushed it towards replaced, "
                          f"{chosen.original_word} towards original (each row scaled to ±1)", "font": {"size": 14}},
    })
