"""Deploy the app to a Hugging Face Space: `python -m explainer.deploy OWNER/SPACE`.

Uploads exactly the files the Space runs — `app.py`, `README.md` (its front matter configures the
Space), `requirements.txt`, the `explainer/` and `training/` packages and `assets/` (the bundled
model), with the user's guide (`docs/*.md`) the README links to — and nothing else: no `runs/`, caches,
virtual environments or tests. The file list comes
from git (tracked files only), so nothing a developer has lying around can slip in.

`huggingface_hub`'s upload API (gradio depends on it) stores large files the Hub's way (LFS/Xet).
This is the way to a Space, not a `git push`: the model weights are ordinary git blobs in this
repository's history (a clone is clean with or without git-lfs; `.gitattributes` says why), and a
Space refuses binary files over 10 MiB that git stores itself.

    python -m explainer.deploy OWNER/SPACE --dry-run    # list what would go, upload nothing
    HF_TOKEN=... python -m explainer.deploy OWNER/SPACE

Left out: Space hardware and secrets (set them on the Space's settings page), and a race cut to
ZeroGPU's rules. ZeroGPU lends a GPU per call of a function decorated `@spaces.GPU(duration=...)`:
60 s by default, at most a few minutes, from a quota per visitor, and a longer duration is
refused. The race job runs in one such call sized to its budget (training/race/manager.py), so on
a ZeroGPU Space only races of a few minutes fit (the default CPU race takes 8); cutting a race
into one call per chunk of steps is not built.
"""

from __future__ import annotations

import argparse
import fnmatch
import subprocess
import sys
from pathlib import Path

from training.project import PROJECT

# what a Space runs, and the user's guide the README links to
INCLUDE = ("app.py", "README.md", "requirements.txt", "explainer/*", "training/*", "assets/*", "docs/*.md")
EXCLUDE = ("*/__pycache__/*", "*.pyc")


def tracked_files(root: Path = PROJECT) -> list[str]:
    """Every file git tracks under `root`, as POSIX paths relative to it."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise RuntimeError(f"cannot list the files git tracks in {root} ({error}); deploy from a git clone") from None
    return sorted(name for name in listed.decode("utf-8").split("\0") if name)


def space_files(files: list[str]) -> list[str]:
    """The subset of `files` the Space needs."""
    def wanted(name: str) -> bool:
        return (any(fnmatch.fnmatchcase(name, p) for p in INCLUDE)
                and not any(fnmatch.fnmatchcase(name, p) for p in EXCLUDE))
    return [name for name in files if wanted(name)]


def deploy(repo_id: str, root: Path = PROJECT, private: bool = False, token: str | None = None) -> str:
    """Create the Space if needed and upload the app's files; returns the Space's address."""
    from huggingface_hub import HfApi

    files = space_files(tracked_files(root))
    api = HfApi(token=token)
    url = api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
    api.upload_folder(repo_id=repo_id, repo_type="space", folder_path=root, allow_patterns=files,
                      commit_message="Deploy the ELECTRA Explainer")
    return str(url)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m explainer.deploy", description=__doc__.split("\n\n")[0])
    parser.add_argument("space", help="OWNER/SPACE on the Hugging Face Hub")
    parser.add_argument("--dry-run", action="store_true", help="list the files that would be uploaded; upload nothing")
    parser.add_argument("--private", action="store_true", help="create the Space private")
    args = parser.parse_args(argv)
    if args.space.count("/") != 1 or not all(args.space.split("/")):
        sys.exit(f"error: name the Space as OWNER/SPACE, not {args.space!r}")
    try:
        files = space_files(tracked_files())
        if args.dry_run:
            size = sum((PROJECT / name).stat().st_size for name in files)
            print("\n".join(files))
            print(f"{len(files)} files, {size / 2**20:.1f} MB would go to the Space {args.space}")
            return
        print(f"uploading {len(files)} files to the Space {args.space} ...", flush=True)
        print(deploy(args.space, private=args.private))
    except Exception as error:  # noqa: BLE001 (the hub's errors: no token, no network, no permission)
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    main()
