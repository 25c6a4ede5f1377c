"""How hard the generator makes the discriminator's job, as data (the Classroom's difficulty view).

`temperature_sweep`: held-out sentences corrupted by the pair's own generator at several
temperatures (and by a weaker generator: the same one cut after its first layer); the fraction of
tokens really replaced, and the discriminator's accuracy and ROC-AUC. `heldout_sentences` reads
the built-in corpus. Left out: a stronger generator (the hub's full-size one needs the network).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from training.metrics import binary_metrics
from training.objectives import ELECTRA_MASKING, corrupt, detect, mask_tokens, masked_lm_logits

TEMPERATURES = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)  # 1.0 = how the pair was trained
WEAKER = "first layer only"  # the weaker generator: its LM head reads the output of its first layer
N_SENTENCES = 32  # held-out sentences in the sweep: a few seconds on the bundled pair, one thread
SENTENCE_WORDS = (8, 30)  # short, whole sentences: min and max words


@dataclass(frozen=True)
class SweepPoint:
    generator: str  # "full" or WEAKER
    temperature: float
    generator_top1: float  # the generator's top guess = the original, at the positions it saw as [MASK] (at the
    #   15% of selected positions kept as they were it reads the answer, which would flatter it)
    replaced_fraction: float  # of all non-special tokens, really replaced
    accuracy: float  # discriminator, P > 0.5, over all non-special tokens
    auc: float  # discriminator's ROC-AUC: 0.5 = guessing, 1 = perfect


@dataclass(frozen=True)
class Sweep:
    model: str
    sentences: int
    tokens: int  # non-special tokens judged per point
    masked: int  # positions masked (the same ones at every point)
    points: tuple[SweepPoint, ...]


def heldout_sentences(n: int = N_SENTENCES, words: tuple[int, int] = SENTENCE_WORDS) -> tuple[str, ...]:
    """The first short sentence of each held-out IMDB review, until `n` (fixed: the split is by hash)."""
    from training.data import load_imdb

    found = []
    for document in load_imdb().heldout:
        for sentence in re.split(r"(?<=[.!?])\s+", document):
            if words[0] <= len(sentence.split()) <= words[1] and sentence[:1].isupper():
                found.append(sentence)
                break
        if len(found) == n:
            break
    return tuple(found)


@torch.no_grad()
def temperature_sweep(pair, sentences: tuple[str, ...], temperatures: tuple[float, ...] = TEMPERATURES,
                      seed: int = 0, max_tokens: int = 64) -> Sweep:
    """Corrupt `sentences` once per (generator, temperature) with the same mask; score the discriminator.

    The mask and the generator's logits do not depend on the temperature, so they are computed once;
    only the sampling and the discriminator run per point. The weaker generator is the same network
    cut after its first layer (its LM head reads that layer's output), when it has two layers or more
    (the paper's Figure 3 trade-off, against one discriminator: on the bundled 3-layer generator a
    weaker generator's replacements are easier to catch).
    """
    if pair.generator is None:
        raise ValueError(f"{pair.name} has no generator: the sweep needs one")
    tokenizer = pair.tokenizer
    with pair.lock:  # the tokenizer's padding/truncation settings are shared state too (see pipeline.explain)
        enc = tokenizer(list(sentences), padding=True, truncation=True, max_length=max_tokens,
                        return_special_tokens_mask=True, return_tensors="pt")
        ids, attention = enc["input_ids"], enc["attention_mask"]  # (B, T)
        special = enc["special_tokens_mask"].bool() | ~attention.bool()
        batch = mask_tokens(ids, special.long(), attention, tokenizer.mask_token_id, len(tokenizer),
                            ELECTRA_MASKING, torch.Generator().manual_seed(seed))
        targets = ids[batch.is_masked]  # (M,)
        shown = batch.masked[batch.is_masked] == tokenizer.mask_token_id  # (M,) the generator saw [MASK] there
        generator = pair.generator
        logits, _ = masked_lm_logits(generator, batch.masked, attention, batch.is_masked)  # (M, V)
        variants = {"full": logits}
        if generator.config.num_hidden_layers >= 2:
            hidden = generator.electra(batch.masked, attention_mask=attention, output_hidden_states=True).hidden_states
            first = hidden[1][batch.is_masked]  # (M, H): the output of the first layer
            variants[WEAKER] = generator.generator_lm_head(generator.generator_predictions(first))
        points = []
        for name, gen_logits in variants.items():
            top1 = (gen_logits.argmax(-1) == targets)[shown].float().mean().item()
            for temperature in temperatures:
                rng = torch.Generator().manual_seed(seed + 1)  # the same draws' randomness at each point
                fake = corrupt(ids, batch.is_masked, gen_logits, temperature, rng)
                disc, _ = detect(pair.discriminator, fake.ids, attention)  # (B, T)
                labels = fake.labels
                metrics = binary_metrics(disc[~special], labels[~special])
                points.append(SweepPoint(name, temperature, top1, labels[~special].float().mean().item(),
                                         metrics["accuracy"], metrics["auc"]))
    return Sweep(pair.name, len(sentences), int((~special).sum()), int(batch.is_masked.sum()), tuple(points))
