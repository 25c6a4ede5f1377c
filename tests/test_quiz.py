"""The knowledge check: enough questions, every topic, one right answer each, a strict grader, a seeded shuffle."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from explainer.lesson import quiz
from explainer.lesson.quiz import QUESTIONS, TOPICS, grade, normalise, shuffled


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
    from explainer.ui import classroom_tab as ui

    state = ui.start_quiz(False, 0)["state"]
    first = state.questions[0]
    wrong = next(c for c in first.choices if c != first.answer) if first.choices else "nonsense"
    shown = ui.check_answer(state, wrong, "")
    state, feedback, score = shown["state"], shown["feedback"], shown["score"]
    assert "Not quite" in feedback and "<b>0</b> / 1" in score
    shown = ui.check_answer(state, first.answer, first.answer)
    state, feedback, score = shown["state"], shown["feedback"], shown["score"]
    assert "Correct" in feedback and "<b>0</b> / 1" in score  # a retry shows the answer but does not score
    state = ui.next_question(state)["state"]
    second = state.questions[1]
    score = ui.check_answer(state, second.answer, second.answer)["score"]
    assert "<b>1</b> / 2" in score
    assert ui.next_question(state, -1)["state"].index == 0 and ui.next_question(state, -5)["state"].index == 0
    shuffled_state = ui.start_quiz(True, 5)["state"]
    assert [q.id for q in shuffled_state.questions] == [q.id for q in shuffled(QUESTIONS, 5)]


@pytest.mark.parametrize("text, stop", [
    ("is it the original?", ""), ("replaced", "."), ("as in Hugging Face”).", ""), ("it helps (a little)", "."),
    ("Wow!", ""), ("as it said “so.”", ""), ("and so on…", ""), ("ends. ", ""),
])
def test_a_sentence_gets_a_full_stop_only_when_it_has_no_ending(text, stop):
    from explainer.render.style import full_stop

    assert full_stop(text) == stop


def test_feedback_never_doubles_the_punctuation():
    import re

    from explainer.render.classroom_tab import feedback_html

    rtd = QUESTIONS[0]
    assert rtd.answer.endswith("?")
    shown = feedback_html(grade(rtd, "nonsense"))
    assert ("✗ Not quite. The answer: <b>For every token: was it replaced by the generator, or is it the "
            "original?</b></div>") in shown
    for question in QUESTIONS:
        for response in ("nonsense", question.answer):
            text = re.sub(r"<[^>]+>", "", feedback_html(grade(question, response)))
            assert not re.search(r"[.?!…][”’)]?\.", text), text
            assert text.rstrip().endswith((".", "?", "!", ".)", ").")), text


def test_the_last_question_names_the_open_ones_and_the_end_sums_up():
    from explainer.ui import classroom_tab as ui

    state = ui.start_quiz(False, 0)["state"]
    questions = state.questions
    missed = {questions[1].id, questions[4].id}  # two topics: what RTD is, and the supervised positions
    assert [questions[1].topic, questions[4].topic] == ["rtd", "positions"]
    for index, question in enumerate(questions):
        if index == 2:
            continue  # skipped: named once the last question is answered
        state = ui.next_question(state, index - state.index)["state"]
        wrong = next(c for c in question.choices if c != question.answer) if question.choices else "nonsense"
        shown = ui.check_answer(state, wrong if question.id in missed else question.answer,
                                "nonsense" if question.id in missed else question.answer)
        shown = ui.check_answer(shown["state"], question.answer, question.answer)  # a retry: the first try counts
        state, score = shown["state"], shown["score"]
    assert "Score: <b>16</b> / 18 answered" in score
    assert "Not answered yet: question 3 (“← Previous” goes back)." in score
    state = ui.next_question(state, 2 - state.index)["state"]
    third = questions[2]
    summary = ui.check_answer(state, third.answer, third.answer)["score"]
    n = len(questions)
    assert f"<b>All done: {n - 2} of {n} right on the first try ({(n - 2) / n:.0%}).</b>" in summary
    assert (f"<ul style=\"margin: 0\"><li>{TOPICS['rtd']}</li><li>{TOPICS['positions']}</li></ul>") in summary
    assert "Not answered yet" not in summary
    right = ui.start_quiz(False, 0)["state"]
    for index, question in enumerate(questions):
        right = ui.check_answer(ui.next_question(right, index - right.index)["state"], question.answer,
                                question.answer)["state"]
    assert "Every question right on the first try" in right.score_html() and "<li>" not in right.score_html()


# --- the efficiency questions agree with the paper's Table 1 and with the races the app ships ------------

def _question(id: str) -> quiz.Question:
    return next(q for q in QUESTIONS if q.id == id)


def test_efficiency_small_choices_state_only_true_scores():
    """Each wrong choice is a real Table 1 score, correctly attributed: a wrong answer, not a wrong fact."""
    from training.paper import PAPER_POINTS

    glue = {p.model: p.glue for p in PAPER_POINTS}
    question = _question("efficiency-small")
    assert question.answer.startswith(f"{glue['ELECTRA-Small']}: ahead of BERT-Small ({glue['BERT-Small']}) and even "
                                      f"GPT ({glue['GPT']})")
    for choice in question.choices:
        if ", the same as " in choice:
            score, model = choice.split(", the same as ")
            assert glue[model] == float(score), choice
    assert "71.2, the same as ELMo" in question.choices and glue["ELMo"] == 71.2
    assert not any("below ELMo" in c for c in question.choices)


def _default_record(campaign: dict) -> dict:
    from training.race.settings import matches_defaults

    return max((r for r in campaign["settings"] if matches_defaults(r["settings"])), key=lambda r: len(r["seeds"]))


def _mean_sd(values: list[float]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    return mean, (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5


def test_efficiency_budget_explanation_is_computed_from_the_shipped_campaign():
    """Every number in the explanation is recomputed here from assets/race_campaign.json's per-seed results."""
    campaign = json.loads(quiz.CAMPAIGN_FILE.read_text(encoding="utf-8"))
    explanation = _question("efficiency-budget").explanation
    assert explanation == quiz.efficiency_budget_explanation(campaign)
    record = _default_record(campaign)
    seeds = record["seeds"]
    n = len(seeds)
    gap, sd = _mean_sd([100 * s["rtd_minus_mlm"] for s in seeds])
    assert f"{gap:+.1f} ± {sd:.1f} points of probe accuracy over {n} seeds" in explanation
    level = abs(gap) <= 2 * sd / math.sqrt(n)  # the Training tab's rule: a gap beyond two standard errors
    assert ("(level, no clear difference)" in explanation) == level
    amount = record["settings"]["amount"]
    assert f"{amount:.1e}".replace("e+", "e") + " FLOPs" in explanation
    above = [side for side in ("rtd", "mlm") if (lambda m, s: m > 2 * s / math.sqrt(n))(
        *_mean_sd([x[f"{side}_probe"] - x["floor_probe"] for x in seeds]))]
    assert ("neither clearly beat an untrained encoder" in explanation) == (not above)
    paper_temperature = [r for r in campaign["settings"] if r["name"] == "temp1" and r["settings"]["amount"] == amount]
    if record["settings"]["temperature"] != 1.0 and paper_temperature:
        auc = sum(s["disc_auc"] for s in paper_temperature[0]["seeds"]) / len(paper_temperature[0]["seeds"])
        assert f"AUC {auc:.2f}" in explanation
    # The paper's budgets: Table 1's ELECTRA-Small runs took 6 hours (8.9e16 FLOPs) to 4 days (1.4e18).
    assert "hours to days of GPU time (1e17 FLOPs and more" in explanation
    for gone in ("20-minute", "days of accelerator", "FINDINGS", "shared/", "CEO"):
        assert gone not in explanation


def test_the_shipped_campaign_reads_level_at_the_default_budget():
    """The shipped measurement as the brief quotes it: +0.6 ± 1.4 points over 8 seeds at 1.4e13 FLOPs, level."""
    explanation = _question("efficiency-budget").explanation
    assert "1.4e13 FLOPs" in explanation and "+0.6 ± 1.4 points of probe accuracy over 8 seeds (level" in explanation


def _record(name, temperature, diffs, rtd_floor, mlm_floor, auc=0.8, amount=1.4e13):
    from training.race.settings import default_settings

    settings = {**default_settings("mini", "cpu").__dict__, "temperature": temperature, "amount": amount}
    seeds = [{"rtd_minus_mlm": d, "rtd_probe": 0.6 + r, "mlm_probe": 0.6 + m, "floor_probe": 0.6, "disc_auc": auc}
             for d, r, m in zip(diffs, rtd_floor, mlm_floor)]
    keys = ("rtd_minus_mlm", "rtd_probe", "mlm_probe", "floor_probe", "disc_auc")
    means = {k: dict(zip(("mean", "sd"), _mean_sd([s[k] for s in seeds]))) for k in keys}
    return {"name": name, "settings": settings, "seeds": seeds, "mean": means}


def test_efficiency_budget_explanation_follows_other_campaigns():
    from training.race.settings import default_settings

    defaults = default_settings("mini", "cpu")
    ahead = {"settings": [_record("default", defaults.temperature, [0.03, 0.04, 0.05], [0.05, 0.06, 0.07],
                                  [0.01, -0.01, 0.0])]}
    text = quiz.efficiency_budget_explanation(ahead)
    assert "+4.0 ± 1.0 points of probe accuracy over 3 seeds (ELECTRA ahead)" in text
    assert "only the ELECTRA encoder clearly beat an untrained one" in text
    for nothing in (None, {}, {"settings": []}, {"settings": [{"name": "x"}]}):
        text = quiz.efficiency_budget_explanation(nothing)
        assert text.startswith("The paper's gains were measured over hours to days of GPU time")
        assert "points" not in text and "Efficiency is a trend" in text
    assert quiz.load_campaign(quiz.CAMPAIGN_FILE.parent / "absent.json") is None
