"""What an attribution request costs, priced before it runs, and what a server allows one request.

Integrated gradients run the discriminator over S integration points of a T-token sentence (one
forward over S x T token positions), then one backward pass over that graph per target word. So:

    seconds ~= forward * (S + 2) * T  +  backward * (S + 2) * T * N      (N targets; +2: the endpoints)

`forward` and `backward` (seconds per point-token) are measured once per loaded model on this
machine (`costs`: a 64-token path of 8 points, the faster of two runs, ~0.1 s on the bundled model),
so the price follows the hardware, the model size and the load the server is under at that moment.
Attention grows with T squared, which the linear price ignores: at 512 tokens it underestimates by
roughly a tenth on the bundled model, which the limit's "about" absorbs.

The limit (`limit_seconds`) is ELECTRA_ATTRIBUTION_SECONDS, 10 s by default on a CPU and 30 s on a
GPU: past it a request holds the shared models long enough to stall everybody else. `fit` reduces
a request to what the limit buys, first the integration points (down to MIN_POINTS), then the
number of target words, and says so; a request that cannot be reduced enough is refused with a
message (`BudgetError`), before any of it runs.
"""

from __future__ import annotations

import os
import time
import weakref
from dataclasses import dataclass

import torch

MIN_POINTS = 4  # fewer Gauss-Legendre points than this do not give a picture worth showing
CALIBRATION_TOKENS = 64
CALIBRATION_POINTS = 8
_COSTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # ModelPair -> Costs


class BudgetError(ValueError):
    """A request the server will not run, even reduced; the message is meant for the user."""


class Left(float):
    """Seconds left of the server's limit (`whole`) after earlier work in the same request (an explanation)."""

    whole: float

    def __new__(cls, left: float, whole: float):
        value = super().__new__(cls, left)
        value.whole = whole
        return value


def limit_words(limit: float) -> str:
    """The limit as a message gives it: "10 s per request", or, for a `Left`, what the request had left of it."""
    whole = getattr(limit, "whole", None)
    if whole is None:
        return f"{limit:.0f} s per request"
    return f"{whole:.0f} s per request, {limit:.1f} s of it left after explaining the text"


@dataclass(frozen=True)
class Costs:
    forward: float  # seconds per point-token of the forward over the path
    backward: float  # seconds per point-token of one target's backward pass

    def seconds(self, tokens: int, points: int, targets: int) -> float:
        work = (points + 2) * tokens
        return work * (self.forward + self.backward * targets)


@dataclass(frozen=True)
class Plan:
    points: int
    targets: int
    seconds: float  # the price of this plan
    notice: str = ""  # what was reduced, for the user; "" when nothing was


def limit_seconds(pair=None) -> float:
    """The most seconds one attribution request may hold the models: the setting, or 10 (CPU) / 30 (GPU)."""
    value = os.environ.get("ELECTRA_ATTRIBUTION_SECONDS")
    if value:
        return max(0.01, float(value))
    on_gpu = pair is not None and next(pair.discriminator.parameters()).is_cuda
    return 30.0 if on_gpu else 10.0


def costs(pair) -> Costs:
    """The pair's measured price per point-token on this machine (measured once; the caller need not hold the lock)."""
    known = _COSTS.get(pair)
    if known is not None:
        return known
    discriminator = pair.discriminator
    layer = discriminator.electra.embeddings
    device = next(discriminator.parameters()).device
    vocab = discriminator.config.vocab_size
    ids = (torch.arange(CALIBRATION_TOKENS, device=device) * 7919 % max(1, vocab - 1000) + 999)[None]
    rows = CALIBRATION_POINTS + 2
    forward_s, backward_s = float("inf"), float("inf")
    with pair.lock, torch.enable_grad():
        for _ in range(2):
            start = time.perf_counter()
            path = layer(ids).detach().expand(rows, -1, -1).clone().requires_grad_(True)
            hook = layer.register_forward_hook(lambda module, inputs, output: path)
            try:
                logits = discriminator(input_ids=ids.expand(rows, -1)).logits
            finally:
                hook.remove()
            middle = time.perf_counter()
            torch.autograd.grad(logits[:, CALIBRATION_TOKENS // 2].sum(), path)
            end = time.perf_counter()
            forward_s, backward_s = min(forward_s, middle - start), min(backward_s, end - middle)
    work = rows * CALIBRATION_TOKENS
    measured = Costs(forward_s / work, backward_s / work)
    _COSTS[pair] = measured
    return measured


def fit(price: Costs, tokens: int, points: int, targets: int, limit: float, start: int | None = None) -> Plan:
    """The request as asked if it fits the limit, else reduced (points first, then targets), else BudgetError.

    Adaptive requests give `start`, the points of their first pass (`points` is then the most they
    may use): only that pass must fit here, the engine pays for refinements as it goes and stops at
    the limit."""
    first = points if start is None else min(points, start)
    seconds = price.seconds(tokens, first, targets)
    if seconds <= limit:
        return Plan(points, targets, seconds)
    asked = f"This request would take about {seconds:.0f} s here (this server's limit: {limit_words(limit)})"
    fitting = next((p for p in range(first - 1, MIN_POINTS - 1, -1) if price.seconds(tokens, p, targets) <= limit),
                   None)
    if fitting is not None:
        return Plan(fitting, targets, price.seconds(tokens, fitting, targets),
                    f"{asked}: integration points reduced from {points} to {fitting}.")
    fitting = next((n for n in range(targets - 1, 0, -1) if price.seconds(tokens, MIN_POINTS, n) <= limit), 0)
    if fitting == 0:
        raise BudgetError(
            f"This request would take about {price.seconds(tokens, MIN_POINTS, 1):.0f} s even at {MIN_POINTS} "
            f"integration points for one word of {tokens} tokens, over this server's limit of {limit_words(limit)}. "
            "Shorten the text.")
    return Plan(MIN_POINTS, fitting, price.seconds(tokens, MIN_POINTS, fitting),
                f"{asked}: {MIN_POINTS} integration points, and only the first {fitting} of {targets} words "
                "are explained.")
