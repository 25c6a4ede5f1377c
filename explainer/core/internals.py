"""The vocabulary's internals, which no draw shows: every token the tokenizer marks special ([CLS], [SEP], [PAD],
[MASK], [UNK]) and every bracketed placeholder ("[unused667]"), the SPECIAL kind of
training.words.vocabulary_kinds, found once per tokenizer, so a hub or local vocabulary is covered as the bundled one.
Nothing on the page explains them, and none is a word a reader could judge in place of the original.

The pipeline (explainer/core/pipeline.py) keeps them out of the guesses listed and out of the fakes drawn, in every
mode. It does not set their logits to -inf before the draw, as it does for offensive words: the draw is inverse-CDF
over the vocabulary (training.objectives.draw), so taking their mass out first would move every later token's share
of the uniform number and change draws that never touched one (a pinned seed's "-hini" would become "-eering").
Instead `redraw` draws as ELECTRA does and, only where that hit an internal, draws again from the distribution
without them. That is rejection sampling: the fake follows exactly the distribution without the internals, and every
other draw stays ELECTRA's, the same seed the same fake as before.
"""

from __future__ import annotations

import torch

from explainer.core.kinds import token_kinds
from explainer.core.text import blocked_ids
from training import words
from training.words import readable_ids
from training.objectives import draw, softmax

_INTERNAL: dict[tuple[int, int], torch.Tensor] = {}
_UNLISTED: dict[tuple[int, int], torch.Tensor] = {}


def internal_ids(tokenizer) -> torch.Tensor:
    """(N,) the ids of the vocabulary's internals (special tokens and bracketed placeholders), ascending."""
    key = (id(tokenizer), len(tokenizer))
    if key not in _INTERNAL:
        kinds = token_kinds(tokenizer)
        _INTERNAL[key] = torch.tensor([i for i, k in enumerate(kinds) if k == words.SPECIAL], dtype=torch.long)
    return _INTERNAL[key]


def unlisted_ids(tokenizer) -> torch.Tensor:
    """(N,) the ids never listed among the guesses: the internals and the offensive words (`blocked_ids`)."""
    key = (id(tokenizer), len(tokenizer))
    if key not in _UNLISTED:
        _UNLISTED[key] = torch.cat([internal_ids(tokenizer), blocked_ids(tokenizer)]).unique()
    return _UNLISTED[key]


def redraw(tokenizer, logits: torch.Tensor, samples: torch.Tensor, temperature: float, rng: torch.Generator
           ) -> tuple[torch.Tensor, torch.Tensor]:
    """(the distribution without the internals (M, V), the samples (M,)): `samples`, ELECTRA's draw from
    softmax(`logits` / T), kept where it is no internal and drawn again from that distribution with `rng` where it
    is one (the rng moves on only then)."""
    internal = internal_ids(tokenizer)
    # From the logits, not by renormalising ELECTRA's probabilities: at a low temperature those of every token but
    # an internal can underflow to 0, and a renormalised row would be 0/0.
    probs = softmax(logits.index_fill(-1, internal, float("-inf")), temperature)  # (M, V)
    hit = torch.isin(samples, internal)  # (M,)
    if hit.any():
        samples = samples.clone()
        samples[hit] = draw(probs[hit], rng)
    return probs, samples


def guesses(tokenizer, probs: torch.Tensor, k: int) -> list[tuple[str, int, float]]:
    """The `k` likeliest tokens of one row of `probs` (V,), as (readable token, id, probability), most likely first;
    never an internal nor an offensive word (`unlisted_ids`), even among ties at 0% (a low temperature)."""
    hidden = unlisted_ids(tokenizer)
    ids = probs.index_fill(-1, hidden, -1.0).topk(min(k, probs.shape[-1] - len(hidden))).indices.tolist()
    return [(token, t, float(probs[t])) for token, t in zip(readable_ids(tokenizer, ids), ids)]
