"""The Training tab, ready for a race recorded on a borrowed GPU: the record a device run writes (its
`extras.device_run`, training/race/device_run.py) is built here in that format, from a real race's settings,
and read through the paths the tab reads: the replay, the headline, the gap per budget, the budget's label.
No GPU record is shipped, and none is faked in assets/: this one lives in the test."""

from __future__ import annotations

import dataclasses
import math

import pytest

from explainer.render import race_headline, verdict
from explainer.render.device_race import device_run_markdown
from training.race.campaign import budget_label, gaps_by_budget, on_cpu
from training.race.device_record import device_run_summary
from training.race.record import replay_snapshot, validate
from training.race.settings import default_settings

BUDGET, N_TEST = 2.1e16, 1706
RTD, MLM = 0.731, 0.689  # the final probes' accuracies


def _probe(objective: str, step: int, accuracy: float, per_step: float) -> dict:
    return {"objective": objective, "step": step, "flops": per_step * step, "tokens": 32768 * step,
            "accuracy": accuracy, "train_accuracy": accuracy + 0.02, "n_train": 6805, "n_test": N_TEST,
            "features": 256, "seconds": 9.0, "random_init": False}


def gpu_record(budget_reached: float = 1.0) -> dict:
    """A record as device_run.run_on_device writes it on an H200 (its figures are the test's own)."""
    settings = dataclasses.asdict(default_settings("small", "cuda", budget="flops", amount=BUDGET, batch_size=256,
                                                   probe_every=800))
    per_step = {"rtd": 2.21e12, "mlm": 2.05e12}
    steps = {o: math.ceil(BUDGET * budget_reached / per_step[o]) for o in per_step}
    events = {o: [{"step": s, "flops": per_step[o] * s, "wall_time": 0.07 * s, "tokens": 32768 * s,
                   "mlm_loss": 6.0 - s / 2000} for s in range(200, steps[o] + 1, 200)] + [
        {"step": steps[o], "flops": per_step[o] * steps[o], "wall_time": 0.07 * steps[o]}] for o in per_step}
    probes = [_probe("rtd", steps["rtd"], RTD, per_step["rtd"]), _probe("mlm", steps["mlm"], MLM, per_step["mlm"]),
              _probe("rtd", 800, 0.61, per_step["rtd"]), _probe("mlm", 800, 0.60, per_step["mlm"])]
    race = {"rtd": {"steps": steps["rtd"], "flops_per_second": 3.2e14, "share_of_peak": 0.40},
            "mlm": {"steps": steps["mlm"], "flops_per_second": 3.0e14, "share_of_peak": 0.375},
            "wall_seconds": 372.0, "status": "finished", "budget_reached": budget_reached,
            "flops_per_second": 3.1e14, "share_of_peak": 0.3875, "floor_accuracy": 0.55, "gap": RTD - MLM}
    device_run = {"hardware": {"name": "NVIDIA H200", "device": "GPU (NVIDIA H200), bf16 autocast"},
                  "peak": {"dtype": "bfloat16", "n": 8192, "flops_per_second": 8.0e14}, "budget_flops": BUDGET,
                  "race": race, "run_seconds": 470.0}
    return validate({
        "schema": "electra-explainer/race-record", "version": 1, "title": "ELECTRA-Small on one NVIDIA H200",
        "description": "", "settings": settings, "device": "GPU (NVIDIA H200), bf16 autocast", "status": "finished",
        "started": "2026-12-04T21:00:00+00:00", "ended": "2026-12-04T21:07:00+00:00", "elapsed": 372.0,
        "steps": steps, "events": events, "probes": probes, "floor": {**_probe("untrained", 0, 0.55, 0.0),
                                                                      "random_init": True},
        "extras": {"device_run": device_run}, "summary": {}})


def test_the_device_runs_figures_read_from_the_record():
    summary = device_run_summary(gpu_record())
    assert (summary.hardware, summary.budget_flops, summary.wall_seconds) == ("NVIDIA H200", BUDGET, 372.0)
    assert (summary.flops_per_second, summary.share_of_peak, summary.peak_flops_per_second) == (3.1e14, 0.3875, 8e14)
    assert summary.gap == pytest.approx(RTD - MLM)  # the final probes, not the ones on the way
    spread = math.sqrt(RTD * (1 - RTD) / N_TEST + MLM * (1 - MLM) / N_TEST)
    assert summary.gap_spread == pytest.approx(spread) and 0.015 < spread < 0.016
    cpu = {**gpu_record(), "extras": {}}
    assert device_run_summary(cpu) is None  # the CPU races: no machine to describe


def test_the_paragraph_names_the_machine_budget_time_share_of_peak_and_the_gap_beside_the_paper():
    text = device_run_markdown(device_run_summary(gpu_record()))
    assert text.startswith("**On one NVIDIA H200:** 2.1e16 training FLOPs per objective in 6.2 minutes")
    assert "310 TFLOP/s while training: 39% of its measured bfloat16 peak (800 TFLOP/s" in text
    assert "**+4.2 ± 1.6 points** of probe accuracy (± the probe's sampling error: one seed)" in text
    assert "ELECTRA-Small +4.8 GLUE points over BERT-Small at 1.4e18 FLOPs" in text
    cut = device_run_markdown(device_run_summary(gpu_record(budget_reached=0.8)))
    assert "1.7e16 training FLOPs per objective (80% of its planned 2.1e16: the call's deadline" in cut


def test_the_tab_leads_with_the_gpu_race_and_replays_it_first():
    from explainer.ui import replay

    record, shipped = gpu_record(), replay.recorded_races()
    leaders = race_headline.leading_races([*shipped, record])
    assert leaders == [record]  # a thousand times the CPU's budget: it leads, whatever the order
    assert sorted([*shipped, record], key=lambda r: race_headline.record_order(r, leaders))[0] is record
    text = race_headline.headline_markdown([*shipped, record], None, 8, 1.4e13)
    lead, machine = text.split("\n\n")
    assert "on a GPU" in lead and "ELECTRA's encoder pulls ahead" in lead and "+4.2 points" in lead
    assert machine.startswith("**On one NVIDIA H200:**")
    done = replay_snapshot(record, 1)
    assert [e.step for e in done["events"]["rtd"]][-1] == record["steps"]["rtd"] and len(done["probes"]) == 4


def test_a_gpu_budget_is_not_labelled_in_cpu_minutes_and_its_gap_is_measured():
    record = gpu_record()
    assert not on_cpu(record["settings"], record["device"])
    assert budget_label(record["settings"], record["device"], record["elapsed"]) == "2.1e16 FLOPs (6 min)"
    assert budget_label(record["settings"], record["device"]) == "2.1e16 FLOPs"  # never "~11,429 min"
    cpu = {**record["settings"], "device": "auto", "amount": 1.4e13}
    assert budget_label(cpu, "CPU (2 threads); no CUDA device found") == budget_label(cpu) == "1.4e13 FLOPs (~8 min)"
    assert not on_cpu(cpu, "GPU (NVIDIA H200), bf16 autocast") and on_cpu({"device": "cpu"}, "GPU (NVIDIA H200)")
    groups = gaps_by_budget(None, [record])
    assert [(g["flops"], g["n"], g["sources"]) for g in groups] == [(BUDGET, 1, ["a race on NVIDIA H200"])]
    assert groups[0]["mean"] == pytest.approx(RTD - MLM)
    assert "2.1e16 FLOPs (NVIDIA H200): +4.2 points (1 seed)" in verdict.gaps_caption(groups)
    assert gaps_by_budget(None, [{**record, "extras": {}}]) == []  # the same recipe off a device run: not a default
