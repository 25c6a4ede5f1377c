"""A school is not one visitor (explainer/core/visitors.py, quotas.py, live_class/store.py): addresses normalized and
IPv6 grouped by /64; three classes of 40 behind one address all join; a class's own limits (its lock, its
teacher removing a student, its joins per network) protect it; one network's live classes are capped; a bound of
0 is refused, not taken for the default."""

from __future__ import annotations

import gradio as gr
import pytest

from explainer.core import quotas, visitors
from explainer.core.live_class.store import ClassStore
from explainer.lesson.live_class import session as class_session
from explainer.ui import api


class Request:
    """What gradio hands an endpoint: the client's address (after the web server's proxy walk)."""

    def __init__(self, host: str):
        self.client = type("Client", (), {"host": host})()


@pytest.fixture
def classes(tmp_path, monkeypatch, tiny_pair_dir):
    monkeypatch.setenv("ELECTRA_MODEL", str(tiny_pair_dir))
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tiny_pair_dir))
    for name in ("ELECTRA_CLASS_START_RATE", "ELECTRA_CLASS_JOIN_RATE", "ELECTRA_CLASS_JOIN_CLASS_RATE",
                 "ELECTRA_CLASS_MAX_PER_VISITOR"):
        monkeypatch.delenv(name, raising=False)  # the defaults a server runs with
    monkeypatch.setattr(class_session, "_store", ClassStore(tmp_path))
    quotas.reset()
    yield class_session._store
    quotas.reset()


@pytest.mark.parametrize("spellings, one", [
    (["2001:db8::1", "2001:0DB8:0000:0000:0000:0000:0000:0001", "[2001:db8::1]:443", "2001:db8::ffff:1"],
     "2001:db8::/64"),
    (["192.0.2.7", "::ffff:192.0.2.7", "192.0.2.7:5000", " 192.0.2.7 "], "192.0.2.7"),
    (["fe80::1%eth0", "fe80::2"], "fe80::/64"),
])
def test_one_address_or_network_spelled_many_ways_is_one_visitor(spellings, one):
    assert {visitors.visitor(s) for s in spellings} == {one}


def test_other_networks_and_names_are_other_visitors(monkeypatch):
    assert visitors.visitor("2001:db8:0:1::1") == "2001:db8:0:1::/64" != visitors.visitor("2001:db8::1")
    assert visitors.visitor("TestClient") == "testclient" and visitors.visitor(None) == "unknown"
    monkeypatch.setenv("ELECTRA_IPV6_PREFIX", "48")
    assert visitors.visitor("2001:db8:0:1::1") == "2001:db8::/48"
    monkeypatch.setenv("ELECTRA_IPV6_PREFIX", "129")
    with pytest.raises(ValueError, match="ELECTRA_IPV6_PREFIX is a number of bits from 1 to 128, not '129'"):
        visitors.visitor("2001:db8::1")


def test_three_classes_of_40_behind_one_school_address_all_join(classes):
    school = Request("198.51.100.20")
    codes = [api.class_start(3, seed, request=school)["code"] for seed in (1, 2, 3)]
    for code in codes:
        numbers = [api.class_join(code, request=school)["number"] for _ in range(40)]
        assert numbers == list(range(1, 41))
    assert [classes.joined(code) for code in codes] == [40, 40, 40]


def test_rotating_addresses_in_one_64_share_one_share_of_classes(classes, monkeypatch):
    monkeypatch.setenv("ELECTRA_CLASS_MAX_PER_VISITOR", "3")
    monkeypatch.setattr(class_session, "_store", ClassStore(classes.folder))
    for i in range(3):
        api.class_start(3, 1, request=Request(f"2001:db8::{i + 1:x}"))
    with pytest.raises(gr.Error, match="Your network already runs 3 classes, the most this server allows"):
        api.class_start(3, 1, request=Request("2001:db8::abcd:1"))
    assert api.class_start(3, 1, request=Request("2001:db8:0:1::1"))["phase"] == "lobby"  # another /64
    assert api.class_start(3, 1)["phase"] == "lobby"  # the local user has no share


def test_an_ended_class_frees_its_place_in_the_visitor_s_share(tmp_path):
    store = ClassStore(tmp_path, max_per_visitor=1)
    first = store.create_class(1, 3, visitor="192.0.2.1")
    with pytest.raises(ValueError, match="already runs 1 classes"):
        store.create_class(1, 3, visitor="192.0.2.1")
    store.create_class(1, 3, visitor="192.0.2.2")
    store.move(first.info.code, first.teacher_key, class_session.parse_stage("ended"))
    store.create_class(1, 3, visitor="192.0.2.1")


def test_a_flood_from_one_network_cannot_fill_a_class(classes, monkeypatch):
    monkeypatch.setenv("ELECTRA_CLASS_JOIN_CLASS_RATE", "5/hour")
    code = api.class_start(3, 1)["code"]
    bots = [Request(f"2001:db8::{i + 1:x}") for i in range(6)]
    for bot in bots[:5]:
        api.class_join(code, request=bot)
    with pytest.raises(gr.Error, match="5 students have joined this class from your network in the last hour"):
        api.class_join(code, request=bots[5])
    assert api.class_join(code, "Ana", request=Request("203.0.113.5"))["number"] == 6  # an honest student gets in
    other = api.class_start(3, 2)["code"]
    assert api.class_join(other, request=bots[5])["number"] == 1  # a second class is not refused


def test_a_locked_room_refuses_a_join_and_the_teacher_removes_a_student(classes):
    start = api.class_start(3, 1)
    code, key = start["code"], start["teacher_key"]
    ana, bot = api.class_join(code, "Ana"), api.class_join(code, "Bot")
    with pytest.raises(gr.Error, match="Wrong teacher key"):
        api.class_lock(code, "guess")
    assert api.class_lock(code, key) == {"code": code, "locked": True}
    with pytest.raises(gr.Error, match="This class is locked: its teacher lets nobody new in"):
        api.class_join(code, "Late")
    assert api.class_view(code, key)["locked"] is True
    api.class_phase(code, key, "round_a")
    api.class_spot(code, bot["student"], 0, [0])
    with pytest.raises(gr.Error, match="Wrong teacher key"):
        api.class_remove(code, start["view_token"], 2)
    assert api.class_remove(code, key, 2) == {"code": code, "removed": 2, "name": "Bot"}
    with pytest.raises(gr.Error, match="This class does not know you"):
        api.class_round(code, bot["student"])
    assert classes.submissions(code) == () and [s.nickname for s in classes.students(code)] == ["Ana"]
    with pytest.raises(gr.Error, match="This class has no student 2"):
        api.class_remove(code, key, 2)
    for bad in (True, "2", 0, 10**30):
        with pytest.raises(gr.Error, match="A student is named by their number"):
            api.class_remove(code, key, bad)
    api.class_lock(code, key, False)
    assert api.class_join(code, "Late")["number"] == 3  # numbers are never reused: "Student 2" was the bot
    assert api.class_round(code, ana["student"])["phase"] == "round_a"


@pytest.mark.parametrize("bound", ["max_classes", "max_students", "max_per_visitor", "hours", "lobby_minutes"])
def test_a_bound_of_zero_is_refused_not_taken_for_the_default(tmp_path, bound):
    with pytest.raises(ValueError, match="A class store needs positive hours and bounds"):
        ClassStore(tmp_path, **{bound: 0})


def test_the_teacher_s_page_locks_lists_and_removes(classes):
    from explainer.ui.live_class import moderation as page

    start = api.class_start(3, 1)
    who = {"code": start["code"], "token": start["teacher_key"]}
    api.class_join(who["code"], "Ana"), api.class_join(who["code"], "<b>Bo</b>")
    assert page.roster(who)["pick"]["choices"] == [("1: Ana", 1), ("2: <b>Bo</b>", 2)]  # a dropdown shows text
    assert page.set_lock(who, True) == {"lock": True, "message": ""}
    assert "lets nobody new in" in pytest.raises(gr.Error, api.class_join, who["code"]).value.message
    out = page.remove(who, 2)
    assert out["pick"]["choices"] == [("1: Ana", 1)]
    assert "&lt;b&gt;Bo&lt;/b&gt; (student 2) was removed" in out["message"]
    assert "Wrong teacher key" in page.set_lock({**who, "token": start["view_token"]}, False)["message"]
    assert "Choose the student" in page.remove(who, None)["message"]
