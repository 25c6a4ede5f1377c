"""The live class through the app's API (explainer/ui/api.py `class_*`) and its views
(explainer/render/live_class/: the projector, the card, the phone), on the tiny seeded pair: no response names a
fake before the reveal and none holds the teacher key, the server's scores add up on the teacher's view, replays
change nothing, hostile input and hostile phase changes get a short message, and every user text is escaped on
the projector."""

from __future__ import annotations

import json
import re
from pathlib import Path

import gradio as gr
import pytest

from explainer.lesson.live_class import session as class_session
from explainer.render.live_class import card, phone, projector
from explainer.ui import api
from explainer.ui.live_class.screens import REMEMBERED, page_link, remember, write_results


def test_a_class_through_the_api_adds_up_and_keeps_the_first_answer(classes):
    start = api.class_start(3, 11)
    code, key = start["code"], start["teacher_key"]
    assert start["view_query"] == f"?class={code}&view={start['view_token']}" and key not in repr(start["view_query"])
    assert start["student_query"] == f"?class={code}" and start["sentences"] == 3 and start["phase"] == "lobby"
    students = [api.class_join(code.lower(), name) for name in ("Ana", "", "Bo")]
    assert [s["name"] for s in students] == ["Ana", "Student 2", "Bo"] and [s["number"] for s in students] == [1, 2, 3]
    seen = [api.class_round(code, students[0]["student"]), api.class_view(code, start["view_token"])]
    assert seen[0]["phase"] == "lobby" and seen[0]["sentences"] == []
    assert api.class_phase(code, key, "round_a") == {"code": code, "phase": "round_a", "sentence": 0}
    mine = api.class_round(code, students[0]["student"])
    assert len(mine["sentences"]) == 3 and mine["answered_a"] == [] and mine["points"] == 0

    totals = dict(caught=0, missed=0, false_alarms=0, points=0)
    for n, student in enumerate(students):
        for k, words in enumerate(mine["sentences"]):
            picks = [j for j in range(len(words["words"])) if (j + n + k) % 3 == 0]
            out = api.class_spot(code, student["student"], k, picks)
            assert out == {"code": code, "sentence": k, "new": True, "picks": picks}  # stored, nothing of the truth
            seen.append(out)
        seen += [api.class_round(code, student["student"]), api.class_view(code, start["view_token"]),
                 api.class_view(code, key)]
    again = api.class_spot(code, students[0]["student"], 0, [1, 2])  # a replay: the first answer stands
    first_picks = [j for j in range(len(mine["sentences"][0]["words"])) if j % 3 == 0]
    assert not again["new"] and again["picks"] == first_picks
    text = repr(seen + [mine, again])
    assert key not in text and not any(k in text for k in ("replaced", "originals", "electra_flagged", "fakes': ({"))
    assert seen[-1]["progress"] == (3, 3, 3) and seen[-1]["sentences"] == () and seen[-1]["class_total"]["points"] == 0

    api.class_phase(code, key, "reveal", 0)
    for n, student in enumerate(students):
        for r in api.class_round(code, student["student"])["revealed"]:  # the truth comes with the reveal
            k, picks = r["sentence"], r["picks"]
            fakes = {j for j, f in enumerate(r["replaced"]) if f}
            expected = len(fakes & set(picks)), len(fakes - set(picks)), len(set(picks) - fakes)
            assert (r["you"]["caught"], r["you"]["missed"], r["you"]["false_alarms"]) == expected  # server-scored
    for k in (1, 2):
        api.class_phase(code, key, "reveal", k)
    for student in students:
        mine_now = api.class_round(code, student["student"])
        assert [r["sentence"] for r in mine_now["revealed"]] == [0, 1, 2]
        for r in mine_now["revealed"]:
            for name in totals:
                totals[name] += r["you"][name]
    api.class_phase(code, key, "round_b")
    assert all(f["words"] and "".join(f["words"]) == "".join(f["text"].split())
               for f in api.class_round(code, students[0]["student"])["fool_sentences"])

    fooled = api.class_fool(code, students[1]["student"], 2, 0, "Yesterday", True)
    assert fooled["new"] and fooled["edited"].startswith("Yesterday") and fooled["original_word"]
    assert fooled["bet_right"] == fooled["flagged"] and fooled["fooled"] == (not fooled["flagged"])
    replay = api.class_fool(code, students[1]["student"], 2, 1, "Other", False)
    assert not replay["new"] and replay["new_word"] == "Yesterday" and replay["bet"] is True

    view = api.class_view(code, key)
    assert view["joined"] == 3 and view["answered"] == 3 and view["class_total"] == totals
    assert [r["answered_a"] for r in view["roster"]] == [3, 3, 3] and view["fool_tries"] == 1
    assert view["fool_fooled"] == int(fooled["fooled"]) and view["build_ms"] >= 0
    assert "student_id" not in repr(view) and students[0]["student"] not in repr(view)
    assert api.class_round(code, students[0]["student"])["answered_a"] == [0, 1, 2]
    assert sum(r["points"] for r in view["roster"]) == totals["points"]


def test_the_api_refuses_what_it_must_with_short_messages(classes):
    start = api.class_start(3, 5)
    student = api.class_join(start["code"])["student"]
    api.class_phase(start["code"], start["teacher_key"], "round_a")
    huge = "<script>" + "x" * 10_000
    cases = [
        (lambda: api.class_view(start["code"], "not-the-key"), "Wrong key for this class's view"),
        (lambda: api.class_view(start["code"], huge), "Wrong key for this class's view"),
        (lambda: api.class_join(huge), "No class has the code"),
        (lambda: api.class_join(start["code"], huge), "at most 24 characters"),
        (lambda: api.class_round(start["code"], huge), "does not know you"),
        (lambda: api.class_spot(start["code"], student, 9, []), "numbered 0 to 2"),
        (lambda: api.class_spot(start["code"], student, 0, [10_000]), "points at no word"),
        (lambda: api.class_spot(start["code"], student, 0, "0,1"), "must be a list"),
        (lambda: api.class_fool(start["code"], student, 0, 1, "two words", True), "Round B is not open yet"),
        (lambda: api.class_start(0), "A round has 1 to"),
        (lambda: api.game(huge), "at most 40 characters"),
        (lambda: api.game("9" * 5_000), "whole number"),
        (lambda: api.game(True), "a number or a word"),
        (lambda: api.game(1, huge), "whole number"),
    ]
    for call, expected in cases:
        with pytest.raises(gr.Error) as caught:
            call()
        assert expected in caught.value.message
        assert len(caught.value.message) < 200 and "<script>" not in caught.value.message.replace("'<script>", "")
    other = api.class_start(3, 5)
    with pytest.raises(gr.Error, match="does not know you"):  # one class's student is nobody in another
        api.class_round(other["code"], student)
    assert api.class_view(start["code"], start["teacher_key"])["roster"][0]["answered_a"] == 0  # nothing stored


def test_the_projector_escapes_every_user_text_shows_no_secret_and_each_phase_only_what_it_may(classes, tiny_pair):
    start = class_session.create_class(tiny_pair, 3, 11, store=classes)
    evil = class_session.join_class(start.code, "<img src=x onerror=1>", store=classes)
    class_session.join_class(start.code, store=classes)
    items = class_session.class_items(tiny_pair, start.code, store=classes)
    link = page_link("https://a-space.hf.space/class?class=OLD#x", **{"class": start.code})
    assert link == f"https://a-space.hf.space/class?class={start.code}"
    assert page_link("javascript:alert(1)", **{"class": "ABCDEF"}) == "class?class=ABCDEF"  # never a script link

    def stage() -> str:
        data = class_session.teacher_view_data(tiny_pair, start.code, start.view_token, store=classes)
        html = projector.room_html(data, link, full=True)
        assert start.teacher_key not in html and evil.student_id not in html and "<img" not in html
        assert 'class="ee-stage ee-full"' in html and html.count("<svg") <= 1
        return html

    lobby = stage()
    assert "&lt;img src=x onerror=1&gt;" in lobby and "Student 2" in lobby and lobby.count("<svg") == 1  # the QR code
    assert card.pretty_code(start.code) in lobby and "2</span> joined" in lobby
    fakes = [f"✗{w}" for item in items for w, r in zip(item.words, item.replaced) if r]
    originals = [o for item in items for o, r in zip(item.originals, item.replaced) if r]
    class_session.move_class(start.code, start.teacher_key, "round_a", store=classes)
    for k in range(len(items)):
        class_session.submit_spot(tiny_pair, start.code, evil.student_id, k, [0], store=classes)
    round_a = stage()
    assert "3 of 2" not in round_a and "1 of 2" in round_a and not any(f in round_a for f in fakes)
    assert "⚑" not in round_a and "was " not in round_a  # no fake, no verdict, no original before the reveal
    for k in range(len(items)):
        class_session.move_class(start.code, start.teacher_key, "reveal", k, store=classes)
        shown = stage()
        assert f"sentence {k + 1} of 3" in shown and all(f"✗{w}" in shown for w, r in zip(items[k].words,
                                                                                        items[k].replaced) if r)
    class_session.move_class(start.code, start.teacher_key, "round_b", store=classes)
    out = class_session.submit_fool(tiny_pair, start.code, evil.student_id, 0, 1, "it's", False, store=classes)
    assert ("it&#x27;s" in stage()) == out.fooled  # the edit is listed (escaped) only when it fooled ELECTRA
    class_session.move_class(start.code, start.teacher_key, "results", store=classes)
    results = stage()
    assert re.search(r'id="class-total">[+-]\d+<', results) and any(o in results for o in originals)

    links = card.links_card_html(start.code, link,
                                       page_link(link, **{"class": start.code, "view": start.view_token}))
    assert links.count("<svg") == 1 and start.view_token in links and start.teacher_key not in links


def test_hostile_phase_changes_are_refused_with_a_short_message_and_change_nothing(classes):
    start = api.class_start(3, 5)
    code, key, token = start["code"], start["teacher_key"], start["view_token"]
    student = api.class_join(code, "Ana")["student"]
    projected = f"?class={code}&view={token}"  # everything the projector's page and its address show
    api.class_phase(code, key, "round_a")
    for wrong_key, phase, sentence, expected in [
            ("not-the-key", "reveal", 0, "Wrong teacher key"), (student, "reveal", 0, "Wrong teacher key"),
            (token, "reveal", 0, "Wrong teacher key"), (projected, "reveal", 0, "Wrong teacher key"),
            (code, "reveal", 0, "Wrong teacher key"), (key, "results", 0, "Out of order"),
            (key, "round_a", 0, "already at round A"), (key, "lobby", 0, "past the lobby"),
            (key, "reveal", 7, "numbered from 0 to 2"), (key, "<b>go</b>" * 100, 0, "A phase is one of"),
            (key, "reveal", "1", "numbered from 0")]:
        with pytest.raises(gr.Error) as caught:
            api.class_phase(code, wrong_key, phase, sentence)
        assert expected in caught.value.message and len(caught.value.message) < 130
        assert api.class_view(code, token)["phase"] == "round_a"  # nothing changed
    api.class_phase(code, key, "reveal", 0)
    with pytest.raises(gr.Error, match="past round A"):  # a replayed older change
        api.class_phase(code, key, "round_a")
    with pytest.raises(gr.Error, match="once the class is at its results"):
        api.class_results(code, key)
    api.class_phase(code, key, "round_b")
    api.class_phase(code, key, "results")
    with pytest.raises(gr.Error, match="Wrong teacher key"):
        api.class_results(code, token)  # the projector's token reads the view, not the results
    assert api.class_results(code, key)["students"][0]["nickname"] == "Ana"
    csv_path, json_path = (Path(p) for p in write_results(code, key))  # the teacher's download buttons
    assert csv_path.parent == json_path.parent and csv_path.parent.stat().st_mode & 0o077 == 0  # a private folder
    assert ("Ana" in csv_path.read_text(encoding="utf-8")
            and json.loads(json_path.read_text())["students"][0]["nickname"] == "Ana")
    api.class_phase(code, key, "ended")
    with pytest.raises(gr.Error, match="has ended: answers are closed"):
        api.class_spot(code, student, 0, [])
    assert api.class_view(code, token)["phase"] == "ended"  # the results stay readable


def test_a_phone_escapes_its_nickname_and_the_typed_word():
    """What a student's phone draws: the nickname, the class's words and the round-B edit pass through `esc`."""
    evil = "<img src=x onerror=1>"
    mine = class_session.StudentRound("ABCDEF", evil, "results", 0, 2, (("a", "b"),) * 2, (), (), (0, 1), (), (), 3)
    fool = class_session.FoolOutcome("ABCDEF", 0, "a b", f"{evil} b", 0, "<b>a</b>", evil, 0.25, False, False, True,
                                     True, False, None)
    html = phone.student_status_html(mine) + phone.student_wait_html(mine) + phone.class_fool_html(fool)
    assert "<img" not in html and "<b>a</b>" not in html
    assert html.count("&lt;img src=x onerror=1&gt;") == 3 and "&lt;b&gt;a&lt;/b&gt;" in html and "+3</b> points" in html


def test_a_browser_remembers_its_latest_classes_and_one_id_each():
    kept = None
    for i in range(REMEMBERED + 2):
        kept = remember(kept, f"C{i}", f"id{i}")
    assert list(kept) == [f"C{i}" for i in range(2, REMEMBERED + 2)]
    again = remember(kept, "C5", "new")
    assert len(again) == REMEMBERED and list(again)[-1] == "C5" and again["C5"] == "new" and kept["C5"] == "id5"
