"""The generator in training, on the tiny preset: frozen or learning, its own warm start and embeddings, its
learning-rate scale, hot draws, dropout, a stacked (deeper) generator."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch
from transformers import AutoTokenizer

from training.models import PRESETS, embeddings_shared, load_pair
from training.trainer import train

from trainer_base import BASE, config

pytestmark = pytest.mark.slow  # real training runs: seconds each


def test_a_frozen_generator_keeps_its_weights_while_the_shared_embeddings_learn(tmp_path, rtd_run):
    start, _ = rtd_run
    list(train(config(warm_start=str(start), generator_lr_scale=0.0, max_steps=3), tmp_path))
    (old_generator, old_discriminator), (generator, discriminator) = load_pair(start), load_pair(tmp_path)
    assert embeddings_shared(generator, discriminator)
    old = dict(old_generator.named_parameters())
    moved = {name for name, param in generator.named_parameters() if not torch.equal(param, old[name])}
    assert moved == {name for name, _ in generator.named_parameters() if name.startswith("electra.embeddings.")}
    old = dict(old_discriminator.named_parameters())
    assert all(not torch.equal(param, old[name]) for name, param in discriminator.named_parameters()
               if name.endswith("weight") and "LayerNorm" not in name)


def test_a_fully_frozen_generator_and_its_embeddings_do_not_move_and_the_discriminator_learns(tmp_path, rtd_run):
    start, _ = rtd_run
    events = list(train(config(warm_start=str(start), freeze_generator=True, max_steps=3, log_every=1), tmp_path))
    (old_generator, old_discriminator), (generator, discriminator) = load_pair(start), load_pair(tmp_path)
    old = dict(old_generator.named_parameters())
    assert all(torch.equal(param, old[name]) for name, param in generator.named_parameters())
    old = dict(old_discriminator.named_parameters())
    moved = {name for name, param in discriminator.named_parameters() if not torch.equal(param, old[name])}
    assert not any(name.startswith("electra.embeddings.") for name in moved)
    assert any(name.startswith("discriminator_predictions.") for name in moved)
    assert any(".encoder." in f".{n}" for n in moved)
    assert all(e.disc_loss is not None for e in events)


def test_untied_a_frozen_generator_keeps_its_own_embeddings_while_the_discriminators_learn(tmp_path, rtd_run):
    start, _ = rtd_run
    # A generator-only phase moves the shared table; the discriminator then starts from the first pair (its own
    # table), the generator from the phase's end, each keeping its own.
    list(train(config(warm_start=str(start), disc_weight=0.0, max_steps=2), tmp_path / "generator_phase"))
    phase = tmp_path / "generator_phase"
    events = list(train(config(warm_start=str(start), generator_warm_start=str(phase), untie_embeddings=True,
                               freeze_generator=True, max_steps=3, log_every=1), tmp_path / "run"))
    (phase_generator, _), (_, old_discriminator) = load_pair(phase), load_pair(start)
    generator, discriminator = load_pair(tmp_path / "run")
    assert not embeddings_shared(generator, discriminator)  # saved apart, loaded apart
    old = dict(phase_generator.named_parameters())
    assert all(torch.equal(param, old[name]) for name, param in generator.named_parameters())  # frozen, whole
    old = dict(old_discriminator.named_parameters())
    moved = {name for name, param in discriminator.named_parameters() if not torch.equal(param, old[name])}
    assert "electra.embeddings.word_embeddings.weight" in moved and "discriminator_predictions.dense.weight" in moved
    assert all(e.disc_loss is not None for e in events)
    resumed = list(train(config(warm_start=str(start), generator_warm_start=str(phase), untie_embeddings=True,
                                freeze_generator=True, max_steps=4, log_every=1), tmp_path / "run", resume=True))
    assert [e.step for e in resumed] == [4]


def test_a_generator_warm_start_from_a_pair_needs_the_same_shape(tmp_path, rtd_run):
    start, _ = rtd_run
    with pytest.raises(ValueError, match="another shape"):
        list(train(config(warm_start=str(start), generator_warm_start=str(start), generator_layers=1, max_steps=1),
                   tmp_path))
    with pytest.raises(ValueError, match="untie_embeddings: only implemented for the RTD pair"):
        list(train(config(objective="mlm", untie_embeddings=True, max_steps=1), tmp_path / "mlm"))


def test_a_frozen_generator_draws_without_dropout_while_the_discriminator_trains_with_it(rtd_run):
    from training.build import objective_and_optimizer

    start, _ = rtd_run
    tokenizer = AutoTokenizer.from_pretrained(start)
    objective, _ = objective_and_optimizer(config(warm_start=str(start), freeze_generator=True), len(tokenizer),
                                           tokenizer.pad_token_id)
    assert not any(m.training for m in objective.generator.modules())
    shared = set(objective.discriminator.electra.embeddings.modules())  # one module, used by both networks
    assert all(m.training for m in objective.discriminator.modules() if m not in shared)
    objective, _ = objective_and_optimizer(config(warm_start=str(start)), len(tokenizer), tokenizer.pad_token_id)
    assert all(m.training for m in objective.generator.modules())  # joint training: both learn, both drop out


def test_disc_weight_zero_trains_the_generator_alone(tmp_path, rtd_run):
    start, _ = rtd_run
    events = list(train(config(warm_start=str(start), disc_weight=0.0, max_steps=3, log_every=1), tmp_path))
    (_, old_discriminator), (_, discriminator) = load_pair(start), load_pair(tmp_path)
    old = dict(old_discriminator.named_parameters())
    own = {n: p for n, p in discriminator.named_parameters() if not n.startswith("electra.embeddings.")}
    assert all(torch.equal(p, old[n]) for n, p in own.items())  # no discriminator loss: not even run
    assert all(e.disc_loss is None and e.loss == pytest.approx(e.mlm_loss) for e in events)
    assert events[-1].supervised_positions < events[-1].tokens / 4  # the masked ~15% only


def test_the_generator_lr_scale_applies_to_the_generators_own_weights_only(wordpiece):
    from training.build import param_groups
    from training.models import build_electra
    from training.objectives import RTDObjective

    generator, discriminator = build_electra(PRESETS["tiny"], len(wordpiece), 0, seed=0)
    objective = RTDObjective(generator, discriminator)
    groups = param_groups(objective, config(generator_lr_scale=0.25), warm_names=set())
    lr_of = {id(p): g["base_lr"] for g in groups for p in g["params"]}
    shared = {id(p) for p in discriminator.parameters()}
    assert {lr_of[id(p)] for p in discriminator.parameters()} == {BASE.lr}  # embeddings included
    assert {lr_of[id(p)] for p in generator.parameters() if id(p) not in shared} == {0.25 * BASE.lr}
    assert len(lr_of) == len({id(p) for p in objective.parameters()})  # every weight, once


def test_the_hot_share_reaches_the_objective(wordpiece):
    from training.build import build_objective

    objective, _ = build_objective(config(hot_share=0.3, hot_temperature=1.7), len(wordpiece), 0)
    assert (objective.hot_share, objective.hot_temperature, objective.temperature) == (0.3, 1.7, 1.0)
    plain, _ = build_objective(config(), len(wordpiece), 0)
    assert plain.hot_share == 0.0


def test_a_dropout_setting_applies_while_training_and_the_saved_configs_keep_their_own(tmp_path, rtd_run):
    from training.build import objective_and_optimizer

    start, _ = rtd_run
    tokenizer = AutoTokenizer.from_pretrained(start)
    objective, _ = objective_and_optimizer(config(warm_start=str(start), dropout=0.0), len(tokenizer),
                                           tokenizer.pad_token_id)
    rates = {m.p for m in objective.modules() if isinstance(m, torch.nn.Dropout)}
    assert rates == {0.0}
    objective, _ = objective_and_optimizer(config(warm_start=str(start)), len(tokenizer), tokenizer.pad_token_id)
    assert {m.p for m in objective.modules() if isinstance(m, torch.nn.Dropout)} == {0.1}  # the models' own
    list(train(config(warm_start=str(start), dropout=0.0, max_steps=2), tmp_path))
    saved = json.loads((tmp_path / "discriminator" / "config.json").read_text())
    assert saved["hidden_dropout_prob"] == 0.1 and saved["attention_probs_dropout_prob"] == 0.1
    with pytest.raises(ValueError, match="dropout"):
        config(dropout=1.0)


def test_a_stacked_generator_starts_from_the_shallower_ones_layers_repeated(tmp_path, rtd_run):
    from training.build import build_objective

    start, _ = rtd_run
    shallow, _ = load_pair(start)
    n = shallow.config.num_hidden_layers
    tokenizer = AutoTokenizer.from_pretrained(start)
    deep = config(warm_start=str(start), generator_warm_start=str(start), generator_stack=True,
                  generator_layers=2 * n + 1, max_steps=1)
    objective, warm = build_objective(deep, len(tokenizer), tokenizer.pad_token_id)
    layers = objective.generator.electra.encoder.layer
    assert len(layers) == 2 * n + 1
    for i, layer in enumerate(layers):
        source = shallow.electra.encoder.layer[i % n]
        assert all(torch.equal(a, b) for a, b in zip(layer.state_dict().values(), source.state_dict().values()))
        assert layer.attention.self.query.weight.data_ptr() != source.attention.self.query.weight.data_ptr()
    assert torch.equal(objective.generator.generator_lm_head.bias, shallow.generator_lm_head.bias)
    assert f"generator.electra.encoder.layer.{2 * n}.output.dense.weight" in warm
    # Trained on, the copies part: they are separate weights, not one layer run twice.
    list(train(dataclasses.replace(deep, max_steps=3), tmp_path / "deep"))
    generator, _ = load_pair(tmp_path / "deep")
    assert generator.config.num_hidden_layers == 2 * n + 1
    assert not torch.equal(generator.electra.encoder.layer[0].output.dense.weight,
                           generator.electra.encoder.layer[n].output.dense.weight)
    with pytest.raises(ValueError, match="deeper"):
        build_objective(dataclasses.replace(deep, generator_layers=max(n - 1, 1)) if n > 1 else
                        dataclasses.replace(deep, generator_layers=0), len(tokenizer), tokenizer.pad_token_id)
    with pytest.raises(ValueError, match="pair folder"):
        config(generator_stack=True, max_steps=1)
