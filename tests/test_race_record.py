"""Race records: built from a real tiny race, thinned, checked on load, replayed at any position, listed
and drawn by the Training tab's replay handlers; every shipped record loads and replays to its end."""

from __future__ import annotations

import json
import math

import pytest
from race_base import TINY

from training.events import TrainEvent
from training.race.record import (
    MAX_EVENTS,
    SCHEMA,
    VERSION,
    RecordError,
    build_record,
    list_records,
    load_record,
    replay_snapshot,
    thin_events,
    total_level,
    validate,
    write_record,
)
from training.race.run import OBJECTIVES, Race

pytestmark = pytest.mark.slow  # a real race: seconds each


@pytest.fixture(scope="module")
def race(tmp_path_factory) -> Race:
    """A 12-step tiny race, probed at steps 5, 10 and 12."""
    race = Race(TINY, tmp_path_factory.mktemp("race"))
    race.run()
    return race


@pytest.fixture(scope="module")
def record(race) -> dict:
    return build_record(race.folder, description="A tiny race for the tests.")


def _events(n: int) -> list[TrainEvent]:
    return [TrainEvent(step=s, tokens=100 * s, supervised_positions=15 * s, flops=1e9 * s, wall_time=0.5 * s,
                       mlm_loss=float(s), disc_auc=0.5) for s in range(1, n + 1)]


def _typed(record: dict) -> dict:
    """A record's points as the replay hands them out: typed events."""
    return {o: [TrainEvent.from_dict(point) for point in points] for o, points in record["events"].items()}


# --- building -------------------------------------------------------------------------------------------

def test_a_record_holds_every_step_of_a_short_race_and_its_probes(race, record):
    assert validate(record) is record and record["schema"] == SCHEMA and record["version"] == VERSION
    for objective in OBJECTIVES:
        live = race.runners[objective].events
        assert [e["step"] for e in record["events"][objective]] == [e.step for e in live]  # under MAX_EVENTS: all
        assert record["events"][objective][-1]["flops"] == pytest.approx(live[-1].flops)
        assert record["steps"][objective] == live[-1].step == 12
    assert record["events"]["rtd"][3]["mlm_loss"] == pytest.approx(race.runners["rtd"].events[3].mlm_loss)
    assert sorted((p["objective"], p["step"]) for p in record["probes"]) == sorted(
        (p.objective, p.step) for p in race.probes)
    assert record["floor"]["accuracy"] == pytest.approx(race.floor.accuracy)
    assert record["status"] == "finished" and record["elapsed"] > 0 and record["device"] == race.device
    assert record["title"] == "12 steps each, seed 0, 0 min" and record["description"] == "A tiny race for the tests."


def test_thinning_keeps_the_last_step_and_averages_the_noisy_metrics():
    events = _events(1003)
    thin = thin_events(events)
    assert len(thin) <= MAX_EVENTS and thin[-1]["step"] == 1003 and thin[-1]["flops"] == 1003e9
    stride = thin[0]["step"]  # the first point stands for steps 1..stride
    assert stride == math.ceil(1003 / MAX_EVENTS) == 3
    assert thin[0]["mlm_loss"] == pytest.approx((1 + 2 + 3) / 3)  # the mean over its steps, not step 3's value
    assert thin[1]["step"] == 6 and thin[1]["mlm_loss"] == pytest.approx(5.0)
    assert thin[0]["tokens"] == 300 and thin[0]["disc_auc"] == 0.5
    assert [TrainEvent.from_dict(p) for p in thin_events(events[:50])] == events[:50]  # short: unchanged
    assert thin_events([]) == []


def test_a_folder_without_a_race_is_a_clear_error(tmp_path):
    with pytest.raises(RecordError, match="no readable race.json"):
        build_record(tmp_path)
    (tmp_path / "race.json").write_text(json.dumps({"settings": TINY.__dict__}))
    with pytest.raises(RecordError, match="neither objective logged a step"):
        build_record(tmp_path)


def test_the_cli_writes_a_record_that_loads(race, tmp_path, capsys):
    from training.__main__ import main

    main(["record", str(race.folder), "--out", str(tmp_path / "races" / "tiny.json"), "--title", "Tiny <b>race</b>"])
    assert "rtd: 12 points of 12 steps" in capsys.readouterr().out
    loaded = load_record(tmp_path / "races" / "tiny.json")
    assert loaded["title"] == "Tiny <b>race</b>"
    assert list_records(tmp_path / "races") == [("Tiny <b>race</b>", tmp_path / "races" / "tiny.json")]


# --- loading: corrupt and foreign files -----------------------------------------------------------------

def _broken(record: dict, change) -> dict:
    copy = json.loads(json.dumps(record))
    change(copy)
    return copy


BROKEN = {
    "foreign schema": (lambda r: r.update(schema="something/else"), "not a race record of this app"),
    "newer version": (lambda r: r.update(version=VERSION + 1), "made by a newer version"),
    "no version": (lambda r: r.pop("version"), "without a valid version"),
    "no events": (lambda r: r.pop("events"), "'events' is missing"),
    "no rtd list": (lambda r: r["events"].pop("rtd"), "no event list for 'rtd'"),
    "steps go back": (lambda r: r["events"]["mlm"].reverse(), "steps do not increase"),
    "text number": (lambda r: r["events"]["rtd"][2].update(mlm_loss="low"), "non-number 'mlm_loss'"),
    "infinite": (lambda r: r["events"]["rtd"][2].update(flops=float("inf")), "lacks step, flops or wall_time"),
    "bad probe": (lambda r: r["probes"][0].pop("accuracy"), "probe 1 lacks"),
    "bad pace": (lambda r: r["settings"].update(pace="fast"), "unknown pace 'fast'"),
    "empty": (lambda r: r["events"].update(rtd=[], mlm=[]), "an empty race record"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_damaged_or_foreign_record_is_refused_with_its_reason(record, tmp_path, case):
    change, message = BROKEN[case]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_broken(record, change)))
    with pytest.raises(RecordError, match=f"bad.json: .*{message}"):
        load_record(path)
    assert list_records(tmp_path) == []  # left out of the replay list, never a crash


@pytest.mark.parametrize("content, message", [
    (b"{not json", "invalid JSON"), (b"[1, 2]", "no JSON object"), (b"\xff\xfe\x00binary", "not UTF-8"),
])
def test_a_file_that_is_not_json_is_refused(tmp_path, content, message):
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=message):
        load_record(path)


def test_a_missing_or_huge_file_is_refused(tmp_path, monkeypatch):
    with pytest.raises(RecordError, match="cannot be read"):
        load_record(tmp_path / "absent.json")
    monkeypatch.setattr("training.race.record.MAX_BYTES", 10)
    (tmp_path / "big.json").write_text(json.dumps({"schema": SCHEMA}))
    with pytest.raises(RecordError, match="far too large"):
        load_record(tmp_path / "big.json")


# --- replaying ------------------------------------------------------------------------------------------

def test_replay_cuts_both_objectives_at_one_level_of_the_pace(record):
    record = _broken(record, lambda r: r["settings"].update(pace="steps"))  # as a race kept level on steps
    end = total_level(record)
    assert end == 12
    start = replay_snapshot(record, 0)
    assert start["events"] == {"rtd": [], "mlm": []} and start["probes"] == [] and start["floor"] is None
    assert start["status"] == "running" and start["progress"] == 0
    half = replay_snapshot(record, 0.5)
    assert [e.step for e in half["events"]["rtd"]] == [1, 2, 3, 4, 5, 6] == [e.step for e in half["events"]["mlm"]]
    assert sorted(p.step for p in half["probes"]) == [5, 5] and half["floor"] is not None
    assert half["elapsed"] == max(half["events"][o][-1].wall_time for o in OBJECTIVES)
    done = replay_snapshot(record, 1)
    assert done["events"] == _typed(record) and len(done["probes"]) == len(record["probes"])
    assert done["status"] == "finished" and done["elapsed"] == record["elapsed"]
    for wild, expected in ((-3, 0.0), (7, 1.0), (float("nan"), 0.0), ("x", 0.0)):
        assert replay_snapshot(record, wild)["progress"] == expected


def test_a_flops_paced_record_replays_by_flops(record):
    flops = record
    assert flops["settings"]["pace"] == "flops"
    cut = replay_snapshot(flops, 0.5)
    half = total_level(flops) / 2
    assert all(e.flops <= half for o in OBJECTIVES for e in cut["events"][o])
    assert all(p.flops <= half for p in cut["probes"])
    assert len(cut["events"]["rtd"]) < len(flops["events"]["rtd"])


def test_the_views_draw_every_point_of_a_replay(record):
    from explainer.render import training as view

    snapshot = replay_snapshot(record, 1)
    curves = view.curves_figure(snapshot, "flops")
    assert len(curves.data[0].x) == len(record["events"]["mlm"])
    assert len(curves.data[1].x) == len(record["events"]["rtd"])
    payoff = view.payoff_figure(snapshot)
    assert sum(len(t.x) for t in payoff.data if "linear probe" in (t.name or "")) == len(record["probes"])
    html = view.replay_status_html(replay_snapshot(record, 0.5), {**record, "title": "<script>x</script>"}, True)
    assert "▶ Replaying · 50% · RTD step 6 · MLM step" in html and "<script>" not in html
    assert "&lt;script&gt;" in html and "2 probes so far" in html
    assert "✓ End of the recording · 100%" in view.replay_status_html(snapshot, record, False)
    assert "⏸ Paused" in view.replay_status_html(replay_snapshot(record, 0.3), record, False)


# --- the Training tab's replay handlers -----------------------------------------------------------------

@pytest.fixture()
def tab(record, tmp_path, monkeypatch):
    from explainer.ui import replay

    write_record(record, tmp_path / "tiny.json")
    monkeypatch.setattr(replay, "RECORDS_DIR", tmp_path)
    replay._records.clear()
    return replay


def test_play_follows_the_clock_at_the_chosen_speed_pauses_and_stops_at_the_end(tab, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(tab.time, "monotonic", lambda: clock[0])
    played = tab.replay_play("tiny.json", 100, 30, "step", None)
    assert played["scrubber"] == 0 and played["anchor"] == {"t0": 1000.0, "p0": 0.0, "speed": 30.0}  # from the start
    assert played["timer"].active is True and played["play"]["value"] == "⏸ Pause"
    assert "Replaying · 0%" in played["status"]
    assert set(played) == {"scrubber", "status", "curves", "supervised", "payoff", "anchor", "timer", "play"}
    anchor = played["anchor"]
    clock[0] += 6  # 6 s of a 30 s replay, however many ticks were skipped
    tick = tab.replay_tick("tiny.json", 3.3, 30, "step", anchor)
    assert tick["scrubber"] == pytest.approx(20) and "Replaying · 20%" in tick["status"]
    assert not {"anchor", "timer", "play"} & set(tick)  # a tick in flight never undoes a pause
    tick = tab.replay_tick("tiny.json", 20, 10, "step", anchor)  # a new speed: from here
    assert tick["scrubber"] == 20 and tick["anchor"] == {"t0": 1006.0, "p0": 20.0, "speed": 10.0}
    clock[0] += 9
    tick = tab.replay_tick("tiny.json", 90, 10, "step", tick["anchor"])
    assert tick["scrubber"] == 100 and tick["anchor"] is None and tick["timer"].active is False
    assert tick["play"]["value"] == "▶ Play" and "End of the recording · 100%" in tick["status"]
    paused = tab.replay_play("tiny.json", 40, 30, "step", {"t0": 0, "p0": 0, "speed": 30})  # pressing again pauses
    assert "scrubber" not in paused and paused["anchor"] is None and paused["timer"].active is False
    assert "Paused · 40%" in paused["status"]
    page = type("Request", (), {"session_hash": "page-1"})()
    playing = tab.replay_play("tiny.json", 40, 30, "step", None, page)["anchor"]
    tab.replay_play("tiny.json", 40, 30, "step", playing, page)  # paused while a tick was on its way
    assert tab.replay_tick("tiny.json", 40, 30, "step", playing, page) == {}  # it draws nothing
    stray = tab.replay_tick("tiny.json", 40, 30, "step", None)  # a tick after the pause: nothing moves
    assert "scrubber" not in stray and stray["timer"].active is False
    scrubbed = tab.replay_scrubbed("tiny.json", 75, 30, "step", {"t0": 0, "p0": 0, "speed": 30})
    assert "Replaying · 75%" in scrubbed["status"] and scrubbed["anchor"]["p0"] == 75  # playing goes on from there
    other = tab.replay_other_record("tiny.json", 30, "step")
    assert other["scrubber"] == 100 and other["anchor"] is None and "100%" in other["status"]


def test_frames_are_drawn_on_a_grid_and_shared(tab):
    first = tab.replay_views("tiny.json", 50.1, "step", False)
    again = tab.replay_views("tiny.json", 49.9, "step", True)
    assert first["curves"] is again["curves"] and first["payoff"] is again["payoff"]  # one frame (50%): built once
    assert "50%" in first["status"] and "Paused" in first["status"] and "Replaying" in again["status"]


@pytest.mark.parametrize("name", ["../tiny.json", "absent.json", "/etc/passwd", "", None])
def test_only_listed_records_are_read(tab, name):
    shown = tab.replay_views(name, 50, "step", False)
    assert "choose one from the list" in shown["status"] and set(shown) == {"status"}  # the charts stay


def test_the_list_offers_shipped_records_and_the_live_switch(tab, monkeypatch):
    from explainer.ui import training_tab

    assert tab.record_choices()[0][1] == "tiny.json"
    for value, expected in (("0", False), ("1", True)):
        monkeypatch.setenv("ELECTRA_LIVE_RACES", value)
        assert training_tab.live_races() is expected
    monkeypatch.delenv("ELECTRA_LIVE_RACES")
    monkeypatch.delenv("SPACE_ID", raising=False)
    assert training_tab.live_races() is True
    monkeypatch.setenv("ELECTRA_LIVE_RACES", "0")
    assert "replay a recorded race" in training_tab.start_race("mini", "flops", 1e12, "imdb", None, 0, "cpu", "flops",
                                                               128, 32, 1e-3, 0)


# --- what ships -----------------------------------------------------------------------------------------

def test_every_shipped_record_loads_and_replays_to_its_end():
    from explainer.ui.replay import RECORDS_DIR

    paths = sorted(RECORDS_DIR.glob("*.json"))
    assert paths, "assets/races/ holds no record"
    for path in paths:
        record = load_record(path)
        assert path.stat().st_size < 1 * 2**20  # small text files
        assert all(0 < len(record["events"][o]) <= MAX_EVENTS for o in OBJECTIVES)
        assert record["probes"] and record["floor"] and record["status"] == "finished"
        done = replay_snapshot(record, 1)
        assert done["events"] == _typed(record) and done["status"] == "finished"


# --- the gap across budgets -----------------------------------------------------------------------------

def _campaign_entry(amount: float, gaps: list[float], **changes) -> dict:
    from training.race.settings import default_settings

    settings = {**default_settings("mini", "cpu").__dict__, "budget": "flops", "amount": amount, **changes}
    return {"name": "x", "settings": settings, "seeds": [{"rtd_minus_mlm": g} for g in gaps]}


def _recorded(amount: float, rtd: float, mlm: float, **changes) -> dict:
    from training.race.settings import default_settings

    settings = {**default_settings("mini", "cpu").__dict__, "budget": "flops", "amount": amount, **changes}
    probes = [{"objective": "rtd", "step": 10, "flops": 1, "accuracy": 0.5}, {"objective": "rtd", "step": 90,
              "flops": 2, "accuracy": rtd}, {"objective": "mlm", "step": 99, "flops": 2, "accuracy": mlm}]
    return {"settings": settings, "probes": probes}


def test_gaps_group_the_default_recipe_by_budget_from_the_campaign_and_the_records():
    from training.race.campaign import final_gap, gaps_by_budget

    campaign = {"settings": [_campaign_entry(1.4e13, [0.01, 0.03]), _campaign_entry(1.4e13, [0.2], temperature=1.0),
                             _campaign_entry(2.5e13, [-0.01])]}
    records = [_recorded(5e13, 0.60, 0.58), _recorded(5e13, 0.61, 0.57), _recorded(1.4e13, 0.55, 0.55),
               _recorded(5e13, 0.9, 0.1, lr=0.5)]  # another recipe: left out
    assert final_gap(records[0]) == pytest.approx(0.02)  # the last probe of each, not the first
    groups = gaps_by_budget(campaign, records)
    assert [g["flops"] for g in groups] == [1.4e13, 2.5e13, 5e13]
    first, second, third = groups
    assert first["gaps"] == pytest.approx([0.01, 0.03, 0.0]) and first["n"] == 3
    assert first["sources"] == ["measurement campaign", "recorded races"]
    assert first["mean"] == pytest.approx(0.04 / 3) and first["sd"] == pytest.approx(0.015275, rel=1e-3)
    assert second["n"] == 1 and second["sd"] == 0.0
    assert third["gaps"] == pytest.approx([0.02, 0.04]) and third["mean"] == pytest.approx(0.03)
    assert gaps_by_budget(None, []) == [] and gaps_by_budget({"settings": [{"bad": 1}]}, [{"probes": []}]) == []


def test_the_gap_chart_and_the_efficiency_view_show_the_shipped_races_and_yours():
    from explainer.render import efficiency, verdict

    groups = [{"flops": 1.4e13, "gaps": [0.01, 0.03], "mean": 0.02, "sd": 0.014, "n": 2, "sources": []}]
    figure = verdict.gap_figure(groups, {"flops": 2e13, "gap": -0.01})
    names = [t.name for t in figure.data]
    assert names[:3] == ["one race (one seed)", "this app's races: mean ± sd over seeds", "your race (Training tab)"]
    assert list(figure.data[0].y) == [1.0, 3.0] and list(figure.data[2].y) == [-1.0]
    assert [round(y, 1) for y in figure.data[3].y] == [4.8, 2.9]  # the paper's same-compute pairs
    assert "1.4e13 FLOPs: +2.0 ± 1.4 points over 2 seeds" in verdict.gaps_caption(groups)
    shipped = efficiency.efficiency_figure(None, groups)
    assert "measured, shipped" in shipped.layout.annotations[1].text
    assert not any("No race yet" in (a.text or "") for a in shipped.layout.annotations)
    yours = efficiency.efficiency_figure({"rtd": {"flops": 2e13, "accuracy": 0.6},
                                          "mlm": {"flops": 2e13, "accuracy": 0.58}}, groups)
    assert "★ yours" in yours.layout.annotations[1].text
    assert [round(y, 1) for y in yours.data[-1].y] == [2.0]


def test_the_shipped_measurements_include_the_campaign_budgets():
    from explainer.ui.replay import measured_gaps

    budgets = [g["flops"] for g in measured_gaps()]
    assert 1.4e13 in budgets and 2.5e13 in budgets
