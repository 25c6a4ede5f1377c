"""The class session's store (explainer/core/live_class/store.py): codes, teacher keys and view tokens, nicknames,
bounds and their messages, replays that change nothing, expiry on an injected clock, isolation between classes,
a restart, answers from many threads at once, the phases (only the teacher key moves them; hostile moves are
refused with a short message and change nothing) and a file made before phases existed."""

from __future__ import annotations

import dataclasses
import sqlite3
import threading

import pytest

from explainer.core import private_files, user_text
from explainer.core.live_class import records as class_records
from explainer.core.live_class import store as class_store
from explainer.core.live_class.phases import Stage
from explainer.core.live_class.store import CODE_ALPHABET, ClassStore


class Clock:
    def __init__(self, t: float = 1_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(tmp_path, clock):
    return ClassStore(tmp_path, now=clock, hours=1, max_classes=3, max_students=3, lobby_minutes=45)


def opened(store: ClassStore, new, round_: str = "A") -> str:
    """The class's code, with round A (or, through the reveal, round B) open: answers are taken only then."""
    store.move(new.info.code, new.teacher_key, Stage("round_a"))
    if round_ == "B":
        store.move(new.info.code, new.teacher_key, Stage("reveal", 0))
        store.move(new.info.code, new.teacher_key, Stage("round_b"))
    return new.info.code


def rows(store: ClassStore, table: str, code: str) -> int:
    column = "code" if table == "classes" else "class_code"
    with sqlite3.connect(store.path) as conn:
        return conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", (code,)).fetchone()[0]


def test_a_class_has_a_readable_code_and_a_teacher_key_kept_only_as_a_hash(store):
    new = store.create_class(42, 5, "bundled")
    code = new.info.code
    assert len(code) == 6 and set(code) <= set(CODE_ALPHABET) and not set(code) & set("0O1IL")
    assert (len(new.teacher_key) >= 20 and new.info.seed == 42 and new.info.n_sentences == 5
            and new.info.model == "bundled")
    assert new.info.expires - new.info.created == 3600
    info = store.get_class(f" {code[:3].lower()}-{code[3:]} ")  # typed by hand: case, dash and spaces forgiven
    assert info == new.info
    with sqlite3.connect(store.path) as conn:
        (stored,) = conn.execute("SELECT secret_hash FROM classes WHERE code = ?", (code,)).fetchone()
    assert new.teacher_key not in stored and len(stored) == 64
    for public in (info, store.join(code, "Ana"), store.students(code)):
        assert new.teacher_key not in repr(public) and stored not in repr(public)
    assert store.check_teacher(code, new.teacher_key) == info
    for wrong in ("", new.teacher_key[:-1] + "x", None, 12, "x" * 10_000):
        with pytest.raises(ValueError, match="^Wrong teacher key for this class.$"):
            store.check_teacher(code, wrong)
    assert len({store.create_class(1, 1).info.code for _ in range(2)} | {code}) == 3


def test_an_unknown_code_is_quoted_short(store):
    for code in ("x" * 10_000, "ABCDEF", None, ["A"] * 5000):
        with pytest.raises(ValueError, match="No class has the code") as error:
            store.get_class(code)
        assert len(str(error.value)) < 160
    with pytest.raises(ValueError) as error:
        store.get_class("x" * 10_000)
    assert "'xxxxxxxxxxxxxxxxxxxx'…" in str(error.value) and "x" * 21 not in str(error.value)
    with pytest.raises(ValueError) as error:
        store.join("<script>alert(1)</script>\x00")
    # Plain text, cut short: the page that shows it escapes it (explainer.render.style.message_html)
    assert "'<script>alert(1)</sc'…" in str(error.value)
    with pytest.raises(ValueError) as error:
        store.join("AB\x00\u202eC")
    assert "\\x00" in str(error.value) and "\u202e" not in str(error.value)  # control characters shown as escapes


def test_nicknames_are_cleaned_bounded_and_filtered(store):
    code = store.create_class(1, 3).info.code
    assert store.join(code, "  Ana\u200b \t\n Bo\x00 ").nickname == "Ana Bo"  # zero-width and control characters go
    assert store.join(code, "Ｊｏ①").nickname == "Jo1"  # NFKC
    student = store.join(code)
    assert student.nickname == "" and student.display_name == "Student 3" and student.number == 3
    other = store.create_class(1, 3).info.code
    for bad, message in (("x" * 25, "at most 24 characters"), ("x" * 10_000, "at most 24 characters"),
                         (12, "must be text"), ("fuck you", "another nickname")):
        with pytest.raises(ValueError, match=message) as error:
            store.join(other, bad)
        assert len(str(error.value)) < 120
    assert store.join(other, "<b>Zoé</b>").nickname == "<b>Zoé</b>"  # stored plain: the views escape it
    assert [s.number for s in store.students(code)] == [1, 2, 3] and len(store.students(other)) == 1


def test_bounds_on_classes_students_and_answers(store):
    codes = [store.create_class(i, 2).info.code for i in range(3)]
    with pytest.raises(ValueError, match="already runs 3 classes, its most"):
        store.create_class(9, 2)
    for _ in range(3):
        student = store.join(codes[0])
    with pytest.raises(ValueError, match="This class is full: 3 students"):
        store.join(codes[0], "late")
    for round_, index, message in (("A", 2, "numbered 0 to 1"), ("A", -1, "numbered 0 to 1"), ("A", True, "numbered"),
                                   ("A", "0", "numbered"), ("C", 0, 'round is "A" or "B"')):
        with pytest.raises(ValueError, match=message):
            store.submit(codes[0], student.student_id, round_, index, [1], {"ok": 1})
    with pytest.raises(ValueError, match="too long to store"):
        store.submit(codes[0], student.student_id, "A", 0, list(range(5000)), {})
    with pytest.raises(ValueError, match="cannot be stored"):
        store.submit(codes[0], student.student_id, "A", 0, {1, 2}, {})
    with pytest.raises(ValueError, match="does not know you"):
        store.submit(codes[0], "nobody", "A", 0, [], {})
    for bad in ("x", 0, -5, True):
        with pytest.raises(ValueError):
            store.create_class(bad, 3) if bad != 0 else store.create_class(0, bad)
    assert store.submissions(codes[0]) == ()


def test_a_replayed_answer_changes_nothing_and_returns_the_first(store):
    new = store.create_class(1, 3)
    code = opened(store, new)
    student = store.join(code).student_id
    first = store.submit(code, student, "A", 1, [2, 3], {"points": 2})
    again = store.submit(code, student, "A", 1, [0], {"points": -1})
    assert first.new and not again.new
    assert (again.answer, again.result, again.created) == ([2, 3], {"points": 2}, first.created)
    assert store.find(code, student, "A", 1) == again and store.find(code, student, "B", 1) is None
    store.move(code, new.teacher_key, Stage("reveal", 0))
    store.move(code, new.teacher_key, Stage("round_b"))
    assert store.submit(code, student, "B", 1, {"w": "x"}, {}).new  # the other round is another answer
    assert not store.submit(code, student, "A", 1, [1], {}).new  # a replay after its round closed: the first
    assert len(store.submissions(code)) == 2 and len(store.submissions(code, "A")) == 1


def test_an_expired_class_is_invisible_then_purged_with_its_students_and_answers(store, clock):
    old = opened(store, store.create_class(1, 2))
    student = store.join(old, "Ana").student_id
    store.submit(old, student, "A", 0, [1], {})
    clock.t += 1800
    young = store.create_class(2, 2).info.code
    clock.t += 1800  # the first class is exactly an hour old: over
    with pytest.raises(ValueError, match="or it has ended"):
        store.get_class(old)
    assert rows(store, "classes", old) == 1  # invisible to a read, which takes no write lock ...
    store.join(young)
    assert [rows(store, table, old) for table in ("classes", "students", "submissions")] == [0, 0, 0]  # ... purged
    assert store.get_class(young).code == young and store.live_classes() == 1
    for _ in range(2):
        store.create_class(3, 2)  # the expired class no longer counts against the bound
    clock.t += 3600
    assert store.live_classes() == 0


def test_one_class_never_sees_another_s_data(store):
    one, two = (store.create_class(1, 3) for _ in range(2))
    opened(store, one), opened(store, two)
    ana = store.join(one.info.code, "Ana").student_id
    bo = store.join(two.info.code, "Bo").student_id
    store.submit(one.info.code, ana, "A", 0, [1], {"class": 1})
    with pytest.raises(ValueError, match="does not know you"):
        store.submit(two.info.code, ana, "A", 0, [1], {})
    with pytest.raises(ValueError, match="does not know you"):
        store.get_student(one.info.code, bo)
    with pytest.raises(ValueError, match="Wrong teacher key"):
        store.check_teacher(two.info.code, one.teacher_key)
    assert store.submissions(two.info.code) == () and [s.nickname for s in store.students(two.info.code)] == ["Bo"]
    assert [s.result for s in store.submissions(one.info.code)] == [{"class": 1}]


def test_a_restart_loses_nothing(tmp_path, clock):
    first = ClassStore(tmp_path, now=clock)
    new = first.create_class(7, 4, "m")
    opened(first, new)
    student = first.join(new.info.code, "Ana")
    stored = first.submit(new.info.code, student.student_id, "A", 3, [1, 2], {"points": 1})
    del first
    second = ClassStore(tmp_path, now=clock)
    assert second.check_teacher(new.info.code, new.teacher_key) == dataclasses.replace(new.info, phase="round_a")
    assert second.students(new.info.code) == (student,)
    assert second.submissions(new.info.code) == (stored.__class__(**{**stored.__dict__, "new": False}),)
    with sqlite3.connect(second.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_concurrent_answers_are_stored_once_each(tmp_path):
    store = ClassStore(tmp_path)
    code = opened(store, store.create_class(1, 5))
    students = [store.join(code).student_id for _ in range(4)]
    barrier = threading.Barrier(20)
    returned, errors = [], []

    def play(thread: int) -> None:
        barrier.wait()
        for k in range(5):  # thread t answers sentence (t + k) % 5 as student t % 4: each key sent 5 times
            try:
                s = store.submit(code, students[thread % 4], "A", (thread + k) % 5, [thread], {"by": thread})
                returned.append(s)
            except Exception as error:  # pragma: no cover  # noqa: BLE001 - the assertion below reports it
                errors.append(error)

    threads = [threading.Thread(target=play, args=(t,)) for t in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(returned) == 100
    stored = {(s.student_id, s.sentence_index): s for s in store.submissions(code)}
    assert len(stored) == 20 == len(store.submissions(code))  # 4 students x 5 sentences, none doubled
    for key, s in stored.items():
        same = [r for r in returned if (r.student_id, r.sentence_index) == key]
        assert len(same) == 5 and sum(r.new for r in same) == 1
        assert all((r.answer, r.result) == (s.answer, s.result) for r in same) and s.answer == [s.result["by"]]


def test_the_environment_sets_folder_hours_and_bounds(tmp_path, monkeypatch):
    monkeypatch.setenv("ELECTRA_CLASS_DIR", str(tmp_path / "here"))
    monkeypatch.setenv("ELECTRA_CLASS_HOURS", "2.5")
    monkeypatch.setenv("ELECTRA_CLASS_MAX_CLASSES", "1")
    store = ClassStore()
    assert store.path == tmp_path / "here" / "classes.sqlite3" and store.hours == 2.5 and store.max_students == 200
    store.create_class(1, 1)
    with pytest.raises(ValueError, match="already runs 1 classes"):
        store.create_class(1, 1)
    monkeypatch.setenv("ELECTRA_CLASS_HOURS", "soon")
    with pytest.raises(ValueError, match="ELECTRA_CLASS_HOURS must be a positive number, not 'soon'"):
        ClassStore()
    monkeypatch.delenv("ELECTRA_CLASS_DIR")
    assert private_files.data_dir().parts[-3:] == (".cache", "electra-explainer", "classes")


def test_quote_cuts_and_shows_control_characters_as_escapes():
    assert user_text.quote("a" * 30) == "'" + "a" * 20 + "'…"
    assert user_text.quote("<b>\x07") == "'<b>\\x07'" and user_text.quote(12) == "12"
    assert len(user_text.quote(list(range(10_000)))) <= 25


def test_only_the_teacher_key_moves_the_phases_one_stage_at_a_time(store):
    new = store.create_class(1, 2)
    code, key = new.info.code, new.teacher_key
    view = store.view_token(code, key)
    ana = store.join(code, "Ana").student_id
    assert store.get_class(code).stage == Stage("lobby") and view != key and len(view) >= 20
    assert store.check_viewer(code, view) == (store.get_class(code), False)
    assert store.check_viewer(code, key) == (store.get_class(code), True)
    for wrong in (view, ana, code, "", None, "x" * 10_000, f"class={code}&view={view}"):  # read off the projector
        with pytest.raises(ValueError, match="^Wrong teacher key for this class.$"):
            store.move(code, wrong, Stage("round_a"))
    with pytest.raises(ValueError, match="^Wrong key for this class's view.$"):
        store.check_viewer(code, ana)
    with pytest.raises(ValueError, match="has not started yet"):  # no answer in the lobby
        store.submit(code, ana, "A", 0, [1], {})
    hostile = [(Stage("reveal", 0), "Out of order: from the lobby the class goes to round A or the end"),
               (Stage("round_b"), "Out of order"), (Stage("lobby"), "already at the lobby")]
    steps = [Stage("round_a"), Stage("reveal", 0), Stage("reveal", 1), Stage("round_b"), Stage("results"),
             Stage("ended")]
    seen = []
    for step in steps:
        for target, message in hostile:
            before = store.get_class(code)
            with pytest.raises(ValueError, match=message) as error:
                store.move(code, key, target)
            assert len(str(error.value)) < 130 and store.get_class(code) == before  # a short message, no change
        assert store.move(code, key, step).stage == step == store.get_class(code).stage
        seen.append(step)
        hostile = [(step, "already at"), *((s, "past") for s in seen[:-1])]  # replays: the same move, or older ones
        if step.phase == "reveal":
            hostile.append((Stage("reveal", 5), "Out of order"))
    with pytest.raises(ValueError, match="has ended: its phases no longer change"):
        store.move(code, key, Stage("results"))
    with pytest.raises(ValueError, match="has ended: answers are closed"):
        store.submit(code, ana, "B", 0, {}, {})
    with pytest.raises(ValueError, match="has ended: it takes no one new"):
        store.join(code, "late")
    with pytest.raises(ValueError, match="A phase change names a stage"):
        store.move(code, key, "round_a")


def test_each_round_takes_answers_only_while_it_is_open(store):
    new = store.create_class(1, 3)
    code, key = new.info.code, new.teacher_key
    ana = store.join(code).student_id
    for stage, a, b in ((Stage("lobby"), "not started yet", "not started yet"),
                        (Stage("round_a"), None, "not open yet"),
                        (Stage("reveal", 0), "teacher is showing the answers", "teacher is showing the answers"),
                        (Stage("round_b"), "Round A is closed", None),
                        (Stage("results"), "Round A is closed", "Round B is closed")):
        if stage.phase != "lobby":
            store.move(code, key, stage)
        for round_, message, k in (("A", a, stage.order(3)), ("B", b, stage.order(3))):
            if message is None:
                assert store.submit(code, ana, round_, k % 3, [], {}).new
            else:
                with pytest.raises(ValueError, match=message):
                    store.submit(code, ana, round_, k % 3, [], {})
    assert [(s.round, s.sentence_index) for s in store.submissions(code)] == [("A", 1), ("B", 2)]


def test_a_file_made_before_phases_gets_them_and_each_class_a_sensible_one(tmp_path, clock):
    """The schema as it was, three classes in it: no answers, round-A answers, round-B answers."""
    old_schema = class_store.SCHEMA.replace(",\n    phase TEXT NOT NULL DEFAULT 'lobby', "
                                            "reveal INTEGER NOT NULL DEFAULT 0, "
                                            "sentences TEXT NOT NULL DEFAULT ''", "")
    assert "phase" not in old_schema and "sentences TEXT" not in old_schema
    with sqlite3.connect(tmp_path / "classes.sqlite3") as conn:
        conn.executescript(old_schema)
        for code in ("AAAAAA", "BBBBBB", "CCCCCC"):
            conn.execute("INSERT INTO classes VALUES (?, ?, 1, 3, '', ?, ?)",
                         (code, class_records.secret_hash(code, "key"), clock.t, clock.t + 3600))
            conn.execute("INSERT INTO students VALUES (?, 's', '', 1, ?)", (code, clock.t))
        conn.execute("INSERT INTO submissions VALUES ('BBBBBB', 's', 'A', 0, '[]', '{}', 0)")
        conn.execute("INSERT INTO submissions VALUES ('CCCCCC', 's', 'A', 0, '[]', '{}', 0)")
        conn.execute("INSERT INTO submissions VALUES ('CCCCCC', 's', 'B', 1, '{}', '{}', 0)")
    store = ClassStore(tmp_path, now=clock)
    ClassStore(tmp_path, now=clock)  # opened again: migrated once
    assert [store.get_class(c).phase for c in ("AAAAAA", "BBBBBB", "CCCCCC")] == ["lobby", "round_a", "round_b"]
    assert len(store.submissions("CCCCCC")) == 2 and store.check_viewer("BBBBBB", "key")[1]
    token = store.view_token("AAAAAA", "key")  # an old class gets a projector token too
    assert store.check_viewer("AAAAAA", token)[1] is False
    assert store.move("BBBBBB", "key", Stage("reveal", 0)).phase == "reveal"


def test_a_lobby_nobody_joined_ends_after_its_minutes_and_frees_its_slot(tmp_path, clock):
    store = ClassStore(tmp_path, now=clock, hours=24, max_classes=2, lobby_minutes=30)
    empty, joined = store.create_class(1, 2), store.create_class(2, 2)
    store.join(joined.info.code, "Ana")
    with pytest.raises(ValueError, match="already runs 2 classes.*a lobby nobody joined ends after 30 minutes"):
        store.create_class(3, 2)
    clock.t += 30 * 60
    store.create_class(3, 2)  # the empty lobby ended; the one with a student stays
    assert rows(store, "classes", empty.info.code) == 0 and store.get_class(joined.info.code).phase == "lobby"


def test_an_ended_class_frees_its_slot_and_keeps_its_answers(store):
    first = store.create_class(1, 2)
    code = opened(store, first)
    student = store.join(code, "Ana").student_id
    store.submit(code, student, "A", 0, [1], {"k": 1})
    store.create_class(2, 2), store.create_class(3, 2)
    with pytest.raises(ValueError, match="already runs 3 classes"):
        store.create_class(4, 2)
    store.move(code, first.teacher_key, Stage("ended"))
    assert store.live_classes() == 2
    store.create_class(4, 2)
    assert store.submissions(code)[0].result == {"k": 1}  # the teacher still downloads the results


def test_a_class_keeps_its_own_sentences_in_order(store):
    own = ("The river flooded the old town.", "Bees make honey from flowers.")
    new = store.create_class(5, 2, "bundled", own)
    assert store.get_class(new.info.code).sentences == own == new.info.sentences
    assert store.get_class(store.create_class(5, 2).info.code).sentences == ()
    with pytest.raises(ValueError, match="plays each of them: 3 sentences"):
        store.create_class(5, 3, "", own)


def test_a_full_class_says_how_many_joined(store):
    code = store.create_class(1, 2).info.code
    for _ in range(3):
        store.join(code)
    assert store.joined(code) == 3
    with pytest.raises(ValueError, match="This class is full: 3 students have joined, its most. Tell your teacher."):
        store.join(code)
