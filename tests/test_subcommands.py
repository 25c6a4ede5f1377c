"""The two command lines: `python -m training --help` and `python -m explainer --help` list every subcommand
registered, each subcommand has its --help, and the older spellings named in the model cards still answer."""

from __future__ import annotations

import argparse
import re
import runpy
import sys

import pytest

from explainer import __main__ as explainer_cli
from training import __main__ as training_cli

MEASURING = {"training": {"evaluate", "cloze", "guesses", "rarity"},
             "explainer": {"explain", "measure", "strength", "targets"}}


def _registered(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def _help(main, capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name, module", [("training", training_cli), ("explainer", explainer_cli)])
def test_the_top_help_lists_every_registered_subcommand(name, module, capsys):
    registered = _registered(module.parser())
    assert MEASURING[name] <= set(registered)
    text = _help(module.main, capsys)
    listed = set(re.findall(r"^ {4}(\w+) {2,}\S", text, flags=re.MULTILINE))  # one line per subcommand, with its help
    assert listed == set(registered)
    choices = re.search(r"\{([\w,]+)\}", text).group(1).split(",")
    assert choices == list(registered)  # the usage line names them all, in the order they are listed


@pytest.mark.parametrize("name, module", [("training", training_cli), ("explainer", explainer_cli)])
def test_each_subcommand_has_its_help(name, module, capsys):
    for command in _registered(module.parser()):
        text = _help(module.main, capsys, command)
        assert text.startswith(f"usage: python -m {name} {command} "), command


@pytest.mark.parametrize("old, new", [
    ("training.downstream.cloze", "python -m training cloze"),
    ("training.downstream.guesses", "python -m training guesses"),
    ("training.downstream.rarity", "python -m training rarity"),
    ("explainer.lesson.strength", "python -m explainer strength"),
    ("explainer.lesson.targets", "python -m explainer targets"),
])
def test_the_older_spellings_hand_over_to_the_one_parser(old, new, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", [old, "--help"])
    for fresh in (old, "training.__main__", "explainer.__main__"):
        monkeypatch.delitem(sys.modules, fresh, raising=False)  # run them fresh, as `python -m` does
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module(old, run_name="__main__", alter_sys=True)
    assert exit_info.value.code == 0 and capsys.readouterr().out.startswith(f"usage: {new} ")
