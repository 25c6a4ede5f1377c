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
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

import torch
from captum.attr import LayerGradientXActivation, LayerIntegratedGradients
from captum.attr._utils.approximation_methods import approximation_parameters  # captum's own quadrature

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
FIRST_CHUNK, CHUNK = 4, 8  # matrix rows per step of `iter_matrix` (the first ones show within a second)
BATCH_FLOATS = 2**25  # gradient floats held at once by a batched backward (128 MB)


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


def _replaced_logits(discriminator):
    def forward(input_ids: torch.Tensor) -> torch.Tensor:  # (N, T) -> (N, T)
        return discriminator(input_ids=input_ids).logits  # one sentence each, no padding

    return forward


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


def _run(pair, explanation: Explanation, targets: list[int], settings: AttributionSettings):
    """Scores (N, T) and deltas (N,) or None, for one row per target, in one captum call."""
    check(settings)
    discriminator = pair.discriminator
    ids = torch.tensor(explanation.corrupted_ids)[None].expand(len(targets), -1)  # (N, T) the same sentence
    special = torch.tensor([t.special for t in explanation.tokens])[None].expand_as(ids)
    layer = discriminator.electra.embeddings
    with pair.lock, torch.enable_grad():  # captum hooks the shared layer: one user at a time
        if settings.method == "gradient_x_input":
            attributions = LayerGradientXActivation(_replaced_logits(discriminator), layer).attribute(ids, target=targets)
            return attributions.sum(-1).detach(), None  # (N, T, E) -> (N, T)
        base = baseline_ids(ids, special, pair.tokenizer, settings.baseline)
        ig = LayerIntegratedGradients(_replaced_logits(discriminator), layer)
        attributions, delta = ig.attribute(
            ids, baselines=base, target=targets, n_steps=settings.n_steps,
            internal_batch_size=max(settings.internal_batch_size, len(targets)),
            return_convergence_delta=True,
        )  # (N, T, E), (N,)
        return attributions.sum(-1).detach(), delta.detach()


def _check_target(explanation: Explanation, target: int) -> None:
    if not 0 <= target < len(explanation.tokens) or explanation.tokens[target].special:
        raise ValueError(f"target must be a non-special token position, got {target}")


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
                           f"{limit:.0f} s per request.")
            break
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


def matrix_targets(explanation: Explanation) -> list[int]:
    return [t.position for t in explanation.tokens if not t.special][:MATRIX_MAX_TARGETS]


def attribution_matrix(pair, explanation: Explanation, settings: AttributionSettings = AttributionSettings(),
                       engine: Literal["auto", "shared", "captum"] = "auto", limit: float | None = None
                       ) -> AttributionMatrix:
    """Every non-special token as a target (up to MATRIX_MAX_TARGETS): rows = targets, columns = inputs.

    engine "auto": "shared" for integrated gradients (`iter_matrix`, adaptive when settings.tolerance
    > 0); "captum" for gradient x input, whose single forward and backward over one row per target
    is already the cheapest way. Priced first: see `attribute`.
    """
    check(settings)
    if engine == "auto":
        engine = "shared" if settings.method == "integrated_gradients" else "captum"
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
    return _matrix(explanation, targets, scores.tolist(), deltas, settings, points, (plan.notice,) if plan.notice else ())


def _matrix(explanation: Explanation, targets: list[int], scores, deltas, settings, points=None, notices=(),
            done=True) -> AttributionMatrix:
    return AttributionMatrix(
        tuple(targets), tuple(t.corrupted for t in explanation.tokens), tuple(tuple(row) for row in scores),
        None if deltas is None else tuple(float(d) for d in deltas), settings,
        None if points is None else tuple(points), tuple(notices), done,
    )


def iter_matrix(pair, explanation: Explanation, settings: AttributionSettings = AttributionSettings(),
                limit: float | None = None) -> Iterator[AttributionMatrix]:
    """The matrix row by row, as it is computed: a partial matrix (done=False) after every few rows, the
    whole one last. Closing the iterator (a cancelled request) stops the work between chunks.

    Each chunk of targets runs at the current start level of points; rows whose completeness error is
    over the tolerance are redone at the next level, while the server's limit allows (the first pass of
    the rows still to come is reserved). The next chunk starts at the median level the rows so far
    needed. One forward per level is shared by every row at that level; backward passes are batched.
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
    for begin, end in _chunks(len(targets)):
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
        done = targets[:end]
        yield _matrix(explanation, done, [rows[t][0] for t in done],
                      None if settings.method != "integrated_gradients" else [rows[t][1] for t in done], settings,
                      None if settings.method != "integrated_gradients" else [rows[t][2] for t in done],
                      notices, final)


def _chunks(n: int) -> Iterator[tuple[int, int]]:
    """Row ranges: a first small chunk (the first rows show at once), then CHUNK rows at a time."""
    begin = 0
    while begin < n:
        end = min(n, begin + (FIRST_CHUNK if begin == 0 else CHUNK))
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
        """Several targets' rows, (N, T): their backward passes batched (vmap), at most BATCH_FLOATS of
        gradient at a time; one at a time where the batched rule is missing."""
        n, (points, tokens, width) = len(self.weights), self.path.shape
        size = max(1, BATCH_FLOATS // (points * tokens * width))
        out = []
        for begin in range(0, len(targets), size):
            batch = targets[begin:begin + size]
            if len(batch) == 1:
                out.append(self.row(batch[0])[None])
                continue
            seeds = torch.zeros(len(batch), *self.logits.shape, dtype=self.logits.dtype)
            for i, target in enumerate(batch):
                seeds[i, :n, target] = self.weights.to(self.logits.dtype)
            try:
                (grad,) = torch.autograd.grad(self.logits, self.path, grad_outputs=seeds, retain_graph=True,
                                              is_grads_batched=True)  # (B, S + 2, T, E)
            except RuntimeError:  # an op without a batching rule: the loop is exact too
                out.append(torch.stack([self.row(t) for t in batch]))
                continue
            out.append((self.difference * grad[:, :n].sum(1)).sum(-1).detach())
        return torch.cat(out)

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


def attribution_matrix_naive(pair, explanation: Explanation,
                             settings: AttributionSettings = AttributionSettings()) -> AttributionMatrix:
    """The same matrix with one captum call per target: the reference the batched engines must beat."""
    targets = matrix_targets(explanation)
    rows = [_run(pair, explanation, [t], settings) for t in targets]
    deltas = None if rows[0][1] is None else [float(d[0]) for _, d in rows]
    return _matrix(explanation, targets, [s[0].tolist() for s, _ in rows], deltas, settings)
