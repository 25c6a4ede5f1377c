"""Crashes lose nothing: a pretraining run killed with SIGKILL resumes from its last checkpoint with
metrics.jsonl intact, and a race folder left by a killed server is viewable after a restart.

Both kill only the subprocess they started (by its Popen pid), never anything found by name.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import N_DOCUMENTS, WORDPIECE

from training.project import PROJECT

pytestmark = pytest.mark.slow


def start(*args: str, log: Path) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    with open(log, "ab") as out:  # the child keeps its own handle
        return subprocess.Popen([sys.executable, "-m", "training", *args], cwd=PROJECT, env=env,
                                stdout=out, stderr=subprocess.STDOUT)


def wait_until(condition, process: subprocess.Popen, log: Path, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"the run ended (exit {process.returncode}) before the point to kill it:\n"
                        f"{log.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"timed out:\n{log.read_text()[-3000:]}")
        time.sleep(0.05)


def kill(process: subprocess.Popen) -> None:
    os.kill(process.pid, signal.SIGKILL)  # this test's own child only
    process.wait(30)
    assert process.returncode == -signal.SIGKILL


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def test_a_killed_pretraining_run_resumes_with_its_metrics_intact(tmp_path):
    import torch

    out, log = tmp_path / "run", tmp_path / "log.txt"
    budget, every = 60, 10  # the kill comes after the first checkpoint; the resume trains the rest
    args = ["pretrain", "--preset", "tiny", "--tokenizer", WORDPIECE, "--max-documents", str(N_DOCUMENTS),
            "--seq-len", "64", "--batch-size", "8", "--max-steps", str(budget), "--log-every", "1",
            "--checkpoint-every", str(every), "--threads", "1", "--seed", "0", "--out", str(out)]
    run = start(*args, log=log)
    # Past the first checkpoint, with steps logged after it that the resume must drop and redo.
    wait_until(lambda: (out / "checkpoint.pt").exists() and len(lines(out / "metrics.jsonl")) >= every + 3, run, log)
    kill(run)

    saved = torch.load(out / "checkpoint.pt", weights_only=False)["counters"]["step"]
    logged = [json.loads(line)["step"] for line in lines(out / "metrics.jsonl")]
    # killed mid-run, usually between checkpoints
    assert saved % every == 0 and 0 < saved < budget and logged[-1] >= saved
    with open(out / "metrics.jsonl", "a", encoding="utf-8") as f:
        f.write('{"objective": "rtd", "step": ')  # and as if the kill had torn the line being written

    from training.__main__ import main

    main([*args, "--resume"])  # a fresh process is not needed for the resume: the killed one is gone

    events = [json.loads(line) for line in lines(out / "metrics.jsonl")]  # every line parses: none torn
    steps = [e["step"] for e in events]
    assert steps == list(range(1, budget + 1))  # strictly increasing, no duplicates, no gaps, the whole budget
    assert all(math.isfinite(e["loss"]) for e in events)
    assert torch.load(out / "checkpoint.pt", weights_only=False)["counters"]["step"] == budget
    assert (out / "discriminator" / "model.safetensors").exists() and (out / "generator" / "config.json").exists()


def test_a_race_left_by_a_killed_server_is_viewable_after_a_restart(tmp_path, monkeypatch):
    from explainer.render.training import curves_figure, status_html
    from explainer.ui import races, training_tab
    from training.race.manager import RaceManager
    from training.race.settings import RaceLimits

    out, log = tmp_path / "races", tmp_path / "log.txt"
    race_run = start("race", "--preset", "tiny", "--budget-steps", "5000", "--seeds", "0", "--probe-every", "5",
                     "--probe-train", "100", "--probe-test", "60", "--threads", "1", "--device", "cpu",
                     "--out", str(out), log=log)
    state_file = out / "seed-0" / "race.json"

    def probed_twice() -> bool:  # both objectives probed at step 5, then a few more steps logged
        try:
            state = json.loads(state_file.read_text())
        except (OSError, ValueError):
            return False
        return len(state["probes"]) >= 2 and all(len(lines(out / "seed-0" / o / "metrics.jsonl")) >= 8
                                                 for o in ("rtd", "mlm"))

    wait_until(probed_twice, race_run, log)
    kill(race_run)  # the server dies mid-race: race.json still says "running"
    before = state_file.read_bytes()
    assert json.loads(before)["status"] == "running"

    manager = RaceManager(out, RaceLimits())  # what a restarted server builds at import
    race = manager.race
    assert race is not None and race.folder == out / "seed-0"
    assert race.status == "interrupted" and not race.running and not manager.busy()
    snapshot = race.snapshot()
    for objective in ("rtd", "mlm"):
        steps = [e.step for e in snapshot["events"][objective]]
        assert len(steps) >= 8 and steps == list(range(1, len(steps) + 1))
    assert {p.objective for p in snapshot["probes"]} == {"rtd", "mlm"} and snapshot["floor"]
    assert "Interrupted" in status_html(snapshot) and str(tmp_path) not in status_html(snapshot)
    assert len(curves_figure(snapshot, "flops").data) >= 3

    monkeypatch.setattr(races, "MANAGER", manager)  # the tab, after the restart
    shown = training_tab.refresh("step", None)
    assert "Interrupted" in shown["status"] and shown["curves"].data and shown["payoff"].data
    assert set(training_tab.latest_race()) == {"rtd", "mlm"}  # the Classroom's efficiency view
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(out))
    opened = training_tab.open_in_explore()  # the pair as last checkpointed opens in Explore
    assert opened["model"] == str(out / "seed-0" / "rtd") and "discriminator 2 layers" in opened["status"]
    assert not manager.stop()  # nothing runs: Stop says so
    assert state_file.read_bytes() == before  # viewed read-only


def test_a_finished_race_reloads_as_finished_with_its_downloads(tmp_path, monkeypatch):
    from explainer.ui import races, training_tab
    from training.race.manager import RaceManager
    from training.race.settings import RaceLimits, RaceSettings

    settings = RaceSettings(preset="tiny", budget="steps", amount=4, tokenizer=WORDPIECE, max_documents=N_DOCUMENTS,
                            seq_len=64, batch_size=8, lr=2e-3, probe_train=100, probe_test=60, device="cpu", threads=1)
    first = RaceManager(tmp_path, RaceLimits())
    race = first.start(settings)
    assert first.wait(120) and race.status == "finished", race.error

    restarted = RaceManager(tmp_path, RaceLimits())
    again = restarted.race
    assert again.folder == race.folder and again.status == "finished" and again.error is None
    assert again.probes == race.probes and again.floor == race.floor
    for objective in ("rtd", "mlm"):
        assert [e.step for e in again.runners[objective].events] == [1, 2, 3, 4]
    assert abs(again.elapsed() - race.elapsed()) < 2  # from race.json's start and end
    monkeypatch.setattr(races, "MANAGER", restarted)
    shown = training_tab.refresh("step", None)
    assert "Finished" in shown["status"] and shown["csv_button"]["value"].endswith("metrics.csv")
    assert shown["zip_button"]["value"].endswith("models.zip")
    assert shown["explore_button"]["interactive"] and shown["finetune"]["interactive"]  # Explore; fine-tuning may start
    assert shown["message"] == ""  # an ended race's status line says what happened: no "Stopping…" message stays
