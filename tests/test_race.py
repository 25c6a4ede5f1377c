"""The RTD vs MLM race on the tiny preset: equal-FLOPs interleaving, the probe, exports, the Training tab's
views, and the measurement campaign behind the defaults. Offline, one thread. These tests share one real race
(`finished`); the budgets are in test_race_budget.py, one race per server, Stop, uploads, the tab and the
command line in test_race_server.py."""

from __future__ import annotations

import csv
import json
import time

import pytest
import torch
from race_base import TINY, tiny

from training.downstream.probe import ProbeConfig, probe
from training.project import PROJECT as PROJECT_ROOT
from training.race import campaign as campaign_stats
from training.race.campaign import aggregate
from training.race.manager import write_metrics_csv, zip_models
from training.race.run import OBJECTIVES, Race
from training.race.settings import matches_defaults

pytestmark = pytest.mark.slow  # real races: seconds each


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Race:
    """A 12-step race, probed at steps 5, 10 and 12."""
    race = Race(TINY, tmp_path_factory.mktemp("race"))
    race.run()
    return race


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
    spend the same compute. A slow MLM start (1.5 s of a 3 s race) makes the gap certain."""
    import training.race.run as race_module

    real_train = race_module.train

    def slow_mlm_start(config, folder, **kwargs):
        if config.objective == "mlm":
            time.sleep(1.5)
        yield from real_train(config, folder, **kwargs)

    monkeypatch.setattr(race_module, "train", slow_mlm_start)
    race = Race(tiny(budget="minutes", amount=0.05, probe_every=0), tmp_path)
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
