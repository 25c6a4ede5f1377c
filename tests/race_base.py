"""The tiny race the race tests share (test_race.py, test_race_budget.py, test_race_server.py,
test_race_record.py): its settings, a server's bounds, and a variant of it."""

from __future__ import annotations

import dataclasses

from conftest import N_DOCUMENTS, WORDPIECE

from training.race.settings import RaceLimits, RaceSettings

TINY = RaceSettings(
    preset="tiny", budget="steps", amount=12, tokenizer=WORDPIECE, max_documents=N_DOCUMENTS, seq_len=64,
    batch_size=8, lr=2e-3, probe_every=5, probe_train=200, probe_test=100, device="cpu", threads=1,
)
LIMITS = RaceLimits(max_minutes=2, max_steps=100_000, max_flops=1e13)


def tiny(**changes) -> RaceSettings:
    return dataclasses.replace(TINY, **changes)
