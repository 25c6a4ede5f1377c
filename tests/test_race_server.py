"""One race per server, Stop, uploads, the Training tab's handlers on a real race, the `race` command line and
ZeroGPU, on the tiny preset. Offline, one thread."""

from __future__ import annotations

import json
import time
import zipfile
from pathlib import Path

import pytest
import torch
from conftest import N_DOCUMENTS, WORDPIECE
from race_base import LIMITS, tiny
from transformers import AutoModelForMaskedLM

from training.models import embeddings_shared, load_pair
from training.race.manager import RaceBusy, RaceManager, check_corpus
from training.race.run import OBJECTIVES

pytestmark = pytest.mark.slow  # real races: seconds each


# --- one race per server, Stop, uploads -----------------------------------------------------------

def _wait_for(condition, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_one_race_per_server_and_stop_keeps_a_loadable_checkpoint(tmp_path):
    manager = RaceManager(tmp_path, LIMITS)
    race = manager.start(tiny(amount=50_000, probe_every=0))
    with pytest.raises(RaceBusy, match="Busy: a tiny race .* already running .* only one runs at a time"):
        manager.start(tiny())
    with pytest.raises(RaceBusy, match="Busy"):
        manager.start_finetune()
    _wait_for(lambda: all(len(race.runners[o].events) >= 3 for o in OBJECTIVES))
    assert manager.stop()
    assert manager.wait(60) and race.status == "stopped" and not manager.stop()

    steps = {o: race.runners[o].events[-1].step for o in OBJECTIVES}
    assert all(3 <= s < 50_000 for s in steps.values())
    for objective in OBJECTIVES:
        checkpoint = torch.load(race.folder / objective / "checkpoint.pt", weights_only=False)
        assert checkpoint["counters"]["step"] == steps[objective]  # saved where it stopped
    generator, discriminator = load_pair(race.folder / "rtd")
    assert embeddings_shared(generator, discriminator)
    encoder = AutoModelForMaskedLM.from_pretrained(race.folder / "mlm" / "encoder")
    assert encoder.config.hidden_size == discriminator.config.hidden_size == 32
    state = json.loads((race.folder / "race.json").read_text())
    assert state["status"] == "stopped" and state["ended"]
    # the finished job leaves its downloads, and the server is free again
    names = zipfile.ZipFile(race.folder / "models.zip").namelist()
    assert f"{race.folder.name}/rtd/discriminator/model.safetensors" in names
    assert f"{race.folder.name}/mlm/encoder/config.json" in names and not any(n.endswith(".pt") for n in names)
    assert (race.folder / "metrics.csv").exists()
    from training.race.record import load_record

    record = load_record(race.folder / "record.json")  # the Training tab can replay it
    assert record["status"] == "stopped" and record["steps"] == steps
    second = manager.start(tiny(amount=2, probe_every=0, seed=1))
    assert manager.wait(60) and second.status == "finished" and second.folder != race.folder


UPLOADS = {
    "empty.txt": (b"", "contains no text"),
    "blank.txt": (b"\n  \n\t\n", "contains no text"),
    "binary.txt": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10, "looks like a binary file"),
    "latin1.txt": ("Un film très réussi, à voir.\n".encode("latin-1"), "is not UTF-8 text .* re-save it as UTF-8"),
    "bad.jsonl": (b'{"text": "fine"}\nnot json\n', "line 2: expected a JSON object with a \"text\" field"),
    "slides.pdf": (b"%PDF-1.4 some text", "upload a .txt file .* or a .jsonl file"),
}


@pytest.mark.parametrize("name", UPLOADS)
def test_bad_uploads_get_clear_messages_and_start_nothing(tmp_path, name):
    content, message = UPLOADS[name]
    path = tmp_path / "upload" / name
    path.parent.mkdir()
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        check_corpus(path)
    manager = RaceManager(tmp_path / "races", LIMITS)
    with pytest.raises(ValueError, match=message):
        manager.start(tiny(), upload=path)
    assert manager.race is None and not (tmp_path / "races").exists()


def test_a_huge_upload_is_refused_by_size(tmp_path):
    path = tmp_path / "huge.txt"
    path.write_text("a fine sentence about a film\n" * 40_000, encoding="utf-8")  # ~1.1 MB
    with pytest.raises(ValueError, match=r"corpus file is 1\.1 MB; the limit is 1\.0 MB"):
        RaceManager(tmp_path / "races", LIMITS, max_upload_bytes=2**20).start(tiny(), upload=path)


def test_a_good_upload_is_described_and_kept_with_the_race(tmp_path, imdb_texts):
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in imdb_texts), encoding="utf-8")
    assert check_corpus(path).startswith("mine.jsonl: ") and "documents" in check_corpus(path)
    manager = RaceManager(tmp_path / "races", LIMITS)
    race = manager.start(tiny(amount=3, probe_every=0, max_documents=None), upload=path)
    kept = Path(race.settings.corpus)  # a private copy in a temporary folder, outside the race folder
    assert kept.name == "corpus.jsonl" and not kept.is_relative_to(race.folder)
    assert manager.wait(60) and race.status == "finished", race.error
    assert not kept.parent.exists()  # deleted when the race ended
    assert not any("corpus" in n for n in zipfile.ZipFile(race.folder / "models.zip").namelist())


# --- the Training tab, the command line, ZeroGPU --------------------------------------------------

def test_the_tab_says_busy_and_reattaches_to_the_managers_race(tmp_path, monkeypatch):
    from explainer.ui import races, training_tab

    monkeypatch.setattr(races, "MANAGER", RaceManager(tmp_path, LIMITS))
    for emptied in range(4):  # an emptied number box (amount, seq_len, lr, temperature) is named, not defaulted
        boxes = [50_000, 64, 2e-3, 2.5]
        boxes[emptied] = None
        amount, seq_len, lr, temperature = boxes
        emptied_box = training_tab.start_race("tiny", "steps", amount, "imdb", None, 0, "cpu", "flops", seq_len, 8, lr,
                                              0, temperature)
        assert "Fill in every number" in emptied_box or "positive number" in emptied_box
    assert races.MANAGER.race is None  # none of those started a race
    started = training_tab.start_race("tiny", "steps", 50_000, "imdb", None, 0, "cpu", "flops", 64, 8, 2e-3, 0, 2.5)
    assert "Started in race-" in started and races.MANAGER.race.settings.temperature == 2.5
    busy = training_tab.start_race("tiny", "steps", 10, "imdb", None, 0, "cpu", "flops", 64, 8, 2e-3, 0)
    assert "Busy" in busy and "ee-error" in busy
    too_long = training_tab.corpus_check(str(tmp_path))  # a folder is no corpus
    assert "ee-error" in too_long
    first = training_tab.refresh("step", None)  # a fresh page (or a reload) draws the race at once
    assert ("Running" in first["status"] or "Getting ready" in first["status"]) and "message" not in first
    assert first["stop"]["interactive"] is True and first["stop"]["variant"] == "stop"  # a race to stop: red, awake
    assert first["start"]["interactive"] is False and first["start"]["value"] == "A race is running…"  # no 2nd start
    race = races.MANAGER.race
    _wait_for(lambda: all(race.runners[o].events for o in OBJECTIVES))
    assert all(training_tab.refresh("step", None)[name] is not None for name in ("status", "curves", "payoff"))
    assert "Stopping" in training_tab.stop_race()
    assert races.MANAGER.wait(60)
    # Stop means now: no final probe, so a race stopped before its first probe has no score for the Classroom's
    # efficiency view (a finished race has one: test_race.py's test_a_race_probes_both_objectives_and_the_floor)
    assert training_tab.latest_race() is None
    final = training_tab.refresh("step", None)
    assert "Stopped" in final["status"] and final["csv_button"]["interactive"] and final["zip_button"]["value"]
    assert "kept: both models as trained so far" in final["status"] and "none runs after a Stop" in final["status"]
    assert final["message"] == ""  # the "Stopping after the current step…" message is gone
    assert final["stop"]["interactive"] is False and final["stop"]["variant"] == "secondary"
    assert final["start"]["interactive"] is True and final["start"]["value"] == "Start the race"  # awake again
    assert any("none runs after a Stop" in a.text for a in final["payoff"].layout.annotations)  # no probe is promised
    assert "No race is running" in training_tab.stop_race()
    # "Open the ELECTRA pair in Explore": the race folder's rtd/ pair, through Explore's own loader
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tmp_path))
    opened = training_tab.open_in_explore()
    assert opened["model"] == opened["active_model"] == str(race.folder / "rtd") and "2 layers" in opened["status"]


def test_the_race_cli_takes_the_presets_budget_when_none_is_given():
    import argparse

    from training.cli.race import add_race_arguments, race_settings
    from training.race.settings import CPU_RACE_FLOPS

    parser = argparse.ArgumentParser()
    add_race_arguments(parser)
    mini = race_settings(parser.parse_args(["--preset", "mini", "--device", "cpu"]))
    assert (mini.budget, mini.amount, mini.temperature) == ("flops", CPU_RACE_FLOPS, 2.0)  # the tab's default race
    tiny = race_settings(parser.parse_args(["--preset", "tiny", "--budget-minutes", "2", "--lr", "0.01"]))
    assert (tiny.budget, tiny.amount, tiny.lr, tiny.seq_len) == ("minutes", 2.0, 0.01, 64)
    with pytest.raises(SystemExit):  # one budget at most
        parser.parse_args(["--budget-steps", "5", "--budget-flops", "1e12"])


def test_the_race_cli_runs_seeds_and_writes_a_summary(tmp_path, capsys):
    from training.__main__ import main

    argv = ["race", "--preset", "tiny", "--budget-steps", "4", "--seeds", "0", "1", "--probe-train", "100",
            "--probe-test", "60", "--threads", "1", "--device", "cpu", "--out", str(tmp_path)]
    main(argv)
    printed = capsys.readouterr().out
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [r["seed"] for r in summary["races"]] == [0, 1] and summary["seeds"] == [0, 1]
    # tiny's
    assert summary["settings"]["tokenizer"] == WORDPIECE and summary["settings"]["max_documents"] == N_DOCUMENTS
    assert all(r["rtd"]["step"] == r["mlm"]["step"] == 4 for r in summary["races"])
    assert summary["probe"]["rtd_minus_mlm"]["n"] == 2 and summary["finetune"] is None
    assert "linear probe over 2 seeds" in printed and "the paper's result (GLUE dev, not this task)" in printed
    assert "ELECTRA-Small 79.9 vs BERT-Small 75.1" in printed
    from training.race.record import load_record

    assert all(load_record(tmp_path / f"seed-{seed}" / "record.json")["settings"]["seed"] == seed for seed in (0, 1))
    main(argv)  # finished seeds with the same settings are reused, not retrained
    assert capsys.readouterr().out.count("finished before, reusing") == 2


def test_zerogpu_decorates_the_job_only_when_spaces_imports(monkeypatch):
    import sys
    import types

    from training.race.manager import on_gpu

    def job():
        return "trained"

    monkeypatch.setitem(sys.modules, "spaces", None)  # not installed: nothing changes
    assert on_gpu(job, 60) is job
    calls = []
    fake = types.SimpleNamespace(GPU=lambda duration: (calls.append(duration), lambda f: lambda: ("on gpu", f()))[1])
    monkeypatch.setitem(sys.modules, "spaces", fake)
    assert on_gpu(job, 600.5)() == ("on gpu", "trained") and calls == [600]
