"""What both attribution engines share: the settings and the results (one row, or the matrix), the
settings' checks, the IG baseline sentence, the matrix's targets and the compute budget's plan.

`explainer.core.attributions` (captum) and `explainer.core.integration` (the shared path) import
these; `explainer.core.attributions` re-exports every name, so callers import from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch

from explainer.core import budget
from explainer.core.pipeline import Explanation

Method = Literal["integrated_gradients", "gradient_x_input"]
Baseline = Literal["pad", "mask"]
METHODS: tuple[str, ...] = ("integrated_gradients", "gradient_x_input")
MATRIX_MAX_TARGETS = 64  # rows of the all-tokens view; beyond this it takes minutes on a CPU
MAX_STEPS = 500  # integration points; the page offers 4-200. Bounded because one call holds the shared models
TOLERANCE = 0.01  # the page's default: each row's completeness error within 1% of its sum |scores|
# Adaptive point counts, tried in turn up to the request's n_steps. Not below 16: at 8 points a row's
# completeness error can pass by luck (errors of opposite sign cancel in the sum) while single shares are
# still 5% of the row's scale off the 300-point result (bench/explain_latency.py on the bundled model).
LEVELS = (16, 32, 64, 128, 256)


@dataclass(frozen=True)
class AttributionSettings:
    method: Method = "integrated_gradients"
    n_steps: int = 50  # integration points (Gauss-Legendre); more = smaller convergence delta
    baseline: Baseline = "pad"  # what the non-special tokens become in the IG baseline
    internal_batch_size: int = 400  # sequences per forward pass inside captum (memory vs speed)
    tolerance: float = 0.0  # > 0: adaptive, as few points (up to n_steps) as keep each row's completeness
    # error |sum(scores) - (logit - baseline logit)| within tolerance x sum|scores|; 0: exactly n_steps


@dataclass(frozen=True)
class Attribution:
    target: int  # token position whose replaced-logit is explained
    tokens: tuple[str, ...]  # the corrupted sentence the discriminator read
    scores: tuple[float, ...]  # (T,) each input token's share of the target's logit
    logit: float  # target's replaced-logit on the sentence
    baseline_logit: float | None  # on the baseline (IG only)
    delta: float | None  # convergence delta: sum(scores) - (logit - baseline_logit) (IG only)
    settings: AttributionSettings
    points: int | None = None  # integration points used (IG only; adaptive: where it stopped)
    notices: tuple[str, ...] = ()  # what the compute budget changed, for the user

    @property
    def error(self) -> float | None:
        """The completeness error relative to the row's scale: |delta| / sum|scores| (IG only)."""
        return None if self.delta is None else relative_error(self.scores, self.delta)

    @property
    def p_replaced(self) -> float:
        return float(torch.sigmoid(torch.tensor(self.logit)))


@dataclass(frozen=True)
class AttributionMatrix:
    targets: tuple[int, ...]  # token positions, one row each
    tokens: tuple[str, ...]
    scores: tuple[tuple[float, ...], ...]  # (targets, T)
    deltas: tuple[float, ...] | None  # per row (IG only)
    settings: AttributionSettings
    points: tuple[int, ...] | None = None  # integration points per row (IG only; adaptive rows differ)
    notices: tuple[str, ...] = ()  # what the compute budget changed, for the user
    done: bool = True  # False for the partial matrices `iter_matrix` yields on the way

    @property
    def errors(self) -> tuple[float, ...] | None:
        """Each row's completeness error relative to its scale: |delta| / sum|scores| (IG only)."""
        if self.deltas is None:
            return None
        return tuple(relative_error(row, delta) for row, delta in zip(self.scores, self.deltas))


def relative_error(scores, delta: float) -> float:
    return abs(delta) / max(sum(abs(s) for s in scores), 1e-12)


def baseline_ids(input_ids: torch.Tensor, special: torch.Tensor, tokenizer, baseline: Baseline) -> torch.Tensor:
    """The reference sentence: [CLS]/[SEP] kept, every other token [PAD] (or [MASK])."""
    fill = {"pad": tokenizer.pad_token_id, "mask": tokenizer.mask_token_id}[baseline]
    return input_ids.masked_fill(~special, fill)


def check(settings: AttributionSettings) -> None:
    """ValueError with a message for the user; the bound on n_steps keeps one request from holding the
    shared models (`ModelPair.lock`) for minutes."""
    if settings.method not in METHODS:
        raise ValueError(f"unknown method {settings.method!r}; choose one of {', '.join(METHODS)}")
    if not 1 <= settings.n_steps <= MAX_STEPS:
        raise ValueError(f"n_steps must be between 1 and {MAX_STEPS}")
    if not 0 <= settings.tolerance < 1:
        raise ValueError("tolerance must be at least 0 (0: exactly n_steps points) and below 1")
    if settings.baseline not in ("pad", "mask"):
        raise ValueError(f"unknown baseline {settings.baseline!r}; choose pad or mask")


def _levels(settings: AttributionSettings) -> list[int]:
    """The point counts to try, in order: adaptive climbs LEVELS up to n_steps; fixed is n_steps alone."""
    if settings.method != "integrated_gradients":
        return [1]  # gradient x input: one gradient, no path
    if settings.tolerance <= 0:
        return [settings.n_steps]
    return [level for level in LEVELS if level < settings.n_steps] + [settings.n_steps]


def _plan(pair, explanation: Explanation, settings: AttributionSettings, targets: int, limit: float | None):
    """The budget's plan for this request (BudgetError if it cannot run) and the levels it allows."""
    levels = _levels(settings)
    limit = budget.limit_seconds(pair) if limit is None else limit
    price = budget.costs(pair)
    plan = budget.fit(price, len(explanation.tokens), levels[-1], targets, limit, start=levels[0])
    allowed = [level for level in levels if level <= plan.points] or [plan.points]
    return plan, allowed, price, limit


def matrix_targets(explanation: Explanation) -> list[int]:
    return [t.position for t in explanation.tokens if not t.special][:MATRIX_MAX_TARGETS]


def _matrix(explanation: Explanation, targets: list[int], scores, deltas, settings, points=None, notices=(),
            done=True) -> AttributionMatrix:
    return AttributionMatrix(
        tuple(targets), tuple(t.corrupted for t in explanation.tokens), tuple(tuple(row) for row in scores),
        None if deltas is None else tuple(float(d) for d in deltas), settings,
        None if points is None else tuple(points), tuple(notices), done,
    )
