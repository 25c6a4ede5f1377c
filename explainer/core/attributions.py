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

from dataclasses import dataclass
from typing import Literal

import torch
from captum.attr import LayerGradientXActivation, LayerIntegratedGradients
from captum.attr._utils.approximation_methods import approximation_parameters  # captum's own quadrature

from explainer.core.pipeline import Explanation

Method = Literal["integrated_gradients", "gradient_x_input"]
Baseline = Literal["pad", "mask"]
METHODS: tuple[str, ...] = ("integrated_gradients", "gradient_x_input")
MATRIX_MAX_TARGETS = 64  # rows of the all-tokens view; beyond this it takes minutes on a CPU
MAX_STEPS = 500  # integration points; the page offers 4-200. Bounded because one call holds the shared models


@dataclass(frozen=True)
class AttributionSettings:
    method: Method = "integrated_gradients"
    n_steps: int = 50  # integration points (Gauss-Legendre); more = smaller convergence delta
    baseline: Baseline = "pad"  # what the non-special tokens become in the IG baseline
    internal_batch_size: int = 400  # sequences per forward pass inside captum (memory vs speed)


@dataclass(frozen=True)
class Attribution:
    target: int  # token position whose replaced-logit is explained
    tokens: tuple[str, ...]  # the corrupted sentence the discriminator read
    scores: tuple[float, ...]  # (T,) each input token's share of the target's logit
    logit: float  # target's replaced-logit on the sentence
    baseline_logit: float | None  # on the baseline (IG only)
    delta: float | None  # convergence delta: sum(scores) - (logit - baseline_logit) (IG only)
    settings: AttributionSettings

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


def attribute(pair, explanation: Explanation, target: int | None = None,
              settings: AttributionSettings = AttributionSettings()) -> Attribution:
    """Attribute one token's replaced-logit (default: the most suspicious token) to every input token."""
    target = explanation.most_suspicious if target is None else target
    _check_target(explanation, target)
    scores, delta = _run(pair, explanation, [target], settings)
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
    )


def matrix_targets(explanation: Explanation) -> list[int]:
    return [t.position for t in explanation.tokens if not t.special][:MATRIX_MAX_TARGETS]


def _matrix(explanation: Explanation, targets: list[int], scores, deltas, settings) -> AttributionMatrix:
    return AttributionMatrix(
        tuple(targets), tuple(t.corrupted for t in explanation.tokens), tuple(tuple(row) for row in scores),
        None if deltas is None else tuple(float(d) for d in deltas), settings,
    )


def attribution_matrix(pair, explanation: Explanation, settings: AttributionSettings = AttributionSettings(),
                       engine: Literal["auto", "shared", "captum"] = "auto") -> AttributionMatrix:
    """Every non-special token as a target (up to MATRIX_MAX_TARGETS): rows = targets, columns = inputs.

    engine "auto": "shared" for integrated gradients; "captum" for gradient x input, whose single
    forward and backward over one row per target is already the cheapest way.
    """
    check(settings)
    targets = matrix_targets(explanation)
    if engine == "auto":
        engine = "shared" if settings.method == "integrated_gradients" else "captum"
    if engine == "captum":
        # One captum call; an internal batch of one step for every row measured fastest here.
        settings_captum = AttributionSettings(settings.method, settings.n_steps, settings.baseline, len(targets))
        scores, deltas = _run(pair, explanation, targets, settings_captum)
        return _matrix(explanation, targets, scores.tolist(), deltas, settings)
    if engine != "shared":
        raise ValueError(f"unknown engine {engine!r}; choose shared or captum")
    scores, deltas = _shared_forward(pair, explanation, targets, settings)
    return _matrix(explanation, targets, scores.tolist(), deltas, settings)


@dataclass
class _Path:
    """The discriminator's graph over an integration path: one forward, any number of backward passes."""

    logits: torch.Tensor  # (S + 2, T): the S path points, then the sentence and the baseline
    path: torch.Tensor  # (S + 2, T, E) embeddings, requires grad
    difference: torch.Tensor  # (T, E): sentence - reference embeddings
    weights: torch.Tensor  # (S,) the quadrature weights

    def row(self, target: int) -> torch.Tensor:
        """One target's attribution over every input token: one backward pass, (T,)."""
        n = len(self.weights)
        (grad,) = torch.autograd.grad(self.logits[:n, target], self.path, grad_outputs=self.weights.to(self.logits.dtype),
                                      retain_graph=True)  # (S + 2, T, E), weighted by step size
        return (self.difference * grad[:n].sum(0)).sum(-1).detach()


def _path_forward(pair, explanation: Explanation, settings: AttributionSettings) -> _Path:
    """The forward half of the shared engine (the caller holds pair.lock): the discriminator over
    captum's Gauss-Legendre points between the baseline and the sentence, plus both endpoints."""
    discriminator, layer = pair.discriminator, pair.discriminator.electra.embeddings
    ids = torch.tensor(explanation.corrupted_ids)[None]  # (1, T)
    special = torch.tensor([t.special for t in explanation.tokens])[None]
    if settings.method == "integrated_gradients":
        step_sizes, alphas = approximation_parameters("gausslegendre")  # captum's own default rule
        weights, points = torch.tensor(step_sizes(settings.n_steps)), torch.tensor(alphas(settings.n_steps))
    else:  # gradient x input: the gradient at the sentence itself, times the embedding
        weights, points = torch.ones(1), torch.ones(1)
    with torch.no_grad():
        sentence = layer(ids)  # (1, T, E)
        reference = layer(baseline_ids(ids, special, pair.tokenizer, settings.baseline)) \
            if settings.method == "integrated_gradients" else torch.zeros_like(sentence)
    # The path points, then the two endpoints (for the convergence delta; they get no gradient).
    alphas = torch.cat([points, torch.tensor([1.0, 0.0])]).to(sentence.dtype)  # (S + 2,)
    path = (reference + alphas[:, None, None] * (sentence - reference)).requires_grad_(True)  # (S + 2, T, E)
    hook = layer.register_forward_hook(lambda module, inputs, output: path)  # feed the path, not ids
    try:
        with torch.enable_grad():
            logits = discriminator(input_ids=ids.expand(len(alphas), -1)).logits  # (S + 2, T)
    finally:
        hook.remove()
    return _Path(logits, path, sentence[0] - reference[0], weights)


def _shared_forward(pair, explanation: Explanation, targets: list[int], settings: AttributionSettings):
    """One forward over the integration path, one backward per target: (N, T) scores, (N,) deltas."""
    with pair.lock:
        graph = _path_forward(pair, explanation, settings)
        with torch.enable_grad():
            scores = torch.stack([graph.row(target) for target in targets])  # (N, T)
    if settings.method != "integrated_gradients":
        return scores, None
    n = len(graph.weights)
    gap = (graph.logits[n, targets] - graph.logits[n + 1, targets]).detach()  # logit(sentence) - logit(baseline), (N,)
    return scores, (scores.sum(-1) - gap).tolist()


def attribution_matrix_naive(pair, explanation: Explanation,
                             settings: AttributionSettings = AttributionSettings()) -> AttributionMatrix:
    """The same matrix with one captum call per target: the reference the batched engines must beat."""
    targets = matrix_targets(explanation)
    rows = [_run(pair, explanation, [t], settings) for t in targets]
    deltas = None if rows[0][1] is None else [float(d[0]) for _, d in rows]
    return _matrix(explanation, targets, [s[0].tolist() for s, _ in rows], deltas, settings)
