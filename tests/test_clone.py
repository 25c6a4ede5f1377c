"""A clone made with git-lfs active is clean: `.gitattributes` marks nothing for LFS, since the weights in the
history are ordinary git blobs (with `*.safetensors` marked, git-lfs found "files that should have been pointers,
but weren't" and `git status` showed the weights modified before anyone touched them).

git-lfs is switched on for the clone's commands alone (`git -c filter.lfs.*`), as `git lfs install` would for a
user, without touching any git configuration. Skipped where git-lfs is not installed (.ci/run installs it).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from training.project import PROJECT

LFS = ["-c", "filter.lfs.clean=git-lfs clean -- %f", "-c", "filter.lfs.smudge=git-lfs smudge -- %f",
       "-c", "filter.lfs.process=git-lfs filter-process", "-c", "filter.lfs.required=true"]

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("git-lfs") is None, reason="git-lfs is not installed")]


def git(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *LFS, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_a_clone_with_git_lfs_active_is_clean(tmp_path):
    if not (PROJECT / ".git").exists():
        pytest.skip("not a git clone")
    clone = tmp_path / "clone"
    made = git("clone", "--quiet", str(PROJECT), str(clone))
    assert made.returncode == 0, made.stderr
    assert "should have been pointers" not in made.stderr
    status = git("status", "--porcelain", cwd=clone)
    assert status.returncode == 0 and status.stdout == "", status.stdout
    weights = clone / "assets" / "model" / "discriminator" / "model.safetensors"
    assert weights.stat().st_size > 10 * 2**20  # the weights themselves, not a pointer file
