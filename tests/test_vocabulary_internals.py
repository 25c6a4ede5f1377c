"""No draw shows the vocabulary's internals: a special token ([UNK], [MASK], [SEP]...) or a bracketed placeholder
("[unused667]") is never drawn as a fake nor listed among the generator's guesses (explainer.core.internals), and
a draw that did not hit one is ELECTRA's draw as before."""

from __future__ import annotations

import copy

import pytest
import torch
from transformers import AutoTokenizer

from explainer.core import models
from explainer.core.internals import internal_ids
from explainer.core.models import ModelPair
from explainer.core.pipeline import Settings, explain
from explainer.core.text import blocked_ids, encode
from training.objectives import corrupt, masked_lm_logits

TEXT = "The old fisherman repaired his boat before the storm arrived."


def _bracketed(token: str) -> bool:
    return len(token) > 2 and token.startswith("[") and token.endswith("]")  # "[UNK]", "[unused3]"; not "["


def _leaning_on_specials(pair, bias: float) -> ModelPair:
    """A copy of `pair` whose generator's output bias at every special token is `bias`."""
    generator = copy.deepcopy(pair.generator)
    with torch.no_grad():
        generator.generator_lm_head.bias[pair.tokenizer.all_special_ids] = bias
    return ModelPair(generator, pair.discriminator, pair.tokenizer, pair.name)


@pytest.mark.parametrize("mode", ["auto", "manual"])
def test_a_generator_that_prefers_specials_draws_and_lists_none(tiny_pair, mode):
    """Unblocked, every draw and every guess of this generator would be a special token."""
    pair, specials = _leaning_on_specials(tiny_pair, 1e4), set(tiny_pair.tokenizer.all_special_ids)
    for seed in (0, 1, 2):
        explanation = explain(pair, TEXT, Settings(mode=mode, seed=seed, mask_words=(1, 3), top_k=10,
                                                   temperature=0.05))
        assert explanation.masked
        for card in explanation.masked:
            assert card.sampled_id not in specials and not _bracketed(card.sampled)
            assert len(card.proposals) == 10
            assert not {p.token_id for p in card.proposals} & specials
            assert not any(_bracketed(p.token) for p in card.proposals)
        assert not {explanation.corrupted_ids[m.position] for m in explanation.masked} & specials
        assert not any("[UNK]" in w.corrupted or "[MASK]" in w.corrupted for w in explanation.words)


def test_only_a_draw_that_hit_an_internal_is_drawn_again(tiny_pair):
    """A generator that puts about half its mass on the specials: where ELECTRA's own draw (training.objectives, the
    same seed) is a special the fake is drawn again, a word; everywhere else it is that very draw."""
    pair, tokenizer = _leaning_on_specials(tiny_pair, 5.5), tiny_pair.tokenizer
    internal = set(internal_ids(tokenizer).tolist())
    words = (0, 1, 2, 3, 4, 5, 6)
    encoded = encode(tokenizer, TEXT, pair.max_tokens)
    ids = torch.tensor(encoded.input_ids)
    selected = torch.zeros_like(ids, dtype=torch.bool)
    for w in words:
        selected[list(encoded.words[w].tokens)] = True
    ones = torch.ones_like(ids)[None]
    with torch.no_grad():
        logits, _ = masked_lm_logits(pair.generator, ids.masked_fill(selected, tokenizer.mask_token_id)[None], ones,
                                     selected[None])
    logits[:, blocked_ids(tokenizer)] = float("-inf")
    kept = redrawn = 0
    for seed in range(6):
        electra = corrupt(ids[None], selected[None], logits, 1.0, torch.Generator().manual_seed(seed)).samples.tolist()
        explanation = explain(pair, TEXT, Settings(mode="manual", seed=seed, mask_words=words))
        for card, drawn in zip(explanation.masked, electra, strict=True):
            if drawn in internal:
                redrawn += 1
                assert card.sampled_id not in internal
            else:
                kept += 1
                assert card.sampled_id == drawn
    assert kept > 5 and redrawn > 5  # both cases met


def test_the_internals_of_a_real_vocabulary_are_every_special_and_placeholder():
    tokenizer = AutoTokenizer.from_pretrained(str(models.BUNDLED / "generator"))
    internal = set(internal_ids(tokenizer).tolist())
    vocabulary = tokenizer.get_vocab()
    placeholders = {i for token, i in vocabulary.items() if token.startswith("[unused")}
    assert len(placeholders) == 994 and internal == placeholders | set(tokenizer.all_special_ids)
    assert vocabulary["[unused667]"] in internal and vocabulary["[UNK]"] in internal
    assert internal_ids(tokenizer) is internal_ids(tokenizer)  # found once per tokenizer


@pytest.mark.slow
def test_the_bundled_pair_no_longer_draws_an_unused_placeholder_into_an_address():
    """The audit's case: seed 7209 drew "[unused667]" for the "1" of the address; the other draws stay."""
    explanation = explain(models.load("bundled"), "Read more at https://example.com/a?b=1 before the lecture tomorrow.",
                          Settings(seed=7209))
    assert [(m.original, m.sampled) for m in explanation.masked] == [("more", "it"), ("at", "at"), ("1", "56")]
    assert explanation.words[3].corrupted == "https://example.com/a?b=56"
    assert [p.token for p in explanation.masked[2].proposals] == ["10", "1", "0", "*", "2"]
