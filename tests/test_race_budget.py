"""The race's budgets and their bound: what a server allows, what the command line may, which corpora a race
takes, and a clear message for the rest. Offline, one thread."""

from __future__ import annotations

import math

import pytest
from race_base import LIMITS, tiny

from training.race.manager import RaceBusy, RaceManager

pytestmark = pytest.mark.slow  # as in test_race.py, where these were; no race runs here, the tab's test takes ~2 s


# --- budgets and their bound ------------------------------------------------------------------------

@pytest.mark.parametrize("budget, amount, message", [
    ("minutes", 2.5, "at most 2 minutes"),
    ("steps", 100_001, "at most 100000 steps"),
    ("flops", 2e13, "at most 1e\\+13 flops"),
    ("minutes", 0, "positive number"),
    ("steps", -3, "positive number"),
    ("flops", math.nan, "positive number"),
    ("hours", 1, "counted in minutes, steps, flops"),
])
def test_the_server_bounds_the_budget(budget, amount, message):
    with pytest.raises(ValueError, match=message):
        tiny(budget=budget, amount=amount).validate(LIMITS)


@pytest.mark.parametrize("changes, message", [
    (dict(generator_hidden=0), "generator hidden must be a whole number from 1 to 1024"),
    (dict(generator_layers=99), "generator layers must be a whole number from 1 to 24"),
    (dict(temperature=0), "temperature must be a number above 0"),
    (dict(temperature=math.inf), "temperature must be a number above 0"),
])
def test_generator_overrides_are_bounded(changes, message):
    with pytest.raises(ValueError, match=message):
        tiny(**changes).validate(LIMITS)
    assert tiny(generator_hidden=24).train_config("rtd").generator_hidden == 24


def test_budgets_reach_the_trainer_and_the_bound_stops_every_race():
    steps = tiny(budget="steps", amount=40).train_config("rtd", LIMITS)
    assert (steps.max_steps, steps.max_flops, steps.max_minutes) == (40, None, 2)  # the wall-clock bound still holds
    minutes = tiny(budget="minutes", amount=1.5).train_config("mlm", LIMITS)
    assert (minutes.max_steps, minutes.max_minutes, minutes.objective) == (None, 1.5, "mlm")
    assert tiny(budget="flops", amount=3e9).train_config("rtd").max_flops == 3e9
    assert tiny(budget="flops", amount=3e9).train_config("rtd").max_minutes is None  # the CLI: no bound
    with pytest.raises(ValueError, match="unknown preset 'base'"):
        tiny(preset="base").validate(LIMITS)  # a server offers tiny, mini, small only
    tiny(preset="base").validate()  # the CLI may use any preset


@pytest.mark.parametrize("corpus", ["english", "imdb", "english+imdb", "imdb + english", "/tmp/up/corpus.jsonl",
                                    "mine.TXT"])
def test_built_in_corpora_and_text_files_are_accepted(corpus):
    tiny(corpus=corpus).validate(LIMITS)  # the server
    tiny(corpus=corpus).validate()  # the CLI
    assert tiny(corpus=corpus).train_config("rtd", LIMITS).corpus == corpus  # what the trainer loads


@pytest.mark.parametrize("corpus, message", [
    ("wikipedia",
     "unknown corpus 'wikipedia'; choose imdb or english (or both, joined by +), or a .txt or .jsonl file"),
    ("english+books", "unknown corpus 'books'"),
    ("English", "unknown corpus 'English'"),
    ("", "corpus '': name each part once, joined by + (e.g. english+imdb)"),
    ("english+", "corpus 'english+': name each part once"),
    ("imdb+imdb", "corpus 'imdb+imdb': name each part once"),
])
def test_an_unknown_corpus_is_a_clear_error(tmp_path, corpus, message):
    for limits in (LIMITS, None):
        with pytest.raises(ValueError) as error:
            tiny(corpus=corpus).validate(limits)
        assert message in str(error.value)
    manager = RaceManager(tmp_path, LIMITS)
    with pytest.raises(ValueError, match="corpus"):
        manager.start(tiny(corpus=corpus))
    assert manager.race is None and not any(tmp_path.iterdir())


def test_only_the_cli_may_name_any_existing_file(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("a document\n", encoding="utf-8")
    tiny(corpus=str(notes)).validate()  # the CLI user's own file
    with pytest.raises(ValueError, match="unknown corpus"):
        tiny(corpus=str(notes)).validate(LIMITS)  # a server reads built-ins and uploads only


def test_the_tab_offers_broad_english_and_passes_the_choice_on(monkeypatch):
    """The Training tab's corpus choice reaches the race's settings; nothing is started (a stand-in manager)."""
    from explainer.ui import races, training_tab

    assert ("Built-in broad English (news, encyclopedia, books, conversation)", "english") in training_tab.CORPORA
    asked = []

    class Recorder:
        max_upload_bytes = 2**20

        def start(self, settings, upload=None):
            settings.validate(LIMITS)
            asked.append((settings.corpus, upload))
            raise RaceBusy("recorded, not started")

    monkeypatch.setattr(races, "MANAGER", Recorder())
    for corpus in ("imdb", "english"):
        shown = training_tab.start_race("tiny", "steps", 10, corpus, "ignored.txt", 0, "cpu", "flops", 64, 8, 2e-3, 0)
        assert "recorded, not started" in shown
    assert asked == [("imdb", None), ("english", None)]  # a built-in text ignores a leftover upload
    shown = training_tab.start_race("tiny", "steps", 10, "upload", "/tmp/mine.txt", 0, "cpu", "flops", 64, 8, 2e-3, 0)
    assert asked[-1] == ("imdb", "/tmp/mine.txt")  # the manager swaps in its private copy of the upload
    for hostile in ("/etc/passwd", "english+imdb", None, ["imdb"]):  # only the offered values, never a path
        shown = training_tab.start_race("tiny", "steps", 10, hostile, None, 0, "cpu", "flops", 64, 8, 2e-3, 0)
        assert "ee-error" in shown and "pick a built-in text" in shown
    assert len(asked) == 3


def test_the_manager_refuses_a_budget_over_the_bound(tmp_path):
    manager = RaceManager(tmp_path, LIMITS)
    with pytest.raises(ValueError, match="at most 2 minutes"):
        manager.start(tiny(budget="minutes", amount=10))
    assert manager.race is None and not manager.busy() and not any(tmp_path.iterdir())
