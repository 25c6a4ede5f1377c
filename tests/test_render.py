"""Rendering without a server: hostile text stays text, colours follow the fixed scale, figures draw."""

from __future__ import annotations

import dataclasses
import json
import re
from html.parser import HTMLParser

import pytest

from explainer.core.attributions import AttributionSettings, attribute, attribution_matrix
from explainer.core.pipeline import Settings, explain
from explainer.render import explore as render
from explainer.render import style
from explainer.render.guesses import guesses_html

HOSTILE = [
    '<script>alert("x")</script>',
    "<img src=x onerror=alert(1)>",
    '" onmouseover="alert(1)',
    "' onclick='alert(1)",
    "${alert(1)} {{constructor.constructor('alert(1)')()}}",
    "<a href='javascript:alert(1)'>link</a>",
    "\u202eevil\u202c &amp; &lt;b&gt;",
]
ALLOWED_TAGS = {"div", "span", "bdi", "b", "i", "p", "ul", "li"}


class Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attributes, self.text = set(), [], []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attributes.extend(name for name, _ in attrs)

    def handle_data(self, data):
        self.text.append(data)


def parse(markup: str) -> Collector:
    collector = Collector()
    collector.feed(markup)
    return collector


@pytest.fixture(scope="module")
def explanation(tiny_pair):
    return explain(tiny_pair, "The chef cooked a delicious meal for the guests.", Settings(seed=0, mask_rate=0.3))


def hostile(explanation):
    """The same result with every user- or vocabulary-derived string replaced by an attack."""
    def pick(i):
        return HOSTILE[i % len(HOSTILE)]

    tokens = tuple(dataclasses.replace(t, original=pick(i), corrupted=pick(i + 1))
                   for i, t in enumerate(explanation.tokens))
    words = tuple(dataclasses.replace(w, text=pick(i), corrupted=pick(i + 2)) for i, w in enumerate(explanation.words))
    masked = tuple(
        dataclasses.replace(m, original=pick(i), sampled=pick(i + 3),
                            proposals=tuple(dataclasses.replace(p, token=pick(i + j))
                                            for j, p in enumerate(m.proposals)))
        for i, m in enumerate(explanation.masked)
    )
    return dataclasses.replace(explanation, tokens=tokens, words=words, masked=masked, notices=tuple(HOSTILE))


def assert_inert(markup: str) -> None:
    parsed = parse(markup)
    assert parsed.tags <= ALLOWED_TAGS, parsed.tags
    assert set(parsed.attributes) <= {"class", "style", "title", "role"}, parsed.attributes
    assert "\u202e" not in markup and "<script" not in markup and "<img" not in markup


@pytest.mark.parametrize("merged", [True, False])
def test_hostile_text_is_escaped_everywhere(tiny_pair, explanation, merged):
    evil = hostile(explanation)
    for markup in (render.sentence_html(evil, merged), render.generator_input_html(evil, merged),
                   render.notices_html(evil.notices), style.message_html(HOSTILE[0]), render.score_html(evil)):
        assert_inert(markup)
    # The attack text is still shown, as text.
    assert '<script>alert("x")</script>' in "".join(parse(render.notices_html(evil.notices)).text)
    result = attribute(tiny_pair, explanation, settings=AttributionSettings(n_steps=4))
    assert_inert(render.attribution_html(result, evil))


def test_hostile_text_is_escaped_in_figure_labels(tiny_pair, explanation):
    evil = hostile(explanation)
    result = attribute(tiny_pair, explanation, settings=AttributionSettings(n_steps=4))
    matrix = attribution_matrix(tiny_pair, explanation, AttributionSettings(n_steps=4))
    assert_inert(guesses_html(evil))
    for figure in (render.attribution_figure(result, evil), render.matrix_figure(matrix, evil)):
        dumped = json.dumps(figure.to_plotly_json(), default=str)
        assert "<script" not in dumped and "<img" not in dumped and "<a href" not in dumped
        assert "&lt;" in dumped


def test_real_user_text_is_escaped_through_the_whole_pipeline(tiny_pair):
    text = 'she said <b>hi</b> & left "quietly" \u202eevil'
    result = explain(tiny_pair, text, Settings(mode="detect"))
    markup = render.sentence_html(result, merged=True)
    assert_inert(markup)
    assert "&lt;" in markup and "&gt;" in markup and "<b>" not in markup  # "<", "b", ">": words of their own


def test_colours_follow_a_fixed_scale():
    assert style.p_colour(0) == "rgb(255, 255, 255)"
    assert style.p_colour(1) == "rgb(215, 48, 31)"
    assert style.p_colour(2) == style.p_colour(1) and style.p_colour(-1) == style.p_colour(0)


def test_sentence_marks_replaced_and_restored_words(tiny_pair, explanation):
    markup = render.sentence_html(explanation, merged=False)
    chips = markup.count('class="ee-chip"')
    assert chips == len(explanation.tokens)
    assert markup.count("3px solid #111") - 1 == sum(bool(t.replaced) for t in explanation.tokens)  # -1: the legend
    for t in explanation.tokens:
        assert style.p_colour(t.p_replaced) in markup
    words = render.sentence_html(explanation, merged=True)
    assert words.count('class="ee-chip"') == len(explanation.words)


def test_generator_view_shows_masks(explanation):
    markup = render.generator_input_html(explanation, merged=False)
    assert markup.count("[MASK]") == sum(m.shown_as_mask for m in explanation.masked)


def test_the_guesses_label_the_original_and_the_drawn_sample(tiny_pair):
    from tests.test_explain import forcing_generator

    pair = forcing_generator(tiny_pair, "the")
    result = explain(pair, "the movie was good", Settings(mode="manual", mask_words=(0,)))
    html = guesses_html(result)
    cards = parse(html)
    assert html.count('class="ee-guess-card"') == 1 and "label ORIGINAL" in html
    words = [w for w, _ in _guess_rows(html)]
    numbers = dict(_guess_rows(html))
    assert "the (original)" in words and numbers["the (original)"].endswith("← drawn")
    assert sum("← drawn" in n for n in numbers.values()) == 1  # one draw, marked in words, not only colour
    assert cards.tags <= ALLOWED_TAGS


def _guess_rows(html: str) -> list[tuple[str, str]]:
    """(word, its number) per bar of the guesses view."""
    words = re.findall(r'class="ee-guess-word"[^>]*><bdi>(.*?)</bdi>', html)
    numbers = re.findall(r'class="ee-guess-number"[^>]*>(.*?)</span>', html)
    return list(zip(words, numbers))


def test_every_masked_word_gets_a_card_with_bars_scaled_to_its_top_guess(tiny_pair, explanation):
    html = guesses_html(explanation)
    assert html.count('class="ee-guess-card"') == len(explanation.masked) >= 2
    widths = [float(w) for w in re.findall(r"width: ([0-9.]+)%", html)]
    assert max(widths) == 100.0 and all(0 <= w <= 100 for w in widths)


def test_nothing_masked_says_so_instead_of_drawing_guesses(tiny_pair):
    html = guesses_html(explain(tiny_pair, "the movie", Settings(mode="detect")))
    assert "ee-guess-card" not in html and "Nothing was masked" in html


def test_matrix_heatmap_rows_are_scaled(tiny_pair, explanation):
    matrix = attribution_matrix(tiny_pair, explanation, AttributionSettings(method="gradient_x_input"))
    (heatmap,) = render.matrix_figure(matrix, explanation).data
    assert len(heatmap.z) == len(matrix.targets)
    assert all(max(abs(v) for v in row) == pytest.approx(1.0) for row in heatmap.z)
