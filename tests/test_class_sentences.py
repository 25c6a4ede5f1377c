"""A class on the teacher's own sentences (explainer/lesson/live_class/own_sentences.py): checked like typed text,
each refusal naming the sentence and why; the round plays them in the teacher's order, corrupted by the
generator."""

from __future__ import annotations

import pytest

from explainer.core.live_class.store import ClassStore
from explainer.lesson.live_class import session
from explainer.lesson.live_class import own_sentences
from explainer.lesson.live_class.own_sentences import check_sentences
from training.words import joined

OWN = ["The river flooded the old town after the rain.", "Bees make honey from the flowers in our garden.",
       "Our teacher reads a story to the class every day."]


def test_pasted_sentences_are_cleaned_and_kept_in_order(tiny_pair):
    pasted = ("\n  The river flooded the old town after the rain.  \n\n"
              "\u200bBees make honey from the flowers in our garden.\n")
    assert check_sentences(tiny_pair, pasted) == tuple(OWN[:2])
    assert check_sentences(tiny_pair, OWN + OWN[:1]) == tuple(OWN)  # the same sentence twice counts once


@pytest.mark.parametrize("sentences, message", [
    ("", "Type or paste at least one sentence"),
    (["The river flooded the town.", "too short"], "Sentence 2 cannot be played: it has fewer than 4 words"),
    (["a" * 400], "Sentence 1 cannot be played: The sentence has at most 300 characters"),
    (["\U0001f600 \U0001f601 \U0001f602 \U0001f603 \U0001f604"],
     "Sentence 1 cannot be played: the model does not know"),
    (["\u200b\u200c \u200d\u2060 x y"], "Sentence 1 cannot be played"),
    ([f"Sentence number {i} is right here." for i in range(11)], "A class plays at most 10 sentences: you gave more"),
    ([3, 4], "a list of texts"),
    ("x\n" * 20_000, "Paste at most 10 sentences"),
])
def test_what_cannot_be_played_is_named(tiny_pair, sentences, message):
    with pytest.raises(ValueError, match=message):
        check_sentences(tiny_pair, sentences)


def test_a_hostile_list_is_refused_by_the_cheap_checks_and_copies_are_checked_once(monkeypatch):
    checked = []
    monkeypatch.setattr(own_sentences, "_check_one", lambda pair, text: checked.append(text))
    with pytest.raises(ValueError, match="Give at most 10 sentences of at most 300 characters each \\(you gave 2,501"):
        check_sentences(None, [OWN[0] * 4] * 2500 + ["bad"])
    with pytest.raises(ValueError, match="Give at most 10 sentences"):
        check_sentences(None, ["x" * 100_000])
    assert checked == []  # nothing reached the model's tokenizer
    assert check_sentences(None, OWN * 13) == tuple(OWN) and checked == OWN  # 39 lines: each text checked once


def test_a_class_on_own_sentences_plays_them_in_order_forged_by_the_generator(tiny_pair, tmp_path):
    store = ClassStore(tmp_path)
    start = session.create_class(tiny_pair, 5, 7, sentences="\n".join(OWN), store=store)
    assert start.n_sentences == 3
    items = session.class_items(tiny_pair, start.code, store=store)
    assert [item.explanation.text for item in items] == OWN
    assert all(any(item.replaced) for item in items)  # each has a fake to find
    assert all(joined(item.originals) == text for item, text in zip(items, OWN))
