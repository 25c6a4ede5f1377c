"""Classroom data on the tiny seeded pair: supervised positions, the walk-through's states, their rendering."""

from __future__ import annotations

import dataclasses
import re

import pytest
import torch

from classroom_base import SEEDS, SENTENCE, Tags

from explainer.core.pipeline import Settings, explain
from explainer.lesson import supervision
from explainer.lesson import walkthrough as walk
from explainer.render import classroom_tab as view
from explainer.render import walkthrough as walk_view
from training.objectives import ELECTRA_MASKING, mask_tokens
from training.words import readable_ids


@pytest.fixture(scope="module")
def vocab(tiny_pair) -> int:
    return len(tiny_pair.tokenizer)


@pytest.mark.parametrize("seed", SEEDS)
def test_supervised_counts_match_the_masking(tiny_pair, vocab, seed):
    explanation = explain(tiny_pair, SENTENCE, Settings(seed=seed))
    data = supervision.supervised_positions(explanation, vocab)
    non_special = sum(not t.special for t in explanation.tokens)
    # MLM = the masked count: round(15%) of the non-special tokens, as training.objectives.mask_tokens selects.
    assert data.mlm_count == len(explanation.masked) == round(0.15 * non_special) > 0
    assert {p.position for p in data.positions if p.mlm} == {m.position for m in explanation.masked}
    # RTD = every non-padding position ([CLS] and [SEP] included), as training logs supervised_positions.
    assert data.rtd_count == len(explanation.tokens) == len(explanation.original_ids)
    assert data.vocab_size == vocab and data.rtd_outputs == 1
    for p, t in zip(data.positions, explanation.tokens):
        assert p.rtd_input == t.corrupted and p.replaced == bool(t.replaced) and p.original == t.original
        assert (p.mlm_input == supervision.MASK) == any(m.position == p.position and m.shown_as_mask
                                                      for m in explanation.masked)
        assert not (p.special and p.mlm)


def test_supervised_counts_agree_with_training_masking(tiny_pair, vocab):
    """The same selection as training's mask_tokens with the same seeded generator (one row, no padding)."""
    explanation = explain(tiny_pair, SENTENCE, Settings(seed=3))
    ids = torch.tensor(explanation.original_ids)[None]
    special = torch.tensor([t.special for t in explanation.tokens])[None].long()
    batch = mask_tokens(ids, special, torch.ones_like(ids), tiny_pair.tokenizer.mask_token_id, vocab,
                        ELECTRA_MASKING, torch.Generator().manual_seed(3))
    data = supervision.supervised_positions(explanation, vocab)
    assert [p.mlm for p in data.positions] == batch.is_masked[0].tolist()
    assert data.rtd_count == int(batch.attention_mask.sum())


def test_toy_preset_masks_the_papers_two_words(tiny_pair, vocab):
    explanation = explain(tiny_pair, supervision.TOY_TEXT, supervision.TOY_SETTINGS)
    data = supervision.supervised_positions(explanation, vocab)
    words = [w.text for w in explanation.words]
    assert words == ["the", "chef", "cooked", "the", "meal"]
    masked_words = {explanation.tokens[p.position].word for p in data.positions if p.mlm}
    assert masked_words == {0, 2}
    assert data.rtd_count == len(explanation.tokens)


def test_detect_only_has_no_supervised_positions_view(tiny_pair, vocab):
    explanation = explain(tiny_pair, SENTENCE, Settings(mode="detect"))
    with pytest.raises(ValueError, match="detect-only"):
        supervision.supervised_positions(explanation, vocab)
    with pytest.raises(ValueError):
        walk.walkthrough(explanation, vocab)


@pytest.mark.parametrize("seed", SEEDS)
def test_walkthrough_states_match_the_explore_pipeline(tiny_pair, vocab, seed):
    steps = walk.walkthrough(explain(tiny_pair, SENTENCE, Settings(seed=seed)), vocab)
    reference = explain(tiny_pair, SENTENCE, Settings(seed=seed))  # what Explore computes for this seed
    mask, propose, swap, detect = steps
    assert [s.name for s in steps] == list(walk.STEP_NAMES) and [s.number for s in steps] == [1, 2, 3, 4]
    chosen = tuple(m.position for m in reference.masked)
    assert mask.focus == propose.focus == chosen
    for position, token in enumerate(mask.tokens):
        m = next((m for m in reference.masked if m.position == position), None)
        expected = supervision.MASK if m is not None and m.shown_as_mask else reference.tokens[position].original
        assert token == expected
    assert propose.proposals == reference.masked  # the same top-k and the same draws
    assert swap.tokens == tuple(t.corrupted for t in reference.tokens)
    assert list(swap.tokens) == readable_ids(tiny_pair.tokenizer, reference.corrupted_ids)  # pieces read "-ing"
    assert swap.focus == tuple(m.position for m in reference.masked if m.replaced)
    assert swap.replaced == tuple(bool(t.replaced) for t in reference.tokens)
    assert detect.p_replaced == tuple(t.p_replaced for t in reference.tokens)
    back = tuple(m.position for m in reference.masked if not m.replaced)  # drew the original: label 0
    assert swap.drawn_back == detect.drawn_back == walk.drawn_back(reference) == back
    assert all(not reference.tokens[p].replaced for p in back)
    assert "a masked position where the generator happened to draw the original token back is labelled " \
           "original (0)" in detect.paragraph
    score = reference.score()
    assert f"flagged {score['caught']} of the {score['replaced']}" in detect.paragraph
    assert str(len(reference.tokens)) in detect.paragraph and f"{vocab:,}" in propose.paragraph


def test_a_different_seed_gives_a_different_game(tiny_pair, vocab):
    a, b = (walk.walkthrough(explain(tiny_pair, SENTENCE, Settings(seed=s)), vocab) for s in (0, 1))
    assert a[0].focus != b[0].focus or a[2].tokens != b[2].tokens


HOSTILE = "<img src=x onerror=alert(1)> <script>alert(2)</script> {{7*7}}"


def test_rendering_escapes_user_text(tiny_pair, vocab):
    """Tokens are vocabulary strings, which may hold anything a tokenizer learned: all of it stays text."""
    explanation = explain(tiny_pair, SENTENCE, Settings(seed=0, mask_rate=0.5))
    data = supervision.supervised_positions(explanation, vocab)
    data = dataclasses.replace(data, positions=tuple(
        dataclasses.replace(p, original=HOSTILE, rtd_input=HOSTILE, mlm_input=p.mlm_input if p.mlm else HOSTILE)
        for p in data.positions))
    steps = [dataclasses.replace(s, tokens=tuple(HOSTILE if t != supervision.MASK else t for t in s.tokens),
                                 paragraph=HOSTILE)
             for s in walk.walkthrough(explanation, vocab)]
    markup = view.supervised_html(data) + "".join(walk_view.walk_step_html(s) for s in steps)
    parser = Tags()
    parser.feed(markup)
    assert parser.tags <= {"div", "span", "bdi", "b", "p", "h3", "table", "tr", "th", "td", "br"}
    assert "&lt;img src=x onerror=alert(1)&gt;" in markup and "<img" not in markup and "<script" not in markup


def test_rendered_views_name_the_counts(tiny_pair, vocab):
    explanation = explain(tiny_pair, SENTENCE, Settings(seed=0))
    data = supervision.supervised_positions(explanation, vocab)
    markup = view.supervised_html(data)
    assert f"<b>{data.mlm_count}</b> of {data.rtd_count} positions" in markup
    assert f"<b>{data.rtd_count}</b> of {data.rtd_count} positions" in markup
    assert f"{vocab:,}" in markup
    steps = walk.walkthrough(explanation, vocab)
    assert all(f"Step {s.number} of 4" in walk_view.walk_step_html(s) for s in steps)
    assert "← drawn" not in walk_view.walk_step_html(steps[1])  # proposing: nothing drawn yet
    in_top_k = [any(p.token_id == m.sampled_id for p in m.proposals) for m in steps[2].proposals]
    swap = walk_view.walk_step_html(steps[2])
    assert swap.count("← drawn") == sum(in_top_k) and swap.count("outside the top guesses") == in_top_k.count(False)


def test_the_positions_table_scrolls_in_a_box_the_keyboard_can_reach(tiny_pair, vocab):
    from explainer.render.classroom_tab import supervised_html

    html = supervised_html(supervision.supervised_positions(explain(tiny_pair, SENTENCE, Settings(seed=3)), vocab))
    box = re.search(r'<div style="overflow-x: auto"([^>]*)>', html).group(1)
    assert 'tabindex="0"' in box and 'role="region"' in box and 'aria-label="' in box
