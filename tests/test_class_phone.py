"""What a student's phone says in a live class, phase by phase (explainer/render/live_class/phone.py), and round B
on the phone (explainer/ui/live_class/student.py) on the tiny seeded pair: the verdict of an edit takes the form's
place until "Next sentence →", a bet is the student's own choice (none is made for them), and the teacher's armed
"Yes, end the class" goes back by itself or on Cancel. The projector's lobby tells a student what to type."""

from __future__ import annotations

import pytest

from explainer.core.live_class.store import ClassStore
from explainer.lesson.live_class import session
from explainer.render.live_class import phone, projector
from explainer.ui import api
from explainer.ui.live_class import student, teacher

N = 5


def mine(phase: str, reveal: int = 0, answered: tuple[int, ...] = (0, 1, 2, 3, 4), points: int = -5,
         answered_b: tuple[int, ...] = ()) -> session.StudentRound:
    return session.StudentRound("ABCDEF", "Ana", phase, reveal, N, (("a", "b"),) * N, (), (), answered, answered_b,
                                (), points)


@pytest.mark.parametrize(("phase", "reveal", "answered", "points", "said"), [
    ("lobby", 0, (), 0, "Round A: 0 of 5 sentences answered.</p>"),
    ("round_a", 0, (0, 1), 0, "Round A: 2 of 5 sentences answered.</p>"),
    ("reveal", 1, (0, 1, 2, 3, 4), -1, "answered, <b>-1</b> point so far (2 of 5 sentences revealed)."),
    ("reveal", 0, (), 0, "Round A: 0 of 5 sentences answered.</p>"),  # nothing answered: no points to speak of
    ("round_b", 0, (0, 1, 2, 3, 4), -5, "5 of 5 sentences answered, <b>-5</b> points in all. Round B: 0 of 5"),
    ("results", 0, (0, 2), 2, "2 of 5 sentences answered, <b>+2</b> points in all. Round B: 0 of 5"),
    ("ended", 0, (0,), 0, "1 of 5 sentences answered, <b>+0</b> points in all. Round B: 0 of 5"),
])
def test_the_score_line_says_what_its_points_count_in_every_phase(phase, reveal, answered, points, said):
    """Round B opened after 2 reveals scores all 5 sentences: the line never says "on the 5 revealed"."""
    html = phone.student_status_html(mine(phase, reveal, answered, points))
    assert said in html and "on the" not in html


def fool(bet, right: bool) -> session.FoolOutcome:
    return session.FoolOutcome("ABCDEF", 0, "a b", "c b", 0, "a", "c", 0.8, True, bet, right, False, True, None)


def test_the_verdict_names_the_students_own_bet_and_no_bet_it_did_not_make():
    assert "You predicted the opposite ✗." in phone.class_fool_html(fool(False, False))
    assert "You predicted that right ✓." in phone.class_fool_html(fool(True, True))
    unbet = phone.class_fool_html(fool(None, False))  # an answer stored without a bet (an old file)
    assert "predicted" not in unbet and "ELECTRA <b>flagged</b> your word ⚑.</p>" in unbet


def test_round_b_shows_each_verdict_in_the_forms_place_until_next_and_takes_no_bet_it_was_not_given(classes):
    start = api.class_start(3, 11)
    code, key = start["code"], start["teacher_key"]
    me = {"code": code, "id": api.class_join(code, "Ana")["student"]}
    for phase, sentence in (("round_a", 0), ("reveal", 0), ("round_b", 0)):
        api.class_phase(code, key, phase, sentence)
    screen = student.play_screen(me)
    assert screen["b_form"].visible and not screen["b_done"].visible and screen["b_result"] == ""
    assert student.b_words(me, 0)["b_bet"] is None  # every sentence starts with no bet chosen

    refused = student.submit_b(me, 0, 1, "dog", None)
    assert refused == {"message": refused["message"]} and session.NO_BET in refused["message"]
    with pytest.raises(ValueError, match="Place your bet first"):  # the API refuses it the same way
        session.submit_fool(api.class_pair(code), code, me["id"], 0, 1, "dog", None)
    assert not session.default_store().submissions(code, student_id=me["id"])  # nothing stored, nothing counted

    for index, bet in ((0, True), (2, False), (1, True)):
        out = student.submit_b(me, index, 1, "dog", bet)
        assert not out["b_form"].visible and out["b_done"].visible and out["message"] == ""
        assert f"Your edit of sentence {index + 1}" in out["b_result"] and "You predicted" in out["b_result"]
        assert out["b_sentence"]["value"] == {0: 1, 2: 1, 1: None}[index]  # the form, ready on the next one left
        assert out["b_next"]["value"] == ("Finish round B" if index == 1 else "Next sentence →")
    after = student.next_sentence(me)  # the last tap: the waiting screen, the verdict gone with the form
    assert not after["b_box"].visible and "Round B is done" in after["wait"] and after["b_result"] == ""
    view = session.teacher_view_data(api.class_pair(code), code, key)
    assert view.fool_tries == 3


def test_an_armed_end_goes_back_on_cancel_or_by_itself_and_only_where_the_stage_offers_it():
    armed = teacher.ask_to_end()
    assert armed["end_sure"]["visible"] and armed["end_cancel"]["visible"] and not armed["end"]["visible"]
    assert armed["end_timer"].active
    for stage, offered in (("lobby:0", True), ("reveal:2", True), ("round_b:0", True), ("results:0", False),
                           ("ended:0", False), ("", True)):
        back = teacher.keep_class(stage)
        assert not back["end_sure"]["visible"] and not back["end_cancel"]["visible"] and not back["end_timer"].active
        assert back["end"]["visible"] == offered, stage


def test_the_projectors_lobby_says_to_type_the_code_on_the_address_without_it(tiny_pair, tmp_path):
    store = ClassStore(tmp_path)
    started = session.create_class(tiny_pair, 3, 5, store=store)
    view = session.teacher_view_data(tiny_pair, started.code, started.teacher_key, store=store)
    link = f"http://192.168.1.20:7860/class?class={started.code}"
    html = projector.room_html(view, link, full=True)
    assert ('id="class-typed-address">http://192.168.1.20:7860/class</span><span>and type the code</span>' in html)
    assert f"?class={started.code}</span>" not in html
