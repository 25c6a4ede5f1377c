"""The words a shared Explore link masks: new links name each word by the character where it starts (`mask_at`),
and round-trip on texts with punctuation, digits, contractions, emoji and typed blanks; old links (`mask=`) number
words as versions before 0.4.0 did and land on the words their maker chose; places on no word are told, not raised.
The tiny pair's WordPiece tokenizer groups these texts as the bundled one does."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from explainer.core import link_words, links
from explainer.core.text import encode, read_places, typed_blanks

FISHERMAN = "The old fisherman repaired his boat before the storm arrived."
MOVIE = "The movie was long, but the acting was wonderful and the music was great."
SOUP = "Well, the chef's soup (a classic) cost $3.50 today!"
DOCTOR = "Dr. Lee met Mrs. Smith, etc."
TEXTS = [FISHERMAN, MOVIE, SOUP, "I 🍕 pizza, don't you? It's 9:30 now.", "A cup of[mask]before work [ Mask ] ok",
         "Wait...   what?! 1,000 well-known cafe\u0301s", DOCTOR]


def _read(pair, text):
    encoded = encode(pair.tokenizer, text, pair.max_tokens)
    return encoded, read_places(text, pair.tokenizer.mask_token)


@pytest.mark.parametrize("text", TEXTS)
def test_every_word_round_trips_through_where_it_starts(tiny_pair, text):
    encoded, places = _read(tiny_pair, text)
    everyone = range(len(encoded.words))
    starts = link_words.word_starts(encoded.words, places, everyone)
    assert len(starts) == len(encoded.words)
    assert link_words.words_at(encoded.words, places, starts, text) == (tuple(everyone), [])
    for word, start in zip(encoded.words, starts):  # each place is that word's first character in the link's text
        assert text[start] == word.text[0] or word.text == tiny_pair.tokenizer.mask_token
    # a character inside a word names that word
    inside = [start + 1 for word, start in zip(encoded.words, starts) if len(word.text) > 1 and "[" not in word.text]
    named = link_words.words_at(encoded.words, places, inside, text)[0]
    assert [encoded.words[n].text for n in named] == [w.text for w in encoded.words if len(w.text) > 1
                                                     and "[" not in w.text]


def test_places_in_the_text_as_typed_skip_the_blanks_rewriting(tiny_pair):
    text = "A cup of[mask]before work [ Mask ] ok"
    encoded, places = _read(tiny_pair, text)
    assert encoded.text == typed_blanks(text, "[MASK]")[0] == "A cup of [MASK] before work [MASK] ok"
    assert [w.text for w in encoded.words] == ["A", "cup", "of", "[MASK]", "before", "work", "[MASK]", "ok"]
    assert link_words.word_starts(encoded.words, places, [3, 4, 6, 7]) == (8, 14, 26, 35)


@pytest.mark.parametrize("text, numbers, expected", [
    (FISHERMAN, [2, 9], ["fisherman", "arrived", "."]),  # "arrived." was one word: both its tokens were masked
    (MOVIE, [4, 6], ["but", "acting"]),  # after "long," every word is one further on today
    (MOVIE, [3, 13], ["long", ",", "great", "."]),
    (SOUP, [0, 2, 5], ["Well", ",", "chef's", "classic", ")"]),
    (DOCTOR, [0, 4, 5], ["Dr.", "Smith", ",", "etc."]),  # the same tokens as when "Dr" and "." were two words
])
def test_an_old_link_lands_on_the_words_its_maker_chose(tiny_pair, text, numbers, expected):
    encoded, _ = _read(tiny_pair, text)
    spans = link_words.legacy_spans(encoded.text, encoded.offsets, encoded.special)
    found, told = link_words.legacy_words(encoded.words, spans, numbers, encoded.text)
    assert [encoded.words[n].text for n in found] == expected
    assert len(told) == 1 and "before 0.4.0" in told[0] and "mask_at" in told[0]


def test_an_old_link_numbers_a_price_as_one_word_whatever_the_grouping_now(tiny_pair):
    encoded, _ = _read(tiny_pair, SOUP)
    spans = link_words.legacy_spans(encoded.text, encoded.offsets, encoded.special)
    assert [encoded.text[a:b] for a, b in spans][6:] == ["cost", "$3.50", "today!"]
    found, told = link_words.legacy_words(encoded.words, spans, [7, 40], encoded.text)
    assert "".join(encoded.words[n].text for n in found) == "$3.50"
    assert "“$3.50”" in told[0] and "number 40 names no word" in told[1] and "it had 9 words" in told[1]


def test_a_place_on_no_word_is_told_and_left_out(tiny_pair):
    encoded, places = _read(tiny_pair, FISHERMAN)
    found, told = link_words.words_at(encoded.words, places, [3, 4, 60, 61, 1999], FISHERMAN)
    assert [encoded.words[n].text for n in found] == ["old", "."]
    assert len(told) == 1 and "character 3 (a space)" in told[0] and "character 61 (the text has 61)" in told[0]
    assert "character 1999" in told[0]


@pytest.fixture
def served(tiny_pair_dir, monkeypatch):
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tiny_pair_dir))
    return str(tiny_pair_dir)


def _params(query: str) -> dict:
    from urllib.parse import parse_qsl

    return dict(parse_qsl(query.lstrip("?")))


def test_the_page_copies_ticks_as_places_and_opens_them_on_the_same_words(served):
    from explainer.ui.explore import apply_link
    from explainer.ui.explore_share import link_query

    query = link_query(MOVIE, served, "manual", 0.15, 3, 1.0, 5, [4, 7, 15], "electra")
    assert "&mask_at=18,28,72" in query and "mask" not in _params(query)
    opened = apply_link(SimpleNamespace(query_params=_params(query)))
    assert opened["mask_words"]["value"] == [4, 7, 15] and opened["mode"] == "manual"
    assert "default was used" not in opened["link_note"] and "0.4.0" not in opened["link_note"]
    assert "mask_at" not in link_query(MOVIE, served, "auto", 0.15, 3, 1.0, 5, [4], "electra")


def test_the_page_opens_an_old_link_on_its_words_and_says_how_it_read_it(served):
    from explainer.ui.explore import apply_link

    opened = apply_link(SimpleNamespace(query_params={"text": MOVIE, "model": served, "mode": "manual",
                                                      "mask": "4,6,99"}))
    choices = dict((i, w) for w, i in opened["mask_words"]["choices"])
    assert [choices[i] for i in opened["mask_words"]["value"]] == ["but", "acting"]
    assert "before 0.4.0" in opened["link_note"] and "“but”, “acting”" in opened["link_note"]
    assert "number 99 names no word" in opened["link_note"]


def test_a_bad_place_in_a_link_gives_a_message_and_the_default(served):
    from explainer.ui.explore import apply_link

    opened = apply_link(SimpleNamespace(query_params={"text": FISHERMAN, "model": served, "mode": "manual",
                                                      "mask_at": "3,8"}))
    assert opened["mask_words"]["value"] == [2]  # "fisherman"; the space at 3 is told
    assert "character 3 (a space)" in opened["link_note"]
    parsed, problems = links.parse_explore({"text": FISHERMAN, "mode": "manual", "mask_at": "x"},
                                           links.ExploreLink("default"))
    assert parsed.mask_at == () and "whole number" in problems[0] and "the default was used" in problems[0]
