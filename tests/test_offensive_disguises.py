"""The offensive-word check sees through disguises (training/offensive.py `hides_offensive`): a listed word behind
invisible characters, combining marks, look-alike letters, spacing and case is refused, as a nickname and in a
teacher's sentence, and what the store keeps is what was checked; ordinary accented words pass."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explainer.core.live_class.store import ClassStore
from explainer.lesson.live_class import own_sentences
from training import offensive

WORDS = sorted(w for w in offensive._blocked()[0] if w.isascii() and w.isalpha() and 4 <= len(w) <= 10)
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\u034f", "\u3164", "\u115f", "\ufeff", "\ufe0f"]
MARKS = ["\u0301", "\u0308", "\u0327", "\u0336"]
LOOKALIKE = {"a": "аα", "c": "сϲ", "e": "е", "i": "іι", "o": "оο", "p": "р", "s": "ѕ", "x": "х", "y": "у", "h": "һ",
             "n": "ո", "u": "υ"}  # Cyrillic, Greek and Armenian letters that Unicode's table calls Latin look-alikes


@st.composite
def disguised(draw) -> str:
    """A listed word in a disguise: per letter maybe a look-alike, a mark, an invisible character, a case change;
    sometimes the letters spaced or dotted apart, sometimes fullwidth."""
    word = draw(st.sampled_from(WORDS))
    letters = []
    for letter in word:
        if letter in LOOKALIKE and draw(st.booleans()):
            letter = draw(st.sampled_from(LOOKALIKE[letter]))
        if draw(st.booleans()):
            letter = letter.upper()
        if draw(st.integers(0, 3)) == 0:
            letter += draw(st.sampled_from(MARKS))
        if draw(st.integers(0, 2)) == 0:
            letter += draw(st.sampled_from(INVISIBLE))
        letters.append(letter)
    spacing = draw(st.sampled_from(["", "", " ", ".", " . "]))
    text = spacing.join(letters)
    if draw(st.integers(0, 4)) == 0:
        text = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)  # fullwidth
    return text


@pytest.fixture(scope="module")
def code(tmp_path_factory):
    store = ClassStore(tmp_path_factory.mktemp("classes"))
    return store, store.create_class(1, 3).info.code


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(text=disguised())
def test_every_disguised_word_is_refused_as_a_nickname_and_in_a_sentence(code, text):
    store, class_code = code
    assert offensive.hides_offensive(text)
    with pytest.raises(ValueError, match="Please choose another nickname|at most 24 characters"):
        store.join(class_code, text)
    with pytest.raises(ValueError, match="Sentence 1 cannot be played: it holds a word this app does not show"):
        own_sentences.check_sentences(None, [f"We met {text} after school today."])  # refused before the model


@pytest.mark.parametrize("text", ["café", "naïve", "Zoë", "Ångström", "Straße", "Ñandú", "I a m here", "Scunthorpe",
                                  "Noël and Chloé read a b c aloud.", "Μαρία"])
def test_ordinary_words_with_accents_pass(text):
    assert not offensive.hides_offensive(text)


def test_the_store_and_the_sentence_check_refuse_a_disguise_and_keep_no_invisible_character(tmp_path, monkeypatch):
    store = ClassStore(tmp_path)
    code = store.create_class(1, 3).info.code
    word = WORDS[0]
    for name in (" ".join(word), word[:2] + "\u034f" + word[2:], word[0] + "\u3164" + word[1:],
                 word.replace(word[1], "\u0430", 1) if word[1] == "a" else "с" + word[1:]):
        if offensive.hides_offensive(name):
            with pytest.raises(ValueError, match="Please choose another nickname"):
                store.join(code, name)
    assert store.join(code, "Zo\u200bë\u3164").nickname == "Zoë"  # shown as checked: nothing invisible kept
    monkeypatch.setattr(own_sentences, "sentence_words", lambda *a: pytest.fail("the model ran"))
    with pytest.raises(ValueError, match="Sentence 1 cannot be played: it holds a word this app does not show"):
        own_sentences.check_sentences(None, [f"The new pupil said {' '.join(word)} to us twice."])
