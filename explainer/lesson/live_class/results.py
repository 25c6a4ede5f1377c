"""A live class's results for its teacher to keep: per sentence and per fake, the class's catches beside
ELECTRA's; each student's totals; round B's edits; who won over both rounds (explainer/lesson/live_class/match.py).
As JSON and as CSV (one table, a `kind` column telling the rows apart), built from the same `class_results`
record.

Only the teacher key opens them, and only once the class is at its results (or has ended): before that they
would name the fakes. Students appear by nickname ("Student N" without one), never by id. Every text a person
typed (nicknames, round B's words) is escaped against spreadsheet formulas in both files: a cell that starts
with = + - @ or a tab or carriage return gets a leading apostrophe, which spreadsheets show as text.

Not here: the store (explainer/core/live_class/store.py), the aggregates' rules
(explainer/lesson/live_class/session.py).
"""

from __future__ import annotations

import csv
import io
import json

from explainer.core.live_class.store import ClassStore
from explainer.lesson.live_class import session
from explainer.lesson.live_class.match import match
from training.words import joined

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
CSV_COLUMNS = ("kind", "sentence", "word_index", "word", "original", "caught_by", "answered", "class_share",
               "electra_flagged", "electra_p_replaced", "nickname", "new_word", "p_replaced", "fooled_electra",
               "bet_right", "points", "caught", "missed", "false_alarms", "round_a_points", "round_b_points")


def spreadsheet_safe(text: str) -> str:
    """`text` as a spreadsheet shows it, never run: a leading apostrophe when it would start a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text


def class_results(pair, code, teacher_key, *, store: ClassStore | None = None) -> dict:
    """The class's results as one JSON-able record, for the holder of the teacher key once the class is at its
    results or has ended; ValueError (a short message) otherwise."""
    store = store or session.default_store()
    info = store.check_teacher(code, teacher_key)
    if info.phase not in ("results", "ended"):
        raise ValueError("The results can be downloaded once the class is at its results.")
    view = session.teacher_view_data(pair, info.code, teacher_key, store=store)
    names = {st.student_id: spreadsheet_safe(st.display_name) for st in store.students(info.code)}
    edits = [{"sentence": s.sentence_index + 1, "nickname": names.get(s.student_id, ""),
              "original_word": s.result["original_word"], "new_word": spreadsheet_safe(s.result["new_word"]),
              "p_replaced": round(float(s.result["p_edited"]), 4), "flagged": bool(s.result["flagged"]),
              "fooled_electra": bool(s.result["fooled"]), "bet_right": bool(s.result["student_right"])}
             for s in store.submissions(info.code, "B")]
    return {
        "class": info.code, "model": info.model, "generator": info.generator, "phase": info.phase,
        "sentences_in_round": info.n_sentences,
        "class_total": view.class_total.as_dict(), "electra_total": view.electra_total.as_dict(),
        "electra_round": view.electra_round.as_dict(),
        "students": [{"number": e.number, "nickname": spreadsheet_safe(e.name), "answered_a": e.answered_a,
                      "answered_b": e.answered_b, "points": e.points} for e in view.roster],
        "sentences": [{"sentence": s.index + 1, "text": joined(s.words), "answered": s.answered,
                       "class": s.class_score.as_dict(), "electra": s.electra.as_dict(),
                       "fakes": [{"word_index": f.word_index, "word": f.word, "original": f.original,
                                  "caught_by": f.caught_by, "answered": f.answered,
                                  "class_share": None if f.share is None else round(f.share, 4),
                                  "electra_flagged": f.electra_flagged, "electra_p_replaced": round(f.electra_p, 4)}
                                 for f in s.fakes]} for s in view.sentences],
        "edits": edits,
        "fool_tries": view.fool_tries, "fool_fooled": view.fool_fooled, "fool_bets_right": view.fool_bets_right,
        "match": match(view).as_dict(),  # both rounds counted, with their rules in words
    }


def results_json(results: dict) -> str:
    return json.dumps(results, ensure_ascii=False, indent=1)


def results_csv(results: dict) -> str:
    """One row per fake (kind "fake"), per sentence (its totals), per student and per round-B edit."""
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, restval="", lineterminator="\n")
    writer.writeheader()
    rows = []
    for s in results["sentences"]:
        rows.append({"kind": "sentence", "sentence": s["sentence"], "word": s["text"], "answered": s["answered"],
                     **{f"{k}": v for k, v in s["class"].items()}})
        rows.append({"kind": "electra_sentence", "sentence": s["sentence"], **s["electra"]})
        rows += [{"kind": "fake", "sentence": s["sentence"], **f} for f in s["fakes"]]
    rows += [{"kind": "student", "nickname": st["nickname"], "answered": st["answered_a"], "points": st["points"]}
             for st in results["students"]]
    rows += [{"kind": "edit", "sentence": e["sentence"], "nickname": e["nickname"], "original": e["original_word"],
              "new_word": e["new_word"], "p_replaced": e["p_replaced"], "electra_flagged": e["flagged"],
              "fooled_electra": e["fooled_electra"], "bet_right": e["bet_right"]} for e in results["edits"]]
    rows.append({"kind": "class_total", **results["class_total"]})
    rows.append({"kind": "electra_total", **results["electra_total"]})
    for side in ("class", "electra"):  # both rounds: round A's points, round B's edits won, the sum
        rows.append({"kind": f"{side}_match", "round_a_points": results["match"]["round_a"][side],
                     "round_b_points": results["match"]["round_b"][side], "points": results["match"]["total"][side]})
    for row in rows:  # every text cell, whoever wrote it: a sentence's word could start with "-" too
        writer.writerow({k: spreadsheet_safe(v) if isinstance(v, str) and not v.startswith("'") else v
                         for k, v in row.items()})
    return out.getvalue()
