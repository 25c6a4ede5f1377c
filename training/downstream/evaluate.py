"""How good is a generator+discriminator pair? The numbers the model card reports.

- `detection`: held-out text corrupted by the pair's *own* generator (the paper's setting, 15%
  masked, sampled at a temperature); the discriminator's ROC-AUC, accuracy, precision and recall
  over the non-special tokens, plus the generator's top-1 and top-5 accuracy on the masked tokens.
- `swap_pairs`: hand-made sentences with one word swapped ("the chef ate the meal"); a hit is
  when the word the discriminator rates most likely replaced is the swapped one.
- `cloze_heldout_english`: the generator alone, one content word of a held-out sentence hidden at a time
  (`training.downstream.cloze`): what a user sees when Explore hides a word of their sentence.

Left out: GLUE. The downstream check is `training.downstream.finetune` on the built-in sentiment task.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import torch

from training import data as data_lib
from training import words
from training.downstream import cloze
from training.metrics import binary_metrics, token_cosine
from training.models import load_pair
from training.objectives import ELECTRA_MASKING, MaskingConfig, corrupt, detect, mask_tokens, masked_lm_logits
from training.project import ASSETS

SWAP_PAIRS = ASSETS / "swap_pairs.json"
CLOZE_SENTENCES = 400  # held-out broad English sentences the cloze hides words of


class ScoredBatch(NamedTuple):
    """One batch of held-out blocks corrupted by the pair's generator and judged by its discriminator."""

    logits: torch.Tensor  # (B, T) the discriminator's logit per token (sigmoid = P(replaced))
    labels: torch.Tensor  # (B, T) bool, 1 = replaced
    scored: torch.Tensor  # (B, T) bool, the tokens that count: not [CLS]/[SEP]/padding
    shown: torch.Tensor  # (M,) bool, selected positions the generator saw as [MASK]
    top5: torch.Tensor  # (M, 5) the generator's five best guesses at each selected position
    targets: torch.Tensor  # (M,) the original tokens there
    samples: torch.Tensor  # (M,) the generator's draws there
    hidden: torch.Tensor  # (B, T, H) the discriminator's last hidden state
    attention_mask: torch.Tensor  # (B, T)


@torch.no_grad()
def scored_batches(generator, discriminator, tokenizer, texts, seq_len: int = 128, n_blocks: int | None = 200,
                   seed: int = 0, temperature: float = 1.0, batch_size: int = 16,
                   masking: MaskingConfig = ELECTRA_MASKING, sentences: bool = False) -> Iterator[ScoredBatch]:
    """The first `n_blocks` (None or 0: all) `seq_len`-token blocks of `texts` in the seed's order (`sentences`:
    blocks of whole sentences, padded, as people type them), corrupted as in training (`masking`, samples at
    `temperature`) and judged, batch by batch."""
    generator.eval(), discriminator.eval()
    make = data_lib.make_sentence_blocks if sentences else data_lib.make_blocks
    blocks = make(tuple(texts), tokenizer, seq_len, seed, data_lib.cache_dir())
    rng = torch.Generator().manual_seed(seed)
    wanted = len(blocks) if not n_blocks else min(n_blocks, len(blocks))
    for index in range(math.ceil(wanted / batch_size)):
        batch = {k: v[: wanted - index * batch_size] for k, v in blocks.batch(index, batch_size).items()}
        masked = mask_tokens(batch["input_ids"], batch["special_tokens_mask"], batch["attention_mask"],
                             tokenizer.mask_token_id, len(tokenizer), masking, rng)
        gen_logits, _ = masked_lm_logits(generator, masked.masked, masked.attention_mask, masked.is_masked)  # (M, V)
        fake = corrupt(masked.original, masked.is_masked, gen_logits, temperature, rng)
        disc_logits, hidden = detect(discriminator, fake.ids, masked.attention_mask)  # (B, T), (B, T, H)
        yield ScoredBatch(
            disc_logits.float(), fake.labels, ~batch["special_tokens_mask"].bool() & masked.attention_mask.bool(),
            masked.masked[masked.is_masked] == tokenizer.mask_token_id, gen_logits.topk(5, dim=-1).indices,
            masked.original[masked.is_masked], fake.samples, hidden, masked.attention_mask,
        )


def detection(generator, discriminator, tokenizer, texts, seq_len: int = 128, n_blocks: int | None = 200,
              seed: int = 0, temperature: float = 1.0, batch_size: int = 16,
              masking: MaskingConfig = ELECTRA_MASKING, sentences: bool = False) -> dict[str, float]:
    """The pair on held-out `texts` (`scored_batches`): 15% of the tokens selected, 85% of them shown as
    [MASK], samples from the pair's own generator. Detection is scored over every non-special token.

    The generator's accuracy is first counted where it saw [MASK] (`generator_top1_at_mask`): at the
    selected positions kept as they were it reads the answer, so `generator_top1_selected`, over every
    selected position, flatters it. `false_alarm_rate` is the share of original tokens flagged
    (P(replaced) > 0.5) and `top_rated_replaced` the share of blocks, among those with a replaced token,
    whose highest-rated token is a replaced one."""
    logits, labels, hidden_cos = [], [], []
    shown, hits, top5, outside_top5, top_is_replaced = [], [], [], [], []
    blocks = 0
    for b in scored_batches(generator, discriminator, tokenizer, texts, seq_len, n_blocks, seed, temperature,
                            batch_size, masking, sentences):
        blocks += len(b.logits)
        shown.append(b.shown)
        hits.append(b.top5[:, 0] == b.targets)
        top5.append((b.top5 == b.targets[:, None]).any(-1))
        outside_top5.append(~(b.top5 == b.samples[:, None]).any(-1))
        logits.append(b.logits[b.scored])
        labels.append(b.labels[b.scored])
        ranked = b.logits.masked_fill(~b.scored, float("-inf"))  # (B, T)
        top_label = b.labels.gather(1, ranked.argmax(1, keepdim=True)).squeeze(1)  # (B,)
        top_is_replaced.append(top_label[(b.labels & b.scored).any(1)])
        hidden_cos.append(token_cosine(b.hidden, b.attention_mask))
    labels_all, logits_all = torch.cat(labels).long(), torch.cat(logits)
    at_mask = torch.cat(shown)
    hits_all, top5_all = torch.cat(hits), torch.cat(top5)
    return {
        "generator_top1_at_mask": hits_all[at_mask].float().mean().item(),
        "generator_top5_at_mask": top5_all[at_mask].float().mean().item(),
        "draws_outside_top5_at_mask": torch.cat(outside_top5)[at_mask].float().mean().item(),
        "generator_top1_selected": hits_all.float().mean().item(),
        "generator_top5_selected": top5_all.float().mean().item(),
        **binary_metrics(logits_all, labels_all),
        "false_alarm_rate": (logits_all[labels_all == 0] > 0).float().mean().item(),
        "top_rated_replaced": torch.cat(top_is_replaced).float().mean().item(),
        "replaced_fraction": labels_all.float().mean().item(),
        "token_cosine": sum(hidden_cos) / len(hidden_cos),
        "tokens": len(labels_all),
        "blocks": blocks,
    }


def over_seeds(run, seeds) -> dict:
    """`run(seed)` for each seed: the mean of every figure, its spread (min, max), and each seed's result."""
    results = [run(seed) for seed in seeds]
    summary = {}
    for key, value in results[0].items():
        if isinstance(value, (int, float)):
            values = [r[key] for r in results]
            summary[key] = sum(values) / len(values)
            if len(values) > 1:
                summary[f"{key}_range"] = [min(values), max(values)]
    return {**summary, "seeds": list(seeds), "per_seed": results}


def word_scores(discriminator, tokenizer, text: str) -> list[tuple[str, float]]:
    """(word, max P(replaced) over its tokens) for each whitespace-separated word of `text`."""
    aligned = words.align(tokenizer, text, discriminator.config.max_position_embeddings)
    input_ids = torch.tensor([aligned.input_ids])
    with torch.no_grad():
        probs = torch.sigmoid(discriminator(input_ids=input_ids, attention_mask=torch.ones_like(input_ids)).logits[0])
    scores, start = [], 0
    for word in text.split():
        start = text.index(word, start)
        end = start + len(word)
        inside = [probs[p].item() for p in aligned.tokens_in(start, end)
                  if start <= aligned.offsets[p][0] and aligned.offsets[p][1] <= end]
        scores.append((word, max(inside) if inside else 0.0))
        start = end
    return scores


def swap_pairs(discriminator, tokenizer, pairs: list[dict] | None = None) -> dict:
    discriminator.eval()
    pairs = pairs if pairs is not None else json.loads(SWAP_PAIRS.read_text())
    rows = []
    for pair in pairs:
        swapped = word_scores(discriminator, tokenizer, pair["swapped"])
        original = dict(word_scores(discriminator, tokenizer, pair["original"]))
        top_word = max(swapped, key=lambda w: w[1])[0]
        p_swapped = dict(swapped)[pair["word"]]
        rows.append({**pair, "flagged": top_word, "hit": top_word == pair["word"], "p_swapped": p_swapped,
                     "p_original_sentence_max": max(original.values())})
    return {
        "hit_rate": sum(r["hit"] for r in rows) / len(rows),
        "above_half": sum(r["p_swapped"] > 0.5 for r in rows) / len(rows),
        "pairs": rows,
    }


def evaluate_pair(folder: str | Path, n_blocks: int | None = 200, seed: int = 0, temperature: float = 1.0,
                  seeds: int = 1, generator: str | Path | None = None) -> dict:
    """The model card's figures: held-out IMDB, broad English and Rotten Tomatoes (each over `seeds` seeds
    from `seed`: means, ranges and each seed's result), the swap pairs, and the cloze on 400 held-out broad
    English sentences (the same sentences for every seed; the draws differ). `generator`: another generator
(a pair or generator folder) against this pair's discriminator (`load_pair`)."""
    from transformers import AutoTokenizer

    from training.english import load_english

    generator, discriminator = load_pair(folder, generator)
    tokenizer = AutoTokenizer.from_pretrained(Path(folder) / "discriminator")
    sentiment = data_lib.load_sentiment()
    texts = {
        "heldout_imdb": data_lib.load_imdb().heldout,
        # Broad English text (news, encyclopedia, books, conversation) held out by document.
        "heldout_english": load_english().heldout,
        # Short sentences of other film-review English, never seen in pretraining.
        "rotten_tomatoes_test": tuple(t for t, _ in sentiment.test),
    }
    result = {}
    for name, corpus in texts.items():
        def run(s, corpus=corpus):
            return detection(generator, discriminator, tokenizer, corpus, n_blocks=n_blocks, seed=s,
                             temperature=temperature)

        result[name] = run(seed) if seeds == 1 else over_seeds(run, range(seed, seed + seeds))
    result["swap_pairs"] = swap_pairs(discriminator, tokenizer)
    sentences = cloze.heldout_sentences(texts["heldout_english"], CLOZE_SENTENCES)
    result["cloze_heldout_english"] = cloze.over_seeds(generator, tokenizer, sentences, range(seed, seed + seeds),
                                                       temperature)
    return result
