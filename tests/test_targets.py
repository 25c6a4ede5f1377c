"""The pair's targets, checked in one command (explainer/lesson/targets.py): thresholds, PASS/FAIL, the report,
and the whole check on the tiny pair (fast: a few blocks, one classroom seed)."""

from __future__ import annotations

import json
import math

import pytest

from explainer.__main__ import main
from explainer.lesson import targets
from explainer.lesson.measure import ClassroomMeasure


def measure(recall, false_alarms, top_word) -> ClassroomMeasure:
    return ClassroomMeasure(40, (0,), 40, 38, 60, 300, recall, false_alarms, top_word, 0.5, 0.4, 0.1)


def evaluation(top1, english_auc, imdb_auc, hits, top5=0.52) -> dict:
    pairs = [{"hit": i < hits} for i in range(40)]
    return {"heldout_english": {"generator_top1_at_mask": top1, "generator_top5_at_mask": top5, "auc": english_auc},
            "heldout_imdb": {"auc": imdb_auc}, "swap_pairs": {"hit_rate": hits / 40, "pairs": pairs}}


def test_each_target_passes_at_its_threshold_and_fails_just_short_of_it():
    at = targets.classroom_targets("game", measure(0.30, 0.03, 0.75)) + targets.heldout_targets(
        evaluation(0.33, 0.86, 0.86, 28))
    assert all(t.met for t in at) and len(at) == 8
    short = targets.classroom_targets("game", measure(0.299, 0.031, 0.749)) + targets.heldout_targets(
        evaluation(0.329, 0.8599, 0.86, 27, top5=0.519))
    assert [t.met for t in short] == [False, False, False, False, False, False, True, False]
    assert short[-1].shown == "27 of 40" and short[0].shown == "29.9%"
    nothing = targets.classroom_targets("check", measure(float("nan"), 0.0, float("nan")))
    assert [t.met for t in nothing] == [False, True, False] and nothing[0].shown == "–"  # no fakes: not a pass
    text = targets.report(at[:2] + short[:1])
    assert text.splitlines()[0].startswith("PASS  classroom (game): replaced words flagged")
    assert "(target >= 30%)" in text and "FAIL" in text and text.endswith("2 of 3 targets met")


@pytest.mark.slow
def test_the_whole_check_runs_on_a_pair_folder(tiny_pair_dir, tmp_path, capsys, monkeypatch):
    from training import english

    # The held-out broad English of one real source (the news articles) rather than all eleven: the same code
    # path, without fetching and cleaning ~100 MB of archives on a fresh machine.
    real = english.load_english
    monkeypatch.setattr(english, "load_english", lambda names=english.SOURCE_NAMES: real(("bbc-news",)))
    out = tmp_path / "targets.json"
    evaluation = tmp_path / "evaluate.json"
    status = main(["targets", str(tiny_pair_dir), "--blocks", "2", "--classroom-seeds", "1", "--json", str(out),
                           "--evaluation", str(evaluation)])
    found = json.loads(out.read_text())
    # the evaluation the targets were read from, as `evaluate --out` writes it
    held_out = json.loads(evaluation.read_text())
    assert set(held_out) == {"heldout_imdb", "heldout_english", "rotten_tomatoes_test", "swap_pairs",
                             "cloze_heldout_english"}
    auc = next(t for t in found if t["name"] == "ROC-AUC, IMDB")
    assert auc["figure"] == held_out["heldout_imdb"]["auc"]
    assert status == 1 and len(found) == 17  # a random tiny pair misses the detection targets
    names = [t["name"] for t in found]
    assert names.count("cloze: original word in the top 5") == 1 and "everyday table: hidden word in the top 3" in names
    top5 = next(t for t in found if t["name"] == "cloze: original word in the top 5")
    assert not top5["met"] and 0 <= top5["figure"] < 0.35  # a random generator
    assert {t["name"] for t in found} >= {"ROC-AUC, IMDB", "both folders, as stored", "classroom (check): false alarms"}
    size = next(t for t in found if t["name"] == "both folders, as stored")
    assert size["met"] and 0 < size["figure"] < 100 and not math.isnan(size["figure"])
    assert "of 17 targets met" in capsys.readouterr().out


def test_an_output_path_that_cannot_be_written_is_refused_before_measuring(tmp_path, capsys):
    for flag in ("--json", "--evaluation"):
        assert main(["targets", "no-such-pair", flag, str(tmp_path / "missing" / "out.json")]) == 2
        assert f"{flag}: the folder of" in capsys.readouterr().err
