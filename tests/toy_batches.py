"""Toy batches for the objectives' tests: a 50-token vocabulary (0 [PAD], 1 [CLS], 2 [SEP], 3 [MASK]) and rows
of given lengths, masked with a seed."""

from __future__ import annotations

import torch

from training.objectives import ELECTRA_MASKING, MaskedBatch, mask_tokens

# A toy vocabulary: 0 [PAD], 1 [CLS], 2 [SEP], 3 [MASK], 4.. ordinary tokens.
PAD, CLS, SEP, MASK = 0, 1, 2, 3
VOCAB = 50


def make_rows(lengths: list[int], width: int, seed: int = 0) -> dict[str, torch.Tensor]:
    """One row per length: [CLS] tokens [SEP] then [PAD] up to `width`."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.full((len(lengths), width), PAD, dtype=torch.long)
    for row, length in enumerate(lengths):
        ids[row, 0] = CLS
        ids[row, 1 : length - 1] = torch.randint(4, VOCAB, (length - 2,), generator=g)
        ids[row, length - 1] = SEP
    attention = (ids != PAD).long()
    special = torch.isin(ids, torch.tensor([PAD, CLS, SEP])).long()
    return {"input_ids": ids, "special_tokens_mask": special, "attention_mask": attention}


def mask(rows: dict, config=ELECTRA_MASKING, seed: int = 0) -> MaskedBatch:
    return mask_tokens(rows["input_ids"], rows["special_tokens_mask"], rows["attention_mask"], MASK, VOCAB,
                       config, torch.Generator().manual_seed(seed))
