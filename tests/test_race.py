"""The RTD vs MLM race on the tiny preset: budgets and their bound, equal-FLOPs interleaving, the probe,
one race per server, Stop, uploads, exports, and the Training tab's views. Offline, one thread."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import time
import zipfile
from pathlib import Path

import pytest
import torch
from conftest import N_DOCUMENTS, WORDPIECE
from transformers import AutoModelForMaskedLM

from training.downstream.probe import ProbeConfig, probe
from training.models import embeddings_shared, load_pair
from training.project import PROJECT as PROJECT_ROOT
from training.race import campaign as campaign_stats
from training.race.campaign import aggregate
from training.race.manager import RaceBusy, RaceManager, check_corpus, write_metrics_csv, zip_models
from training.race.run import OBJECTIVES, Race
from training.race.settings import RaceLimits, RaceSettings, matches_defaults

pytestmark = pytest.mark.slow  # real races: seconds each

TINY = RaceSettings(
    preset="tiny", budget="steps", amount=12, tokenizer=WORDPIECE, max_documents=N_DOCUMENTS, seq_len=64,
    batch_size=8, lr=2e-3, probe_every=5, probe_train=200, probe_test=100, device="cpu", threads=1,
)
LIMITS = RaceLimits(max_minutes=2, max_steps=100_000, max_flops=1e13)


def tiny(**changes) -> RaceSettings:
    return dataclasses.replace(TINY, **changes)


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Race:
    """A 12-step race, probed at steps 5, 10 and 12."""
    race = Race(TINY, tmp_path_factory.mktemp("race"))
    race.run()
    return race


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


# --- the race -------------------------------------------------------------------------------------

def test_equal_flops_keeps_the_two_within_one_step_of_each_other(tmp_path):
    gaps = []

    def check(race: Race) -> None:
        rtd, mlm = (race.runners[o].events for o in OBJECTIVES)
        if rtd and mlm:
            step_flops = max(rtd[-1].flops / rtd[-1].step, mlm[-1].flops / mlm[-1].step)
            gaps.append(abs(rtd[-1].flops - mlm[-1].flops) / step_flops)

    race = Race(tiny(budget="flops", amount=1.5e9, probe_every=0), tmp_path)
    summary = race.run(on_step=check)
    rtd, mlm = summary["rtd"], summary["mlm"]
    assert len(gaps) > 20 and max(gaps) <= 1.0
    assert mlm["step"] > rtd["step"]  # an MLM step is cheaper (no generator), so MLM takes more of them
    for side in (rtd, mlm):  # each spent the budget and stopped at the first step past it
        step_flops = side["flops"] / side["step"]
        assert 1.5e9 <= side["flops"] < 1.5e9 + step_flops
    assert summary["status"] == "finished" and json.loads((tmp_path / "race.json").read_text())["status"] == "finished"


def test_a_wall_clock_race_ends_both_objectives_level(tmp_path, monkeypatch):
    """Each trainer keeps its own clock, and they start apart (the second one loads its data while
    the first one's clock runs): the race ends the later one as soon as it catches up, so the two
    spend the same compute. A slow MLM start (1.5 s of a 6 s race) makes the gap certain."""
    import training.race.run as race_module

    real_train = race_module.train

    def slow_mlm_start(config, folder, **kwargs):
        if config.objective == "mlm":
            time.sleep(1.5)
        yield from real_train(config, folder, **kwargs)

    monkeypatch.setattr(race_module, "train", slow_mlm_start)
    race = Race(tiny(budget="minutes", amount=0.1, probe_every=0), tmp_path)
    summary = race.run()
    rtd, mlm = summary["rtd"], summary["mlm"]
    step_flops = max(rtd["flops"] / rtd["step"], mlm["flops"] / mlm["step"])
    assert rtd["step"] > 5 and mlm["step"] > 5
    assert abs(rtd["flops"] - mlm["flops"]) <= step_flops
    assert summary["status"] == "finished"


def test_a_race_probes_both_objectives_and_the_floor(finished):
    probes = {(p.objective, p.step) for p in finished.probes}
    assert probes == {(o, s) for o in OBJECTIVES for s in (5, 10, 12)}
    for p in finished.probes:
        assert 0 <= p.accuracy <= 1 and p.n_test == 100
        event = finished.runners[p.objective].events[p.step - 1]
        assert p.flops == pytest.approx(event.flops) and p.tokens == event.tokens
    assert finished.floor.random_init and finished.floor.flops == 0 and 0 <= finished.floor.accuracy <= 1
    state = json.loads((finished.folder / "race.json").read_text())
    assert state["status"] == "finished" and state["started"] and state["ended"] and state["device"].startswith("CPU")
    assert finished.elapsed() == finished.elapsed() == state["summary"]["wall_seconds"]  # the clock stopped at the end
    assert state["settings"]["preset"] == "tiny" and len(state["probes"]) == 6
    assert state["summary"]["rtd"]["probe_accuracy"] == finished.final_probe("rtd").accuracy


def test_supervised_positions_show_the_denser_signal(finished):
    rtd, mlm = (finished.runners[o].events[-1] for o in OBJECTIVES)
    assert rtd.supervised_positions == rtd.tokens  # every token
    masked_per_block = round(0.15 * (TINY.seq_len - 2))  # 15% of the non-special tokens
    assert mlm.supervised_positions == mlm.step * TINY.batch_size * masked_per_block


def test_aggregate_over_seeds():
    summaries = [{"rtd": {"probe_accuracy": a}, "mlm": {"probe_accuracy": b}, "floor": {"probe_accuracy": 0.5}}
                 for a, b in ((0.7, 0.6), (0.66, 0.64), (0.58, 0.6))]
    result = aggregate(summaries)
    assert result["rtd_minus_mlm"]["mean"] == pytest.approx((0.1 + 0.02 - 0.02) / 3)
    assert result["rtd_wins"] == 2 and result["seeds"] == 3 and result["floor"]["std"] == 0


# --- the probe ------------------------------------------------------------------------------------

def test_the_probe_is_an_accuracy_and_deterministic(tiny_pair_dir):
    config = ProbeConfig(n_train=200, n_test=100)
    first = probe(tiny_pair_dir / "discriminator", config)
    again = probe(tiny_pair_dir / "discriminator", config)
    assert 0 <= first.accuracy <= 1 and 0 <= first.train_accuracy <= 1
    assert (first.accuracy, first.train_accuracy) == (again.accuracy, again.train_accuracy)
    assert (first.n_train, first.n_test, first.features) == (200, 100, 32)
    rng = torch.get_rng_state()
    floor = probe(tiny_pair_dir / "discriminator", config, random_init=True)
    assert torch.equal(rng, torch.get_rng_state())  # the floor's init leaves a running race's RNG alone
    assert floor.random_init
    assert floor.accuracy == probe(tiny_pair_dir / "discriminator", config, random_init=True).accuracy


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


# --- exports and views ----------------------------------------------------------------------------

def test_the_csv_has_every_step_of_both_objectives(finished, tmp_path):
    rows = list(csv.DictReader(open(write_metrics_csv(finished, tmp_path / "m.csv"), encoding="utf-8")))
    assert [r["step"] for r in rows if r["objective"] == "rtd"] == [str(s) for s in range(1, 13)]
    assert [r["step"] for r in rows if r["objective"] == "mlm"] == [str(s) for s in range(1, 13)]
    assert {"mlm_loss", "disc_loss", "disc_auc", "flops", "tokens", "supervised_positions",
            "compute_seconds"} <= set(rows[0])
    assert all(r["disc_loss"] == "" for r in rows if r["objective"] == "mlm")
    assert zip_models(finished, tmp_path / "m.zip").stat().st_size > 0


def test_the_views_render_a_snapshot(finished):
    from explainer.render import training as view

    snapshot = finished.snapshot()
    by_step = view.curves_figure(snapshot, "step")
    by_flops = view.curves_figure(snapshot, "flops")
    names = [t.name for t in by_step.data]
    assert names[:2] == ["MLM baseline (BERT-style)", "ELECTRA's generator (its MLM loss)"]
    assert "discriminator loss (raw BCE, not ×50)" in names and "discriminator AUC" in names
    assert list(by_step.data[0].x) == list(range(1, 13))
    assert list(by_flops.data[0].x) == [e.flops for e in finished.runners["mlm"].events]
    # Stacked for a 420-px phone: the masked-word losses on top, the discriminator below (its accuracy and AUC
    # on the lower panel's right-hand axis), both full width.
    assert [(t.xaxis, t.yaxis) for t in by_step.data] == [("x", "y")] * 2 + [("x2", "y2")] * 2 + [("x2", "y3")] * 2
    assert by_step.layout.xaxis.domain == by_step.layout.xaxis2.domain
    assert by_step.layout.yaxis2.domain[1] < by_step.layout.yaxis.domain[0] and by_step.layout.height == 860
    supervised = view.supervised_figure(snapshot, "tokens")
    assert supervised.data[0].y[-1] == finished.runners["rtd"].events[-1].supervised_positions
    payoff = view.payoff_figure(snapshot)
    labels = [t.name for t in payoff.data]
    assert "untrained encoder (the floor)" in labels
    assert "the paper's ELECTRA" in labels and "the paper's BERT" in labels
    paper = next(t for t in payoff.data if t.name == "the paper's ELECTRA")
    assert 79.9 in list(paper.y) and "ELECTRA-Small" in list(paper.text)
    assert (paper.xaxis, paper.yaxis) == ("x2", "y2") and payoff.layout.xaxis2.domain == (0.0, 1.0)  # below the race
    assert payoff.layout.yaxis2.domain[1] < payoff.layout.yaxis.domain[0] and payoff.layout.height == 880
    status = view.status_html(snapshot)
    assert "Finished" in status and "RTD step 12" in status and "MLM step 12" in status
    empty = view.curves_figure(None)
    assert any("No race yet" in a.text for a in empty.layout.annotations)


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
    race = races.MANAGER.race
    _wait_for(lambda: all(race.runners[o].events for o in OBJECTIVES))
    assert all(training_tab.refresh("step", None)[name] is not None for name in ("status", "curves", "payoff"))
    assert "Stopping" in training_tab.stop_race()
    assert races.MANAGER.wait(60)
    # Stop means now: no final probe, so a race stopped before its first probe has no score for the Classroom's
    # efficiency view (a finished race has one: test_a_race_probes_both_objectives_and_the_floor)
    assert training_tab.latest_race() is None
    final = training_tab.refresh("step", None)
    assert "Stopped" in final["status"] and final["csv_button"]["interactive"] and final["zip_button"]["value"]
    assert "kept: both models as trained so far" in final["status"] and "none runs after a Stop" in final["status"]
    assert final["message"] == ""  # the "Stopping after the current step…" message is gone
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


# --- the measurement campaign behind the defaults (bench/race_search.py -> the tab's verdict) -------

def _race_search():
    import importlib.util

    spec = importlib.util.spec_from_file_location("race_search", PROJECT_ROOT / "bench" / "race_search.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_campaign_table_and_verdict_come_from_finished_races(finished, tmp_path, monkeypatch):
    from explainer.render import verdict as verdict_view

    root = tmp_path / "search"
    (root / "12" / "gen1").mkdir(parents=True)  # root/<budget>/<setting>/seed-N
    (root / "12" / "gen1" / "seed-0").symlink_to(finished.folder)
    records = _race_search().collect(root)
    assert records[0]["finetune"] is None and records[0]["seeds"][0]["finetune"] is None  # not fine-tuned
    assert [r["name"] for r in records] == ["gen1"] and records[0]["change"].startswith("base, but a 1-layer generator")
    summary = finished.summary()
    seed = records[0]["seeds"][0]
    assert seed["rtd_probe"] == summary["rtd"]["probe_accuracy"] and seed["mlm_steps"] == summary["mlm"]["step"]
    assert seed["rtd_minus_mlm"] == pytest.approx(summary["rtd"]["probe_accuracy"] - summary["mlm"]["probe_accuracy"])
    campaign = {"settings": records}
    verdict = campaign_stats.campaign_verdict(campaign)
    assert verdict["shown"] is False and verdict["races"] == 1  # one seed is never a claim

    # Three seeds, RTD ahead in each: a claim; a hostile description is escaped.
    ahead = [{**seed, "seed": s, "rtd_minus_mlm": 0.02 + 0.01 * s} for s in range(3)]
    claimed = {**records[0], "name": "x", "change": "<script>alert(1)</script>", "seeds": ahead, "rtd_wins": 3,
               "mean": {**records[0]["mean"], "rtd_minus_mlm": {"mean": 0.03, "sd": 0.01}}}
    campaign["settings"].append(claimed)
    verdict = campaign_stats.campaign_verdict(campaign)
    assert verdict["shown"] is True and verdict["best"]["name"] == "x" and verdict["settings"] == 2
    html = verdict_view.campaign_html(campaign)
    assert "<script>" not in html and "&lt;script&gt;" in html and "+3.0" in html and "3 of 3" in html
    monkeypatch.setattr(verdict_view, "DEFAULTS_MEASURED", True)
    assert "beats the BERT-style one" in verdict_view.verdict_markdown(campaign)
    assert "+3.0 ± 1.0" in verdict_view.verdict_markdown(campaign)
    campaign["settings"].pop()
    text = verdict_view.verdict_markdown(campaign)  # a 12-step race is not the tiny preset's default (300 steps)
    assert "does not clearly beat" in text and "1 settings in 1 races" in text and "The best setting" in text
    assert not matches_defaults(records[0]["settings"])
    # A second seed with a full fine-tune (`race --finetune`): its accuracies reach the record and the verdict.
    race = json.loads((finished.folder / "race.json").read_text())
    race["summary"]["seed"] = 1
    race["extras"] = {"finetune": {"status": "finished", "config": {"epochs": 3, "lr": 1e-4}, "results": {
        "rtd": {"accuracy": 0.628}, "mlm": {"accuracy": 0.724}, "untrained": {"accuracy": 0.696}}}}
    (root / "12" / "gen1" / "seed-1").mkdir()
    (root / "12" / "gen1" / "seed-1" / "race.json").write_text(json.dumps(race))
    records = _race_search().collect(root)
    campaign = {"settings": records}
    ft = records[0]["finetune"]
    assert ft["seeds"] == 1 and ft["rtd"]["mean"] == 0.628 and ft["rtd_minus_mlm"]["mean"] == pytest.approx(-0.096)
    assert len(records[0]["seeds"]) == 2 and records[0]["seeds"][1]["finetune"]["untrained"] == 0.696
    records[0]["settings"]["amount"] = 300  # ... but on the default's budget it is
    text = verdict_view.verdict_markdown(campaign)
    assert "With these defaults" in text and "longer race" not in text
    assert "ELECTRA 62.8%, BERT-style 72.4%, an untrained encoder 69.6% (one seed: no verdict" in text
    longer = {**claimed, "change": "gen1", "rtd_wins": 2, "settings": {**records[0]["settings"], "amount": 600},
              "finetune": None}
    campaign["settings"].append(longer)  # the same settings, more compute, 3 seeds: reported beside the default's
    assert ("The same settings in a longer race: on 600 steps, +3.0 ± 1.0 over 3 seeds (ahead in 2)"
            in verdict_view.verdict_markdown(campaign))
    assert campaign_stats.campaign_verdict(None) is None
    assert verdict_view.verdict_markdown(None) == verdict_view.PROVISIONAL


@pytest.mark.parametrize("differences, expected", [
    ([0.03, 0.02, 0.0, 0.01, 0.02], "ahead"),  # mean 0.016 > 2 standard errors (0.010)
    ([0.03, -0.02, 0.0, 0.01, 0.02], "level"),  # mean 0.008 < 0.018
    ([-0.03, -0.04, -0.02], "behind"),
    ([0.05], "level"),  # one seed is never a finding
])
def test_the_verdict_calls_a_gap_only_beyond_two_standard_errors(differences, expected):

    assert campaign_stats.separated(differences) == expected
    assert campaign_stats.standing({"seeds": [{"rtd_minus_mlm": d} for d in differences]}) == expected


def test_the_shipped_campaign_backs_the_defaults_and_the_tab_says_what_it_found():
    """assets/race_campaign.json (bench/race_search.py) holds the defaults' own races, 3 seeds or more,
    and the tab's verdict is the one those numbers support."""
    from explainer.render import verdict as verdict_view
    from training.race.settings import DEFAULTS_MEASURED

    campaign = campaign_stats.load_campaign()
    assert campaign is not None and DEFAULTS_MEASURED
    verdict = campaign_stats.campaign_verdict(campaign)
    assert verdict["settings"] >= 5 and all(r["seeds"] for r in campaign["settings"])
    mine = [r for r in campaign["settings"] if matches_defaults(r["settings"])]
    assert mine and max(len(r["seeds"]) for r in mine) >= 3  # the default race, run with at least 3 seeds
    for record in campaign["settings"]:  # every race spent the same compute on both objectives
        for seed in record["seeds"]:
            assert seed["rtd_flops"] == pytest.approx(seed["mlm_flops"], rel=0.01)
            assert seed["rtd_flops"] == pytest.approx(record["settings"]["amount"], rel=0.01)
    text = verdict_view.verdict_markdown(campaign)
    if verdict["shown"]:
        assert "beats the BERT-style one" in text and matches_defaults(verdict["best"]["settings"])
    else:
        standing = campaign_stats.standing(max(mine, key=lambda r: len(r["seeds"])))
        assert ("comes out ahead" if standing == "ahead" else "does not clearly beat") in text
        assert "With these defaults" in text
    assert "race-campaign" in verdict_view.campaign_html(campaign)
