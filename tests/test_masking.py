"""Masking (training/objectives.py `mask_tokens`): exactly round(rate x n) per row, never a special token or
padding, ELECTRA's 85/15 split against BERT's 80/10/10, a pure function of the seed; and the draws' sampling."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from training.objectives import (
    BERT_MASKING,
    ELECTRA_MASKING,
    draw,
    softmax,
)
from toy_batches import MASK, SEP, VOCAB, make_rows, mask


# Rows with different amounts of padding, down to [CLS] [SEP] only; n non-special = length - 2.
LENGTHS = [40, 33, 27, 20, 12, 9, 5, 3, 2]


@pytest.mark.parametrize("rate", [0.15, 0.3, 0.5])
@pytest.mark.parametrize("seed", range(5))
def test_exactly_round_rate_times_n_selected_per_sequence(rate, seed):
    rows = make_rows(LENGTHS, width=40, seed=seed)
    batch = mask(rows, dataclasses.replace(ELECTRA_MASKING, rate=rate), seed)
    expected = [round(rate * (length - 2)) for length in LENGTHS]
    assert batch.is_masked.sum(dim=1).tolist() == expected


def test_rate_changes_how_many_are_selected():
    rows = make_rows([102] * 4, width=102)  # 100 candidates per row
    counts = {rate: mask(rows, dataclasses.replace(ELECTRA_MASKING, rate=rate)).is_masked.sum(1).tolist()
              for rate in (0.1, 0.15, 0.4)}
    assert counts == {0.1: [10] * 4, 0.15: [15] * 4, 0.4: [40] * 4}


@pytest.mark.parametrize("config", [ELECTRA_MASKING, BERT_MASKING, dataclasses.replace(ELECTRA_MASKING, rate=0.9)])
def test_special_tokens_and_padding_are_never_selected_or_changed(config):
    rows = make_rows(LENGTHS, width=40)
    special = rows["special_tokens_mask"].bool()
    for seed in range(50):
        batch = mask(rows, config, seed)
        assert not (batch.is_masked & special).any()
        assert torch.equal(batch.masked[special], rows["input_ids"][special])
        # Positions that were not selected are untouched.
        assert torch.equal(batch.masked[~batch.is_masked], rows["input_ids"][~batch.is_masked])
        assert torch.equal(batch.original, rows["input_ids"])


def test_special_tokens_mask_alone_protects_positions_inside_the_attention_mask():
    # A [SEP] in the middle of a packed block (document boundary) is special but attended to.
    rows = make_rows([30], width=30)
    rows["input_ids"][0, 15] = SEP
    rows["special_tokens_mask"][0, 15] = 1
    for seed in range(50):
        assert not mask(rows, dataclasses.replace(ELECTRA_MASKING, rate=0.9), seed).is_masked[0, 15]


def test_masking_is_a_pure_function_of_the_rng_seed():
    rows = make_rows(LENGTHS, width=40)
    a, b, c = mask(rows, seed=7), mask(rows, seed=7), mask(rows, seed=8)
    assert torch.equal(a.is_masked, b.is_masked) and torch.equal(a.masked, b.masked)
    assert not torch.equal(a.is_masked, c.is_masked)


def split_fractions(config) -> dict[str, float]:
    """Of the selected positions: share turned into [MASK], kept as the original, randomised."""
    rows = make_rows([130] * 512, width=130)  # 128 candidates x 512 rows -> ~9,800 selected
    batch = mask(rows, config, seed=1)
    chosen_masked, chosen_original = batch.masked[batch.is_masked], batch.original[batch.is_masked]
    is_mask = chosen_masked == MASK
    kept = ~is_mask & (chosen_masked == chosen_original)
    return {
        "n": len(chosen_masked),
        "mask": is_mask.float().mean().item(),
        "kept": kept.float().mean().item(),
        "random": (~is_mask & ~kept).float().mean().item(),
    }


def test_electra_masking_is_85_percent_mask_15_percent_kept_and_no_random_tokens():
    split = split_fractions(ELECTRA_MASKING)
    assert split["n"] == 512 * round(0.15 * 128)
    assert split["mask"] == pytest.approx(0.85, abs=0.015)  # binomial sd ~0.004
    assert split["kept"] == pytest.approx(0.15, abs=0.015)
    assert split["random"] == 0.0  # the paper's ELECTRA never puts in random tokens


def test_bert_masking_is_80_10_10():
    split = split_fractions(BERT_MASKING)
    assert split["mask"] == pytest.approx(0.80, abs=0.015)
    # A random token equal to the original (1 in 50 here) counts as kept.
    assert split["random"] == pytest.approx(0.10 * (1 - 1 / VOCAB), abs=0.015)
    assert split["kept"] == pytest.approx(0.10 + 0.10 / VOCAB, abs=0.015)


def test_sampling_follows_the_softmax_and_a_near_zero_temperature_is_argmax():
    logits = torch.tensor([[0.0, 1.0, 2.0, -1.0]]).repeat(20_000, 1)  # (M, V)
    samples = draw(softmax(logits, 1.0), torch.Generator().manual_seed(0))
    frequencies = torch.bincount(samples, minlength=4).float() / len(samples)
    assert torch.allclose(frequencies, torch.softmax(logits[0], -1), atol=0.015)
    assert (draw(softmax(logits, 1e-6), torch.Generator().manual_seed(0)) == 2).all()
    # bf16 logits are sampled in float32 and never carry a graph
    half = logits[:4].bfloat16().requires_grad_()
    out = draw(softmax(half, 1.0), torch.Generator().manual_seed(0))
    assert out.dtype == torch.long and not out.requires_grad


