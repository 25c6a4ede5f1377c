"""The built-in broad English corpus (training/english.py): cleaning, the offensive-word filter, the app's own
sentences kept out, the held-out split, "+"-joined corpus specs and a pretraining run on it. Fetching and
parsing: tests/test_english_fetch.py and tests/test_english_sources.py. Offline: nothing touches the real cache."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from training import data, english, english_sources
from training.data import Corpus, load_corpus
from training.english import Source
from training.english_filters import FixtureFilter, app_fixtures, fixture_sentences
from training.offensive import ALLOWED, _blocked, is_offensive
from english_fakes import FORTUNES, JANEAUSTENR, PARSED, chitchat_members, conversations, install, r_lazyload


# --- cleaning ------------------------------------------------------------------------------------
def test_a_document_is_cleaned_line_by_line():
    lines = ["  Tom &amp; Jerry\n\tran   off. ", "what the fuck", "<br />",
             "He would kill the seaman &quot;Ahab&quot;.", "Sh!t happens.", "God save the Queen, and hell to pay."]
    assert english.clean_document(lines) == ('Tom & Jerry ran off. He would kill the seaman "Ahab". '
                                             "God save the Queen, and hell to pay.")


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
    caught = FixtureFilter.of(["The old fisherman repaired his boat before the storm arrived.",
                               "the chef cooked the meal"])
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
    assert (english.clean_document(["A fine line to keep.", f"She wrote: {check[0]}", f"({swapped})"])
            == "A fine line to keep.")


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
                                         r"bbc-news, wikipedia, gutenberg, wordnet, news-2017, commons, gimp-manual, "
                                         r"fortunes, austen$"):
        english.load_english(("chitchat", "nope"))


def quotes(n: int, start: int = 0) -> str:
    return "".join(f"Quote number {i} says that patience is a virtue worth keeping today.\n%\n"
                   for i in range(start, start + n))


REPEATED = "It is a truth universally acknowledged that a single man must be in want of a wife."


def test_added_sources_leave_the_fixed_held_out_set_as_it_was_and_keep_their_own_apart(fresh_english, monkeypatch):
    monkeypatch.setattr(english_sources, "FORTUNES_PER_DOC", 1)  # one quotation a document: some held out
    root = english.cache_root()
    chitchat = install("chitchat", chitchat_members(conversations(300)), root)
    gutenberg = install("gutenberg", {"package/gutenberg/austen-pride.txt": f"[Pride]\n\n{REPEATED}\n\nShe smiled.\n"},
                        root)
    fortunes = install("fortunes",
                       {FORTUNES + "love": quotes(300) + REPEATED + "\n%\n" + quotes(1) + "A short one.\n%\n"}, root)
    fresh_english(chitchat, gutenberg)
    before = english.load_english()
    fresh_english(chitchat, gutenberg, fortunes)
    after = english.load_english()
    assert after.heldout == before.heldout and before.heldout and after.heldout_added  # the fixed set: unchanged
    assert after.train[:len(before.train)] == before.train  # the added training documents come after
    added = set(english.documents(fortunes)) - {REPEATED}  # read alone, without deduplication: the book's paragraph too
    assert set(after.train[len(before.train):]) | set(after.heldout_added) == added
    assert set(after.heldout_added).isdisjoint(after.train) and set(after.heldout_added).isdisjoint(after.heldout)

    # the repeats dropped from the added source: a paragraph the book holds, a quotation it had already;
    # short lines kept
    text = " ".join(after.train + after.heldout + after.heldout_added)
    assert text.count(REPEATED) == 1 and text.count("Quote number 0 says") == 1 and "A short one." in text
    fixed, rows = english.stats()[:2], english.stats()
    assert [(r["source"], r["heldout_set"]) for r in rows] == [("chitchat", "fixed"), ("gutenberg", "fixed"),
                                                               ("fortunes", "added")]
    assert [r["duplicate_paragraphs_dropped"] for r in rows] == [0, 0, 2] and fixed == rows[:2]
    assert rows[2]["duplicate_words_dropped"] == len(REPEATED.split()) + len(quotes(1).split()) - 1  # not the "%"
    # asked for alone, the added source is still deduplicated against the sources before it
    assert english.load_english(("fortunes",)).heldout_added == after.heldout_added
    assert english.load_english(("fortunes",)).heldout == ()


def test_a_book_an_earlier_source_holds_comes_once_its_short_lines_included(fresh_english):
    first = "Emma Woodhouse, handsome, clever, and rich, with a comfortable home and happy disposition."
    second = "She was the youngest of the two daughters of a most affectionate, indulgent father."
    root = english.cache_root()
    gutenberg = install("gutenberg",
                        {"package/gutenberg/austen-emma.txt": f"[Emma]\n\n{first}\n\nYes, said he.\n\n{second}\n"},
                        root)
    rdx, rdb = r_lazyload({"emma": [first, "", "Yes, said he.", "", second],
                           "persuasion": ["Sir Walter Elliot, of Kellynch Hall, in Somersetshire, "
                                          "was a man who never took up"]})
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
    assert (set(with_file.train[2:]) | set(with_file.heldout[1:])
            == {"my first document here", "my second document here"})


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
    assert [e.step for e in read_metrics(out)] == [1, 2]


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
