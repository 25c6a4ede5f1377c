"""How good is a generator+discriminator pair? The numbers the model card reports.

- `detection`: held-out text corrupted by the pair's *own* generator (the paper's setting, 15%
  masked, sampled at a temperature); the discriminator's ROC-AUC, accuracy, precision and recall
  over the non-special tokens, plus the generator's top-1 and top-5 accuracy on the masked tokens.
- `swap_pairs`: hand-made sentences with one word swapped ("the chef ate the meal"); a hit is
  when the word the discriminator rates most likely replaced is the swapped one.

Left out: GLUE. The downstream check is `training.downstream.finetune` on the built-in sentiment task.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from training import data as data_lib
from training.metrics import binary_metrics, token_cosine
from training.models import load_pair
from training.objectives import ELECTRA_MASKING, corrupt, detect, mask_tokens, masked_lm_logits
from training.project import ASSETS

SWAP_PAIRS = ASSETS / "swap_pairs.json"


@torch.no_grad()
def detection(generator, discriminator, tokenizer, texts, seq_len: int = 128, n_blocks: int = 200,
              seed: int = 0, temperature: float = 1.0, batch_size: int = 16) -> dict[str, float]:
    generator.eval(), discriminator.eval()
    blocks = data_lib.make_blocks(tuple(texts), tokenizer, seq_len, seed, data_lib.cache_dir())
    rng = torch.Generator().manual_seed(seed)
    logits, labels, gen_hits, gen_top5, hidden_cos = [], [], [], [], []
    n_batches = max(1, min(n_blocks, len(blocks)) // batch_size)
    for i in range(n_batches):
        batch = blocks.batch(i, batch_size)
        masked = mask_tokens(batch["input_ids"], batch["special_tokens_mask"], batch["attention_mask"],
                             tokenizer.mask_token_id, len(tokenizer), ELECTRA_MASKING, rng)
        gen_logits, _ = masked_lm_logits(generator, masked.masked, masked.attention_mask, masked.is_masked)
        targets = masked.original[masked.is_masked]
        gen_hits.append(gen_logits.argmax(-1) == targets)
        gen_top5.append((gen_logits.topk(5, dim=-1).indices == targets[:, None]).any(-1))
        fake = corrupt(masked.original, masked.is_masked, gen_logits, temperature, rng)
        disc_logits, hidden = detect(discriminator, fake.ids, masked.attention_mask)  # (B, T), (B, T, H)
        scored = ~batch["special_tokens_mask"].bool()  # [CLS]/[SEP] are never replaced: leave them out
        logits.append(disc_logits[scored])
        labels.append(fake.labels[scored])
        hidden_cos.append(token_cosine(hidden, masked.attention_mask))
    labels_all = torch.cat(labels).long()
    result = binary_metrics(torch.cat(logits), labels_all)
    result.update(
        generator_top1=torch.cat(gen_hits).float().mean().item(),
        generator_top5=torch.cat(gen_top5).float().mean().item(),
        replaced_fraction=labels_all.float().mean().item(),
        token_cosine=sum(hidden_cos) / len(hidden_cos),
        tokens=len(labels_all),
    )
    return result


def word_scores(discriminator, tokenizer, text: str) -> list[tuple[str, float]]:
    """(word, max P(replaced) over its tokens) for each whitespace-separated word of `text`."""
    encoded = tokenizer(text, return_offsets_mapping=True, return_tensors="pt", truncation=True,
                        max_length=discriminator.config.max_position_embeddings)
    offsets = encoded.pop("offset_mapping")[0]
    with torch.no_grad():
        probs = torch.sigmoid(discriminator(**{k: v for k, v in encoded.items() if k != "token_type_ids"}).logits[0])
    words, start = [], 0
    for word in text.split():
        start = text.index(word, start)
        end = start + len(word)
        inside = [p.item() for p, (a, b) in zip(probs, offsets.tolist()) if b > a and a >= start and b <= end]
        words.append((word, max(inside) if inside else 0.0))
        start = end
    return words


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


def evaluate_pair(folder: str | Path, n_blocks: int = 200, seed: int = 0, temperature: float = 1.0) -> dict:
    from transformers import AutoTokenizer

    generator, discriminator = load_pair(folder)
    tokenizer = AutoTokenizer.from_pretrained(Path(folder) / "discriminator")
    sentiment = data_lib.load_sentiment()
    from training.english import load_english

    return {
        "heldout_imdb": detection(generator, discriminator, tokenizer, data_lib.load_imdb().heldout,
                                  n_blocks=n_blocks, seed=seed, temperature=temperature),
        # Broad English text (news, encyclopedia, books, conversation) held out by document.
        "heldout_english": detection(generator, discriminator, tokenizer, load_english().heldout,
                                     n_blocks=n_blocks, seed=seed, temperature=temperature),
        # Short sentences of other film-review English, never seen in pretraining.
        "rotten_tomatoes_test": detection(generator, discriminator, tokenizer, [t for t, _ in sentiment.test],
                                          n_blocks=n_blocks, seed=seed, temperature=temperature),
        "swap_pairs": swap_pairs(discriminator, tokenizer),
    }
