"""Fakes a student can judge: training.lexicon tells an English word from "st", "tv", "b" or "121"; the game's and the
class's draw gives an English word for a word and a number for a number, as a real sample from the generator's
softmax renormalised over those tokens; Explore's draw and the draw before this rule do not (the controls)."""

from __future__ import annotations

from unittest import mock

import pytest
import torch

from explainer.core import kinds
from explainer.core.pipeline import Settings, explain_many
from explainer.lesson import beat_electra as game
from training import lexicon, words


@pytest.mark.parametrize("token, form", [
    ("the", lexicon.ENGLISH), ("arrived", lexicon.ENGLISH), ("windowsill", lexicon.ENGLISH), ("a", lexicon.ENGLISH),
    ("I", lexicon.ENGLISH), ("Rhythm", lexicon.ENGLISH), ("7", lexicon.NUMBER), ("1990", lexicon.NUMBER),
    ("st", lexicon.OTHER), ("tv", lexicon.OTHER), ("mr", lexicon.OTHER), ("b", lexicon.OTHER), ("ies", lexicon.OTHER),
    ("bbc", lexicon.OTHER), ("hini", lexicon.OTHER), ("1st", lexicon.OTHER), ("mp3", lexicon.OTHER),
    ("don't", lexicon.OTHER), ("½", lexicon.OTHER), ("", lexicon.OTHER),
])
def test_a_token_reads_as_an_english_word_a_number_or_neither(token, form):
    assert lexicon.form_of(token) == form


def _judged(results, tokenizer) -> dict[str, int]:
    """Per masked word (not punctuation): fakes, fakes with digits for letters or letters for digits, fakes for a
    word that are not an English word, fakes for a number that are not a number."""
    kind = kinds.token_kinds(tokenizer)
    found = {"fakes": 0, "digits/letters": 0, "not a word": 0, "not a number": 0, "numbers": 0}
    for result in results:
        for m in result.masked:
            original = result.original_ids[m.position]
            if not m.replaced or kind[original] != words.WORD:
                continue
            was, drawn = m.original, tokenizer.convert_ids_to_tokens(m.sampled_id)
            number = lexicon.is_number(was)
            found["fakes"] += 1
            found["numbers"] += number
            found["digits/letters"] += any(c.isdigit() for c in drawn) != any(c.isdigit() for c in was)
            found["not a word"] += not number and not lexicon.is_english(drawn)
            found["not a number"] += number and not lexicon.is_number(drawn)
    return found


def _forms_before(tokenizer) -> torch.Tensor:
    """The draw before this rule: any word for a word (a number, "st" or "b" for "school")."""
    forms = FORMS(tokenizer)
    words_of_any_form = torch.tensor([kinds.FORMS.index(lexicon.NUMBER), kinds.FORMS.index(lexicon.OTHER)])
    return forms.masked_fill(torch.isin(forms, words_of_any_form), kinds.FORMS.index(lexicon.ENGLISH))


FORMS = kinds.token_forms


@pytest.mark.slow  # 320 sentences through the tiny models: 1-4 s on a shared 2-core machine
def test_the_games_fakes_are_english_words_for_words(tiny_pair, tiny_stronger_dir, monkeypatch):
    """Game sentences x 2 seeds with each tiny generator, as the game and the class draw them: every fake for a word
    is an English word, never digits. The controls, on the same sentences and seeds: Explore's draw, and the game's
    draw with the rule undone (a word of any form for a word), put non-words there, and digits."""
    from explainer.core import generators

    monkeypatch.setenv(generators.FOLDER_ENV, str(tiny_stronger_dir))
    pool = game.load_sentences()
    seeds = [(seed * 1000 + i, s) for seed in range(2) for i, s in enumerate(pool)]
    for generator in (generators.ELECTRA, generators.STRONGER):
        found = _judged(explain_many(tiny_pair, [(s, game.fake_settings(n, generator)) for n, s in seeds]),
                        tiny_pair.tokenizer)
        assert found["fakes"] > 100 and found["digits/letters"] == found["not a word"] == 0, (generator, found)
    played = [(s, game.fake_settings(n)) for n, s in seeds]
    with mock.patch.object(kinds, "token_forms", _forms_before):
        before = _judged(explain_many(tiny_pair, played), tiny_pair.tokenizer)
    explore = _judged(explain_many(tiny_pair, [(s, Settings(seed=n)) for n, s in seeds]), tiny_pair.tokenizer)
    assert before["not a word"] > 50 and before["digits/letters"] > 0, before  # "st", "wh", "b", "10" for a word
    assert explore["not a word"] > 50, explore


NUMBERS = "She was 7 when we moved, and 9 when we left."


def test_a_number_is_replaced_by_a_number(tiny_pair):
    """The 7 masked at 30 seeds: the game draws a number every time (the tiny vocabulary's digits); Explore's draw,
    with the same seeds, almost never does."""
    aligned = words.align(tiny_pair.tokenizer, NUMBERS, 128)
    seven = next(w.index for w in aligned.words if w.text == "7")
    played, explored = ([(NUMBERS, Settings(mode="manual", mask_words=(seven,), seed=seed, same_kind=fair))
                         for seed in range(30)] for fair in (True, False))
    game_draws = [r.masked[0].sampled for r in explain_many(tiny_pair, played)]
    explore_draws = [r.masked[0].sampled for r in explain_many(tiny_pair, explored)]
    assert all(lexicon.is_number(d) for d in game_draws) and len(set(game_draws)) > 2, game_draws
    assert sum(lexicon.is_number(d) for d in explore_draws) < 5, explore_draws


def test_the_fake_is_drawn_from_the_renormalised_softmax(tiny_pair):
    """One word masked by hand, every proposal shown: the game's probabilities are Explore's (the same generator
    input) divided by their sum over the fair fakes, zero elsewhere; the original may be drawn back; the drawn fake
    carries its renormalised probability."""
    tokenizer = tiny_pair.tokenizer
    aligned = words.align(tokenizer, "The storm arrived before the boat.", 128)
    word = next(w for w in aligned.words if len(w.tokens) == 1 and len(w.text) > 3)  # "before", in the tiny vocabulary
    vocabulary = len(tokenizer)
    fair, full = explain_many(tiny_pair, [
        ("The storm arrived before the boat.", Settings(mode="manual", mask_words=(word.index,), seed=5,
                                                        top_k=vocabulary, same_kind=flag)) for flag in (True, False)])
    p_fair = {p.token_id: p.probability for p in fair.masked[0].proposals}
    p_full = {p.token_id: p.probability for p in full.masked[0].proposals}
    allowed = {t for t, p in p_fair.items() if p > 0}
    assert lexicon.is_english(word.text)  # so its fakes are English words
    original = fair.original_ids[fair.masked[0].position]
    english = {t for t in range(vocabulary) if kinds.token_forms(tokenizer)[t] == kinds.FORMS.index(lexicon.ENGLISH)}
    assert allowed <= english | {original} and len(allowed) > 0.9 * len(english)
    assert {t for t in allowed if not lexicon.is_english(tokenizer.convert_ids_to_tokens(t))} <= {original}
    total = sum(p_full[t] for t in allowed)
    assert 0 < total < 0.999  # the generator does put mass on unfair tokens: the renormalising is not a no-op
    assert all(p_fair[t] == pytest.approx(p_full[t] / total, rel=1e-4, abs=1e-9) for t in allowed)
    drawn = fair.masked[0]
    assert drawn.sampled_id in allowed and drawn.sampled_probability == pytest.approx(p_fair[drawn.sampled_id])
