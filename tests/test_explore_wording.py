"""Explore's small print: a local model is named without the server's path, and the false alarms are counted in
words ("no false alarms", "1 false alarm", "2 false alarms")."""

from __future__ import annotations

import re

import pytest

from explainer.core import models
from explainer.core.pipeline import Settings, explain
from explainer.render import explore as render


def _text(markup: str) -> str:
    return re.sub(r"<[^>]+>", "", markup)


def test_a_race_folder_is_named_from_its_root_never_by_its_absolute_path(tmp_path, monkeypatch):
    races = tmp_path / "audit_races"
    monkeypatch.setenv("ELECTRA_RACE_DIR", str(races))
    assert models.shown_name(str(races / "race-20261205-034625-tiny-seed0" / "rtd")) == \
        "audit_races/race-20261205-034625-tiny-seed0/rtd"
    assert models.shown_name(str(tmp_path / "elsewhere" / "pair")) == "elsewhere/pair"  # outside every root
    assert models.shown_name("bundled") == "bundled" and models.shown_name("google/electra-small") == \
        "google/electra-small"


@pytest.mark.slow  # imports the gradio page: about 4 s alone
def test_the_model_line_shows_no_server_path(tiny_pair_dir, monkeypatch):
    from explainer.ui import explore

    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tiny_pair_dir.parent))
    line, _ = explore.model_status(str(tiny_pair_dir))
    assert f"Model {tiny_pair_dir.parent.name}/{tiny_pair_dir.name}: discriminator" in _text(line)
    assert str(tiny_pair_dir.parent) not in line


@pytest.mark.parametrize("alarms, words", [(0, "raised no false alarms."), (1, "raised 1 false alarm."),
                                           (2, "raised 2 false alarms.")])
def test_the_false_alarms_are_counted_in_words(tiny_pair, monkeypatch, alarms, words):
    explanation = explain(tiny_pair, "The old fisherman repaired his boat.", Settings(seed=1))
    score = {**explanation.score(), "false_alarms": alarms}
    monkeypatch.setattr(type(explanation), "score", lambda self, threshold=0.5: score)
    line = _text(render.score_html(explanation))
    assert words in line and "(s)" not in line
