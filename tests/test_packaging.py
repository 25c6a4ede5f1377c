"""The package: a wheel that installs only what it must (the command, `explainer`, `training` with the data
inside it, compatible ranges), pyproject.toml in step with the requirements files, and a command line that
answers without building the app (`--help`, `--version`, bad options)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser

import pytest
from packaging.requirements import Requirement

from explainer.launch import main, parse_args
from training.project import ASSETS, INSTALLED, PROJECT

PYPROJECT = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))


def requirement_lines(name: str) -> list[str]:
    lines = [line.split("#")[0].strip() for line in (PROJECT / name).read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line and not line.startswith("-r ")]


def pins(name: str) -> dict[str, Requirement]:
    return {Requirement(line).name.lower(): Requirement(line) for line in requirement_lines(name)}


def in_range(ranges: list[str], pinned: dict[str, Requirement]) -> None:
    """Each range names a package its requirements file pins, the pin lies in the range, and they agree on the
    platform marker; no range is an exact pin."""
    ranges = {Requirement(line).name.lower(): Requirement(line) for line in ranges}
    assert sorted(ranges) == sorted(pinned)
    for name, wanted in ranges.items():
        (version,) = [spec.version for spec in pinned[name].specifier]
        assert "==" not in str(wanted.specifier) and wanted.specifier.contains(version), (name, version)
        assert str(wanted.marker) == str(pinned[name].marker), name


def test_the_metadata_holds_ranges_that_contain_every_pin():
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[^\s;]+(; .+)?", line) for line in requirement_lines("requirements.txt"))
    in_range(PYPROJECT["project"]["dependencies"], pins("requirements.txt"))
    in_range(PYPROJECT["project"]["optional-dependencies"]["desktop"], pins("requirements-desktop.txt"))
    assert "-r requirements.txt" in (PROJECT / "requirements-desktop.txt").read_text(encoding="utf-8")
    assert PYPROJECT["project"]["scripts"] == {"electra-explainer": "explainer.launch:main"}


def test_the_package_list_is_every_package_and_the_data():
    setuptools = PYPROJECT["tool"]["setuptools"]
    found = [".".join(init.parent.relative_to(PROJECT).parts)
             for top in ("explainer", "training") for init in (PROJECT / top).rglob("__init__.py")]
    assert sorted(setuptools["packages"]) == sorted([*found, "training.assets"])
    assert setuptools["package-dir"] == {"training.assets": "assets"}
    assert setuptools["package-data"] == {"training.assets": ["**/*"]}
    assert not INSTALLED and ASSETS == PROJECT / "assets"  # a clone reads the repository's own folder


@pytest.mark.slow
def test_the_wheel_holds_two_packages_the_data_and_ranges(tmp_path):
    """Built offline from the files git tracks (as a clone would), plus a folder nested in assets/ that is not in
    the repository: any folder there travels, at any depth. No warning from the build."""
    if not (PROJECT / ".git").exists():
        pytest.skip("not a git clone")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=PROJECT, capture_output=True, check=True).stdout
    source = tmp_path / "source"
    for name in filter(None, tracked.decode("utf-8").split("\0")):
        if (PROJECT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            if (PROJECT / name).stat().st_size > 2**20:  # the weights: which files travel is checked, not their
                (source / name).write_bytes(b"weights")  # bytes; 120 MB copied and zipped took most of the test
            else:
                shutil.copy2(PROJECT / name, source / name)
    nested = source / "assets" / "another-pair" / "generator"
    nested.mkdir(parents=True)
    (nested / "config.json").write_text("{}", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # else distutils says so
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "--verbose", "--wheel-dir", str(tmp_path / "wheel"), str(source)],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    warnings = [line for line in (built.stdout + built.stderr).splitlines() if "warn" in line.lower()]
    assert warnings == []
    (wheel,) = (tmp_path / "wheel").glob("electra_explainer-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = Parser().parsestr(archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode())
    assert sorted({name.split("/")[0] for name in names}) == [
        f"electra_explainer-{PYPROJECT['project']['version']}.dist-info", "explainer", "training"]
    data = {name.removeprefix("training/assets/") for name in names if name.startswith("training/assets/")}
    assert {"model/discriminator/model.safetensors", "model/generator/tokenizer.json", "model/README.md",
            "races/mini-5e13-seed0.json", "icon.png", "game_sentences.json",
            "another-pair/generator/config.json"} <= data
    assert data == {str(p.relative_to(source / "assets")) for p in (source / "assets").rglob("*") if p.is_file()}
    requires = metadata.get_all("Requires-Dist")
    assert len(requires) == len(PYPROJECT["project"]["dependencies"]) + len(
        PYPROJECT["project"]["optional-dependencies"]["desktop"])
    assert not [line for line in requires if "==" in str(Requirement(line).specifier)]  # ("extra == ..." is a marker)
    assert "torch<3,>=2.4" in requires


def test_version_comes_from_the_metadata_or_pyproject(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"electra-explainer {PYPROJECT['project']['version']}\n"


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


def test_the_changelog_starts_with_this_version():
    headings = [line for line in (PROJECT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()
                if line.startswith("## ")]
    assert headings[0] == f"## {PYPROJECT['project']['version']}"
