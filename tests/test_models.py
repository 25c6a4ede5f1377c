"""Presets, shared embeddings (also across save/load), parameter counting and the MiniLM warm start."""

from __future__ import annotations

import pytest
import torch
from transformers import (
    AutoModelForMaskedLM,
    AutoModelForPreTraining,
    AutoTokenizer,
    ElectraForMaskedLM,
    ElectraForPreTraining,
)

from training.models import (
    PRESETS,
    build_electra,
    build_mlm,
    count_parameters,
    embeddings_shared,
    generator_folder,
    load_pair,
    resolve_preset,
)

VOCAB = 50


def test_generator_and_discriminator_hold_the_same_embedding_module():
    generator, discriminator = build_electra(PRESETS["tiny"], VOCAB, 0, seed=0)
    assert generator.electra.embeddings is discriminator.electra.embeddings
    assert embeddings_shared(generator, discriminator)
    # The generator's output projection is its (shared) input table.
    assert generator.generator_lm_head.weight is discriminator.electra.embeddings.word_embeddings.weight
    # An update through one network is seen by the other.
    with torch.no_grad():
        discriminator.electra.embeddings.position_embeddings.weight[3].fill_(1.25)
    assert (generator.electra.embeddings.position_embeddings.weight[3] == 1.25).all()


def test_embeddings_shared_is_false_for_two_independent_models():
    generator, _ = build_electra(PRESETS["tiny"], VOCAB, 0, seed=0)
    _, other = build_electra(PRESETS["tiny"], VOCAB, 0, seed=0)
    assert not embeddings_shared(generator, other)


def test_building_is_seeded():
    a, b = build_mlm(PRESETS["tiny"], VOCAB, 0, seed=3), build_mlm(PRESETS["tiny"], VOCAB, 0, seed=3)
    c = build_mlm(PRESETS["tiny"], VOCAB, 0, seed=4)
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    assert not torch.equal(a.electra.encoder.layer[0].output.dense.weight,
                           c.electra.encoder.layer[0].output.dense.weight)


@pytest.fixture(scope="module")
def saved_pair(tmp_path_factory, wordpiece):
    """A tiny pair on the test vocabulary, given distinctive values, saved like a training run."""
    folder = tmp_path_factory.mktemp("pair")
    generator, discriminator = build_electra(PRESETS["tiny"], len(wordpiece), wordpiece.pad_token_id, seed=0)
    with torch.no_grad():  # move away from the initialisation so a fresh model cannot pass by luck
        discriminator.electra.embeddings.word_embeddings.weight.add_(0.5)
    for name, model in (("generator", generator), ("discriminator", discriminator)):
        model.save_pretrained(folder / name)
        wordpiece.save_pretrained(folder / name)
    return folder, generator.eval(), discriminator.eval()


def test_load_pair_restores_values_and_sharing(saved_pair):
    folder, generator, discriminator = saved_pair
    loaded_generator, loaded_discriminator = load_pair(folder)
    assert isinstance(loaded_generator, ElectraForMaskedLM) and isinstance(loaded_discriminator, ElectraForPreTraining)
    assert embeddings_shared(loaded_generator, loaded_discriminator)
    for original, loaded in ((generator, loaded_generator), (discriminator, loaded_discriminator)):
        expected, actual = original.state_dict(), loaded.state_dict()
        assert expected.keys() == actual.keys()
        for name in expected:
            assert torch.equal(expected[name], actual[name]), name


def test_another_generator_plays_on_its_own_embeddings_against_the_pairs_discriminator(saved_pair, tmp_path,
                                                                                         wordpiece):
    folder, _, discriminator = saved_pair
    other, _ = build_electra(PRESETS["tiny"], len(wordpiece), wordpiece.pad_token_id, seed=1)
    with torch.no_grad():
        other.electra.embeddings.word_embeddings.weight.add_(2.0)  # its own table, unlike the pair's
    other.save_pretrained(tmp_path / "alone")  # a generator saved alone, no pair folder around it
    for where in (tmp_path / "alone", folder):
        assert generator_folder(where) == (where if where != folder else folder / "generator")
    generator, loaded_discriminator = load_pair(folder, tmp_path / "alone")
    assert not embeddings_shared(generator, loaded_discriminator)
    for name, value in other.state_dict().items():
        assert torch.equal(generator.state_dict()[name], value), name
    for name, value in discriminator.state_dict().items():
        assert torch.equal(loaded_discriminator.state_dict()[name], value), name
    wider = build_electra(PRESETS["tiny"], len(wordpiece) + 5, wordpiece.pad_token_id, seed=1)[0]
    wider.save_pretrained(tmp_path / "wider")
    with pytest.raises(ValueError, match="vocabulary"):
        load_pair(folder, tmp_path / "wider")


def test_saved_folders_load_with_auto_classes(saved_pair):
    folder, generator, discriminator = saved_pair
    tokenizer = AutoTokenizer.from_pretrained(folder / "discriminator")
    inputs = tokenizer(["the film was great", "a dull and long movie"], padding=True, return_tensors="pt")
    assert (inputs["input_ids"][:, 0] == tokenizer.cls_token_id).all()

    auto_generator = AutoModelForMaskedLM.from_pretrained(folder / "generator").eval()
    auto_discriminator = AutoModelForPreTraining.from_pretrained(folder / "discriminator").eval()
    assert isinstance(auto_generator, ElectraForMaskedLM) and isinstance(auto_discriminator, ElectraForPreTraining)
    with torch.no_grad():
        generator_logits = auto_generator(**inputs).logits
        discriminator_logits = auto_discriminator(**inputs).logits
        assert torch.allclose(generator_logits, generator(**inputs).logits, atol=1e-6)
        assert torch.allclose(discriminator_logits, discriminator(**inputs).logits, atol=1e-6)
    assert generator_logits.shape == (*inputs["input_ids"].shape, len(tokenizer))
    assert discriminator_logits.shape == inputs["input_ids"].shape  # one P(replaced) logit per token


@pytest.mark.parametrize("name", ["tiny", "mini", "small", "base"])
def test_generator_is_a_quarter_to_half_as_wide_and_as_deep(name):
    preset = PRESETS[name]
    assert 1 / 4 <= preset.generator.hidden / preset.discriminator.hidden <= 1 / 2
    assert preset.generator.layers == preset.discriminator.layers
    for size in (preset.generator, preset.discriminator):
        assert size.hidden % size.heads == 0


def test_small_preset_is_the_papers_electra_small():
    small = PRESETS["small"]
    d = small.discriminator
    assert (d.layers, d.hidden, d.heads, d.ffn, small.embedding) == (12, 256, 4, 1024, 128)


def test_minilm_preset_matches_the_packaged_encoder():
    import json

    from training.tokenizer import packaged_model_dir

    config = json.loads((packaged_model_dir() / "config.json").read_text())
    d = PRESETS["minilm"].discriminator
    assert (d.hidden, d.layers, d.heads, d.ffn) == (
        config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"], config["intermediate_size"])
    assert PRESETS["minilm"].embedding == config["hidden_size"]


@pytest.mark.parametrize("name", ["tiny", "mini"])
def test_built_models_follow_the_preset_and_mlm_baseline_has_the_discriminators_size(name):
    preset = PRESETS[name]
    generator, discriminator = build_electra(preset, VOCAB, 0, seed=0)
    encoder = build_mlm(preset, VOCAB, 0, seed=0)
    for model, size in ((generator, preset.generator), (discriminator, preset.discriminator),
                        (encoder, preset.discriminator)):
        c = model.config
        assert (c.hidden_size, c.num_hidden_layers, c.num_attention_heads, c.intermediate_size) == (
            size.hidden, size.layers, size.heads, size.ffn)
        assert c.embedding_size == preset.embedding and c.vocab_size == VOCAB
    # Same encoder, parameter for parameter.
    assert count_parameters(encoder.electra) == count_parameters(discriminator.electra)
    assert {n: p.shape for n, p in encoder.electra.named_parameters()} == {
        n: p.shape for n, p in discriminator.electra.named_parameters()}


def test_count_parameters_counts_shared_embeddings_once():
    generator, discriminator = build_electra(PRESETS["tiny"], VOCAB, 0, seed=0)
    shared = sum(p.numel() for p in discriminator.electra.embeddings.parameters())
    assert shared > 0
    assert count_parameters(generator, discriminator) == (
        count_parameters(generator) + count_parameters(discriminator) - shared)
    # Independently: the number of distinct storages.
    unique = {p.data_ptr(): p.numel() for m in (generator, discriminator) for p in m.parameters()}
    assert count_parameters(generator, discriminator) == sum(unique.values())
    assert count_parameters(discriminator, discriminator) == count_parameters(discriminator)


def test_resolve_preset_rejects_unknown_names_and_applies_overrides():
    with pytest.raises(ValueError, match="unknown preset 'huge'; choose one of tiny, mini"):
        resolve_preset("huge")
    assert resolve_preset("tiny", max_positions=64).max_positions == 64
    assert resolve_preset("tiny", max_positions=None) == PRESETS["tiny"]


@pytest.mark.slow
def test_warm_start_copies_the_packaged_minilm_encoder():
    from safetensors.torch import load_file

    from training.tokenizer import packaged_model_dir
    from training.warmstart import warm_start_minilm

    generator, discriminator = build_electra(PRESETS["minilm"], 30522, 0, seed=0)
    copied = warm_start_minilm(generator, discriminator)
    minilm = load_file(packaged_model_dir() / "model.safetensors")

    encoder_keys = [k for k in minilm if k.startswith(("embeddings.", "encoder.")) and k != "embeddings.position_ids"]
    assert len(encoder_keys) > 6 * 16  # every tensor of six layers plus the embeddings
    own = discriminator.electra.state_dict()
    for key in encoder_keys:
        assert torch.equal(own[key], minilm[key]), key
        assert "discriminator.electra." + key in copied
    # The generator is MiniLM's lower half and still shares the discriminator's embeddings.
    assert embeddings_shared(generator, discriminator)
    generator_layers = generator.electra.encoder.state_dict()
    assert {k.split(".")[1] for k in generator_layers} == {"0", "1", "2"}
    for key, value in generator_layers.items():
        assert torch.equal(value, minilm["encoder." + key]), key
        assert "generator.electra.encoder." + key in copied
    # The heads are new and are not reported as copied (they train at the full learning rate).
    assert not any("discriminator_predictions" in k or "generator_predictions" in k or "lm_head" in k for k in copied)


@pytest.mark.slow
def test_warm_start_from_a_pair_copies_the_discriminator_and_the_generators_lower_layers(saved_pair, wordpiece):
    import dataclasses

    from training.warmstart import warm_start_from_pair

    folder, old_generator, old_discriminator = saved_pair
    preset = PRESETS["tiny"]
    shallow = dataclasses.replace(preset, generator=dataclasses.replace(preset.generator, layers=1))
    generator, discriminator = build_electra(shallow, len(wordpiece), wordpiece.pad_token_id, seed=5)
    warm = warm_start_from_pair(generator, discriminator, str(folder))

    for name, value in old_discriminator.state_dict().items():
        assert torch.equal(discriminator.state_dict()[name], value), name
    assert len(generator.electra.encoder.layer) == 1
    assert torch.equal(generator.electra.encoder.layer[0].output.dense.weight,
                       old_generator.electra.encoder.layer[0].output.dense.weight)
    assert torch.equal(generator.generator_predictions.dense.weight, old_generator.generator_predictions.dense.weight)
    assert embeddings_shared(generator, discriminator)
    # Encoders train at the lower warm rate; the heads (copied too) at the full rate.
    assert "discriminator.electra.encoder.layer.0.output.dense.weight" in warm
    assert "generator.electra.encoder.layer.0.output.dense.weight" in warm
    assert not any("predictions" in name or "lm_head" in name for name in warm)
