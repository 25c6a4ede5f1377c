"""What the Training tab leads with (explainer/render/race_headline.py): the recorded race that trained the most,
seeds together, with its numbers, then why the short CPU race cannot tell the two apart; and the replay list
offers that race first. A rule, not a file name: a bigger recorded race (a GPU race) leads once it is there."""

from __future__ import annotations

import math

from explainer.render.race_headline import headline_markdown, leading_races, short_race_markdown
from explainer.ui import replay
from training.race.settings import CPU_RACE_FLOPS, CPU_RACE_MINUTES


def _record(flops: float, seed: int, rtd: float, mlm: float, device: str = "CPU (1 thread)", preset="mini",
            minutes: float = 83) -> dict:
    settings = {"preset": preset, "budget": "flops", "amount": flops, "seed": seed, "temperature": 2.0,
                "device": "auto", "threads": 1, "probe_every": 400}
    return {"settings": settings, "device": device, "elapsed": 60 * minutes,
            "events": {o: [{"step": 10, "flops": flops, "wall_time": 60.0}] for o in ("rtd", "mlm")},
            "probes": [{"objective": "rtd", "step": 10, "accuracy": rtd},
                       {"objective": "mlm", "step": 10, "accuracy": mlm}],
            "floor": {"objective": "untrained", "step": 0, "flops": 0.0, "accuracy": 0.55}}


def test_the_shipped_records_lead_with_the_5e13_race_and_its_numbers():
    records = replay.recorded_races()
    races = leading_races(records)
    assert {r["settings"]["seed"] for r in races} == {0, 1} and {r["settings"]["amount"] for r in races} == {5e13}
    short = next(g for g in replay.measured_gaps() if math.isclose(g["flops"], CPU_RACE_FLOPS, rel_tol=0.01))
    text = headline_markdown(records, short, CPU_RACE_MINUTES, CPU_RACE_FLOPS)
    lead, why = text.split("\n\n")
    assert lead.startswith("**In the longest race recorded (5e13 FLOPs each, 83–123 minutes on a CPU), ELECTRA's "
                           "encoder pulls ahead of the BERT-style one: +2.1 ± 0.1 points** of probe accuracy over 2 "
                           "seeds, ELECTRA ahead in 2 of 2 (ELECTRA 61.2%, BERT-style 59.1%, untrained 57.0%).")
    assert why == ("**A race of 8 minutes on a CPU, as below, is too short to tell them apart:** at 1.4e13 FLOPs each "
                   "the gap is +0.6 ± 1.4 points over 8 seeds (ahead in 5), less than its spread from seed to seed.")
    # the replay list offers the same race first
    assert [value for _, value in replay.record_choices()[:2]] == ["mini-5e13-seed0.json", "mini-5e13-seed1.json"]


def test_a_bigger_recorded_race_leads_whatever_its_name_or_order():
    cpu = [_record(5e13, 0, 0.615, 0.595), _record(5e13, 1, 0.61, 0.59)]
    gpu = _record(1e16, 0, 0.70, 0.66, device="CUDA GPU (NVIDIA H200)", preset="small",
                  minutes=278)
    assert leading_races([*cpu, gpu]) == [gpu]
    lead = headline_markdown([gpu, *cpu], None, 8, 1.4e13)
    assert lead.startswith("**In the longest race recorded (1e16 FLOPs each, 278 minutes on a GPU), ELECTRA's encoder "
                           "pulls ahead of the BERT-style one: +4.0 points** of probe accuracy in one seed (not yet a "
                           "claim")
    assert "(ELECTRA 70.0%, BERT-style 66.0%, untrained 55.0%)" in lead


def test_a_race_where_electra_falls_behind_says_so_and_records_without_final_probes_are_left_out():
    behind = [_record(5e13, s, 0.58 + d, 0.60 + d) for s, d in enumerate((0.0, 0.01, 0.02))]
    unprobed = {**_record(9e15, 0, 0.7, 0.6), "probes": []}
    assert leading_races([*behind, unprobed]) == behind
    assert "falls behind the BERT-style one: -2.0 ± 0.0 points" in headline_markdown(behind, None, 8, 1.4e13)
    assert headline_markdown([unprobed], None, 8, 1.4e13) == ""


def test_the_short_race_line_follows_the_measured_seeds():
    level = {"gaps": [0.02, -0.01, 0.0], "mean": 0.00333, "sd": 0.0153, "n": 3}
    assert "too short to tell them apart" in short_race_markdown(level, 8, 1.4e13)
    ahead = {"gaps": [0.02, 0.021, 0.019], "mean": 0.02, "sd": 0.001, "n": 3}
    assert short_race_markdown(ahead, 8, 1.4e13).startswith("**The 8-minute race below (1.4e13 FLOPs each) shows less:")
    assert short_race_markdown(None, 8, 1.4e13) == "" and short_race_markdown({**level, "n": 1}, 8, 1.4e13) == ""
