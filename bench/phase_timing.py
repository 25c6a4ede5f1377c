"""Timing a training phase's variants side by side: shared by discriminator_phase.py and generator_phase.py.

Each variant is a callable that runs one full training step (the trainer's own `_Run.train_step`). They step
round-robin, so drift on the machine (a neighbour's load, heat) hits them alike; a step pair is one 128-token
and one 32-token step when the runs alternate block lengths, so every figure holds both shapes.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable


def round_robin(steps: dict[str, Callable[[], None]], timed: int, warmup: int) -> dict[str, list[float]]:
    """Seconds of each variant's `timed` steps, after `warmup` untimed ones (the first step of each block
    length also counts its FLOPs), the variants interleaved step by step."""
    for _ in range(warmup):
        for step in steps.values():
            step()
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(timed):
        for name, step in steps.items():  # round-robin: drift is shared, not one variant's
            start = time.perf_counter()
            step()
            times[name].append(time.perf_counter() - start)
    return times


def report(title: str, times: dict[str, list[float]], tokens_per_step: int, baseline: str, extra: dict) -> list[dict]:
    """Print the median seconds per step (over pairs of steps) and tokens/s of each variant, its speed against
    `baseline`, then one JSON line; return the rows."""
    pair_times = {name: [a + b for a, b in zip(t[0::2], t[1::2])] for name, t in times.items()}
    base = statistics.median(pair_times[baseline]) / 2
    print(title)
    width = max(22, *(len(name) for name in times))
    print(f"{'variant':<{width}} {'s/step':>7} {'tokens/s':>9} {'vs ' + baseline:>{len(baseline) + 3}}")
    rows = []
    for name in times:
        per_step = statistics.median(pair_times[name]) / 2
        rows.append({"variant": name, "seconds_per_step": per_step, "tokens_per_s": tokens_per_step / per_step,
                     "speedup": base / per_step})
        print(f"{name:<{width}} {per_step:>7.3f} {tokens_per_step / per_step:>9.0f} "
              f"{base / per_step:>{len(baseline) + 2}.2f}x")
    print(json.dumps({**extra, "variants": rows}))
    return rows
