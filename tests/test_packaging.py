"""The package: pyproject.toml agrees with the requirements files, and the command line answers without
building the app (`--help`, bad options)."""

from __future__ import annotations

import re
import tomllib

import pytest

from explainer.launch import main, parse_args
from training.project import PROJECT

PYPROJECT = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))


def requirement_lines(name: str) -> list[str]:
    lines = [line.split("#")[0].strip() for line in (PROJECT / name).read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line and not line.startswith("-r ")]


def normal(requirement: str) -> str:
    return re.sub(r"\s+", "", requirement).replace('"', "'").lower()


def test_the_desktop_extra_pins_what_requirements_desktop_pins():
    extra = PYPROJECT["project"]["optional-dependencies"]["desktop"]
    assert sorted(map(normal, extra)) == sorted(map(normal, requirement_lines("requirements-desktop.txt")))
    assert all("==" in line for line in extra)
    assert "-r requirements.txt" in (PROJECT / "requirements-desktop.txt").read_text(encoding="utf-8")


def test_the_package_installs_requirements_txt_and_ships_the_bundled_pair():
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert setuptools["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==\S+", line) for line in requirement_lines("requirements.txt"))
    assert PYPROJECT["project"]["scripts"] == {"electra-explainer": "explainer.launch:main"}
    assert setuptools["py-modules"] == ["app"] and "assets" in setuptools["packages"]["find"]["include"]
    assert setuptools["package-data"]["assets"] == ["**/*"]


def test_help_lists_every_option_without_building_the_app(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: electra-explainer")
    for option in ("--desktop", "--host", "--port", "--install-launcher"):
        assert option in out


@pytest.mark.parametrize("argv, message", [
    (["--port", "0"], "--port 0: a port is a number from 1 to 65535"),
    (["--desktop", "--host", "0.0.0.0"], "the desktop window serves the app on 127.0.0.1 only"),
])
def test_bad_options_are_refused_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        parse_args(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_options_reach_the_launch():
    args = parse_args(["--desktop", "--port", "8123"])
    assert (args.desktop, args.port, args.host) == (True, 8123, None)
    assert parse_args(["--host", "0.0.0.0"]).host == "0.0.0.0"
