"""A borrowed GPU's one call must come back with what it did even when something goes wrong: a batch size that does
not fit in memory is left out, a SIGTERM (a timeout's) writes the files, and a SIGKILL finds them written already
(training/race/device_run.py, training/race/timing.py, bench/gpu_race.sh)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import psutil
import pytest
import torch

from training.project import PROJECT
from training.race import timing
from training.race.device_run import _progress, _terminate_as_interrupt
from training.race.record import load_record
from training.race.settings import RaceSettings
from training.race.sizing import Calibration


def _calibrate_or_run_out(fits: int):
    """A stand-in for `timing.calibrate`: batches up to `fits` calibrate (2e13 FLOP/s), larger ones run out."""
    def calibrate(settings, objective, folder, warm, timed):
        if settings.batch_size > fits:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB\nmore detail")
        return Calibration(objective, timed, settings.batch_size / 256 * 1e12, 0.05, settings.batch_size * 128, 5.0,
                           1.0)
    return calibrate


def test_a_batch_size_that_runs_out_of_memory_is_left_out_and_the_smaller_one_races(monkeypatch, tmp_path):
    monkeypatch.setattr(timing, "calibrate", _calibrate_or_run_out(fits=256))
    monkeypatch.setattr(timing, "probe", lambda *args, **kwargs: None)
    sizing = timing.size_race(RaceSettings(preset="tiny", device="cpu"), (256, 512), 1e18, tmp_path, lambda: 300.0,
                              peak=1e15)
    assert sizing.batch_size == 256 and sizing.plan is not None and len(sizing.calibrations) == 2
    failed = [t for t in sizing.tried if t["error"]]
    assert [t["batch_size"] for t in failed] == [512] and failed[0]["calibration"] == []
    assert failed[0]["error"] == "batch 512: out of memory (CUDA out of memory. Tried to allocate 20.00 GiB)"


def test_when_no_batch_size_fits_the_run_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr(timing, "calibrate", _calibrate_or_run_out(fits=0))
    with pytest.raises(RuntimeError, match="no batch size fitted in the device's memory: batch 256: out of memory"):
        timing.size_race(RaceSettings(preset="tiny", device="cpu"), (256, 512), 1e16, tmp_path, lambda: 300.0, 1e15)


def test_sigterm_becomes_an_interrupt_inside_the_run_and_is_restored_after():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt, match="stopped by signal 15"):
        with _terminate_as_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the signal arrives first
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_snapshot_that_cannot_be_written_says_so_and_the_race_goes_on(capsys):
    class Race:  # what the progress callback reads of a race
        def elapsed(self):
            return 61.0

    def flush():
        raise OSError("No space left on device")

    _progress(Race(), every=1e9, flush=flush, flush_every=60.0)(Race())
    assert capsys.readouterr().out == "could not write the files so far: OSError: No space left on device\n"


def test_the_peak_is_the_median_of_its_timed_rounds():
    peak = timing.matmul_peak("cpu", n=64, reps=2, rounds=3, warm=1)
    assert len(peak["round_seconds"]) == 3 and peak["seconds"] == sorted(peak["round_seconds"])[1]
    assert peak["flops_per_second"] == pytest.approx(2 * 64**3 * 2 / peak["seconds"])


TINY = ["--preset", "tiny", "--device", "cpu", "--batch-sizes", "8", "--lr", "2e-3", "--probe-train", "200",
        "--probe-test", "100", "--probes", "2", "--threads", "1", "--warm-steps", "2", "--timed-steps", "3",
        "--budget-flops", "1e14"]  # far more than the seconds it is given


@pytest.mark.slow  # the device's command in a subprocess: calibration, a tiny race, stopped as a timeout stops it
def test_a_call_cut_short_returns_its_files_written_as_it_went_and_again_when_stopped(bundle, tmp_path):
    out, seen = tmp_path / "out", tmp_path / "seen"
    command = ["bash", str(PROJECT / "bench" / "gpu_race.sh"), str(bundle), *TINY, "--flush-seconds", "0",
               "--work", str(tmp_path / "work")]
    process = subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "OUT": str(out), "PYTHON": sys.executable, "GPU_RACE_SECONDS": "600"})
    record = out / "tiny-1e14-cpu-seed0.json"
    while not record.exists():  # the race's first steps, flushed as they come
        assert process.poll() is None, process.communicate()[0][-3000:]
        time.sleep(0.1)
    time.sleep(0.5)
    # What a SIGKILL now would leave: every file whole (each written as .tmp, then renamed over the last one).
    shutil.copytree(out, seen, ignore=shutil.ignore_patterns("*.tmp"))
    # What `timeout` sends at GPU_RACE_SECONDS (sent here when the race has begun, however loaded the machine is).
    run_py = [p for p in psutil.Process(process.pid).children(recursive=True)
              if p.name() != "timeout" and "gpu_race.py" in " ".join(p.cmdline())]
    assert len(run_py) == 1
    run_py[0].send_signal(signal.SIGTERM)
    output = process.communicate(timeout=300)[0]
    assert process.returncode == 1, output[-3000:]

    run = json.loads((seen / "device-run.json").read_text())
    assert run["peak"]["dtype"] == "float32" and [c["objective"] for c in run["calibration"]] == ["rtd", "mlm"]
    assert run["race"]["status"] == "running" and run["race"]["rtd"]["steps"] >= 1
    assert load_record(seen / record.name)["status"] == "running"  # the Training tab could replay the race so far
    assert json.loads((seen / "race.json").read_text())["status"] == "running"

    log = (out / "log.txt").read_text()  # stopped: the files written once more, the log whole
    assert "stopped by signal 15" in log and "(exit 1)" in log
    final = json.loads((out / "device-run.json").read_text())
    assert final["race"]["status"] == "failed" and final["race"]["rtd"]["steps"] >= run["race"]["rtd"]["steps"]
    assert load_record(record)["status"] == "failed" and final["run_seconds"] > run["run_seconds"]
    names = {p.name for p in out.iterdir()}
    assert {record.name, "race.json", "rtd-metrics.jsonl.gz", "mlm-metrics.jsonl.gz", "device-run.json",
            "log.txt"} <= names and len(names) <= 8


def test_the_call_s_own_time_limit_stops_the_run_and_says_so(tmp_path):
    """bench/gpu_race.sh bounds the Python run by GPU_RACE_SECONDS and says so in the log that comes back."""
    stand_in = tmp_path / "python"  # a run that would outlast its limit
    stand_in.write_text("#!/bin/sh\nsleep 30\n")
    stand_in.chmod(0o755)
    out = tmp_path / "out"
    done = subprocess.run(["bash", str(PROJECT / "bench" / "gpu_race.sh"), "runs/none"], cwd=PROJECT, text=True,
                          capture_output=True, timeout=60,
                          env={**os.environ, "OUT": str(out), "PYTHON": str(stand_in), "GPU_RACE_SECONDS": "1"})
    log = (out / "log.txt").read_text()
    assert done.returncode == 124 and "stopped after GPU_RACE_SECONDS=1 s: the files hold what was done" in log
    assert "(exit 124)" in log and log.startswith("start ")
