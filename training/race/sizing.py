"""How large a race fits in the time left: the budget from each objective's first timed steps on this machine.

A borrowed GPU gives one call of at most 10 minutes, and nobody knows beforehand how fast its steps are. So the
device run (training/race/device_run.py) first times a few steps of each objective through the race's own trainer
(`Calibration`), times one probe, and then `plan_budget` picks the largest FLOPs budget per objective whose race
(both objectives' training, their setup, the checkpoint saves the probes read, and the probes) ends in the seconds
left, with a margin. Pure arithmetic: no torch, no clock.

Left out: a model of how a step's speed changes during a run (warm steps are steady; the margin covers drift).
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass

OBJECTIVES = ("rtd", "mlm")


@dataclass(frozen=True)
class Calibration:
    """One objective's first steps on this machine, run by the race's own trainer with the race's settings."""

    objective: str  # "rtd" or "mlm"
    timed_steps: int  # steps timed once warm (the first ones, and the one FLOPs are counted on, excluded)
    flops_per_step: float  # training FLOPs of one step, as the trainer counts them (FlopCounterMode)
    seconds_per_step: float  # wall time of one warm step, the trainer's per-step metrics and logging included
    tokens_per_step: int  # batch size x block length
    setup_seconds: float  # the trainer's start to its first step's end: data, models, the counted first step
    save_seconds: float  # one save of the models and the checkpoint (each probe reads a saved checkpoint)

    @property
    def flops_per_second(self) -> float:
        return self.flops_per_step / self.seconds_per_step

    @property
    def tokens_per_second(self) -> float:
        return self.tokens_per_step / self.seconds_per_step

    def to_dict(self) -> dict:
        return {**asdict(self), "flops_per_second": self.flops_per_second, "tokens_per_second": self.tokens_per_second}


@dataclass(frozen=True)
class Plan:
    budget_flops: float  # training FLOPs per objective, two significant digits, rounded down
    steps: dict[str, int]  # about how many steps each objective takes to spend it
    probe_every: int  # steps between probes: at most `probes` per objective, then one at the end
    probes: int  # probes in all at most, the untrained floor included
    train_seconds: float  # both objectives' planned training time, together
    overhead_seconds: float  # setup, checkpoint saves and probes
    seconds: float  # the whole race as planned: training + overhead (the margin is not in it)

    def to_dict(self) -> dict:
        return asdict(self)


def flops_text(value: float, digits: int = 2) -> str:
    """2.1e16, not 2.1e+16: a budget as people write it (file names too)."""
    return re.sub(r"e\+?0*(\d)", r"e\1", f"{value:.{digits}g}")


def round_down(value: float, digits: int = 2) -> float:
    """`value` rounded down to `digits` significant digits: 2.47e16 -> 2.4e16."""
    if value <= 0 or not math.isfinite(value):
        raise ValueError(f"a positive number to round, not {value}")
    scale = 10.0 ** (math.floor(math.log10(value)) - digits + 1)
    return float(f"{math.floor(value / scale * (1 + 1e-12)) * scale:.{digits}g}")


def plan_budget(calibrations: list[Calibration], probe_seconds: float, seconds_left: float, probes: int = 6,
                margin: float = 0.15) -> Plan:
    """The largest budget per objective whose race fits in `seconds_left`, keeping `margin` (a share of the time
    left after the overhead) spare. Each objective gets at most `probes` probes on the way and one at the end,
    and the untrained floor one: their time and the checkpoint saves they read are counted first."""
    by_objective = {c.objective: c for c in calibrations}
    if sorted(by_objective) != sorted(OBJECTIVES):
        raise ValueError(f"a calibration of each objective ({', '.join(OBJECTIVES)}), not of {sorted(by_objective)}")
    if probes < 1:
        raise ValueError(f"at least one probe on the way, not {probes}")
    n_probes = len(OBJECTIVES) * (probes + 1) + 1
    overhead = (sum(c.setup_seconds for c in calibrations) + n_probes * probe_seconds
                + len(OBJECTIVES) * (probes + 1) * max(c.save_seconds for c in calibrations))
    train_seconds = (seconds_left - overhead) / (1 + margin)
    if train_seconds <= 0:
        raise ValueError(f"{seconds_left:.0f} s left, and the race's setup, saves and {n_probes} probes alone take "
                         f"{overhead:.0f} s: no time to train; give it more time or fewer probes")
    # Both objectives spend the same FLOPs, one after the other: seconds = budget x sum(1 / rate).
    budget = round_down(train_seconds / sum(1 / c.flops_per_second for c in calibrations))
    steps = {o: math.ceil(budget / by_objective[o].flops_per_step) for o in OBJECTIVES}
    planned = sum(budget / c.flops_per_second for c in calibrations)
    return Plan(budget, steps, max(1, math.ceil(max(steps.values()) / probes)), n_probes, planned, overhead,
                planned + overhead)
