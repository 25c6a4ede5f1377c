"""bench/gpu_checkout.sh on a scratch clone: `hide` makes what would travel to a borrowed GPU fit its 64 MiB (the
model folders leave the index and are ignored, their files untouched), `restore` puts the index and info/exclude
back exactly, a staged change and an untracked file included."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from training.project import PROJECT

pytestmark = [pytest.mark.slow,  # a clone of the repository, weights and all
              pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")]
SCRIPT = PROJECT / "bench" / "gpu_checkout.sh"
HIDDEN = ("assets/model", "assets/stronger-generator")
LIMIT = 64 * 2**20


def run(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=300)


def git(*args: str, cwd) -> str:
    done = run("git", "-c", "user.name=t", "-c", "user.email=t@t", *args, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def state(clone) -> dict:
    exclude = clone / git("rev-parse", "--git-path", "info/exclude", cwd=clone).strip()
    return {"stage": git("ls-files", "--stage", cwd=clone), "status": git("status", "--porcelain", cwd=clone),
            "exclude": exclude.read_bytes() if exclude.exists() else None}


@pytest.fixture()
def clone(tmp_path):
    if not (PROJECT / ".git").exists():
        pytest.skip("not a git clone")
    folder = tmp_path / "clone"
    git("clone", "--quiet", str(PROJECT), str(folder), cwd=tmp_path)
    # A change staged and a file untracked before the call: restore must leave both as they were.
    with open(folder / "pyproject.toml", "a") as f:
        f.write("\n# staged\n")
    git("add", "pyproject.toml", cwd=folder)
    (folder / "notes.txt").write_text("untracked\n")
    return folder


def travelling_bytes(clone, *carried) -> tuple[int, str]:
    done = run("bash", str(SCRIPT), "size", *map(str, carried), cwd=clone)
    return int(re.search(r"would travel: (\d+) bytes", done.stdout).group(1)), done.stdout + done.stderr


def test_hide_makes_the_checkout_travel_and_restore_puts_it_back_exactly(clone, tmp_path):
    before = state(clone)
    files = len(git("ls-files", cwd=clone).splitlines())
    size, said = travelling_bytes(clone)
    assert size > 100 * 2**20 and "over the limit" in said  # as it is, the checkout cannot travel

    hidden = run("bash", str(SCRIPT), "hide", cwd=clone)
    assert hidden.returncode == 0, hidden.stderr
    tracked = git("ls-files", cwd=clone).splitlines()
    assert tracked and not [p for p in tracked if p.startswith(HIDDEN)] and "pyproject.toml" in tracked
    assert not git("ls-files", "--others", "--exclude-standard", "--", *HIDDEN, cwd=clone)
    assert (clone / "assets" / "stronger-generator" / "model.safetensors").stat().st_size > 10 * 2**20  # untouched
    bundle = tmp_path / "bundle"  # a carried folder counts too
    bundle.mkdir()
    (bundle / "stream.npy").write_bytes(b"\0" * 2**20)
    size, said = travelling_bytes(clone, bundle)
    assert size < LIMIT - 40 * 2**20, said  # room for a 40 MB token bundle
    assert "carried 1.0 MiB" in said
    again = run("bash", str(SCRIPT), "hide", cwd=clone)
    assert again.returncode == 1 and "already hidden" in again.stderr

    restored = run("bash", str(SCRIPT), "restore", cwd=clone)
    assert restored.returncode == 0, restored.stderr
    assert f"restored: {files} tracked files" in restored.stdout
    assert state(clone) == before
    assert " M pyproject.toml" not in before["status"] and "M  pyproject.toml" in before["status"]
    twice = run("bash", str(SCRIPT), "restore", cwd=clone)
    assert twice.returncode == 1 and "nothing to restore" in twice.stderr


def test_restore_refuses_to_undo_a_commit_made_while_hidden(clone):
    assert run("bash", str(SCRIPT), "hide", cwd=clone).returncode == 0
    git("commit", "--quiet", "-m", "while hidden", cwd=clone)
    refused = run("bash", str(SCRIPT), "restore", cwd=clone)
    assert refused.returncode == 1 and "HEAD moved since hide" in refused.stderr
