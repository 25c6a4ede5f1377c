"""The walk-through's mask step says what happened, and what the paper and the official code say."""

from __future__ import annotations

import pytest

from classroom_base import SEEDS, SENTENCE

from explainer.core.pipeline import Settings, explain
from explainer.lesson import supervision
from explainer.lesson import walkthrough as walk
from training.objectives import ELECTRA_MASKING


@pytest.fixture(scope="module")
def vocab(tiny_pair) -> int:
    return len(tiny_pair.tokenizer)


def _mask_paragraph(tiny_pair, vocab, text, settings) -> tuple[str, object]:
    explanation = explain(tiny_pair, text, settings)
    return walk.walkthrough(explanation, vocab)[0].paragraph, explanation


@pytest.mark.parametrize("seed", SEEDS)
def test_mask_step_says_electra_picked_at_random_in_automatic_mode(tiny_pair, vocab, seed):
    paragraph, explanation = _mask_paragraph(tiny_pair, vocab, SENTENCE, Settings(seed=seed))
    n = sum(not t.special for t in explanation.tokens)
    assert paragraph.startswith(f"ELECTRA picked {len(explanation.masked)} of the {n} tokens at random (about 15%).")
    assert "You picked" not in paragraph


def test_mask_step_says_you_picked_in_manual_mode(tiny_pair, vocab):
    paragraph, explanation = _mask_paragraph(tiny_pair, vocab, SENTENCE, Settings(mode="manual", mask_words=(1, 2, 4)))
    n, chosen = sum(not t.special for t in explanation.tokens), len(explanation.masked)
    assert paragraph.startswith(f"You picked {chosen} of {n} tokens ({chosen / n:.0%}); in pretraining ELECTRA "
                                "picks about 15% at random.")
    assert "at random (about" not in paragraph and "Figure" not in paragraph


def test_mask_step_on_the_toy_sentence_names_figure_2_and_the_real_share(tiny_pair, vocab):
    paragraph, explanation = _mask_paragraph(tiny_pair, vocab, supervision.TOY_TEXT, supervision.TOY_SETTINGS)
    # the tiny vocabulary splits the words into several tokens each
    n, chosen = sum(not t.special for t in explanation.tokens), len(explanation.masked)
    assert paragraph.startswith(f"You picked {chosen} of {n} tokens ({chosen / n:.0%}), as in the paper's Figure 2; "
                                "in pretraining ELECTRA picks about 15% at random. They are hidden behind [MASK].")


def test_mask_step_on_the_toy_sentence_with_the_bundled_model():
    """With the bundled model's vocabulary each toy word is one token: 2 of 5 hand-picked, 40%, not 15%."""
    from explainer.core import models

    pair = models.load(str(models.BUNDLED))
    paragraph, explanation = _mask_paragraph(pair, len(pair.tokenizer), supervision.TOY_TEXT, supervision.TOY_SETTINGS)
    assert [t.original for t in explanation.tokens if not t.special] == supervision.TOY_TEXT.split()
    assert paragraph.startswith("You picked 2 of 5 tokens (40%), as in the paper's Figure 2; in pretraining "
                                "ELECTRA picks about 15% at random. They are hidden behind [MASK].")


def test_mask_step_with_another_rate_gives_it_and_the_pretraining_rate(tiny_pair, vocab):
    paragraph, explanation = _mask_paragraph(tiny_pair, vocab, SENTENCE, Settings(seed=0, mask_rate=0.5))
    n = sum(not t.special for t in explanation.tokens)
    assert paragraph.startswith(f"ELECTRA picked {len(explanation.masked)} of the {n} tokens at random (about 50%; "
                                "in pretraining ELECTRA picks about 15%).")


def test_kept_tokens_are_attributed_to_the_official_code_not_the_paper(tiny_pair, vocab):
    """Section 2 of the paper replaces every selected token with [MASK]; keeping 15% of them unchanged is
    `pretrain_helpers.mask` in google-research/electra (and this app's ELECTRA_MASKING)."""
    for seed in range(60):
        paragraph, explanation = _mask_paragraph(tiny_pair, vocab, SENTENCE, Settings(seed=seed, mask_rate=0.5))
        if any(not m.shown_as_mask for m in explanation.masked):
            break
    else:
        pytest.fail("no seed kept a selected token")
    assert "ELECTRA's official code leaves about 15% of the chosen tokens as they are" in paragraph
    assert "the paper replaces them all with [MASK]" in paragraph
    assert ELECTRA_MASKING.mask_frac == 0.85 and ELECTRA_MASKING.random_frac == 0.0


def test_mask_step_on_a_short_sentence_says_one_was_picked(tiny_pair, vocab):
    """15% of a few tokens rounds to none; the pipeline masks one, and the text says so instead of "about 15%"."""
    paragraph, explanation = _mask_paragraph(tiny_pair, vocab, "the film", Settings(seed=0))
    n = sum(not t.special for t in explanation.tokens)
    assert round(0.15 * n) == 0 and len(explanation.masked) == 1
    assert paragraph.startswith(f"ELECTRA picked 1 of the {n} tokens at random (15% of {n} rounds to none, so one "
                                "was picked).")


@pytest.mark.parametrize("caught, replaced, text", [
    (0, 0, "Nothing here was really replaced, so there was nothing to flag"),
    (1, 1, "Here it flagged the one replacement"), (0, 1, "Here it did not flag the one replacement"),
    (2, 2, "Here it flagged both replacements"), (0, 2, "Here it flagged neither of the 2 replacements"),
    (1, 2, "Here it flagged 1 of the 2 replacements"), (5, 5, "Here it flagged all 5 replacements"),
    (0, 5, "Here it flagged none of the 5 replacements"), (3, 5, "Here it flagged 3 of the 5 replacements"),
])
def test_the_detect_step_counts_the_flagged_replacements_in_words(caught, replaced, text):
    assert walk._flagged({"caught": caught, "replaced": replaced}) == text
