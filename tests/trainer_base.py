"""The tiny training run the trainer's tests share: a base config on the tiny preset, and helpers."""

from __future__ import annotations

import dataclasses

from conftest import N_DOCUMENTS, WORDPIECE

from training.config import TrainConfig
from training.events import TrainEvent

BASE = TrainConfig(
    objective="rtd",
    preset="tiny",
    corpus="imdb",
    tokenizer=WORDPIECE,
    max_documents=N_DOCUMENTS,
    seq_len=64,
    batch_size=8,
    lr=2e-3,  # tiny models tolerate a high rate; the loss falls within a few dozen steps
    max_steps=20,
    log_every=5,
    checkpoint_every=10,
    seed=0,
    device="cpu",
)


def config(**changes) -> TrainConfig:
    return dataclasses.replace(BASE, **changes)


def losses(events: list[TrainEvent]) -> list[float]:
    return [e.loss for e in events]
