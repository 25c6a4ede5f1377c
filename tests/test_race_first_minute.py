"""The Training tab's first minute: loading is shown, ticking, and kept off the race's clock; the budget box
follows its unit; after a Stop the page says what was kept and promises no probe. The race runs a fake trainer
on a fake clock (no model, no sleeping), so the figures are exact."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

import training.race.run as race_module
from training.events import TrainEvent
from explainer.render.training import payoff_figure, status_html
from explainer.ui import race_budget, training_tab
from training.race.run import Race
from training.race.settings import RaceLimits, RaceSettings

LOAD = {"rtd": 30.0, "mlm": 2.0}  # seconds each trainer spends loading the text and building its model


@pytest.fixture
def clock(monkeypatch):
    """run.py's clock, moved by hand."""
    fake = SimpleNamespace(now=100.0)
    fake.perf_counter = lambda: fake.now
    monkeypatch.setattr(race_module, "time", fake)
    return fake


def _fake_race(tmp_path, monkeypatch, clock, seen: list) -> Race:
    """A 3-step race whose trainers take LOAD seconds to set up and 1 s per step; `seen` gets the race's status
    line and the tab's redraw key while each one loads, and a second later."""
    race_holder = []

    def fake_train(config, folder, stop=lambda: False):
        race = race_holder[0]
        for _ in range(int(LOAD[config.objective])):
            clock.now += 1
            seen.append((config.objective, race.elapsed(), status_html(race.snapshot()), training_tab._version(race)))
        for step in range(1, 4):
            if stop():
                return
            clock.now += 1
            yield TrainEvent(step=step, tokens=64 * step, flops=1e9 * step, wall_time=float(step),
                             supervised_positions=64 * step)

    monkeypatch.setattr(race_module, "train", fake_train)
    settings = RaceSettings(preset="tiny", budget="steps", amount=3, probe_every=0, device="cpu", threads=1)
    race_holder.append(Race(settings, tmp_path))
    return race_holder[0]


def test_loading_ticks_on_the_page_and_stays_off_the_race_clock(tmp_path, monkeypatch, clock):
    seen = []
    race = _fake_race(tmp_path, monkeypatch, clock, seen)
    race.run()
    rtd_loading = [s for s in seen if s[0] == "rtd"]
    objective, elapsed, status, key = rtd_loading[11]
    assert elapsed == 0.0 and key.endswith("+12")  # 12 s into loading: the race clock has not moved
    assert ("● Getting ready: loading the text and building ELECTRA's generator and discriminator… 0:12 (not on "
            "the race's clock)") in status
    assert rtd_loading[12][3].endswith("+13")  # a second later the page has something new to draw
    mlm = [s for s in seen if s[0] == "mlm"][-1]
    assert "Getting ready: building the BERT-style model… 0:02" in mlm[2] and "RTD step 1" in mlm[2]
    assert mlm[1] == 1.0  # RTD's first step is on the clock; both loadings are not
    assert race.loading() is None and race.loading_seconds() == sum(LOAD.values())
    assert race.elapsed() == 6.0  # 3 steps each, 1 s apiece: 38 s of wall time less 32 s of loading
    assert race.runners["rtd"].events[0].compute_seconds == 1.0


def test_after_a_stop_the_page_says_what_was_kept_and_promises_no_probe(tmp_path, monkeypatch, clock):
    seen = []
    race = _fake_race(tmp_path, monkeypatch, clock, seen)
    race.stop()  # before the first step
    race.run()
    snapshot = race.snapshot()
    status = status_html(snapshot)
    assert "■ Stopped after 0:00" in status and "kept: both models as trained so far" in status
    assert "no probe had run yet (none runs after a Stop)" in status and "Stopping" not in status
    notes = " ".join(a.text for a in payoff_figure(snapshot).layout.annotations)
    assert "none runs after a Stop" in notes and "at the end" not in notes
    running = {**snapshot, "status": "running", "stopping": True, "probes": [], "settings": {"probe_every": 300}}
    assert "at the end" not in " ".join(a.text for a in payoff_figure(running).layout.annotations)
    waiting = {**running, "stopping": False}  # a race that goes on still promises its probes
    assert "every 300 steps and at the end" in " ".join(a.text for a in payoff_figure(waiting).layout.annotations)


@pytest.mark.parametrize("unit, amount, previous, preset, expected", [
    ("minutes", "1.4e13", "flops", "mini", "8"),  # the default race, measured: 1.4e13 FLOPs each took 8 minutes
    ("flops", "16", "minutes", "mini", "2.8e13"),
    ("steps", "8", "minutes", "mini", "500"),
    ("minutes", "2.5e13", "flops", "mini", "14.3"),
    ("minutes", "not a number", "flops", "mini", "8"),  # nothing to convert: the unit's starting value
    ("minutes", "1e17", "flops", "mini", "30"),  # never over the server's limit
    ("minutes", "300", "steps", "tiny", "1"),  # no measured exchange for tiny: a starting value
    ("steps", "1", "minutes", "tiny", "300"),  # the preset's own default in its own unit
])
def test_the_budget_box_follows_its_unit(unit, amount, previous, preset, expected):
    assert race_budget.unit_changed(unit, amount, previous, preset) == {"amount": expected, "unit": unit}


def test_a_finished_races_files_are_handed_to_gradio_from_the_temp_folder(tmp_path):
    """Races live in the cache folder, where gradio serves no file: a redraw handing it such a path failed, and
    the page froze on "Stopping…". The files go out from the temp folder instead, fresh when they change."""
    race = tmp_path / "race-1"
    race.mkdir()
    (race / "metrics.csv").write_text("step\n1\n")
    served = training_tab.servable(race / "metrics.csv")
    assert served.startswith(str(training_tab.DOWNLOADS)) and served.endswith("/metrics.csv") and "/race-1-" in served
    assert open(served).read() == "step\n1\n"
    (race / "metrics.csv").unlink()
    (race / "metrics.csv").write_text("step\n1\n2\n")
    os.utime(race / "metrics.csv", (2e9, 2e9))
    assert open(training_tab.servable(race / "metrics.csv")).read() == "step\n1\n2\n"


def test_the_tab_redraws_by_name_and_only_what_moved(monkeypatch):
    monkeypatch.setattr(training_tab.races, "MANAGER", SimpleNamespace(race=None, job=None, limits=RaceLimits()))
    first = training_tab.refresh("step", None)  # no race yet: the empty charts, the buttons asleep
    assert "No race yet" in first["status"] and not first["csv_button"]["interactive"] and "message" not in first
    assert first["stop"]["interactive"] is False and first["stop"]["variant"] == "secondary"  # nothing to stop
    assert first["start"]["interactive"] is True and first["start"]["variant"] == "primary"  # a start is taken
    assert training_tab.refresh("step", first["shown"]) == {}  # nothing moved: nothing is sent again
    assert training_tab.refresh("flops", first["shown"])["shown"] != first["shown"]  # another axis: redrawn
    preset = training_tab.preset_changed("mini")
    assert preset["unit"] == preset["budget"] == "flops" and "Default budget" in preset["preset_note"]
