"""Stop means now: a race stopped at a step takes no further step and starts no probe (a probe under way leaves
between two batches of sentences), skips the final probes, and keeps both models as trained. Asserted on the
race's events and records, never on a clock."""

from __future__ import annotations

import pytest
import torch
from conftest import N_DOCUMENTS, WORDPIECE

from training.downstream.probe import ProbeConfig, ProbeStopped, probe
from training.race.run import OBJECTIVES, Race
from training.race.settings import RaceSettings

pytestmark = pytest.mark.slow  # a real (tiny) race

SETTINGS = RaceSettings(
    preset="tiny", budget="steps", amount=40, tokenizer=WORDPIECE, max_documents=N_DOCUMENTS, seq_len=64,
    batch_size=8, lr=2e-3, probe_every=2, probe_train=200, probe_test=100, device="cpu", threads=1,
)


def test_a_probe_leaves_between_two_batches_when_asked(tiny_pair_dir):
    asked = []

    def stop() -> bool:  # says stop on its third question: after two batches of ten sentences
        asked.append(True)
        return len(asked) > 2

    with pytest.raises(ProbeStopped, match="after 20 of 200 sentences"):
        probe(tiny_pair_dir / "discriminator", ProbeConfig(n_train=200, n_test=100, batch_size=10), stop=stop)
    assert len(asked) == 3


def test_a_stop_ends_the_race_at_its_current_step_with_no_probe_after_it(tmp_path):
    race = Race(SETTINGS, tmp_path)
    at_stop = {}

    def on_step(race: Race) -> None:
        # The rtd step 3 is the one after which step 2's probe would start: stop there, as a user's click would.
        rtd = race.runners["rtd"].events
        if not at_stop and rtd and rtd[-1].step == 3:
            race.stop()
            at_stop.update({o: list(race.runners[o].events) for o in OBJECTIVES}, probes=list(race.probes))

    summary = race.run(on_step)
    assert summary["status"] == race.status == "stopped"
    for objective in OBJECTIVES:  # not one step more for either objective
        assert race.runners[objective].events == at_stop[objective]
        step = at_stop[objective][-1].step
        checkpoint = torch.load(tmp_path / objective / "checkpoint.pt", weights_only=False)
        assert checkpoint["counters"]["step"] == step  # kept as trained
    assert race.probes == at_stop["probes"]  # none after the stop: no final probe either
    assert not any(p.objective == "rtd" for p in race.probes)  # rtd's step-2 probe never started
    assert summary["rtd"]["probe_accuracy"] is None
    assert (tmp_path / "rtd" / "discriminator" / "config.json").exists()
    assert (tmp_path / "mlm" / "encoder" / "config.json").exists()
