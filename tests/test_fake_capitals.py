"""A fake from an uncased vocabulary is shown with the capitals of the word it replaced (display only): Title case
at a sentence's start, ALL CAPS, a capital inside a word ("McDonald", "iPhone"). The models read what they read
before, and the reveal still names the original word."""

from __future__ import annotations

import pytest

from explainer.core.pipeline import Settings, explain
from explainer.core.text import cased_like
from training.words import readable

TEXT = "Sally opened the MUSEUM near McDonald and his iPhone shop."


@pytest.mark.parametrize("drawn, word, at_start, shown", [
    ("the", "Sally", True, "The"),  # the start of a sentence
    ("museum", "STORM", True, "MUSEUM"),  # all caps
    ("##ing", "RUNNING", False, "##ING"),  # a piece of an all-caps word
    ("smith", "McDonald", True, "Smith"),  # a capital inside: the first letter decides
    ("##al", "McDonald", False, "##al"),  # ... and a piece inside it is as drawn, even where "D" was
    ("phone", "iPhone", True, "phone"),  # a lower-case first letter: as drawn
    ("##al", "iPhone", False, "##al"),
    ("we", "I", True, "We"),  # one capital letter is not all caps
    ("'s", "Tom", True, "'S"),  # the first letter, wherever it is
    ("3", "Three", True, "3"),  # nothing to capitalise
    ("them", "us", True, "them"),
])
def test_a_fake_takes_the_capitals_of_the_word_it_went_into(drawn, word, at_start, shown):
    assert cased_like(drawn, word, at_start) == shown


def _first_piece_replaced(explanation, word):
    return explanation.tokens[word.tokens[0]].replaced


def test_every_fake_on_screen_keeps_the_capitals_and_the_models_read_lower_case(tiny_pair):
    words = len(TEXT.split())
    seen = {"start": 0, "caps": 0, "inside": 0, "lower": 0}
    for seed in range(6):
        explanation = explain(tiny_pair, TEXT, Settings(mode="manual", mask_words=tuple(range(words)), seed=seed))
        tokens = explanation.tokens
        ids = tiny_pair.tokenizer.convert_ids_to_tokens(list(explanation.corrupted_ids))
        # the tokens the discriminator read: the vocabulary's own, a piece written "-ing" for people
        assert [t.corrupted for t in tokens] == [readable(i) for i in ids]
        for word in explanation.words:
            letters = [c for c in word.corrupted if c.isalpha()]
            if not word.replaced or not letters:
                continue
            if word.text == "MUSEUM":
                piece = tokens[word.tokens[0]].corrupted if _first_piece_replaced(explanation, word) else ""
                if piece.startswith("-"):  # a piece drawn first is written as drawn ("-ention"), the rest in capitals
                    rest = word.corrupted.removeprefix(piece)
                    assert word.corrupted.startswith(piece) and rest == rest.upper(), word
                else:
                    assert word.corrupted == word.corrupted.upper()
                    seen["caps"] += 1
            elif _first_piece_replaced(explanation, word):
                first = letters[0]
                if word.corrupted.startswith("-"):  # a piece drawn first is written as one, as drawn: "-ance", "-0"
                    piece = tokens[word.tokens[0]].corrupted
                    assert word.corrupted.startswith(piece) and piece == piece.lower(), word
                elif word.text in ("Sally", "McDonald"):
                    if any(c.isalpha() for c in tokens[word.tokens[0]].corrupted):  # not a drawn "3" or ","
                        assert first.isupper(), word  # the fake brings the word's first letter: "Waste", "Zombie"
                        seen["start" if word.text == "Sally" else "inside"] += 1
                elif word.text in ("iPhone", "opened", "the"):  # as drawn: a piece joins what stands before it
                    def drawn(p):  # "##ook" joins as "ook"; a drawn hyphen "-" is a token of its own and shows
                        return ids[p][2:] if ids[p].startswith("##") and len(ids[p]) > 2 else ids[p]
                    assert word.corrupted.replace(" ", "") == "".join(
                        drawn(p) if tokens[p].replaced else TEXT[tokens[p].start:tokens[p].end] for p in word.tokens)
                    seen["lower"] += 1
            assert word.text == TEXT[word.start:word.end]  # the reveal still names the original, as typed
    assert all(seen.values()), seen


def test_a_word_drawn_back_keeps_the_users_own_spelling(tiny_pair):
    explanation = explain(tiny_pair, TEXT, Settings(mode="detect"))
    assert [w.corrupted for w in explanation.words] == [w.text for w in explanation.words]
    assert [w.text for w in explanation.words][-2:] == ["shop", "."]  # the stop is a word of its own


def test_the_games_words_show_the_capitals_and_its_reveal_the_originals(tiny_pair):
    from explainer.lesson import beat_electra as game

    items = game.spot_round(tiny_pair, 3, 2, (TEXT, "THE DOG RAN HOME."))
    for item in items:
        assert "".join(item.originals) == "".join(item.explanation.text.split())
        for shown, original, fake in zip(item.words, item.originals, item.replaced):
            if fake and original.isupper() and len(original) > 1 and any(c.isalpha() for c in shown):
                assert shown == shown.upper()
