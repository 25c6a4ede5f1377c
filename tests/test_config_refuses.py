"""A config refuses what it would ignore: the RTD pair's settings on an MLM run, a setting without the one it
depends on, a key that is no setting; commands that train both objectives give the pair's settings to RTD alone;
one place (training/build.py) gives each objective its masking step."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from training.build import masking_for
from training.cli.flags import add_config_arguments, config_from
from training.config import RTD_ONLY, TrainConfig
from training.objectives import BERT_MASKING, ELECTRA_MASKING
from training.race.settings import RaceSettings

MLM = TrainConfig(objective="mlm", max_steps=1)
SET = dict(warm_start="minilm", generator_warm_start="minilm", generator_stack=True, untie_embeddings=True,
           freeze_generator=True, hot_share=0.3, hot_temperature=2.0, generator_head_only=True, disc_weight=10.0,
           temperature=2.0, generator_layers=2, generator_hidden=64, generator_lr_scale=0.5)


def test_every_setting_of_the_pair_has_a_value_here():
    assert set(SET) == set(RTD_ONLY)


@pytest.mark.parametrize("name", RTD_ONLY)
def test_an_mlm_run_refuses_each_setting_of_the_pair_by_name(name):
    with pytest.raises(ValueError, match=f"^{name}: only implemented for the RTD pair"):
        dataclasses.replace(MLM, **{name: SET[name]})


def test_an_mlm_run_takes_the_pairs_settings_at_their_defaults_and_names_every_one_given():
    assert dataclasses.replace(MLM, disc_weight=50.0, temperature=1.0).objective == "mlm"
    with pytest.raises(ValueError, match="^disc_weight, temperature, generator_layers: only implemented"):
        dataclasses.replace(MLM, temperature=2.0, disc_weight=1.0, generator_layers=3)


@pytest.mark.parametrize("changes, message", [
    (dict(hot_temperature=2.0), "hot_temperature is the temperature of the hot share: give hot_share too"),
    (dict(warm_start_lr_scale=0.5), "warm_start_lr_scale scales the copied weights' rate"),
])
def test_a_setting_without_the_one_it_shapes_is_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(max_steps=1, **changes)
    assert TrainConfig(max_steps=1, hot_share=0.2, hot_temperature=2.0).hot_temperature == 2.0
    assert TrainConfig(max_steps=1, warm_start="minilm", warm_start_lr_scale=0.5).warm_start_lr_scale == 0.5


def test_race_settings_from_a_dict_refuse_a_key_that_is_no_setting():
    values = dataclasses.asdict(RaceSettings())
    assert RaceSettings.from_dict(values) == RaceSettings()
    with pytest.raises(ValueError, match="unknown race setting: temprature"):
        RaceSettings.from_dict({**values, "temprature": 2.0})


def test_a_race_gives_the_generators_settings_to_the_rtd_side_alone():
    race = RaceSettings(preset="tiny", temperature=2.0, disc_weight=10.0, generator_layers=1, generator_hidden=16,
                        mask_rate=0.2, budget="steps", amount=3)
    rtd, mlm = race.train_config("rtd"), race.train_config("mlm")
    assert (rtd.temperature, rtd.disc_weight, rtd.generator_layers, rtd.generator_hidden) == (2.0, 10.0, 1, 16)
    defaults = TrainConfig(max_steps=1)
    assert (mlm.temperature, mlm.disc_weight, mlm.generator_layers) == (defaults.temperature, defaults.disc_weight,
                                                                        None)
    assert rtd.mask_rate == mlm.mask_rate == 0.2  # what both objectives share, both get


def test_compare_gives_the_pairs_flags_to_rtd_while_pretrain_refuses_them_for_mlm():
    parser = argparse.ArgumentParser()
    add_config_arguments(parser)
    args = parser.parse_args(["--temperature", "2", "--generator-layers", "1", "--mask-rate", "0.2",
                              "--max-steps", "1"])
    rtd, mlm = config_from(args, "rtd", both=True), config_from(args, "mlm", both=True)
    assert (rtd.temperature, rtd.generator_layers, mlm.temperature, mlm.generator_layers) == (2.0, 1, 1.0, None)
    assert mlm.mask_rate == rtd.mask_rate == 0.2
    with pytest.raises(ValueError, match="temperature, generator_layers: only implemented for the RTD pair"):
        config_from(args, "mlm")


@pytest.mark.parametrize("objective, base", [("rtd", ELECTRA_MASKING), ("mlm", BERT_MASKING)])
def test_each_objective_gets_its_masking_step_at_the_configs_rate(objective, base):
    masking = masking_for(TrainConfig(objective=objective, mask_rate=0.25, max_steps=1))
    assert masking == dataclasses.replace(base, rate=0.25)


@pytest.mark.slow  # a two-step run
def test_a_runs_saved_config_rebuilds_its_pair_from_the_checkpoint(tmp_path, imdb_texts):
    from conftest import N_DOCUMENTS, WORDPIECE

    from training.trainer import train
    from training.watch import load_checkpoint_pair

    config = TrainConfig(preset="tiny", tokenizer=WORDPIECE, max_documents=N_DOCUMENTS, seq_len=64, batch_size=4,
                         max_steps=2, hot_share=0.2, hot_temperature=2.0, device="cpu")
    list(train(config, tmp_path))
    generator, discriminator, tokenizer, step = load_checkpoint_pair(tmp_path)
    assert step == 2 and len(tokenizer) == 1000
    assert generator.electra.embeddings is discriminator.electra.embeddings  # re-tied, as the trainer built it
