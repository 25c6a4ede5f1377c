"""A live class's results for its teacher (explainer/lesson/live_class/results.py), on the tiny seeded pair: only the
teacher key opens them and only at the results; the JSON and the CSV hold the same figures as the teacher's
view, nicknames and never a student id or key, and every typed text is escaped against spreadsheet formulas."""

from __future__ import annotations

import csv
import io
import json

import pytest

from explainer.core.live_class.store import ClassStore
from explainer.lesson.live_class import results
from explainer.lesson.live_class import session


def test_the_results_add_up_name_students_by_nickname_and_run_no_formula(tiny_pair, tmp_path):
    store = ClassStore(tmp_path)
    start = session.create_class(tiny_pair, 2, 5, store=store)
    evil = session.join_class(start.code, "=HYPERLINK(1)", store=store)
    plain = session.join_class(start.code, "Ana", store=store)
    with pytest.raises(ValueError, match="once the class is at its results"):
        results.class_results(tiny_pair, start.code, start.teacher_key, store=store)
    session.move_class(start.code, start.teacher_key, "round_a", store=store)
    for student in (evil, plain):
        for k in range(2):
            session.submit_spot(tiny_pair, start.code, student.student_id, k, [0, 1], store=store)
    for stage in (("reveal", 0), ("round_b", 0)):
        session.move_class(start.code, start.teacher_key, *stage, store=store)
    session.submit_fool(tiny_pair, start.code, evil.student_id, 0, 1, "-dog", True, store=store)
    session.move_class(start.code, start.teacher_key, "results", store=store)
    with pytest.raises(ValueError, match="Wrong teacher key"):
        results.class_results(tiny_pair, start.code, start.view_token, store=store)

    record = results.class_results(tiny_pair, start.code, start.teacher_key, store=store)
    view = session.teacher_view_data(tiny_pair, start.code, start.teacher_key, store=store)
    assert record["class_total"]["points"] == view.class_total.points == sum(r.points for r in view.roster)
    assert [s["nickname"] for s in record["students"]] == ["'=HYPERLINK(1)", "Ana"]
    assert record["edits"][0]["nickname"] == "'=HYPERLINK(1)" and record["edits"][0]["new_word"] == "'-dog"
    assert [len(s["fakes"]) for s in record["sentences"]] == [len(s.fakes) for s in view.sentences]
    text = results.results_json(record) + results.results_csv(record)
    for secret in (start.teacher_key, start.view_token, evil.student_id, plain.student_id):
        assert secret not in text
    assert json.loads(results.results_json(record)) == record
    rows = list(csv.DictReader(io.StringIO(results.results_csv(record))))
    texts = [cell for row in rows for cell in row.values()
             if cell and not cell.lstrip("-").replace(".", "", 1).isdigit()]
    # numbers such as -3 stay numbers
    assert texts and all(not cell.startswith(results.FORMULA_START) for cell in texts)
    fakes = [r for r in rows if r["kind"] == "fake"]
    assert [int(r["caught_by"]) for r in fakes] == [f.caught_by for s in view.sentences for f in s.fakes]
    assert [r["points"] for r in rows if r["kind"] == "student"] == [str(r.points) for r in view.roster]
    assert results.spreadsheet_safe("@SUM(A1)") == "'@SUM(A1)" and results.spreadsheet_safe("Bo") == "Bo"
    assert [results.spreadsheet_safe(c + "1") for c in "=+-@\t\r"] == ["'" + c + "1" for c in "=+-@\t\r"]
