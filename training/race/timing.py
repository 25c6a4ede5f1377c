"""What this machine does in a second: its matrix peak, each objective's warm steps, one probe; and the batch size
and budget a race gets from them (training/race/sizing.py does the arithmetic). The device run's first minute
(training/race/device_run.py).

Left out: timing the race's own first steps instead (a budget must be known before the race starts: the
learning rate's schedule runs on it).
"""

from __future__ import annotations

import dataclasses
import gc
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


def matmul_peak(device: str, n: int | None = None, reps: int = 10, rounds: int | None = None,
                warm: int | None = None) -> dict:
    """The rate of a large matrix product, the ceiling a step's FLOP/s is measured against: bf16 on CUDA (the
    trainer's autocast runs its matmuls in bf16), float32 on a CPU. `warm` products first, unmeasured (on CUDA 25:
    the library's set-up and an idle GPU's clocks rising), then `rounds` rounds of `reps`, each timed between two
    device syncs; the median round's rate is the peak. On random data: zeros run faster than real data."""
    cuda = device == "cuda"
    dtype = torch.bfloat16 if cuda else torch.float32
    n, rounds, warm = n or (8192 if cuda else 1024), rounds or (5 if cuda else 1), warm if warm is not None else (
        25 if cuda else 3)
    generator = torch.Generator(device=device).manual_seed(0)
    a, b = (torch.randn(n, n, generator=generator, device=device, dtype=dtype) for _ in range(2))
    c = torch.empty(n, n, device=device, dtype=dtype)  # one output, reused: no allocation inside the timing
    for _ in range(warm):
        torch.mm(a, b, out=c)
    _sync(device)
    seconds = []
    for _ in range(rounds):
        began = time.perf_counter()
        for _ in range(reps):
            torch.mm(a, b, out=c)
        _sync(device)
        seconds.append(time.perf_counter() - began)
    median = sorted(seconds)[len(seconds) // 2]
    del a, b, c
    if cuda:
        torch.cuda.empty_cache()
    return {"dtype": str(dtype).removeprefix("torch."), "n": n, "reps": reps, "rounds": rounds, "warm": warm,
            "seconds": median, "round_seconds": seconds, "flops_per_second": 2 * n**3 * reps / median}


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


def _calibrations(settings: RaceSettings, work: Path, warm: int, timed: int) -> tuple[list[Calibration] | None, str]:
    """Both objectives' calibrations at the settings' batch size; or None and why, when the device's memory ran out
    (a larger batch is then left out, not the call lost)."""
    try:
        return [calibrate(settings, o, work / f"calibration-{o}", warm, timed) for o in OBJECTIVES], ""
    except torch.cuda.OutOfMemoryError as error:
        message = f"batch {settings.batch_size}: out of memory ({str(error).splitlines()[0][:300]})"
    gc.collect()  # the failed step's tensors, held by the trainer's frames, go now
    if use_cuda(settings.device):
        torch.cuda.empty_cache()
    for o in OBJECTIVES:
        shutil.rmtree(work / f"calibration-{o}", ignore_errors=True)
    return None, message


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
    left now. A batch size that runs out of memory is left out (`tried` says so); all of them: RuntimeError.
    `seconds_left()`: the run's seconds to go; `peak`: the FLOP/s the shares are of."""
    device = "cuda" if use_cuda(settings.device) else "cpu"
    tried, found, probe_seconds = [], [], None
    for batch in batch_sizes:
        trial = dataclasses.replace(settings, batch_size=batch)
        calibrations, failed = _calibrations(trial, work, warm, timed)
        if calibrations is None:
            say(f"calibration, {failed}; the next batch size, if any")
            tried.append({"batch_size": batch, "calibration": [], "plan": None, "error": failed})
            continue
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
    if not found:
        raise RuntimeError("no batch size fitted in the device's memory: " + "; ".join(t["error"] for t in tried))
    planned = [f for f in found if f[2] is not None]
    batch, calibrations, plan = max(planned, key=lambda f: f[2].budget_flops) if planned else found[0]
    if plan is not None and len(found) > 1:  # the later calibrations took time: plan on what is left now
        plan, error = _plan(calibrations, probe_seconds, seconds_left(), probes)
        tried.append({"batch_size": batch, "replanned": True, "plan": plan.to_dict() if plan else None,
                      "error": error})
    return Sizing(batch, calibrations, probe_seconds, plan, tried)
