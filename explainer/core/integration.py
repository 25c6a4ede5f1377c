"""The shared-path engine of the attribution matrix (integrated gradients, and gradient x input).

The interpolation path from the baseline to the sentence is the same for every target, so the model
runs forward once over it (at captum's own Gauss-Legendre points and weights) and each target costs
one backward pass through that graph. `iter_matrix` yields the matrix
as its rows are computed, adaptive when settings.tolerance > 0. `explainer.core.attributions`
re-exports every name here (`attribution_matrix` calls `iter_matrix` for its "shared" engine).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
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
from explainer.core import budget, memory
from explainer.core.pipeline import Explanation

FIRST_CHUNK, CHUNK = 4, 8  # matrix rows per step of `iter_matrix` (the first ones show within a second)


def iter_matrix(pair, explanation: Explanation, settings: AttributionSettings = AttributionSettings(),
                limit: float | None = None) -> Iterator[AttributionMatrix]:
    """`_iter_matrix`, and the freed graphs' memory given back to the system when it ends or is closed."""
    try:
        yield from _iter_matrix(pair, explanation, settings, limit)
    finally:
        memory.trim()


def _iter_matrix(pair, explanation: Explanation, settings: AttributionSettings, limit: float | None
                 ) -> Iterator[AttributionMatrix]:
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
                           f"server's limit of {budget.limit_words(limit)}.")
            yield _rows_so_far(explanation, targets[:begin], rows, settings, notices, True)
            return
        pending, level = targets[begin:end], first
        while pending:
            points = levels[level]
            start = time.perf_counter()
            with pair.lock:
                if points not in graphs:
                    graphs[points] = _path_forward(pair, explanation, replace(settings, n_steps=points))
                    # Other levels' graphs stay only while all of them fit GRAPH_CELLS together (oldest go first).
                    while sum(g.cells for g in graphs.values()) > GRAPH_CELLS and len(graphs) > 1:
                        del graphs[next(iter(graphs))]
                with torch.enable_grad():
                    scores = graphs[points].rows(pending)
            spent += time.perf_counter() - start
            deltas = graphs[points].deltas(scores, pending)
            for target, row, delta in zip(pending, scores.tolist(), deltas or [None] * len(pending)):
                rows[target] = (row, delta, points)
            failing = [t for t in pending if adaptive and relative_error(rows[t][0], rows[t][1]) > settings.tolerance]
            if not failing or level + 1 == len(levels):
                break
            reserve = (price.seconds(tokens, levels[first], len(targets) - end)
                       - price.forward * (levels[first] + 2) * tokens)
            if spent + price.seconds(tokens, levels[level + 1], len(failing)) + max(reserve, 0.0) > limit:
                stopped += len(failing)
                break
            pending, level = failing, level + 1
        done_points = sorted(levels.index(rows[t][2]) for t in targets[:end])
        first = done_points[len(done_points) // 2]
        final = end == len(targets)
        if final and stopped:
            notices.append(f"{stopped} row(s) stopped before reaching the tolerance: more integration points "
                           f"would pass this server's limit of {budget.limit_words(limit)}.")
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


GRAPH_CELLS = 3072  # path points x tokens held in one autograd graph at once: each costs ~0.1 MB on the bundled
#   model (bench/attribution_memory.py: 8 points x 512 tokens in one graph took the process up 547 MB), so a graph
#   stays near 350 MB at any length and any limit. A longer path is integrated in parts of this size, each part's
#   forward run again for every chunk of rows (at the default 10 s limit on a CPU nothing is split: 512 tokens get
#   4 points; a 30-token sentence fits 100).


@dataclass
class _Path:
    """The discriminator's graph over an integration path: one forward, any number of backward passes.

    A path longer than GRAPH_CELLS (points x tokens) is split into parts: each part's forward runs for every
    call of `rows` and is freed after it, so memory stays bounded whatever the length and the points; a path
    that fits is one graph, built once and kept for every row."""

    forward: Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]]  # alphas (k,) -> logits (k, T), path (k, T, E)
    alphas: torch.Tensor  # (S,) the path's points, 0 = reference, 1 = sentence
    weights: torch.Tensor  # (S,) the quadrature weights
    difference: torch.Tensor  # (T, E): sentence - reference embeddings
    gap: torch.Tensor | None  # (T,) logit(sentence) - logit(baseline), for completeness; None without a baseline
    part: int  # points per graph
    held: tuple[torch.Tensor, torch.Tensor] | None = None  # the one graph of a path that fits in one

    @property
    def cells(self) -> int:
        """Points x tokens of the largest graph this path holds at once."""
        return min(self.part, len(self.alphas)) * self.difference.shape[0]

    def _graphs(self) -> Iterator[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        """(logits, path, weights) of each part, in order; the single graph is built once and kept."""
        if len(self.alphas) <= self.part:
            if self.held is None:
                self.held = self.forward(self.alphas)
            yield *self.held, self.weights
            return
        for begin in range(0, len(self.alphas), self.part):
            logits, path = self.forward(self.alphas[begin:begin + self.part])
            yield logits, path, self.weights[begin:begin + self.part]
            del logits, path  # this part's graph goes before the next is built

    def row(self, target: int) -> torch.Tensor:
        """One target's attribution over every input token: one backward pass per part, (T,)."""
        return self.rows([target])[0]

    def rows(self, targets: list[int]) -> torch.Tensor:
        """Several targets' rows, (N, T), one backward pass each (per part). (Batching them with vmap,
        `is_grads_batched`, measured no faster on a CPU: 3.3 s against 3.1 s for 8 targets of the
        bundled model at 16 points, 1 thread, and it holds N gradients of the whole path at once.)"""
        out = torch.zeros(len(targets), self.difference.shape[0], dtype=self.difference.dtype)
        for logits, path, weights in self._graphs():
            for i, target in enumerate(targets):
                (grad,) = torch.autograd.grad(logits[:, target], path, grad_outputs=weights.to(logits.dtype),
                                              retain_graph=True)  # (k, T, E), weighted by step size
                out[i] += (self.difference * grad.sum(0)).sum(-1).detach()
        return out

    def deltas(self, scores: torch.Tensor, targets: list[int]) -> list[float] | None:
        """Completeness errors: sum(scores) - (logit(sentence) - logit(baseline)); None without a baseline."""
        if self.gap is None:
            return None
        return (scores.sum(-1) - self.gap[targets]).tolist()


def _path_forward(pair, explanation: Explanation, settings: AttributionSettings, cells: int | None = None) -> _Path:
    """The discriminator's path between the baseline and the sentence (the caller holds pair.lock), at captum's
    Gauss-Legendre points, in graphs of at most `cells` points x tokens (default GRAPH_CELLS); the two endpoints'
    logits run once without a graph, for the completeness check."""
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
        base = baseline_ids(ids, special, pair.tokenizer, settings.baseline) if integrated else None
        reference = layer(base) if integrated else torch.zeros_like(sentence)
        gap = None
        if integrated:
            ends = discriminator(input_ids=torch.cat([ids, base])).logits  # (2, T): the sentence, the baseline
            gap = ends[0] - ends[1]

    def forward(alphas: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        alphas = alphas.to(sentence.dtype)
        path = (reference + alphas[:, None, None] * (sentence - reference)).requires_grad_(True)  # (k, T, E)
        hook = layer.register_forward_hook(lambda module, inputs, output: path)  # feed the path, not ids
        try:
            with torch.enable_grad():
                return discriminator(input_ids=ids.expand(len(alphas), -1)).logits, path  # (k, T)
        finally:
            hook.remove()

    part = max(1, (GRAPH_CELLS if cells is None else cells) // ids.shape[1])
    return _Path(forward, points, weights, sentence[0] - reference[0], gap, part)
