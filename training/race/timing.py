"""What this machine does in a second: its matrix peak, each objective's warm steps, one probe; and the batch size
and budget a race gets from them (training/race/sizing.py does the arithmetic). The device run's first minute
(training/race/device_run.py).

Left out: timing the race's own first steps instead (a budget must be known before the race starts: the
learning rate's schedule runs on it).
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from training.downstream.probe import probe
from training.race.run import ENCODER_FOLDER, OBJECTIVES
from training.race.settings import RaceSettings, use_cuda
from training.race.sizing import Calibration, Plan, flops_text, plan_budget
from training.trainer import train


def say(text: str) -> None:
    print(text, flush=True)


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def matmul_peak(device: str, n: int | None = None, reps: int = 10) -> dict:
    """The rate of a large matrix product, the ceiling a step's FLOP/s is measured against: bf16 on CUDA (the
    trainer's autocast runs its matmuls in bf16), float32 on a CPU. Three products first, unmeasured."""
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    n = n or (8192 if device == "cuda" else 1024)
    generator = torch.Generator(device=device).manual_seed(0)
    a, b = (torch.randn(n, n, generator=generator, device=device, dtype=dtype) for _ in range(2))
    for _ in range(3):
        a @ b
    _sync(device)
    began = time.perf_counter()
    for _ in range(reps):
        a @ b
    _sync(device)
    seconds = time.perf_counter() - began
    return {"dtype": str(dtype).removeprefix("torch."), "n": n, "reps": reps, "seconds": seconds,
            "flops_per_second": 2 * n**3 * reps / seconds}


def calibrate(settings: RaceSettings, objective: str, folder: Path, warm: int, timed: int) -> Calibration:
    """`warm + timed` steps of one objective through the trainer, as the race will run them; the timed ones are
    the warm steps' wall time, each step's metrics (and so a device sync) included."""
    if warm < 1 or timed < 1:
        raise ValueError(f"at least one warm step and one timed step, not {warm} and {timed}")
    config = dataclasses.replace(settings.train_config(objective), max_steps=warm + timed, max_flops=None,
                                 max_minutes=None, checkpoint_every=10**9)
    began = time.perf_counter()
    times, events = [], []
    for event in train(config, folder):
        times.append(time.perf_counter())
        events.append(event)
    saved = time.perf_counter()  # the loop ended in the trainer's final save
    last = events[-1]
    return Calibration(objective, timed, last.flops / last.step, (times[-1] - times[warm - 1]) / timed,
                       config.batch_size * config.seq_len, times[0] - began, saved - times[-1])


@dataclass(frozen=True)
class Sizing:
    batch_size: int  # the one the race runs
    calibrations: list[Calibration]  # of that batch size
    probe_seconds: float  # one probe of a calibration's encoder, as the race probes
    plan: Plan | None  # None: no plan fitted the time left (`tried` says why)
    tried: list[dict]  # each batch size tried: its calibrations, its plan or the reason there was none


def _plan(calibrations: list[Calibration], probe_seconds: float, seconds_left: float, probes: int):
    try:
        return plan_budget(calibrations, probe_seconds, seconds_left, probes), None
    except ValueError as error:
        return None, str(error)


def size_race(settings: RaceSettings, batch_sizes: tuple[int, ...], min_budget: float, work: Path,
              seconds_left: Callable[[], float], peak: float, probes: int = 6, warm: int = 5,
              timed: int = 20) -> Sizing:
    """Calibrate each batch size in turn until one's plan reaches `min_budget` FLOPs per objective (a bigger
    batch keeps a GPU busier, but takes fewer steps), else take the largest plan; then plan again on the time
    left now. `seconds_left()`: the run's seconds to go; `peak`: the FLOP/s the shares are of."""
    device = "cuda" if use_cuda(settings.device) else "cpu"
    tried, found, probe_seconds = [], [], None
    for batch in batch_sizes:
        trial = dataclasses.replace(settings, batch_size=batch)
        calibrations = [calibrate(trial, o, work / f"calibration-{o}", warm, timed) for o in OBJECTIVES]
        for c in calibrations:
            say(f"calibration {c.objective}, batch {batch}: {c.seconds_per_step * 1e3:.1f} ms a step, "
                f"{flops_text(c.flops_per_step, 3)} FLOPs a step, {c.tokens_per_second:,.0f} tokens/s, "
                f"{c.flops_per_second / 1e12:.3g} TFLOP/s ({100 * c.flops_per_second / peak:.1f}% of peak); "
                f"setup {c.setup_seconds:.1f} s, save {c.save_seconds:.1f} s")
        if probe_seconds is None:  # a probe does not depend on the batch: timed once, on the first encoder
            began = time.perf_counter()
            probe(work / "calibration-rtd" / ENCODER_FOLDER["rtd"], trial.probe_config(), device=device)
            probe_seconds = time.perf_counter() - began
        for o in OBJECTIVES:
            shutil.rmtree(work / f"calibration-{o}", ignore_errors=True)
        if device == "cuda":
            torch.cuda.empty_cache()
        left = seconds_left()
        plan, error = _plan(calibrations, probe_seconds, left, probes)
        say(f"plan, batch {batch}: " + (error or (
            f"{flops_text(plan.budget_flops)} FLOPs per objective in the {left:.0f} s left: "
            f"about {plan.steps['rtd']:,} RTD and {plan.steps['mlm']:,} MLM steps, "
            f"a probe every {plan.probe_every:,} steps ({probe_seconds:.1f} s each), {plan.seconds:.0f} s in all")))
        tried.append({"batch_size": batch, "calibration": [c.to_dict() for c in calibrations],
                      "plan": plan.to_dict() if plan else None, "error": error})
        found.append((batch, calibrations, plan))
        if plan is not None and plan.budget_flops >= min_budget:
            break
    planned = [f for f in found if f[2] is not None]
    batch, calibrations, plan = max(planned, key=lambda f: f[2].budget_flops) if planned else found[0]
    if plan is not None and len(found) > 1:  # the later calibrations took time: plan on what is left now
        plan, error = _plan(calibrations, probe_seconds, seconds_left(), probes)
        tried.append({"batch_size": batch, "replanned": True, "plan": plan.to_dict() if plan else None,
                      "error": error})
    return Sizing(batch, calibrations, probe_seconds, plan, tried)
