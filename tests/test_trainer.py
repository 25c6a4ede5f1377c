"""The training loop on the tiny preset: determinism, resume, logs, saved folders, budgets, FLOPs, mixed block
lengths, stopping. The generator's settings: tests/test_trainer_generator.py; the config: tests/test_train_config.py."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch
from transformers import AutoModelForMaskedLM, AutoModelForPreTraining, AutoTokenizer

from training.config import TrainConfig
from training.events import TrainEvent
from training.models import PRESETS, count_parameters, embeddings_shared, load_pair
from training.runfiles import read_metrics
from training.trainer import _flops_after, train

from trainer_base import BASE, config, losses

pytestmark = pytest.mark.slow  # real training runs: seconds each


@pytest.fixture(scope="module")
def long_runs(tmp_path_factory) -> dict[str, list[dict]]:
    """60 steps of each objective on the same data, sizes and budget."""
    runs = {}
    for objective in ("rtd", "mlm"):
        out = tmp_path_factory.mktemp(objective)
        runs[objective] = list(train(config(objective=objective, max_steps=60, checkpoint_every=1000), out))
    return runs


def test_same_seed_same_losses_other_seed_other_losses(tmp_path):
    short = config(max_steps=6, log_every=1, checkpoint_every=1000)
    first = list(train(short, tmp_path / "a"))
    second = list(train(short, tmp_path / "b"))
    other = list(train(dataclasses.replace(short, seed=1), tmp_path / "c"))
    assert [e.step for e in first] == [1, 2, 3, 4, 5, 6]
    assert losses(first) == losses(second)
    assert [e.disc_loss for e in first] == [e.disc_loss for e in second]
    assert all(a != b for a, b in zip(losses(first), losses(other)))


def test_resume_from_a_checkpoint_gives_the_uninterrupted_losses(tmp_path, rtd_run):
    _, uninterrupted = rtd_run
    out = tmp_path / "run"
    before: list[TrainEvent] = []
    for event in train(BASE, out, stop=lambda: bool(before) and before[-1].step >= 10):
        before.append(event)
    assert [e.step for e in before] == [5, 10]
    checkpoint = torch.load(out / "checkpoint.pt", weights_only=False)
    assert checkpoint["counters"]["step"] == 10

    # A killed writer leaves half a line; resuming drops it.
    with open(out / "metrics.jsonl", "a", encoding="utf-8") as f:
        f.write('{"objective": "rtd", "step": 12, "loss": 3')
    after = list(train(BASE, out, resume=True))

    assert [e.step for e in after] == [15, 20]
    assert losses(before) + losses(after) == losses(uninterrupted)  # exactly, not approximately
    for resumed, straight in zip(after, uninterrupted[2:]):
        for key in ("mlm_loss", "disc_loss", "disc_accuracy", "lr", "flops", "tokens", "supervised_positions"):
            assert resumed.value(key) == straight.value(key), key
    logged = read_metrics(out)
    assert [e.step for e in logged] == [5, 10, 15, 20]
    assert all(json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines())
    assert losses(logged) == losses(uninterrupted)


def test_resume_without_a_checkpoint_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no checkpoint to resume"):
        list(train(BASE, tmp_path, resume=True))


def test_metrics_jsonl_has_one_line_per_event(rtd_run):
    out, events = rtd_run
    lines = (out / "metrics.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [e.to_dict() for e in events]
    assert read_metrics(out) == events
    assert [e.step for e in events] == [5, 10, 15, 20]


def test_a_torn_last_line_is_ignored_by_read_metrics(rtd_run, tmp_path):
    out, events = rtd_run
    copy = tmp_path / "metrics.jsonl"
    copy.write_text((out / "metrics.jsonl").read_text() + '{"step": 25, "lo', encoding="utf-8")
    assert read_metrics(tmp_path) == events


def test_events_carry_consistent_counts(rtd_run, wordpiece):
    _, events = rtd_run
    tokens_per_step = BASE.batch_size * BASE.seq_len
    for event in events:
        assert event.objective == "rtd"
        assert event.tokens == event.step * tokens_per_step
        # RTD learns from every token (no padding in packed blocks); MLM only from the masked ones.
        assert event.supervised_positions == event.tokens
        assert event.step_supervised_positions == tokens_per_step
        assert event.masked_positions == BASE.batch_size * round(0.15 * (BASE.seq_len - 2))
        assert 0 < event.replaced_fraction <= event.masked_positions / tokens_per_step
        assert event.loss == pytest.approx(event.mlm_loss + 50 * event.disc_loss, rel=1e-5)
    assert events[-1].lr == 0.0  # linear decay to zero at the end of the budget


def test_mlm_supervises_only_masked_positions(long_runs):
    for event in long_runs["mlm"]:
        assert event.step_supervised_positions == event.masked_positions == BASE.batch_size * round(0.15 * 62)
        assert event.disc_loss is None and event.loss == event.mlm_loss


def test_config_json_holds_the_resolved_config(rtd_run, wordpiece):
    out, _ = rtd_run
    saved = json.loads((out / "config.json").read_text())
    assert {k: saved[k] for k in dataclasses.asdict(BASE)} == dataclasses.asdict(BASE)
    assert TrainConfig.from_dict(saved) == BASE
    assert saved["world_size"] == 1
    assert saved["vocab_size"] == len(wordpiece) == 1000
    assert saved["device"] == "cpu"
    assert saved["blocks"] > 100


def test_run_folder_holds_loadable_models_and_tokenizer(rtd_run, wordpiece):
    out, _ = rtd_run
    for name in ("generator", "discriminator"):
        assert (out / name / "config.json").exists() and (out / name / "model.safetensors").exists()
        assert (out / name / "tokenizer.json").exists()
    assert (out / "tokenizer.json").exists() and (out / "checkpoint.pt").exists()
    tokenizer = AutoTokenizer.from_pretrained(out)
    assert tokenizer.get_vocab() == wordpiece.get_vocab()

    generator, discriminator = load_pair(out)
    assert embeddings_shared(generator, discriminator)
    assert generator.config.hidden_size == PRESETS["tiny"].generator.hidden
    assert discriminator.config.hidden_size == PRESETS["tiny"].discriminator.hidden
    # The saved weights are the trained ones from the final checkpoint.
    state = torch.load(out / "checkpoint.pt", weights_only=False)["model"]
    for name, value in discriminator.state_dict().items():
        assert torch.equal(value, state["discriminator." + name]), name
    assert isinstance(AutoModelForPreTraining.from_pretrained(out / "discriminator"), type(discriminator))


def test_mlm_run_folder_holds_an_encoder(tmp_path):
    out = tmp_path / "mlm"
    events = list(train(config(objective="mlm", max_steps=3, log_every=1), out))
    assert [e.step for e in events] == [1, 2, 3]
    assert (out / "encoder" / "model.safetensors").exists() and (out / "encoder" / "tokenizer.json").exists()
    assert not (out / "discriminator").exists() and not (out / "generator").exists()
    encoder = AutoModelForMaskedLM.from_pretrained(out / "encoder")
    assert encoder.config.hidden_size == PRESETS["tiny"].discriminator.hidden  # the discriminator's size


def test_the_generator_size_can_be_overridden(tmp_path):
    out = tmp_path / "gen"
    list(train(config(max_steps=1, log_every=1, generator_layers=1, generator_hidden=24), out))
    generator = AutoModelForMaskedLM.from_pretrained(out / "generator")
    assert (generator.config.hidden_size, generator.config.num_hidden_layers) == (24, 1)
    assert generator.config.intermediate_size == 96 and generator.config.num_attention_heads == 1
    discriminator = AutoModelForPreTraining.from_pretrained(out / "discriminator")
    assert discriminator.config.hidden_size == PRESETS["tiny"].discriminator.hidden


@pytest.mark.parametrize("objective", ["rtd", "mlm"])
def test_losses_fall(long_runs, objective):
    events = long_runs[objective]
    assert len(events) == 12
    first, last = losses(events[:3]), losses(events[-3:])
    assert sum(last) / 3 < sum(first) / 3 - 0.3  # MLM: ~6.75 -> ~6.24 nats; RTD: ~38 -> ~26
    mlm_first, mlm_last = [e.mlm_loss for e in events[:3]], [e.mlm_loss for e in events[-3:]]
    assert max(mlm_last) < min(mlm_first)


def test_rtd_disc_loss_falls_below_chance(long_runs):
    events = long_runs["rtd"]
    assert events[0].disc_loss > 0.5
    assert events[-1].disc_loss < 0.5  # ln 2 = 0.69 is a coin flip


def flops_per_step(events: list[dict]) -> float:
    per_step = {e.flops / e.step for e in events}
    assert len(per_step) == 1  # every step costs the same (fixed shapes)
    return per_step.pop()


def test_flops_are_a_fixed_positive_cost_per_step(long_runs):
    for objective, events in long_runs.items():
        per_step = flops_per_step(events)
        assert per_step > 0
        for event in events:
            assert event.flops == event.step * per_step


def test_an_rtd_step_costs_more_than_an_mlm_step(long_runs, wordpiece):
    rtd, mlm = flops_per_step(long_runs["rtd"]), flops_per_step(long_runs["mlm"])
    assert rtd > mlm
    # Forward + backward is at least 6 FLOPs per weight per token for the discriminator's layers
    # (both networks are measured, so the total is above the discriminator's share alone).
    from training.models import build_electra

    _, discriminator = build_electra(PRESETS["tiny"], len(wordpiece), 0, seed=0)
    layer_weights = count_parameters(discriminator.electra.encoder)
    tokens = BASE.batch_size * BASE.seq_len
    assert rtd > 6 * layer_weights * tokens * 0.9
    assert rtd < 100 * count_parameters(discriminator) * tokens  # and not absurdly more


def test_a_flops_budget_stops_within_one_step(long_runs, tmp_path):
    per_step = flops_per_step(long_runs["rtd"])
    budget = 7.5 * per_step
    events = list(train(config(max_steps=None, max_flops=budget, log_every=1, checkpoint_every=1000), tmp_path))
    last = events[-1]
    assert last.step == 8
    assert last.flops >= budget and last.flops - per_step < budget
    assert (tmp_path / "discriminator" / "model.safetensors").exists()  # saved at the end of the budget


def test_the_first_budget_reached_ends_the_run(long_runs, tmp_path):
    per_step = flops_per_step(long_runs["rtd"])
    events = list(train(config(max_steps=4, max_flops=100 * per_step, log_every=1), tmp_path))
    assert events[-1].step == 4


def step_costs(events: list[TrainEvent]) -> list[float]:
    """FLOPs of each step, from events logged every step."""
    return [b - a for a, b in zip([0.0] + [e.flops for e in events], [e.flops for e in events])]


def test_mixed_block_lengths_alternate_with_the_same_tokens_per_step(tmp_path):
    events = list(train(config(mixed_seq_len=16, max_steps=6, log_every=1, checkpoint_every=1000), tmp_path / "mixed"))
    plain = list(train(config(max_steps=1, log_every=1, checkpoint_every=1000), tmp_path / "plain"))
    costs = step_costs(events)
    long, short = costs[0::2], costs[1::2]
    assert len(set(long)) == 1 and len(set(short)) == 1  # one measured price per block length
    assert short[0] < long[0]  # 32 blocks of 16 tokens: the same tokens, shorter attention
    # Even steps are the unmixed run's steps: the same 64-token batch, masks and price.
    assert long[0] == plain[0].flops and events[0].loss == plain[0].loss
    assert [e.tokens for e in events] == [k * BASE.batch_size * BASE.seq_len for k in range(1, 7)]
    assert all(e.step_supervised_positions == BASE.batch_size * BASE.seq_len for e in events)
    saved = json.loads((tmp_path / "mixed" / "config.json").read_text())
    assert saved["mixed_seq_len"] == 16 and saved["mixed_blocks"] > 4 * saved["blocks"]


def test_a_mixed_run_resumes_with_the_uninterrupted_losses(tmp_path):
    mixed = config(mixed_seq_len=16, max_steps=6, log_every=1, checkpoint_every=3)
    straight = list(train(mixed, tmp_path / "straight"))
    before: list[TrainEvent] = []
    for event in train(mixed, tmp_path / "run", stop=lambda: bool(before) and before[-1].step >= 3):
        before.append(event)
    after = list(train(mixed, tmp_path / "run", resume=True))  # resumes at step 3: a short step
    assert [e.step for e in before + after] == [1, 2, 3, 4, 5, 6]
    assert losses(before + after) == losses(straight)
    assert [e.flops for e in before + after] == [e.flops for e in straight]


def test_a_checkpoint_from_before_mixed_lengths_resumes(tmp_path, rtd_run):
    _, uninterrupted = rtd_run
    out = tmp_path / "run"
    list(train(BASE, out, stop=lambda: (out / "checkpoint.pt").exists()))
    state = torch.load(out / "checkpoint.pt", weights_only=False)
    state["counters"]["flops_per_step"] = state["counters"].pop("flops_per_shape")[BASE.seq_len]
    torch.save(state, out / "checkpoint.pt")
    after = list(train(BASE, out, resume=True))
    assert [e.flops for e in after] == [e.flops for e in uninterrupted[2:]]


def test_flops_after_counts_each_block_length_in_turn():
    assert [_flops_after(n, [10.0, 3.0]) for n in range(5)] == [0.0, 10.0, 13.0, 23.0, 26.0]
    assert [_flops_after(n, [7.0]) for n in range(3)] == [0.0, 7.0, 14.0]


def test_a_flops_budget_stops_within_one_step_with_mixed_lengths(tmp_path):
    mixed = config(mixed_seq_len=16, max_steps=2, log_every=1, checkpoint_every=1000)
    long, short = step_costs(list(train(mixed, tmp_path / "priced")))
    budget = 2 * long + 1.5 * short  # reached during step 4, a short one
    events = list(train(dataclasses.replace(mixed, max_steps=None, max_flops=budget), tmp_path / "run"))
    assert events[-1].step == 4 and events[-1].flops == 2 * long + 2 * short


def test_stop_ends_the_run_cleanly_and_saves(tmp_path):
    seen: list[dict] = []
    for event in train(config(max_steps=50, log_every=1, checkpoint_every=1000), tmp_path, stop=lambda: len(seen) >= 3):
        seen.append(event)
    assert [e.step for e in seen] == [1, 2, 3]
    assert torch.load(tmp_path / "checkpoint.pt", weights_only=False)["counters"]["step"] == 3
    assert (tmp_path / "discriminator" / "model.safetensors").exists()
