"""The race a borrowed GPU runs in one call (training/race/device_run.py, bench/gpu_race.sh): its budget sized from
timed steps (training/race/sizing.py), and the whole call run here on the CPU, tiny, as the device will run it."""

from __future__ import annotations

import gzip
import importlib.util
import json
import math
import os
import re
import subprocess
import sys

import pytest
import torch

from explainer.render.device_race import device_run_markdown
from training.project import PROJECT
from training.race.campaign import final_gap
from training.race.device_record import device_run_summary
from training.race.timing import matmul_peak
from training.race.record import load_record
from training.race.settings import RaceSettings
from training.race.sizing import Calibration, flops_text, plan_budget, round_down


def calibration(objective: str, flops: float, seconds: float, setup: float = 5.0, save: float = 1.0) -> Calibration:
    return Calibration(objective, 20, flops, seconds, 256 * 128, setup, save)


RATES = [calibration("rtd", 1e12, 0.05), calibration("mlm", 0.7e12, 0.03)]  # 2e13 and 2.33e13 FLOP/s


@pytest.mark.parametrize("value, expected", [(2.47e16, 2.4e16), (1e16, 1e16), (9.99, 9.9), (123456, 120000),
                                             (3.0e-3, 3.0e-3)])
def test_a_budget_is_rounded_down_to_two_digits(value, expected):
    assert round_down(value) == expected


@pytest.mark.parametrize("value", [0, -1.0, math.nan, math.inf])
def test_only_a_positive_number_is_rounded(value):
    with pytest.raises(ValueError, match="a positive number"):
        round_down(value)


def test_the_plan_spends_the_time_left_after_setup_saves_and_probes_with_a_margin():
    plan = plan_budget(RATES, probe_seconds=4.0, seconds_left=300.0, probes=6, margin=0.15)
    # 15 probes (7 per objective, the floor) x 4 s + 14 saves x 1 s + 2 setups x 5 s = 84 s of overhead;
    # (300 - 84) / 1.15 = 187.8 s of training = budget x (1 / 2e13 + 1 / 2.33e13) -> 2.02e15, rounded down.
    assert (plan.overhead_seconds, plan.probes, plan.budget_flops) == (84.0, 15, 2.0e15)
    assert plan.steps == {"rtd": 2000, "mlm": 2858} and plan.probe_every == math.ceil(2858 / 6)
    assert plan.train_seconds == pytest.approx(2e15 * (0.05 / 1e12 + 0.03 / 0.7e12))
    assert plan.seconds == pytest.approx(plan.train_seconds + 84.0) and plan.seconds * 1.15 <= 300.0 + 84.0 * 0.15
    assert plan_budget(RATES, 4.0, 600.0).budget_flops > plan.budget_flops


@pytest.mark.parametrize("calibrations, seconds, message", [
    (RATES, 80.0, "no time to train"),
    (RATES[:1], 300.0, "a calibration of each objective"),
])
def test_a_plan_that_cannot_be_made_says_why(calibrations, seconds, message):
    with pytest.raises(ValueError, match=message):
        plan_budget(calibrations, 4.0, seconds)


def test_the_peak_on_a_cpu_is_a_float32_product_and_budgets_read_as_people_write_them():
    peak = matmul_peak("cpu", n=128, reps=2)
    assert (peak["dtype"], peak["n"], peak["reps"]) == ("float32", 128, 2) and peak["flops_per_second"] > 0
    assert (flops_text(2.1e16), flops_text(2e9), flops_text(1.234e13, 3)) == ("2.1e16", "2e9", "1.23e13")


@pytest.mark.parametrize("min_budget, tried, chosen", [
    (1e15, [256], 256),  # the first batch size reaches it: the smaller batch takes more steps
    (1e16, [256, 512], 512),  # none does: the largest plan
    (3e15, [256, 512], 512),  # the second does
])
def test_batch_sizes_are_tried_until_a_plan_reaches_the_minimum(monkeypatch, tmp_path, min_budget, tried, chosen):
    from training.race import timing

    def calibrate(settings, objective, folder, warm, timed):  # a step of twice the batch: 1.5x the time
        scale = settings.batch_size / 256
        return calibration(objective, scale * (1e12 if objective == "rtd" else 0.7e12),
                           (0.05 if objective == "rtd" else 0.03) * (1 + (scale - 1) / 2))

    monkeypatch.setattr(timing, "calibrate", calibrate)
    monkeypatch.setattr(timing, "probe", lambda *args, **kwargs: None)
    clock = iter(range(300, 0, -10))  # every call of seconds_left finds 10 s fewer
    sizing = timing.size_race(RaceSettings(preset="tiny", device="cpu"), (256, 512), min_budget, tmp_path,
                              lambda: float(next(clock)), peak=1e15)
    assert [t["batch_size"] for t in sizing.tried if not t.get("replanned")] == tried
    assert sizing.batch_size == chosen and sizing.calibrations[0].flops_per_step == chosen / 256 * 1e12
    assert sizing.plan.budget_flops == sizing.tried[-1]["plan"]["budget_flops"]  # planned on the time left last
    assert bool(sizing.tried[-1].get("replanned")) == (len(tried) > 1)


def _cli():
    spec = importlib.util.spec_from_file_location("gpu_race", PROJECT / "bench" / "gpu_race.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # the bundle is written from the tests' IMDB slice: seconds
@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message a machine without CUDA gives")
@pytest.mark.parametrize("flags, message", [(["--device", "cuda"], "no CUDA device on this machine"),
                                            (["--preset", "huge"], "unknown preset 'huge'")])
def test_the_run_refuses_what_it_cannot_do_before_it_starts(bundle, tmp_path, flags, message):
    with pytest.raises(SystemExit, match=message):
        _cli().main(["run", "--bundle", str(bundle), "--out", str(tmp_path), *flags])
    with pytest.raises(SystemExit, match="not a token bundle"):
        _cli().main(["run", "--bundle", str(tmp_path), "--out", str(tmp_path)])
    assert list(tmp_path.iterdir()) == []


BUDGET = 2e9  # about 15 tiny RTD steps of 8 x 64 tokens


@pytest.mark.slow  # the device's command in a subprocess: calibration, a probe, a tiny race, the files
def test_the_device_command_runs_here_end_to_end_and_writes_what_comes_back(bundle, tmp_path):
    out = tmp_path / "out"
    command = ["bash", str(PROJECT / "bench" / "gpu_race.sh"), str(bundle), "--preset", "tiny", "--device", "cpu",
               "--batch-sizes", "8", "--lr", "2e-3", "--probe-train", "200", "--probe-test", "100", "--probes", "2",
               "--threads", "1", "--warm-steps", "2", "--timed-steps", "3", "--budget-flops", str(BUDGET),
               "--work", str(tmp_path / "work")]
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "OUT": str(out), "PYTHON": sys.executable})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    log = (out / "log.txt").read_text()
    for line in ("peak: float32 1024^3 matrix product", "calibration rtd, batch 8:", "calibration mlm, batch 8:",
                 "plan, batch 8:",
                 "budget: 2e9 training FLOPs per objective", "% of the measured float32 peak", "RTD - MLM"):
        assert line in done.stdout and line in log

    name = "tiny-2e9-cpu-seed0.json"
    files = {p.name: p for p in out.iterdir()}
    assert set(files) == {name, "race.json", "rtd-metrics.jsonl.gz", "mlm-metrics.jsonl.gz", "device-run.json",
                          "log.txt"}
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+", n) and p.stat().st_size < 16 * 2**20 for n, p in files.items())

    record = load_record(files[name])  # the replay path the Training tab reads
    assert (record["settings"]["budget"], record["settings"]["amount"]) == ("flops", BUDGET)
    assert (record["settings"]["preset"], record["settings"]["corpus"], record["status"]) == ("tiny", "imdb",
                                                                                              "finished")
    last = {o: record["events"][o][-1] for o in ("rtd", "mlm")}
    per_step = {o: last[o]["flops"] / last[o]["step"] for o in last}
    assert all(BUDGET <= last[o]["flops"] < BUDGET + per_step[o] for o in last)  # equal FLOPs, to one step
    finals = {p["objective"]: p for p in record["probes"] if p["step"] == last[p["objective"]]["step"]}
    assert set(finals) == {"rtd", "mlm"} and record["floor"] is not None
    every = record["settings"]["probe_every"]  # 2 probes on the way: every half of the longer objective's steps
    assert every == math.ceil(max(BUDGET / per_step[o] for o in last) / 2)
    assert {(p["objective"], p["step"]) for p in record["probes"]} >= {("rtd", every), ("mlm", every)}
    summary = device_run_summary(record)  # what the Training tab says of the machine, from the dry run's record
    assert (summary.hardware, summary.budget_flops, summary.budget_reached) == ("CPU", BUDGET, 1.0)
    assert summary.gap == pytest.approx(final_gap(record)) and summary.gap_spread > 0
    assert device_run_markdown(summary).startswith("**On one CPU:** 2e9 training FLOPs per objective in ")
    text = files[name].read_text()
    assert str(tmp_path) not in text and str(bundle) not in text  # no folder of the machine it ran on

    run = json.loads(files["device-run.json"].read_text())
    assert record["extras"]["device_run"]["hardware"] == run["hardware"] and run["hardware"]["name"] == "CPU"
    assert (run["peak"]["dtype"], run["budget_flops"]) == ("float32", BUDGET)
    assert [c["objective"] for c in run["calibration"]] == ["rtd", "mlm"] and run["probe_seconds"] > 0
    assert not {"out", "bundle", "work"} & set(run["options"])
    race = run["race"]
    assert race["gap"] == pytest.approx(final_gap(record)) and race["budget_reached"] == 1.0
    assert [t["batch_size"] for t in run["tried"]] == [8] and run["plan"] == run["tried"][0]["plan"]
    for objective in ("rtd", "mlm"):
        r = race[objective]
        assert r["steps"] == last[objective]["step"] and r["flops"] == last[objective]["flops"]
        assert r["tokens_per_second"] == pytest.approx(r["tokens"] / r["compute_seconds"])
        assert r["share_of_peak"] == pytest.approx(r["flops_per_second"] / run["peak"]["flops_per_second"])
        lines = gzip.decompress(files[f"{objective}-metrics.jsonl.gz"].read_bytes()).decode().splitlines()
        assert len(lines) == last[objective]["step"]  # every step, as the race logged it
