"""One notation for FLOPs on the Training tab: every chart's FLOPs axis writes powers of ten (1×10¹³, never 10T),
and the budget box's label says what its number counts in the unit chosen, the 1.4e13 hint only for FLOPs."""

from __future__ import annotations

import pytest

from explainer.render import training as view
from explainer.ui import race_budget, replay, training_tab
from training.race.record import replay_snapshot


@pytest.fixture(scope="module")
def snapshot() -> dict:
    """A shipped record's last frame: real events and probes, read from a small JSON file."""
    return replay_snapshot(replay.get_record_at(sorted(replay.RECORDS_DIR.glob("*.json"))[0]), 1.0)


def test_every_flops_axis_writes_powers_of_ten(snapshot):
    curves, supervised = view.curves_figure(snapshot, "flops"), view.supervised_figure(snapshot, "flops")
    payoff = view.payoff_figure(snapshot)
    axes = [curves.layout.xaxis, curves.layout.xaxis2, supervised.layout.xaxis, payoff.layout.xaxis,
            payoff.layout.xaxis2]
    assert [axis.exponentformat for axis in axes] == ["power"] * 5
    by_step = view.curves_figure(snapshot, "step")
    assert by_step.layout.xaxis.exponentformat is None  # steps are counted, not powers of ten


@pytest.mark.parametrize(("unit", "says", "never"), [
    ("minutes", "Budget: minutes, the whole race (at most 30)", "10¹³"),
    ("steps", "Budget: steps of each objective (at most 50,000)", "10¹³"),
    ("flops", "Budget: training FLOPs of each objective (at most 1e17; 1.4e13 is 1.4 × 10¹³)", "e+"),
])
def test_the_budget_label_follows_the_unit(monkeypatch, unit, says, never):
    from explainer.ui import races
    from training.race.settings import RaceLimits

    monkeypatch.setattr(races.MANAGER, "limits", RaceLimits(max_minutes=30, max_steps=50_000, max_flops=1e17))
    label = race_budget.amount_label(unit)
    assert label == says and never not in label


def test_switching_the_unit_or_the_preset_relabels_the_budget_box():
    steps = training_tab.budget_unit_changed("steps", "1.4e13", "flops", "mini")
    assert steps["unit"] == "steps" and steps["amount"]["value"] == "500"
    assert steps["amount"]["label"] == race_budget.amount_label("steps") and "10¹³" not in steps["amount"]["label"]
    mini = training_tab.preset_changed("mini")  # mini's budget is in FLOPs
    assert mini["amount"]["label"] == race_budget.amount_label("flops") and mini["amount"]["value"] == "1.4e13"
    tiny = training_tab.preset_changed("tiny")
    assert tiny["amount"]["label"] == race_budget.amount_label(tiny["unit"])
