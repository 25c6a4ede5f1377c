"""The shared-path engine of the attribution matrix (integrated gradients, and gradient x input).

The interpolation path from the baseline to the sentence is the same for every target, so the model
runs forward once over it (at captum's own Gauss-Legendre points and weights) and each target costs
one backward pass through that graph. `iter_matrix` yields the matrix
as its rows are computed, adaptive when settings.tolerance > 0. `explainer.core.attributions`
re-exports every name here (`attribution_matrix` calls `iter_matrix` for its "shared" engine).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

import torch
from captum.attr._utils.approximation_methods import approximation_parameters  # captum's own quadrature

from explainer.core.attribution_types import (
    AttributionMatrix,
    AttributionSettings,
    _matrix,
    _plan,
    baseline_ids,
    check,
    matrix_targets,
    relative_error,
)
from explainer.core.pipeline import Explanation

FIRST_CHUNK, CHUNK = 4, 8  # matrix rows per step of `iter_matrix` (the first ones show within a second)


def iter_matrix(pair, explanation: Explanation, settings: AttributionSettings = AttributionSettings(),
                limit: float | None = None) -> Iterator[AttributionMatrix]:
    """The matrix row by row, as it is computed: a partial matrix (done=False) after every few rows, the
    whole one last. Closing the iterator (a cancelled request) stops the work between chunks.

    Each chunk of targets runs at the current start level of points; rows whose completeness error is
    over the tolerance are redone at the next level, while the server's limit allows (the first pass of
    the rows still to come is reserved). The next chunk starts at the median level the rows so far
    needed. One forward per level is shared by every row at that level.
    The lock is taken per chunk, so other requests' sentences run between chunks."""
    check(settings)
    targets = matrix_targets(explanation)
    plan, levels, price, limit = _plan(pair, explanation, settings, len(targets), limit)
    notices = [plan.notice] if plan.notice else []
    targets, tokens = targets[:plan.targets], len(explanation.tokens)
    adaptive = settings.method == "integrated_gradients" and settings.tolerance > 0
    graphs: dict[int, _Path] = {}
    rows: dict[int, tuple[list[float], float | None, int]] = {}  # target -> scores, delta, points
    spent, first, stopped = 0.0, 0, 0
    # When the price already had to cut the request, the rows go one at a time, so the pace check below can
    # stop between any two of them.
    for begin, end in _chunks(len(targets), 1 if plan.notice else None):
        # The price is an estimate (attention grows with T squared; the machine's load changes): past the first
        # chunk the pace measured so far decides whether the next chunk still fits the limit. So a matrix ends
        # within the limit plus the misestimate of one chunk (one row when the price cut the request).
        if begin and spent + spent / begin * (end - begin) > limit:
            notices.append(f"Only the first {begin} of {len(targets)} words are explained: the rest would pass this "
                           f"server's limit of {limit:.0f} s per request.")
            yield _rows_so_far(explanation, targets[:begin], rows, settings, notices, True)
            return
        pending, level = targets[begin:end], first
        while pending:
            points = levels[level]
            start = time.perf_counter()
            with pair.lock:
                if points not in graphs:
                    graphs[points] = _path_forward(pair, explanation, replace(settings, n_steps=points))
                with torch.enable_grad():
                    scores = graphs[points].rows(pending)
            spent += time.perf_counter() - start
            deltas = graphs[points].deltas(scores, pending)
            for target, row, delta in zip(pending, scores.tolist(), deltas or [None] * len(pending)):
                rows[target] = (row, delta, points)
            failing = [t for t in pending if adaptive and relative_error(rows[t][0], rows[t][1]) > settings.tolerance]
            if not failing or level + 1 == len(levels):
                break
            reserve = price.seconds(tokens, levels[first], len(targets) - end) - price.forward * (levels[first] + 2) * tokens
            if spent + price.seconds(tokens, levels[level + 1], len(failing)) + max(reserve, 0.0) > limit:
                stopped += len(failing)
                break
            pending, level = failing, level + 1
        done_points = sorted(levels.index(rows[t][2]) for t in targets[:end])
        first = done_points[len(done_points) // 2]
        final = end == len(targets)
        if final and stopped:
            notices.append(f"{stopped} row(s) stopped before reaching the tolerance: more integration points "
                           f"would pass this server's limit of {limit:.0f} s per request.")
        yield _rows_so_far(explanation, targets[:end], rows, settings, notices, final)


def _rows_so_far(explanation: Explanation, done: list[int], rows: dict, settings: AttributionSettings,
                 notices: list[str], final: bool) -> AttributionMatrix:
    integrated = settings.method == "integrated_gradients"
    return _matrix(explanation, done, [rows[t][0] for t in done], [rows[t][1] for t in done] if integrated else None,
                   settings, [rows[t][2] for t in done] if integrated else None, notices, final)


def _chunks(n: int, size: int | None = None) -> Iterator[tuple[int, int]]:
    """Row ranges: a first small chunk (the first rows show at once), then CHUNK rows at a time (or `size`)."""
    begin = 0
    while begin < n:
        end = min(n, begin + (size or (FIRST_CHUNK if begin == 0 else CHUNK)))
        yield begin, end
        begin = end


@dataclass
class _Path:
    """The discriminator's graph over an integration path: one forward, any number of backward passes."""

    logits: torch.Tensor  # (S + 2, T): the S path points, then the sentence and the baseline
    path: torch.Tensor  # (S + 2, T, E) embeddings, requires grad
    difference: torch.Tensor  # (T, E): sentence - reference embeddings
    weights: torch.Tensor  # (S,) the quadrature weights
    baseline: bool = True  # integrated gradients (False: gradient x input, no completeness)

    def row(self, target: int) -> torch.Tensor:
        """One target's attribution over every input token: one backward pass, (T,)."""
        n = len(self.weights)
        (grad,) = torch.autograd.grad(self.logits[:n, target], self.path, grad_outputs=self.weights.to(self.logits.dtype),
                                      retain_graph=True)  # (S + 2, T, E), weighted by step size
        return (self.difference * grad[:n].sum(0)).sum(-1).detach()

    def rows(self, targets: list[int]) -> torch.Tensor:
        """Several targets' rows, (N, T), one backward pass each. (Batching them with vmap,
        `is_grads_batched`, measured no faster on a CPU: 3.3 s against 3.1 s for 8 targets of the
        bundled model at 16 points, 1 thread, and it holds N gradients of the whole path at once.)"""
        return torch.stack([self.row(t) for t in targets])

    def deltas(self, scores: torch.Tensor, targets: list[int]) -> list[float] | None:
        """Completeness errors: sum(scores) - (logit(sentence) - logit(baseline)); None without a baseline."""
        if not self.baseline:
            return None
        n = len(self.weights)
        gap = (self.logits[n, targets] - self.logits[n + 1, targets]).detach()
        return (scores.sum(-1) - gap).tolist()


def _path_forward(pair, explanation: Explanation, settings: AttributionSettings) -> _Path:
    """The forward half of the shared engine (the caller holds pair.lock): the discriminator over
    captum's Gauss-Legendre points between the baseline and the sentence, plus both endpoints."""
    discriminator, layer = pair.discriminator, pair.discriminator.electra.embeddings
    ids = torch.tensor(explanation.corrupted_ids)[None]  # (1, T)
    special = torch.tensor([t.special for t in explanation.tokens])[None]
    integrated = settings.method == "integrated_gradients"
    if integrated:
        step_sizes, alphas = approximation_parameters("gausslegendre")  # captum's own default rule
        weights, points = torch.tensor(step_sizes(settings.n_steps)), torch.tensor(alphas(settings.n_steps))
    else:  # gradient x input: the gradient at the sentence itself, times the embedding
        weights, points = torch.ones(1), torch.ones(1)
    with torch.no_grad():
        sentence = layer(ids)  # (1, T, E)
        reference = layer(baseline_ids(ids, special, pair.tokenizer, settings.baseline)) \
            if integrated else torch.zeros_like(sentence)
    # The path points, then the two endpoints (for the convergence delta; they get no gradient).
    alphas = torch.cat([points, torch.tensor([1.0, 0.0])]).to(sentence.dtype)  # (S + 2,)
    path = (reference + alphas[:, None, None] * (sentence - reference)).requires_grad_(True)  # (S + 2, T, E)
    hook = layer.register_forward_hook(lambda module, inputs, output: path)  # feed the path, not ids
    try:
        with torch.enable_grad():
            logits = discriminator(input_ids=ids.expand(len(alphas), -1)).logits  # (S + 2, T)
    finally:
        hook.remove()
    return _Path(logits, path, sentence[0] - reference[0], weights, integrated)
