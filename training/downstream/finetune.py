"""Downstream check: fine-tune an encoder on the built-in sentiment task (Rotten Tomatoes sentences).

After pretraining, ELECTRA's generator is thrown away: the discriminator folder (or the MLM
baseline's encoder folder) is loaded into `ElectraForSequenceClassification`, which keeps the
encoder and adds a fresh classification head on [CLS]. `random_init=True` builds the same
architecture with random weights: the floor every pretrained encoder must beat.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from transformers import AutoConfig, AutoTokenizer, ElectraForSequenceClassification, get_linear_schedule_with_warmup
from transformers.utils import logging as hf_logging

from training.data import load_sentiment


@dataclass(frozen=True)
class FinetuneConfig:
    epochs: int = 3
    lr: float = 1e-4
    batch_size: int = 32
    max_len: int = 64  # the sentences are short; 64 tokens covers nearly all
    weight_decay: float = 0.01
    warmup: float = 0.1  # fraction of steps
    seed: int = 0
    max_train: int | None = None  # use only N training sentences, a fixed random sample (tests)
    max_test: int | None = None
    threads: int | None = None


def load_classifier(model_dir: str | Path, random_init: bool, seed: int) -> ElectraForSequenceClassification:
    hf_logging.set_verbosity_error()  # "some weights were not used" is expected: the RTD/MLM head
    torch.manual_seed(seed)
    if random_init:
        config = AutoConfig.from_pretrained(model_dir, num_labels=2)
        return ElectraForSequenceClassification(config)
    return ElectraForSequenceClassification.from_pretrained(model_dir, num_labels=2)


def _subset(rows, n: int | None) -> list:
    """The rows are stored positives first; a subset is a fixed random sample, never a prefix."""
    rows = list(rows)
    return rows if n is None or n >= len(rows) else random.Random(1234).sample(rows, n)


@torch.no_grad()
def accuracy(model, tokenizer, rows, max_len: int, batch_size: int = 64) -> float:
    model.eval()
    correct = 0
    for i in range(0, len(rows), batch_size):
        texts, labels = zip(*rows[i : i + batch_size])
        enc = tokenizer(list(texts), padding=True, truncation=True, max_length=max_len, return_tensors="pt")
        enc.pop("token_type_ids", None)
        correct += (model(**enc).logits.argmax(-1) == torch.tensor(labels)).sum().item()
    return correct / len(rows)


def finetune(model_dir: str | Path, config: FinetuneConfig = FinetuneConfig(), random_init: bool = False) -> dict:
    if config.threads:
        torch.set_num_threads(config.threads)
    started = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = load_classifier(model_dir, random_init, config.seed)
    task = load_sentiment()
    train_rows = _subset(task.train, config.max_train)
    test_rows = _subset(task.test, config.max_test)

    no_decay = [p for n, p in model.named_parameters() if n.endswith("bias") or "LayerNorm" in n]
    decay = [p for n, p in model.named_parameters() if not (n.endswith("bias") or "LayerNorm" in n)]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": config.weight_decay},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=config.lr)
    steps = config.epochs * ((len(train_rows) + config.batch_size - 1) // config.batch_size)
    schedule = get_linear_schedule_with_warmup(optimizer, int(config.warmup * steps), steps)
    shuffler = random.Random(config.seed)
    for _ in range(config.epochs):
        model.train()
        shuffler.shuffle(train_rows)
        for i in range(0, len(train_rows), config.batch_size):
            texts, labels = zip(*train_rows[i : i + config.batch_size])
            enc = tokenizer(list(texts), padding=True, truncation=True, max_length=config.max_len, return_tensors="pt")
            enc.pop("token_type_ids", None)
            loss = model(**enc, labels=torch.tensor(labels)).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad(set_to_none=True)
    return {
        "model": Path(model_dir).name if not random_init else f"{Path(model_dir).name} (random init)",
        "random_init": random_init,
        "accuracy": accuracy(model, tokenizer, test_rows, config.max_len),
        "train_sentences": len(train_rows),
        "test_sentences": len(test_rows),
        "parameters": sum(p.numel() for p in model.parameters()),
        "seconds": time.perf_counter() - started,
        "config": asdict(config),
    }
