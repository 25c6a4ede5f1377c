"""ELECTRA's label rule in the walk-through: a masked position where the generator drew the original back is
labelled original (0), and the text and the chips say so."""

from __future__ import annotations

import copy
import re

import pytest
import torch

from classroom_base import Tags

from explainer.core.models import ModelPair
from explainer.core.pipeline import Settings, explain
from explainer.lesson import supervision
from explainer.lesson import walkthrough as walk
from explainer.render import walkthrough as walk_view


@pytest.fixture(scope="module")
def vocab(tiny_pair) -> int:
    return len(tiny_pair.tokenizer)


def _forcing(pair, token: str) -> ModelPair:
    """A copy of `pair` whose generator always draws `token` (its output bias dominates)."""
    generator = copy.deepcopy(pair.generator)
    with torch.no_grad():
        generator.generator_lm_head.bias.fill_(-1e4)
        generator.generator_lm_head.bias[pair.tokenizer.convert_tokens_to_ids(token)] = 1e4
    return ModelPair(generator, pair.discriminator, pair.tokenizer, pair.name)


def _forced_walk(tiny_pair, vocab, token: str, text: str, words: tuple[int, ...]):
    explanation = explain(_forcing(tiny_pair, token), text, Settings(mode="manual", mask_words=words))
    return explanation, walk.walkthrough(explanation, vocab)


RULE = ("The labels follow ELECTRA's rule: a token is labelled replaced (1) only if it differs from the original, so "
        "a masked position where the generator happened to draw the original token back is labelled original (0).")


def test_a_drawn_back_position_is_counted_named_and_labelled_original(tiny_pair, vocab):
    """Figure 2's masking with a generator that always draws "the": "the" comes back, "cooked" (4 pieces here)
    changes."""
    explanation, (_, _, swap, detect) = _forced_walk(tiny_pair, vocab, "the", supervision.TOY_TEXT, (0, 2))
    the = explanation.words[0].tokens[0]
    assert [explanation.tokens[p].original for p in explanation.words[2].tokens] == ["co", "-o", "-ke", "-d"]
    assert len(explanation.masked) == 5 and explanation.tokens[the].masked
    assert swap.drawn_back == detect.drawn_back == walk.drawn_back(explanation) == (the,)
    assert explanation.tokens[the].replaced is False and detect.replaced[the] is False  # label 0
    assert explanation.corrupted_ids[the] == explanation.original_ids[the]
    assert explanation.score()["replaced"] == 4 and the not in swap.focus
    assert (f"{RULE} 5 tokens were masked; the generator drew the original token back at 1 of them (“the”), so that "
            "position counts as original (label 0): 4 tokens are really replaced. Here it flagged") in detect.paragraph
    assert ("4 of the 5 draws differ from the original: those positions are now labelled replaced (1). At 1 position "
            "(“the”) the generator happened to draw the original token back: by ELECTRA's rule that position is "
            "labelled original (0), not replaced, since nothing changed there.") in swap.paragraph
    assert "gave back" not in swap.paragraph


def test_a_drawn_back_piece_is_named_with_its_word(tiny_pair, vocab):
    # "##d" reads "-d" to people
    explanation, (_, _, swap, detect) = _forced_walk(tiny_pair, vocab, "##d", supervision.TOY_TEXT, (2,))
    last = explanation.words[2].tokens[-1]
    assert detect.drawn_back == (last,) and explanation.tokens[last].original == "-d"
    assert ("4 tokens were masked; the generator drew the original token back at 1 of them (“-d” in “cooked”), so "
            "that position counts as original (label 0): 3 tokens are really replaced.") in detect.paragraph


@pytest.mark.parametrize("token, words, count", [
    ("movie", (0, 2), "5 tokens were masked; the generator drew a different token at every masked position, so all 5 "
                      "count as replaced (label 1)."),
    ("movie", (0, 3), "2 tokens were masked; the generator drew a different token at every masked position, so both "
                      "count as replaced (label 1)."),
    ("movie", (0,), "1 token was masked; the generator drew a different token there, so it counts as replaced "
                    "(label 1)."),
    ("the", (0, 3), "2 tokens were masked; the generator drew the original token back at both of them (“the”, "
                    "“the”), so those positions count as original (label 0): no token is really replaced."),
    ("the", (0,), "1 token was masked; the generator drew the original token back there (“the”), so that position "
                  "counts as original (label 0): no token is really replaced."),
])
def test_the_detect_step_counts_drawn_back_positions(tiny_pair, vocab, token, words, count):
    explanation, (_, _, swap, detect) = _forced_walk(tiny_pair, vocab, token, supervision.TOY_TEXT, words)
    back = tuple(m.position for m in explanation.masked if m.sampled == m.original)
    assert detect.drawn_back == swap.drawn_back == back and (len(back) > 0) == (token == "the")
    assert f"{RULE} {count}" in detect.paragraph
    if not back:
        assert "happened to draw the original token back:" not in swap.paragraph
        n = len(explanation.masked)  # never "all 2", "2 of the 2" or "the 1 masked ones"
        assert {1: "the draw differs", 2: "both draws differ", 5: "all 5 draws differ"}[n] in swap.paragraph.lower()
        assert ("not only the masked one:" if n == 1 else f"not only the {n} masked ones:") in detect.paragraph
        assert not re.search(r"all 2\b|\b(\d+) of the \1\b|the 1 ", swap.paragraph + detect.paragraph)
    else:
        assert "nothing is labelled replaced" in swap.paragraph and "labelled original (0)" in swap.paragraph


def _drawn_back_chips(markup: str) -> list[str]:
    """The token text inside each chip the renderer marks as drawn back."""
    return re.findall(r'<span class="ee-drawn-back" role="group" aria-label="masked, but the generator drew the '
                      r'original back: label 0"[^>]*>.*?<bdi[^>]*>(.*?)</bdi>', markup)


def test_rendered_steps_mark_the_drawn_back_position(tiny_pair, vocab):
    explanation, (_, _, swap, detect) = _forced_walk(tiny_pair, vocab, "the", supervision.TOY_TEXT, (0, 2))
    for step in (swap, detect):
        markup = walk_view.walk_step_html(step)
        assert _drawn_back_chips(markup) == ["the"]  # one position, marked apart from replaced and untouched
        assert 'title="masked, but the generator drew the original back: label 0"' in markup
    markup = walk_view.walk_step_html(detect)
    assert markup.count("3px solid #111") == 4 + 2  # the replaced pieces, and both legends' samples
    assert 'class="ee-label-legend"' in markup and "not replaced" in markup  # the legend entry
    assert "looks replaced" in markup  # Explore's colour scale, kept
    zero = _forced_walk(tiny_pair, vocab, "movie", supervision.TOY_TEXT, (0, 2))[1]
    assert all(_drawn_back_chips(walk_view.walk_step_html(s)) == [] for s in zero)


def test_a_hostile_drawn_back_word_is_escaped(tiny_pair, vocab):
    """“<i>x</i>” is seven words here (its marks are words of their own); all masked, the generator draws "i", so
    its two "i" come back, and no mark reaches the page unescaped."""
    explanation, (_, _, swap, detect) = _forced_walk(tiny_pair, vocab, "i", "the <i>x</i> meal", tuple(range(1, 8)))
    assert [w.text for w in explanation.words] == ["the", "<", "i", ">", "x", "</", "i", ">", "meal"]
    assert len(detect.drawn_back) == 2
    assert all(explanation.tokens[p].original == "i" and not detect.replaced[p] for p in detect.drawn_back)
    assert "(“i”, “i”)" in detect.paragraph
    markup = walk_view.walk_step_html(swap) + walk_view.walk_step_html(detect)
    assert "<i>" not in markup and "</i>" not in markup
    assert _drawn_back_chips(walk_view.walk_step_html(detect)) == ["i", "i"]
    parser = Tags()
    parser.feed(markup)
    assert parser.tags <= {"div", "span", "bdi", "b", "p", "h3", "table", "tr", "th", "td", "br"}
