"""Typed events and probes: what the trainer writes is the JSON it always wrote, and every file of an older
version (metrics.jsonl lines, race.json probes, the shipped race records) still reads back."""

from __future__ import annotations

import json

import pytest

from training.events import Probe, TrainEvent, last_probe
from training.project import ASSETS
from training.race.record import load_record, record_events, record_floor, record_probes
from training.runfiles import Counters, MetricsLog, read_metrics

RTD_LINE = {"objective": "rtd", "step": 5, "tokens": 640, "supervised_positions": 640, "flops": 1.5e9,
            "wall_time": 2.5, "tokens_per_second": 256.0, "lr": 1e-4, "loss": 30.1, "mlm_loss": 6.1,
            "mlm_accuracy": 0.02, "masked_positions": 18, "token_cosine": 0.4, "disc_accuracy": 0.85,
            "disc_precision": 0.0, "disc_recall": 0.0, "disc_auc": None, "disc_loss": 0.6, "replaced_fraction": 0.14,
            "step_supervised_positions": 128}
MLM_LINE = {k: v for k, v in RTD_LINE.items() if not k.startswith("disc_") and k != "replaced_fraction"} | {
    "objective": "mlm", "supervised_positions": 90, "step_supervised_positions": 18}


@pytest.mark.parametrize("line", [RTD_LINE, MLM_LINE], ids=["rtd", "mlm"])
def test_an_event_writes_the_json_the_trainer_always_wrote(line, tmp_path):
    event = TrainEvent.from_dict(line)
    assert event.to_dict() == line and list(event.to_dict()) == list(line)  # the same keys, in the same order
    log = MetricsLog(tmp_path / "metrics.jsonl", keep_until_step=None)
    log.append(event)
    assert json.loads((tmp_path / "metrics.jsonl").read_text()) == line
    assert read_metrics(tmp_path) == [event]


def test_an_older_line_reads_back_with_what_it_lacks_as_none(tmp_path):
    old = {"step": 3, "flops": 9e8, "wall_time": 1.0, "loss": 7.0, "gen_loss": 6.0}  # an older trainer's keys
    event = TrainEvent.from_dict(old)
    assert (event.step, event.loss, event.objective, event.disc_auc) == (3, 7.0, None, None)
    assert event.value("flops") == 9e8
    with pytest.raises(KeyError, match="no metric 'gen_loss'"):
        event.value("gen_loss")


def test_the_trainer_cannot_emit_a_metric_the_event_does_not_name():
    with pytest.raises(TypeError):
        TrainEvent(step=1, flops=1.0, wall_time=1.0, surprise=2.0)  # a new metric must be named here first


def test_probes_read_back_from_a_race_json_and_the_last_one_wins():
    found = (("rtd", 5, 0.6), ("rtd", 10, 0.7), ("mlm", 10, 0.5))
    probes = [Probe.from_dict({"objective": o, "step": s, "flops": 1e9 * s, "tokens": 64 * s, "accuracy": a,
                               "train_accuracy": 0.9, "n_train": 10, "n_test": 5, "features": 32, "seconds": 1.0,
                               "random_init": False}) for o, s, a in found]
    assert last_probe(probes, "rtd").accuracy == 0.7 and last_probe(probes, "untrained") is None
    assert Probe.from_dict(probes[0].to_dict()) == probes[0]


def test_an_old_checkpoints_counters_read_as_one_shape():
    counters = Counters.from_dict({"step": 4, "flops": 8.0, "flops_per_step": 2.0}, seq_len=64)
    assert counters == Counters(step=4, flops=8.0, flops_per_shape={64: 2.0})


def test_every_shipped_record_reads_as_typed_events_and_probes():
    paths = sorted((ASSETS / "races").glob("*.json"))
    assert paths
    for path in paths:
        record = load_record(path)
        for objective, points in record["events"].items():
            events = record_events(record, objective)
            assert [e.step for e in events] == [p["step"] for p in points] and all(e.flops >= 0 for e in events)
        assert [p.accuracy for p in record_probes(record)] == [p["accuracy"] for p in record["probes"]]
        assert record_floor(record).objective == "untrained"
