"""Readable without colour: the palettes, WCAG contrast on every chip, one spoken phrase per chip,
flagged words and attribution signs marked by more than colour. No browser, no server."""

from __future__ import annotations

import dataclasses
import math
import re
from html.parser import HTMLParser

import pytest

from explainer.core.attributions import AttributionSettings, attribute, attribution_matrix
from explainer.core.pipeline import Settings, explain
from explainer.render import explore as render
from explainer.render import style

PALETTES = list(style.PALETTES)
STEPS = [i / 100 for i in range(101)]
CB = "colour-blind safe"

# Machado, Oliveira & Fernandes (2009), severity 1: linear-RGB matrices simulating dichromacy.
DICHROMACY = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def _linear(c: float) -> float:
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _lab(linear_rgb) -> tuple[float, float, float]:
    """CIELAB (D65) of a linear-RGB colour."""
    r, g, b = (min(max(v, 0.0), 1.0) for v in linear_rgb)
    x, y, z = (0.4124 * r + 0.3576 * g + 0.1805 * b, 0.2126 * r + 0.7152 * g + 0.0722 * b,
               0.0193 * r + 0.1192 * g + 0.9505 * b)

    def f(t):
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x / 0.95047), f(y), f(z / 1.08883)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def seen(rgb, vision: str | None = None) -> tuple[float, float, float]:
    """The colour's CIELAB as seen with normal vision (None) or a simulated dichromacy."""
    linear = [_linear(c) for c in rgb]
    if vision:
        linear = [sum(m * v for m, v in zip(row, linear)) for row in DICHROMACY[vision]]
    return _lab(linear)


def chroma(lab) -> float:
    return math.hypot(lab[1], lab[2])


# --- palettes and contrast -------------------------------------------------------------------------------

def test_the_standard_palette_is_the_old_one():
    for p in STEPS:
        assert style.p_colour(p) == style.mix(style.RED, p) == style.p_colour(p, "standard")
        assert style.share_colour(p) == style.mix(style.RED, p)
        assert style.share_colour(-p) == style.mix(style.BLUE, p)
    assert style.diverging_colourscale() == [[0, "rgb(33,102,172)"], [0.5, "white"], [1, "rgb(215,48,31)"]]
    assert style.get_palette().bars == ("#d7301f", "#2166ac")


def test_an_unknown_palette_names_the_choices():
    with pytest.raises(ValueError, match="colour-blind safe"):
        style.p_colour(0.5, "rainbow")
    assert style.get_palette(style.PALETTES[CB]) is style.PALETTES[CB]


@pytest.mark.parametrize("palette", PALETTES)
def test_chip_text_reaches_wcag_aa_on_every_background(palette):
    backgrounds = [style.p_colour(p, palette) for p in STEPS]
    backgrounds += [style.share_colour(s, palette) for s in STEPS] + [style.share_colour(-s, palette) for s in STEPS]
    worst = min(style.contrast(b, style.text_colour(b)) for b in backgrounds)
    assert worst >= style.AA, worst
    # ...and the chip really uses that colour, on the token and its text.
    for background in backgrounds[::10]:
        markup = style.chip("w", background, "1%", "t", "1px solid #ccc")
        assert markup.count(f"color: {style.text_colour(background)}") == 2


def test_contrast_ratio_matches_wcag():
    assert style.contrast("#fff", "#000") == pytest.approx(21)
    assert style.contrast("#777", "#fff") == pytest.approx(4.48, abs=0.01)  # the well-known "just fails"
    assert style.contrast("rgb(118, 118, 118)", "#fff") >= 4.5  # MUTED
    assert style.text_colour("#fff") == "#111" and style.text_colour(style.RED) == "#fff"
    assert style.text_colour((121, 121, 121)) == "#000"  # 4.3:1 with #111 and with white, 4.8:1 with black


@pytest.mark.parametrize("vision", [None, *DICHROMACY])
@pytest.mark.parametrize("palette", PALETTES)
def test_p_replaced_is_monotone_in_lightness(palette, vision):
    lightness = [seen(style.ramp_rgb(style.PALETTES[palette].replaced, p), vision)[0] for p in STEPS]
    assert all(a > b for a, b in zip(lightness, lightness[1:]))


@pytest.mark.parametrize("vision", list(DICHROMACY))
def test_the_colour_blind_palette_keeps_its_tint_and_its_sides_apart(vision):
    safe, standard = style.PALETTES[CB], style.PALETTES["standard"]
    # Lighter-than-mid values keep a visible tint (the standard's pinks turn grey for protanopes).
    assert all(chroma(seen(style.ramp_rgb(safe.replaced, p), vision)) > 20 for p in STEPS if p >= 0.3)
    # The darkest end is darker than the standard's: a longer lightness scale.
    assert seen(safe.replaced[-1][1], vision)[0] < seen(standard.replaced[-1][1], vision)[0] - 5
    # The two sides of the attribution scale stay apart, more than blue/red does for small shares.
    for s in (0.1, 0.2, 0.3, 0.4, 0.5):
        def gap(palette):
            return math.dist(seen(style.ramp_rgb(palette.towards_replaced, s), vision),
                             seen(style.ramp_rgb(palette.towards_original, s), vision))
        assert gap(safe) > max(12, gap(standard))


def test_the_standard_pinks_turn_grey_for_protanopes():
    """Why the second palette exists (the module docstring's figure): chroma 9 at P = 0.4."""
    assert chroma(seen(style.ramp_rgb(style.PALETTES["standard"].replaced, 0.4), "protanopia")) < 12


# --- chips: one phrase each, a second cue for flagged words and for signs ---------------------------------

class Chips(HTMLParser):
    """Every ee-chip's attributes, and the styles of the text elements inside each."""

    def __init__(self):
        super().__init__()
        self.chips, self.depth, self.inner_styles = [], 0, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "ee-chip" in (attrs.get("class") or "").split():
            self.chips.append(attrs)
            self.inner_styles.append([])
            self.depth = 1
        elif self.depth:
            self.depth += 1
            self.inner_styles[-1].append((tag, attrs.get("style", "")))

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1


def chips_of(markup: str) -> Chips:
    parser = Chips()
    parser.feed(markup)
    return parser


@pytest.fixture(scope="module")
def explanation(tiny_pair):
    """A real result with P(replaced) set by hand: flagged and unflagged, replaced, drawn back, untouched."""
    result = explain(tiny_pair, "The chef cooked a delicious meal for the guests.", Settings(seed=0, mask_rate=0.3))
    ps = [0.93, 0.04, 0.71, 0.5, 0.12, 0.55, 0.0, 1.0, 0.3, 0.66]
    words = tuple(dataclasses.replace(w, p_replaced=ps[i % len(ps)], masked=i in (1, 2, 4),
                                      replaced=True if i in (1, 2) else False) for i, w in enumerate(result.words))
    words = tuple(dataclasses.replace(w, corrupted="boat", text="ship") if w.replaced else w for w in words)
    return dataclasses.replace(result, words=words)


@pytest.mark.parametrize("palette", PALETTES)
def test_every_chip_is_one_named_image(explanation, palette):
    parsed = chips_of(render.sentence_html(explanation, merged=True, palette=palette))
    assert len(parsed.chips) == len(explanation.words)
    for word, attrs in zip(explanation.words, parsed.chips):
        assert attrs["role"] == "img"
        label = attrs["title"]
        assert label.startswith(f"{word.corrupted}, rated {style.pct(word.p_replaced)} replaced")
        assert ("flagged" in label) == (word.p_replaced > 0.5)
        if word.replaced:
            assert label.endswith(", really replaced (was ship)")
        elif word.masked:
            assert label.endswith(", masked, the generator drew the original back")
        else:
            assert label.endswith(", original")


def test_labels_say_nothing_of_the_truth_in_detect_mode(tiny_pair):
    result = explain(tiny_pair, "the movie was good", Settings(mode="detect"))
    for attrs in chips_of(render.sentence_html(result)).chips:
        assert re.fullmatch(r"[^,]+, rated [\d.]+% replaced(, flagged)?", attrs["title"]), attrs["title"]


def test_hostile_words_stay_text_in_the_label(explanation):
    evil = '"><script>alert(1)</script>\u202e'
    words = tuple(dataclasses.replace(w, corrupted=evil, text=evil) for w in explanation.words)
    markup = render.sentence_html(dataclasses.replace(explanation, words=words))
    assert "<script" not in markup and "\u202e" not in markup
    for attrs in chips_of(markup).chips:
        assert attrs["title"].startswith('"><script>alert(1)</script>, rated')  # parsed back: the text, as text


@pytest.mark.parametrize("palette", PALETTES)
def test_flagged_words_are_bold_and_underlined_and_the_legend_says_so(explanation, palette):
    markup = render.sentence_html(explanation, merged=True, palette=palette)
    parsed = chips_of(markup)
    for word, inner in zip(explanation.words, parsed.inner_styles):
        text_style = next(s for tag, s in inner if tag == "bdi")
        flagged = "font-weight: 700" in text_style and "text-decoration: underline" in text_style
        assert flagged == (word.p_replaced > style.FLAG_THRESHOLD)
        assert style.p_colour(word.p_replaced, palette) in markup
    legend = markup[markup.index('class="ee-legend"'):]
    assert "bold and underlined: flagged" in legend
    for i in range(5):
        assert style.p_colour(i / 4, palette) in legend


def test_the_colour_blind_palette_recolours_the_chips(explanation):
    standard = render.sentence_html(explanation)
    safe = render.sentence_html(explanation, palette=CB)
    assert standard != safe
    assert style.p_colour(0.93, CB) in safe and style.p_colour(0.93) not in safe
    assert standard.replace(style.p_colour(0.93), "X") != standard


def test_classroom_and_game_chips_are_unchanged_but_readable():
    """Older callers (positional `dark`, no label) keep their markup, except the text colour, chosen for contrast."""
    markup = style.chip("w", style.p_colour(0.7), "70%", "P(replaced) = 0.700", "1px solid #ccc", True)
    assert 'role="img"' not in markup and "font-weight" not in markup
    assert "color: #111" in markup  # was white: 3.1:1 on this background


@pytest.fixture(scope="module")
def attribution(tiny_pair, explanation):
    result = attribute(tiny_pair, explanation, settings=AttributionSettings(n_steps=4))
    shares = [(-1) ** i * (i % 4) / 10 for i in range(len(result.scores))]  # +, -, and zeros, by hand
    return dataclasses.replace(result, scores=tuple(shares))


@pytest.mark.parametrize("palette", PALETTES)
def test_attribution_signs_are_marked_by_arrows(attribution, explanation, palette):
    markup = render.attribution_html(attribution, explanation, merged=False, palette=palette)
    units = render.attribution_units(attribution, explanation, merged=False)
    parsed = chips_of(markup)
    assert len(parsed.chips) == len(units)
    assert markup.count("▲ +") == sum(share > 0 for _, share, _ in units)
    assert markup.count("▼ -") == sum(share < 0 for _, share, _ in units)
    for (text, share, is_target), attrs in zip(units, parsed.chips):
        assert attrs["role"] == "img"
        towards = "towards replaced" if share > 0 else "towards original" if share < 0 else "neither way"
        assert towards in attrs["title"] and ("the word being explained" in attrs["title"]) == is_target
        assert style.share_colour(share / 0.3, palette) in markup
    words = style.PALETTES[palette]
    assert f"{words.replaced_word.capitalize()} words (▲)" in markup and f"{words.original_word} words (▼)" in markup


def test_figures_take_the_palette(tiny_pair, attribution, explanation):
    (bar,) = render.attribution_figure(attribution, explanation, palette=CB).data
    assert set(bar.marker.color) <= set(style.PALETTES[CB].bars)
    (standard,) = render.attribution_figure(attribution, explanation).data
    assert set(standard.marker.color) <= {"#d7301f", "#2166ac"}
    matrix = attribution_matrix(tiny_pair, explanation, AttributionSettings(method="gradient_x_input"))
    heatmap = render.matrix_figure(matrix, explanation, palette=CB)
    colours = [c for _, c in heatmap.data[0].colorscale]
    assert "rgb(127,39,4)" in colours and "rgb(8,48,107)" in colours
    assert "orange columns" in heatmap.layout.title.text
    assert "red columns" in render.matrix_figure(matrix, explanation).layout.title.text
