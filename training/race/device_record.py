"""What a race recorded by a device run (training/race/device_run.py) says about its machine, read from the record.

A device run keeps its measurements in the record's `extras.device_run`: the hardware, the measured peak of a
large matrix product, each objective's FLOP/s over its own step time, the race's wall time and the final probes'
gap. `device_run_summary(record)` reads them into one typed value (None for a record without them: the CPU
races). One race is one seed, so the gap's spread here is the probe's own sampling error: each final accuracy's
standard error is sqrt(p(1 - p) / n_test), and the gap's is the two combined (unpaired: an upper bound).

Plain data: no torch, no gradio.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from training.events import Probe, last_probe

OBJECTIVES = ("rtd", "mlm")


@dataclass(frozen=True)
class DeviceRunSummary:
    hardware: str  # "NVIDIA H200"
    budget_flops: float  # training FLOPs per objective the run planned
    budget_reached: float  # 1: both objectives spent it; below 1, the call's deadline stopped them, level
    wall_seconds: float  # the race's own clock (calibration and the files not counted)
    flops_per_second: float | None  # training FLOPs of both objectives over their step time
    peak_flops_per_second: float | None  # the measured peak of one large matrix product
    peak_dtype: str  # "bfloat16" on a GPU
    share_of_peak: float | None
    rtd_accuracy: float
    mlm_accuracy: float
    gap: float  # RTD - MLM, final probes, 0..1
    gap_spread: float | None  # the probe's sampling error of the gap, 0..1 (None without n_test)

    @property
    def spent_flops(self) -> float:
        return self.budget_flops * min(1.0, self.budget_reached)


def _standard_error(probe: Probe) -> float | None:
    if not probe.n_test:
        return None
    return math.sqrt(probe.accuracy * (1 - probe.accuracy) / probe.n_test)


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
        else None


def device_run_summary(record: dict) -> DeviceRunSummary | None:
    """The device run's figures of `record`, or None when it holds none (or lacks a final probe of either side)."""
    run = (record.get("extras") or {}).get("device_run")
    if not isinstance(run, dict) or not isinstance(run.get("race"), dict):
        return None
    probes = [Probe.from_dict(p) for p in record.get("probes") or []]
    rtd, mlm = (last_probe(probes, o) for o in OBJECTIVES)
    if rtd is None or mlm is None:
        return None
    race, peak = run["race"], run.get("peak") or {}
    errors = [_standard_error(rtd), _standard_error(mlm)]
    try:
        return DeviceRunSummary(
            hardware=str((run.get("hardware") or {}).get("name") or record.get("device") or "an unknown device"),
            budget_flops=float(run.get("budget_flops") or record["settings"]["amount"]),
            budget_reached=_number(race.get("budget_reached")) or 0.0,
            wall_seconds=_number(race.get("wall_seconds")) or _number(record.get("elapsed")) or 0.0,
            flops_per_second=_number(race.get("flops_per_second")),
            peak_flops_per_second=_number(peak.get("flops_per_second")), peak_dtype=str(peak.get("dtype") or "bf16"),
            share_of_peak=_number(race.get("share_of_peak")), rtd_accuracy=rtd.accuracy, mlm_accuracy=mlm.accuracy,
            gap=rtd.accuracy - mlm.accuracy,
            gap_spread=math.sqrt(sum(e * e for e in errors)) if None not in errors else None)
    except (KeyError, TypeError, ValueError):  # a damaged device run: the record still replays, unlabelled
        return None
