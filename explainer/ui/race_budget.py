"""The Training tab's budget box: its text as a number, and its value when "Budget in" changes unit.

No gradio: plain functions the tab wires (explainer/ui/training_tab.py), so tests call them directly. The
server's limits come from this process's race manager (explainer.ui.races).
"""

from __future__ import annotations

from explainer.render import training as view
from explainer.ui import races
from training.race.settings import CPU_RACE_FLOPS, CPU_RACE_MINUTES, default_settings


def parse_amount(text) -> float:
    """The budget box's text as a number: 300, 8, 1.4e13, 20,000 (TypeError when empty, as an emptied number box;
    ValueError with a message otherwise)."""
    if text is None or not str(text).strip():
        raise TypeError("the budget box is empty")
    try:
        return float(str(text).strip().replace(",", "").replace("_", "").replace(" ", ""))
    except ValueError:
        raise ValueError(f"The budget must be a number, like 300, 8 or 1.4e13, not “{str(text)[:40]}”.") from None


# The budget box's starting value in each unit. For the mini preset, one race measured three ways: 1.4e13 FLOPs each
# took 8 minutes with 2 threads on a 2-core CPU and about 500 ELECTRA steps (the 5e13 records: 1,735 steps), so a
# value there converts; other presets start each unit afresh (their own default for their own unit).
UNIT_STARTS = {"tiny": {"minutes": 1, "flops": 1e12}, "mini": {"minutes": CPU_RACE_MINUTES, "steps": 500},
               "small": {"steps": 1000, "flops": 1e15}}
CONVERTS = ("mini",)  # the presets whose UNIT_STARTS are the same race (measured), not just starting values


def unit_starts(preset: str) -> dict[str, float]:
    """The budget box's starting value per unit ("minutes", "steps", "flops") for `preset`."""
    own = default_settings(preset)
    return {"minutes": CPU_RACE_MINUTES, "steps": 500, "flops": CPU_RACE_FLOPS, **UNIT_STARTS.get(preset, {}),
            own.budget: own.amount}


def amount_label(unit: str) -> str:
    """The budget box's label for `unit`: what its number counts, and the server's limit in that unit."""
    limits = races.MANAGER.limits
    return {"minutes": f"Budget: minutes, the whole race (at most {limits.max_minutes:g})",
            "steps": f"Budget: steps of each objective (at most {limits.max_steps:,})",
            "flops": f"Budget: training FLOPs of each objective (at most {limits.max_flops:.0e}; "
                     "1.4e13 is 1.4 × 10¹³)".replace("e+", "e")}[unit]


def unit_changed(unit: str, amount, previous: str | None, preset: str):
    """The budget box after "Budget in" changed from `previous` to `unit`: the same race in the new unit where the
    preset's measurements say so (`CONVERTS`), else the new unit's starting value; never over the server's limit.
    Returns the box's text and the unit it is now in, by name."""
    starts, limits = unit_starts(preset), races.MANAGER.limits
    value = starts[unit]
    if preset in CONVERTS and previous in starts and previous != unit:
        try:
            typed = parse_amount(amount)
        except (TypeError, ValueError):
            typed = 0.0
        if typed > 0:
            value = starts[unit] * typed / starts[previous]
    value = min(value, {"minutes": limits.max_minutes, "steps": limits.max_steps, "flops": limits.max_flops}[unit])
    value = {"minutes": round(value, 1) or 0.1, "steps": max(1, round(value))}.get(unit, float(f"{value:.2g}"))
    return {"amount": view.amount_text(value), "unit": unit}
