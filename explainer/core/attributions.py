"""Why did the discriminator call a token replaced? captum attributions on its embedding layer.

The quantity explained is one target token's replaced-logit (sigmoid of it = P(replaced)), as a
function of the output of `discriminator.electra.embeddings` (token + position + type
embeddings after LayerNorm), so every input token gets a share:

- "integrated_gradients": captum `LayerIntegratedGradients` from a baseline sentence to the real
  one; the baseline keeps [CLS]/[SEP] and puts [PAD] (or [MASK]) everywhere else, as in
  captum's BERT tutorial. Shares sum to logit(input) - logit(baseline) up to the convergence
  delta, which is reported (completeness).
- "gradient_x_input": captum `LayerGradientXActivation`, one forward and backward: faster, no
  baseline, no completeness.

A token's score is the sum over embedding dimensions.

`attribution_matrix` gives every target at once (target x input), two ways:
- engine "captum": the sentence repeated once per target, one captum call with a per-row
  target (`target=[t1, t2, ...]`), batched by `internal_batch_size`;
- engine "shared" (the default for integrated gradients): the interpolation path from the
  baseline to the sentence is the same for every target, so the model runs forward once over it
  (at captum's own Gauss-Legendre points and weights) and each target costs one backward pass
  through that graph. captum has no multi-target mode, and repeating the sentence per target
  repeats the forward too: on a 4-layer x 128 model on this 2-core CPU the batched captum call
  was ~1.5x faster than one call per target, the shared forward ~3x (bench/explain_latency.py
  measures both at the bundled and ELECTRA-Small sizes).
`attribution_matrix_naive` (one captum call per target) is the reference both are tested and
benchmarked against.
Left out: attention-based explanations, attributions for the generator.

This module is captum's side and the public entry points. The settings and results live in
`explainer.core.attribution_types`, the shared engine in `explainer.core.integration`; every name of
both is re-exported here (`__all__`), so callers import from `explainer.core.attributions` alone.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Literal

import torch
from captum.attr import LayerGradientXActivation, LayerIntegratedGradients

from explainer.core.attribution_types import (
    LEVELS,
    MATRIX_MAX_TARGETS,
    MAX_STEPS,
    METHODS,
    TOLERANCE,
    Attribution,
    AttributionMatrix,
    AttributionSettings,
    Baseline,
    Method,
    _levels,
    _matrix,
    _plan,
    baseline_ids,
    check,
    matrix_targets,
    relative_error,
)
from explainer.core.integration import CHUNK, FIRST_CHUNK, GRAPH_CELLS, _chunks, _Path, _path_forward, iter_matrix
from explainer.core import budget, memory
from explainer.core.pipeline import Explanation

__all__ = [
    # settings, results, checks (explainer.core.attribution_types)
    "Method", "Baseline", "METHODS", "MATRIX_MAX_TARGETS", "MAX_STEPS", "TOLERANCE", "LEVELS",
    "AttributionSettings", "Attribution", "AttributionMatrix", "relative_error", "baseline_ids", "check",
    "matrix_targets", "_levels", "_plan", "_matrix",
    # the shared-path engine (explainer.core.integration)
    "FIRST_CHUNK", "CHUNK", "GRAPH_CELLS", "iter_matrix", "_chunks", "_Path", "_path_forward",
    # captum (here)
    "attribute", "attribution_matrix", "attribution_matrix_naive",
]


def _replaced_logits(discriminator):
    def forward(input_ids: torch.Tensor) -> torch.Tensor:  # (N, T) -> (N, T)
        return discriminator(input_ids=input_ids).logits  # one sentence each, no padding

    return forward


def _run(pair, explanation: Explanation, targets: list[int], settings: AttributionSettings):
    """Scores (N, T) and deltas (N,) or None, for one row per target, in one captum call."""
    check(settings)
    discriminator = pair.discriminator
    ids = torch.tensor(explanation.corrupted_ids)[None].expand(len(targets), -1)  # (N, T) the same sentence
    special = torch.tensor([t.special for t in explanation.tokens])[None].expand_as(ids)
    layer = discriminator.electra.embeddings
    with pair.lock, torch.enable_grad():  # captum hooks the shared layer: one user at a time
        if settings.method == "gradient_x_input":
            attributions = LayerGradientXActivation(_replaced_logits(discriminator), layer).attribute(ids,
                                                                                                       target=targets)
            return attributions.sum(-1).detach(), None  # (N, T, E) -> (N, T)
        base = baseline_ids(ids, special, pair.tokenizer, settings.baseline)
        ig = LayerIntegratedGradients(_replaced_logits(discriminator), layer)
        attributions, delta = ig.attribute(
            ids, baselines=base, target=targets, n_steps=settings.n_steps,
            # At most GRAPH_CELLS tokens per batch of points (memory), and never fewer rows than targets.
            internal_batch_size=max(len(targets), min(settings.internal_batch_size, GRAPH_CELLS // ids.shape[1])),
            return_convergence_delta=True,
        )  # (N, T, E), (N,)
        return attributions.sum(-1).detach(), delta.detach()


def _check_target(explanation: Explanation, target: int) -> None:
    if not 0 <= target < len(explanation.tokens) or explanation.tokens[target].special:
        raise ValueError(f"target must be a non-special token position, got {target}")


def attribute(pair, explanation: Explanation, target: int | None = None,
              settings: AttributionSettings = AttributionSettings(), limit: float | None = None) -> Attribution:
    """Attribute one token's replaced-logit (default: the most suspicious token) to every input token.

    Priced first (`explainer.core.budget`): over `limit` seconds (default: the server's setting) the
    points are reduced, with a notice, or the request is refused (BudgetError). Adaptive settings
    (tolerance > 0) run captum at 8, 16, 32... points until the completeness error is within tolerance."""
    check(settings)
    target = explanation.most_suspicious if target is None else target
    _check_target(explanation, target)
    plan, levels, price, limit = _plan(pair, explanation, settings, 1, limit)
    notices = [plan.notice] if plan.notice else []
    spent, tokens = 0.0, len(explanation.tokens)
    for i, points in enumerate(levels):
        start = time.perf_counter()
        scores, delta = _run(pair, explanation, [target], replace(settings, n_steps=points))
        spent += time.perf_counter() - start
        if delta is None or relative_error(scores[0].tolist(), float(delta[0])) <= settings.tolerance:
            break
        if i + 1 < len(levels) and spent + price.seconds(tokens, levels[i + 1], 1) > limit:
            notices.append(f"Stopped at {points} integration points: more would pass this server's limit of "
                           f"{budget.limit_words(limit)}.")
            break
    memory.trim()  # captum's batches are freed: their pages go back to the system
    ids = torch.tensor(explanation.corrupted_ids)[None]  # (1, T)
    with torch.no_grad(), pair.lock:
        logit = float(pair.discriminator(input_ids=ids).logits[0, target])
        baseline_logit = None
        if settings.method == "integrated_gradients":
            special = torch.tensor([t.special for t in explanation.tokens])[None]
            base = baseline_ids(ids, special, pair.tokenizer, settings.baseline)
            baseline_logit = float(pair.discriminator(input_ids=base).logits[0, target])
    return Attribution(
        target, tuple(t.corrupted for t in explanation.tokens), tuple(scores[0].tolist()), logit, baseline_logit,
        None if delta is None else float(delta[0]), settings,
        points if settings.method == "integrated_gradients" else None, tuple(notices),
    )


def attribution_matrix(pair, explanation: Explanation, settings: AttributionSettings = AttributionSettings(),
                       engine: Literal["auto", "shared", "captum"] = "auto", limit: float | None = None
                       ) -> AttributionMatrix:
    """Every non-special token as a target (up to MATRIX_MAX_TARGETS): rows = targets, columns = inputs.

    engine "auto": "shared" for integrated gradients (`iter_matrix`, adaptive when settings.tolerance
    > 0); "captum" for gradient x input, whose single forward and backward over one row per target
    is already the cheapest way, while those rows fit GRAPH_CELLS (a long text: "shared", one row
    forward and a backward per target). Priced first: see `attribute`.
    """
    check(settings)
    if engine == "auto":  # captum's one batch of a row per target only while it fits the memory of one graph
        small = len(matrix_targets(explanation)) * len(explanation.tokens) <= GRAPH_CELLS
        engine = "captum" if settings.method == "gradient_x_input" and small else "shared"
    if engine == "shared":
        *_, last = iter_matrix(pair, explanation, settings, limit)
        return last
    if engine != "captum":
        raise ValueError(f"unknown engine {engine!r}; choose shared or captum")
    targets = matrix_targets(explanation)
    plan, levels, _, _ = _plan(pair, explanation, replace(settings, tolerance=0.0), len(targets), limit)
    targets = targets[:plan.targets]
    # One captum call; an internal batch of one step for every row measured fastest here.
    captum_settings = replace(settings, n_steps=levels[-1], internal_batch_size=len(targets))
    scores, deltas = _run(pair, explanation, targets, captum_settings)
    points = None if deltas is None else (levels[-1],) * len(targets)
    return _matrix(explanation, targets, scores.tolist(), deltas, settings, points,
                   (plan.notice,) if plan.notice else ())


def attribution_matrix_naive(pair, explanation: Explanation,
                             settings: AttributionSettings = AttributionSettings()) -> AttributionMatrix:
    """The same matrix with one captum call per target: the reference the batched engines must beat."""
    targets = matrix_targets(explanation)
    rows = [_run(pair, explanation, [t], settings) for t in targets]
    deltas = None if rows[0][1] is None else [float(d[0]) for _, d in rows]
    return _matrix(explanation, targets, [s[0].tolist() for s, _ in rows], deltas, settings)
