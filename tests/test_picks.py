"""Every pick is validated in words, for /game and the live class: Infinity, a number of 5,000 digits, True, a
string and a pick past the sentence each get a message of the app's own, before any model runs."""

from __future__ import annotations

import math

import gradio as gr
import pytest

from explainer.core import bounds, user_text
from explainer.ui import api

HUGE = 10**5000


@pytest.mark.parametrize("kwargs, message", [
    (dict(picks=[[math.inf]]), "picks \\(a sentence's word numbers\\) is a list of at most 512 whole numbers|"
                               "is a whole number from 0 to 511, not inf"),
    (dict(picks=[[HUGE]]), "is a whole number from 0 to 511, not a number of 5,001 digits"),
    (dict(picks=[[True]]), "is a whole number from 0 to 511, not True"),
    (dict(picks=True), "picks must be one list of word numbers per sentence \\(1 lists\\), not True"),
    (dict(picks=[["two"]]), "not 'two'"),
    (dict(picks=[[400]]), "A pick points at no word of this sentence: 400"),
    (dict(code=HUGE), "A round code that is a number is a whole number from 0 to 999,999,999, "
                      "not a number of 5,001 digits"),
    (dict(code=True), "A round code is a number or a word, not True"),
    (dict(code=math.inf), "A round code that is a number is a whole number from 0 to 999,999,999, not inf"),
    (dict(code="x" * 41), "A round code has at most 40 characters, not 41"),
    (dict(code="-·-"), "Type a round code: a number or a word"),
    (dict(sentences=math.inf), "sentences \\(sentences in the round\\) is a whole number from 1 to 10, not inf"),
    (dict(sentences=True), "not True"),
])
def test_every_bad_value_of_the_game_gets_a_message(classes, monkeypatch, kwargs, message):
    if "picks" in kwargs and kwargs["picks"] != [[400]]:  # refused before any model runs
        monkeypatch.setattr(api, "load_pair", lambda *a: pytest.fail("the model loaded"))
    with pytest.raises(gr.Error, match=message):
        api.game(**{"code": 1, "sentences": 1, **kwargs})


@pytest.mark.parametrize("picks, message", [
    ([math.inf], "A pick is a word's number, not inf"), ([HUGE], "A pick points at no word of this sentence: "
                                                                "a number of 5,001 digits"),
    ([True], "A pick is a word's number, not True"), (True, "Your picks must be a list of word numbers, not True"),
    ([[1]], "A pick is a word's number, not \\[1\\]"),
])
def test_every_bad_pick_in_a_class_gets_a_message(classes, picks, message):
    start = api.class_start(3, 1)
    student = api.class_join(start["code"])["student"]
    api.class_phase(start["code"], start["teacher_key"], "round_a")
    with pytest.raises(gr.Error, match=message):
        api.class_spot(start["code"], student, 0, picks)


def test_a_huge_number_is_quoted_without_python_s_own_error():
    assert user_text.quote(HUGE) == "a number of 5,001 digits" == bounds._shown(HUGE)
    assert user_text.quote(10**20000) == "a number of 20,001 digits"
    assert user_text.quote(12345) == "12345"
