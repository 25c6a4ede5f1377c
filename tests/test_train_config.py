"""TrainConfig: what it refuses and how, the learning-rate schedule, reading a saved config back."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from transformers import get_scheduler

from training.config import TrainConfig
from training.trainer import lr_factor, train

from trainer_base import BASE, config


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"max_steps": None}, "give a budget: max_steps, max_flops or max_minutes"),
        ({"objective": "gan"}, "objective must be 'rtd' or 'mlm'"),
        ({"mask_rate": 0.0}, "mask_rate must be between 0 and 1"),
        ({"seq_len": 4}, "seq_len must be at least 8"),
        ({"mixed_seq_len": 24}, r"mixed_seq_len must be at least 8 and divide seq_len \(64\), not 24"),
        ({"mixed_seq_len": 4}, "mixed_seq_len must be at least 8"),
        ({"generator_lr_scale": -0.5}, "generator_lr_scale must be 0 or more"),
        ({"disc_weight": -1.0}, "disc_weight must be 0 or more"),
    ],
)
def test_invalid_configs_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        config(**changes)


@pytest.mark.slow  # builds the models
def test_errors_found_while_building_are_clear(tmp_path):
    with pytest.raises(ValueError, match="seq_len 256 exceeds the preset's 128 positions"):
        list(train(config(seq_len=256), tmp_path))
    with pytest.raises(ValueError, match="only implemented for the RTD pair"):
        list(train(config(objective="mlm", warm_start="minilm"), tmp_path))


def test_lr_schedule_warms_up_then_decays_linearly():
    assert lr_factor(0.0, 0.1) == 0.0
    assert lr_factor(0.05, 0.1) == pytest.approx(0.5)
    assert lr_factor(0.1, 0.1) == pytest.approx(1.0)
    assert lr_factor(0.55, 0.1) == pytest.approx(0.5)
    assert lr_factor(1.0, 0.1) == 0.0
    assert lr_factor(1.2, 0.1) == 0.0


@pytest.mark.parametrize("schedule, name", [("linear", "linear"), ("constant", "constant_with_warmup")])
def test_on_a_budget_of_steps_the_schedule_is_transformers_own(schedule, name):
    """`lr_factor` follows the budget's progress (steps, FLOPs or minutes, whichever ends first), which a
    scheduler counting steps cannot; on a budget of steps alone it is transformers' schedule, step for step
    (step s moves towards the rate transformers' scheduler sets after s + 1 steps)."""
    max_steps, warmup = 200, 0.05
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    scheduler = get_scheduler(name, optimizer, num_warmup_steps=round(warmup * max_steps), num_training_steps=max_steps)
    for step in range(max_steps):
        optimizer.step()
        scheduler.step()
        assert lr_factor((step + 1) / max_steps, warmup, schedule) == pytest.approx(scheduler.get_last_lr()[0],
                                                                                      abs=1e-12)


def test_config_from_dict_skips_what_the_trainer_adds_and_refuses_any_other_key():
    values = {**dataclasses.asdict(BASE), "world_size": 2, "vocab_size": 1000, "blocks": 7}
    assert TrainConfig.from_dict(values) == BASE
    with pytest.raises(ValueError, match="unknown training settings: gen_layers, tempreature"):
        TrainConfig.from_dict({**values, "tempreature": 2.0, "gen_layers": 1})
