"""The look shared by every view: the palettes, the escaping, the word chips, the P(replaced) colour
scale and its legend, messages. No gradio, no torch.

Every string that came from the user or a vocabulary passes through `esc` (HTML escaping plus
removal of invisible and direction-changing characters), in HTML and in plotly labels alike
(plotly reads a few HTML tags in its labels).

Two palettes (`PALETTES`), picked by name with `palette=` in every view that colours words:
- "standard": P(replaced) from white (0) to red (1); attributions blue (towards original) <- white
  -> red (towards replaced). The app's look since the start; the default everywhere.
- "colour-blind safe": P(replaced) from white through ColorBrewer's Oranges to a dark brown, and
  attributions on ColorBrewer's Blues (towards original) <- white -> Oranges (towards replaced).
  Why these, simulated for protanopia, deuteranopia and tritanopia (Machado et al. 2009, severity 1,
  tests/test_a11y_render.py): (1) the value is carried by lightness, which every kind of colour vision
  and a greyscale print still see: the ramp darkens further than the standard red (CIELAB L* 100 ->
  24-32 under the three simulations, against 38-53 for white -> red) and stays monotone; (2) orange
  keeps its tint for red-green dichromats, where the standard's pinks turn grey (chroma 44 against 9
  at P = 0.4 under protanopia), so "a little suspicious" still differs from "not at all"; (3) blue
  against orange is the diverging pair that stays apart for all three dichromacies (ColorBrewer's and
  Okabe & Ito's advice): at a third of the largest share, the two sides differ by ΔE 45-53 against
  19-38 for blue/red.
  Neither palette is read by colour alone: the numbers are printed under every word, flagged words
  (P(replaced) > 50%) are bold and underlined, attribution numbers carry ▲/▼ with their sign.

Text on a chip is dark (#111) or white, whichever reaches WCAG AA contrast (4.5:1) on that chip's
background (black where neither does: some background always reaches 4.5:1 with black or white).
A chip can carry its own accessible name (`labelled=True`): it becomes role="img" whose name is its
title, so a screen reader reads one phrase per word ("boat, rated 73% replaced, flagged, really
replaced (was ship)") instead of the word, the number and the note as three fragments.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from explainer.core.text import visible

RTD_COLOUR = "#e6550d"  # ELECTRA's replaced-token detection, in every chart and table
MLM_COLOUR = "#2166ac"  # BERT's masked language modelling
MUTED = "#767676"  # the lightest grey that keeps 4.5:1 contrast on white: floors, guides, the paper's LMs
FONT = "font-family: ui-sans-serif, system-ui, sans-serif; color: #111"
RED = (215, 48, 31)  # P(replaced) = 1
BLUE = (33, 102, 172)  # most negative attribution
WHITE = (255, 255, 255)
FLAG_THRESHOLD = 0.5  # a word is flagged (bold, underlined) when the discriminator rates it above this
AA = 4.5  # WCAG AA contrast for normal text
TEXT_DARK, TEXT_LIGHT, TEXT_BLACK = "#111", "#fff", "#000"

RGB = tuple[int, int, int]
Ramp = tuple[tuple[float, RGB], ...]  # (position in [0, 1], colour) stops, first at 0, last at 1


@dataclass(frozen=True)
class Palette:
    name: str
    replaced: Ramp  # P(replaced) from 0 to 1
    towards_replaced: Ramp  # a positive attribution share, scaled to [0, 1]
    towards_original: Ramp  # a negative attribution share, |scaled| in [0, 1]
    bars: tuple[str, str]  # (positive, negative) bar colours in the attribution chart
    replaced_word: str  # the colour's name in sentences: "red"
    original_word: str  # "blue"


ORANGES: Ramp = ((0.0, WHITE), (0.25, (253, 208, 162)), (0.5, (253, 141, 60)), (0.75, (217, 72, 1)),
                 (1.0, (127, 39, 4)))  # ColorBrewer Oranges (9-class #fdd0a2 #fd8d3c #d94801 #7f2704)
BLUES: Ramp = ((0.0, WHITE), (0.25, (198, 219, 239)), (0.5, (107, 174, 214)), (0.75, (33, 113, 181)),
               (1.0, (8, 48, 107)))  # ColorBrewer Blues (#c6dbef #6baed6 #2171b5 #08306b)

PALETTES: dict[str, Palette] = {
    "standard": Palette("standard", ((0.0, WHITE), (1.0, RED)), ((0.0, WHITE), (1.0, RED)),
                        ((0.0, WHITE), (1.0, BLUE)), ("#d7301f", "#2166ac"), "red", "blue"),
    "colour-blind safe": Palette("colour-blind safe", ORANGES, ORANGES, BLUES, ("#e66101", "#2171b5"),
                                 "orange", "blue"),
}
DEFAULT_PALETTE = "standard"


def get_palette(palette: str | Palette = DEFAULT_PALETTE) -> Palette:
    """The palette called `palette` (one of `PALETTES`); ValueError names the choices otherwise."""
    if isinstance(palette, Palette):
        return palette
    try:
        return PALETTES[palette]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown palette {palette!r}: choose one of {', '.join(map(repr, PALETTES))}.") from None


def esc(text: str) -> str:
    return html.escape(visible(text), quote=True)


def _blend(start: RGB, end: RGB, amount: float) -> RGB:
    return tuple(round(s + (e - s) * amount) for s, e in zip(start, end))  # type: ignore[return-value]


def mix(colour: tuple[int, int, int], amount: float) -> str:
    """White blended towards `colour` by `amount` in [0, 1]."""
    a = min(max(amount, 0.0), 1.0)
    r, g, b = (round(255 + (c - 255) * a) for c in colour)
    return f"rgb({r}, {g}, {b})"


def ramp_rgb(ramp: Ramp, amount: float) -> RGB:
    """The colour at `amount` (clamped to [0, 1]) along a ramp of stops, linear between stops."""
    a = min(max(amount, 0.0), 1.0)
    for (t0, c0), (t1, c1) in zip(ramp, ramp[1:]):
        if a <= t1:
            return _blend(c0, c1, (a - t0) / (t1 - t0))
    return ramp[-1][1]


def css_rgb(colour: RGB) -> str:
    return "rgb({}, {}, {})".format(*colour)


def p_colour(p: float, palette: str | Palette = DEFAULT_PALETTE) -> str:
    """The chip colour for P(replaced) = `p`."""
    return css_rgb(ramp_rgb(get_palette(palette).replaced, p))


def share_colour(scaled: float, palette: str | Palette = DEFAULT_PALETTE) -> str:
    """The chip colour for an attribution share scaled to [-1, 1] (negative: towards original)."""
    chosen = get_palette(palette)
    return css_rgb(ramp_rgb(chosen.towards_replaced, scaled) if scaled >= 0
                   else ramp_rgb(chosen.towards_original, -scaled))


def diverging_colourscale(palette: str | Palette = DEFAULT_PALETTE) -> list[list]:
    """The attribution scale as a plotly colourscale over [-1, 1] (white in the middle)."""
    chosen = get_palette(palette)

    def name(colour: RGB) -> str:
        return "white" if colour == WHITE else "rgb({},{},{})".format(*colour)

    negative = [[0.5 - t / 2, name(c)] for t, c in reversed(chosen.towards_original) if t > 0]
    positive = [[0.5 + t / 2, name(c)] for t, c in chosen.towards_replaced if t > 0]
    return [*negative, [0.5, "white"], *positive]


def _parse(colour: str) -> RGB:
    colour = colour.strip().lower()
    if colour.startswith("#"):
        digits = colour[1:]
        if len(digits) == 3:
            digits = "".join(d * 2 for d in digits)
        return tuple(int(digits[i:i + 2], 16) for i in (0, 2, 4))  # type: ignore[return-value]
    if colour.startswith("rgb(") and colour.endswith(")"):
        return tuple(int(float(v)) for v in colour[4:-1].split(","))  # type: ignore[return-value]
    if colour == "white":
        return WHITE
    raise ValueError(f"not a colour this module reads: {colour!r}")


def relative_luminance(colour: str | RGB) -> float:
    """WCAG 2 relative luminance of an sRGB colour ("#rrggbb", "rgb(r, g, b)" or a tuple)."""
    rgb = _parse(colour) if isinstance(colour, str) else colour

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str | RGB, b: str | RGB) -> float:
    """WCAG 2 contrast ratio between two colours, from 1 to 21."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_colour(background: str | RGB) -> str:
    """Dark text where it reaches WCAG AA (4.5:1) on `background`, else white, else black."""
    for candidate in (TEXT_DARK, TEXT_LIGHT):
        if contrast(background, candidate) >= AA:
            return candidate
    return TEXT_BLACK


FLAG_STYLE = "font-weight: 700; text-decoration: underline; text-decoration-thickness: 2px; text-underline-offset: 3px"


def chip(text: str, background: str, below: str, title: str, border: str, dark: bool | None = None, *,
         flagged: bool = False, labelled: bool = False) -> str:
    """One word: `text` (escaped HTML) on `background`, `below` (escaped HTML) under it.

    The text colour is chosen for contrast on the background (`text_colour`); `dark` is no longer
    read (kept so that older callers still work). `flagged`: bold and underlined, the cue that does
    not need colour. `labelled`: the chip is role="img" named by `title` (escaped), which must then
    say everything the chip shows (the word, its number, its outline).
    """
    colour = text_colour(background)
    weight = f"; {FLAG_STYLE}" if flagged else ""
    role = ' role="img"' if labelled else ""
    return (
        f'<span class="ee-chip"{role} title="{title}" style="display: inline-flex; flex-direction: column; '
        f'align-items: center; margin: 3px 4px; vertical-align: top">'
        f'<span class="ee-token" style="background: {background}; color: {colour}; border: {border}; '
        f'border-radius: 6px; padding: 2px 7px; font-size: 1.25em; line-height: 1.5; white-space: pre">'
        f'<bdi style="color: {colour}{weight}">{text}</bdi></span>'  # inline: gradio's `.prose *` recolours children
        f'<span style="font-size: 0.75em; color: #555; line-height: 1.3; white-space: nowrap">{below}</span></span>'
    )


def word_label(shown: str, p: float, replaced: bool | None, masked: bool, original: str = "") -> str:
    """A chip's accessible name and tooltip, escaped: "boat, rated 73% replaced, flagged, really replaced (was ship)".

    `replaced` None: detect-only, nobody knows the truth, so the label says nothing about it.
    """
    label = f"{esc(shown)}, rated {pct(p)} replaced"
    if p > FLAG_THRESHOLD:
        label += ", flagged"
    if replaced:
        label += f", really replaced (was {esc(original)})"
    elif masked and replaced is not None:
        label += ", masked, the generator drew the original back"
    elif replaced is not None:
        label += ", original"
    return label


def legend_html(palette: str | Palette = DEFAULT_PALETTE, flag_cue: bool = False, truth: bool = True) -> str:
    """The P(replaced) scale and the outlines; `flag_cue` also explains bold underlined (flagged) words. Without
    `truth` (detect-only: nothing was masked, nobody knows what was replaced) the outlines, which mark the truth,
    are left out."""
    stops = ", ".join(p_colour(i / 4, palette) for i in range(5))
    flag = ""
    if flag_cue:
        flag = (f'<span><span style="{FLAG_STYLE}; padding: 0 2px">word</span> bold and underlined: flagged '
                f"(P(replaced) &gt; {FLAG_THRESHOLD:.0%}), so it reads without colour</span>")
    return (
        f'<div class="ee-legend" style="{FONT}; font-size: 0.85em; margin-top: 8px; display: flex; '
        f'flex-wrap: wrap; gap: 6px 18px; align-items: center">'
        f'<span>looks original <span style="display: inline-block; width: 140px; height: 12px; '
        f'vertical-align: middle; border: 1px solid #999; background: linear-gradient(to right, {stops})"></span> '
        f"looks replaced &nbsp;(the number under a word is the discriminator's P(replaced))</span>"
        f"{flag}{_truth_legend() if truth else ''}</div>"
    )


def _truth_legend() -> str:
    return ('<span><span style="border: 3px solid #111; border-radius: 4px; padding: 0 6px">word</span> '
            "the generator really replaced it</span>"
            '<span><span style="border: 2px dashed #777; border-radius: 4px; padding: 0 6px">word</span> '
            "masked, but the generator drew the original back</span>")


SENTENCE_ENDS = (".", "?", "!", "…")
CLOSERS = "\"'”’)]»"  # may follow a sentence's last mark: (as it said “so.”)


def full_stop(text: str) -> str:
    """The full stop a sentence ending in `text` needs: "" when it already ends with ".", "?", "!" or "…" (before any
    closing quote or bracket), else ".". Joined text then never reads "?." or ".."."""
    return "" if text.rstrip().rstrip(CLOSERS).endswith(SENTENCE_ENDS) else "."


def message_html(message: str) -> str:
    return (f'<div class="ee-error" role="alert" style="{FONT}; background: #fde8e8; border: 1px solid #d66; '
            f'border-radius: 6px; padding: 8px 12px">{esc(message)}</div>')


def pct(p: float) -> str:
    """A probability for a label: 12%, 1.6%, 0.041% (small ones keep two significant digits)."""
    return f"{p:.0%}" if p >= 0.1 else f"{p:.1%}" if p >= 0.01 else f"{p * 100:.2g}%"


def verdict_pct(p: float) -> str:
    """`pct`, on the same side of the 50% line as the verdict (flagged: P(replaced) > 50%): a flagged 50.04% reads
    "50.04%", never "50%", which reads as not above the line."""
    if p > FLAG_THRESHOLD and pct(p) == "50%":
        return f"{p:.1%}" if f"{p:.1%}" != "50.0%" else f"{p:.2%}" if f"{p:.2%}" != "50.00%" else "just over 50%"
    return pct(p)
