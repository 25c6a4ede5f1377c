"""The knowledge check: enough questions, every topic, one right answer each, a strict grader, a seeded shuffle."""

from __future__ import annotations

from collections import Counter

import pytest

from explainer import quiz
from explainer.quiz import QUESTIONS, TOPICS, grade, normalise, shuffled


def test_at_least_twelve_questions_of_all_three_kinds_covering_every_topic():
    assert len(QUESTIONS) >= 12
    assert len({q.id for q in QUESTIONS}) == len(QUESTIONS)
    assert {q.kind for q in QUESTIONS} == {"choice", "true_false", "short"}
    assert {q.topic for q in QUESTIONS} == set(TOPICS)
    assert all(q.explanation.strip() and q.prompt.strip() for q in QUESTIONS)


@pytest.mark.parametrize("question", [q for q in QUESTIONS if q.kind != "short"], ids=lambda q: q.id)
def test_exactly_one_choice_is_accepted(question):
    assert question.answer in question.choices
    assert len({normalise(c) for c in question.choices}) == len(question.choices)  # no two read the same
    accepted = [c for c in question.choices if grade(question, c).correct]
    assert accepted == [question.answer]
    if question.kind == "true_false":
        assert question.choices == quiz.TRUE_FALSE


@pytest.mark.parametrize("question", [q for q in QUESTIONS if q.kind == "short"], ids=lambda q: q.id)
def test_short_answers_accept_the_answer_and_reject_the_wrong_ones(question):
    assert grade(question, question.answer).correct
    assert grade(question, f"  {question.answer.upper()}! ").correct  # case, spaces, punctuation
    for accepted in question.accepted:
        assert grade(question, accepted).correct, accepted
    assert question.wrong_examples, "every short answer pins some wrong answers"
    for wrong in question.wrong_examples:
        result = grade(question, wrong)
        assert result.answered and not result.correct, wrong
    others = {q.answer for q in QUESTIONS if q.kind == "short" and q.id != question.id}
    for other in others:  # another question's answer is not this one's
        assert not grade(question, other).correct, other


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_empty_answers_are_not_attempts(question):
    for empty in ("", "   ", None, "?!"):
        result = grade(question, empty)
        assert not result.correct and not result.answered
    result = grade(question, "something else entirely")
    assert not result.correct and result.answered and result.explanation == question.explanation


def test_normalise():
    assert normalise("  The Discriminator!") == "discriminator"
    assert normalise("an Encoder-Decoder") == "encoder decoder"
    assert normalise("15%") == "15"
    assert normalise("the the") == ""


def test_shuffle_is_seeded_and_keeps_every_question_and_answer():
    a, b, c = shuffled(QUESTIONS, 1), shuffled(QUESTIONS, 1), shuffled(QUESTIONS, 2)
    assert a == b and a != c
    assert [q.id for q in a] != [q.id for q in QUESTIONS]
    assert Counter(q.id for q in a) == Counter(q.id for q in QUESTIONS)
    by_id = {q.id: q for q in QUESTIONS}
    for q in a:
        original = by_id[q.id]
        assert sorted(q.choices) == sorted(original.choices) and q.answer == original.answer
        assert [c for c in q.choices if grade(q, c).correct] == ([q.answer] if q.kind != "short" else [])
        if q.kind == "true_false":
            assert q.choices == quiz.TRUE_FALSE
    assert any(q.choices != by_id[q.id].choices for q in a if q.kind == "choice")


def test_the_ui_handlers_score_first_tries_only():
    from explainer.ui import classroom as ui

    state, *_ = ui.start_quiz(False, 0)
    first = state["questions"][0]
    wrong = next(c for c in first.choices if c != first.answer) if first.choices else "nonsense"
    state, feedback, score = ui.check_answer(state, wrong, "")
    assert "Not quite" in feedback and "<b>0</b> / 1" in score
    state, feedback, score = ui.check_answer(state, first.answer, first.answer)
    assert "Correct" in feedback and "<b>0</b> / 1" in score  # a retry shows the answer but does not score
    state, *_ = ui.next_question(state)
    second = state["questions"][1]
    state, feedback, score = ui.check_answer(state, second.answer, second.answer)
    assert "<b>1</b> / 2" in score
    shuffled_state, *_ = ui.start_quiz(True, 5)
    assert [q.id for q in shuffled_state["questions"]] == [q.id for q in shuffled(QUESTIONS, 5)]
