"""Flags generated from a settings dataclass, so they never drift from it: TrainConfig's for pretrain and
compare, RaceSettings' for race (training/cli/race.py)."""

from __future__ import annotations

import argparse
import dataclasses
import typing

from training.config import TrainConfig, for_objective

CONFIG_SKIP = {"objective"}  # pretrain takes --objective itself; compare runs both


def flag_types(config_class) -> dict[str, type]:
    """argparse type of each field, from its annotation: `int | None` parses as int, not str."""
    types = {}
    for name, hint in typing.get_type_hints(config_class).items():
        kind = next((a for a in typing.get_args(hint) if a is not type(None)), hint)
        types[name] = kind if kind in (int, float) else str
    return types


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    types = flag_types(TrainConfig)
    for field in dataclasses.fields(TrainConfig):
        if field.name in CONFIG_SKIP:
            continue
        flag = "--" + field.name.replace("_", "-")
        if field.type in (bool, "bool"):  # --freeze-generator / --no-freeze-generator
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=field.default,
                                help=f"default: {field.default}")
            continue
        parser.add_argument(flag, type=types[field.name], default=field.default, help=f"default: {field.default}")


def config_from(args: argparse.Namespace, objective: str, both: bool = False) -> TrainConfig:
    """The TrainConfig the flags given describe, for `objective`. `both` (compare: one set of flags for the two
    objectives): the RTD pair's settings go to the RTD side alone; otherwise an MLM run refuses them."""
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    values = {k: v for k, v in vars(args).items() if k in names and k != "objective"}
    return TrainConfig(**(for_objective(objective, values) if both else values), objective=objective)
