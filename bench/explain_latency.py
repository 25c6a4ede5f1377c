"""Explore-tab latency: explain, integrated gradients, and the all-tokens matrix, on this CPU.

For each model, on one sentence of `--tokens` tokens ([CLS] and [SEP] included):
- `explain`: mask 15% -> generator proposals and sample -> discriminator P(replaced), no
  attributions (`explainer.core.pipeline.explain`), p50 and p95 over `--repeats` runs;
- `IG`: captum LayerIntegratedGradients for the most suspicious token, `--ig-steps` steps,
  p50 and p95 over `--ig-repeats` runs;
- the all-tokens matrix (every token as a target) four ways, timed once each after one warm-up:
  at `--matrix-steps` points the naive loop (one captum call per target), one batched captum call
  with a per-row target, and the previous shared-forward engine (one forward over the path, one
  backward per target); and the app's adaptive engine (`iter_matrix`: batched backward passes, as
  few points per row as keep its completeness error within `--tolerance`, up to `--adaptive-cap`).
  For each: its time, the mean and max completeness error (|sum of scores - (logit - baseline
  logit)| / the row's sum |scores|), and the largest difference from a 300-point reference,
  relative to the row's scale. The adaptive engine also reports its points per row, when its first
  rows arrived, and its errors on four held-out sentences.

Models: "bundled" (assets/model; skipped with a message when missing), "small" (an
ELECTRA-Small-sized pair, `training.models.PRESETS["small"]`, random weights, the 30,522-token
bert-base-uncased vocabulary), "tiny" (the test preset on that vocabulary: a smoke test), or a
folder with generator/ and discriminator/.

    PYTHONPATH=. .venv/bin/python bench/explain_latency.py                       # bundled + small
    PYTHONPATH=. .venv/bin/python bench/explain_latency.py --models tiny --repeats 3 --ig-repeats 2

Targets: explain p50 <= 60 ms, IG p50 <= 1 s (ELECTRA-Small size); the bundled model's matrix under 2 s
at 1% tolerance, the first rows within a second.
Left out: GPUs, several sentences at once, the page's own rendering (milliseconds).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import Counter

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a benchmark never downloads

import torch

from explainer.core import models
from explainer.core.attributions import (
    AttributionMatrix,
    AttributionSettings,
    _path_forward,
    attribute,
    attribution_matrix,
    attribution_matrix_naive,
    iter_matrix,
    matrix_targets,
)
from explainer.core.pipeline import Settings, explain
from training.models import PRESETS, build_electra, count_parameters
from training.tokenizer import load_tokenizer

PARAGRAPH = (
    "The old sailor told the children a wonderful story about the sea, the storms he had survived and "
    "the strange islands he had visited, while the fire burned low and the wind howled outside the "
    "small wooden house near the harbour where he had lived for most of his long and adventurous life."
)


def random_pair(preset: str) -> models.ModelPair:
    """An ELECTRA pair of a preset's size with random weights and the bert-base-uncased vocabulary."""
    tokenizer = load_tokenizer("bert-base-uncased")
    generator, discriminator = build_electra(PRESETS[preset], len(tokenizer), tokenizer.pad_token_id, seed=0)
    for model in (generator, discriminator):
        model.eval().requires_grad_(False)
    return models.ModelPair(generator, discriminator, tokenizer, f"{preset} (random weights)")


def sentence_of(tokenizer, n_tokens: int) -> str:
    """The longest prefix of PARAGRAPH (in words) with at most n_tokens tokens, specials included."""
    words = PARAGRAPH.split()
    best = words[0]
    for i in range(1, len(words) + 1):
        candidate = " ".join(words[:i])
        if len(tokenizer(candidate)["input_ids"]) > n_tokens:
            break
        best = candidate
    return best


REFERENCE_POINTS = 300
# Everyday sentences for the held-out check of the adaptive engine (not the timed sentence).
HELD_OUT = (
    "My sister bought a new bicycle and rode it to work every morning.",
    "The doctor told him to drink more water and sleep earlier.",
    "We missed the last train, so we walked home through the quiet park.",
    "The children built a snowman in the garden after breakfast.",
)


def shared_loop(pair, explanation, settings) -> AttributionMatrix:
    """The previous engine, kept here as the baseline: one forward over the path, then one backward per target."""
    targets = matrix_targets(explanation)
    with pair.lock:
        graph = _path_forward(pair, explanation, settings)
        with torch.enable_grad():
            scores = torch.stack([graph.row(t) for t in targets])
    return AttributionMatrix(tuple(targets), (), tuple(map(tuple, scores.tolist())),
                             tuple(graph.deltas(scores, targets)), settings)


def against(result: AttributionMatrix, reference: AttributionMatrix) -> dict:
    """Mean and max completeness error (|delta| / sum|scores| per row), and the largest difference from the
    300-point reference relative to the reference row's sum |scores|."""
    errors = result.errors
    rows = torch.tensor(result.scores)
    truth = torch.tensor(reference.scores)
    scale = truth.abs().sum(-1).clamp_min(1e-12)
    return {"error_mean": statistics.fmean(errors), "error_max": max(errors),
            "vs_reference": ((rows - truth).abs().max(-1).values / scale).max().item()}


def held_out_errors(pair, sentence: str, settings) -> tuple[float, ...]:
    explanation = explain(pair, sentence, Settings(seed=1))
    return attribution_matrix(pair, explanation, settings, limit=float("inf")).errors


def timed(fn, repeats: int, warmup: int = 1) -> list[float]:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def p50_p95(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def bench_model(pair: models.ModelPair, args: argparse.Namespace) -> dict:
    text = sentence_of(pair.tokenizer, args.tokens)
    explanation = explain(pair, text, Settings(seed=0))
    seeds = iter(range(10**6))
    explain_times = timed(lambda: explain(pair, text, Settings(seed=next(seeds))), args.repeats, warmup=2)
    ig = AttributionSettings(n_steps=args.ig_steps)
    ig_times = timed(lambda: attribute(pair, explanation, settings=ig), args.ig_repeats)
    delta = attribute(pair, explanation, settings=ig).delta

    matrix_settings = AttributionSettings(n_steps=args.matrix_steps)
    adaptive = AttributionSettings(n_steps=args.adaptive_cap, tolerance=args.tolerance)
    no_limit = float("inf")  # the bench times the engines, not the server's budget
    first_rows = {}

    def adaptive_rows():
        start = time.perf_counter()
        for partial in iter_matrix(pair, explanation, adaptive, limit=no_limit):
            first_rows.setdefault("s", time.perf_counter() - start)
            first_rows.setdefault("rows", len(partial.targets))
        return partial

    engines = {
        "naive": lambda: attribution_matrix_naive(pair, explanation, matrix_settings),
        "captum_batched": lambda: attribution_matrix(pair, explanation, matrix_settings, engine="captum",
                                                     limit=no_limit),
        "shared_forward": lambda: shared_loop(pair, explanation, matrix_settings),
        "adaptive": adaptive_rows,
    }
    engines["naive"]()  # warm-up (allocator, captum hooks) for all alike
    matrix_times, results = {}, {}
    for name, run in engines.items():
        start = time.perf_counter()
        results[name] = run()
        matrix_times[name] = time.perf_counter() - start
    reference = attribution_matrix(pair, explanation, AttributionSettings(n_steps=REFERENCE_POINTS), limit=no_limit)
    accuracy = {name: against(result, reference) for name, result in results.items()}
    # Where the time of the shared engine goes: the forward over the path once, then one backward per
    # target. The naive loop pays a forward and a backward per target; any exact engine still pays one
    # backward per target (reverse mode; forward mode needs one pass per input token instead), so even
    # a free forward gives at most (forward + backward) / backward over the naive loop.
    targets = list(results["naive"].targets)
    with pair.lock:
        start = time.perf_counter()
        graph = _path_forward(pair, explanation, matrix_settings)
        forward_s = time.perf_counter() - start
        with torch.enable_grad():
            backward_s = statistics.median(timed(lambda: graph.row(targets[len(targets) // 2]), 5))
    ceiling = (forward_s + backward_s) / backward_s
    naive = torch.tensor(results["naive"].scores)
    disagreement = max((torch.tensor(results[n].scores) - naive).abs().max().item()
                       for n in ("captum_batched", "shared_forward"))
    held_out = [held_out_errors(pair, sentence, adaptive) for sentence in HELD_OUT]

    (e50, e95), (i50, i95) = p50_p95(explain_times), p50_p95(ig_times)
    return {
        "model": pair.name,
        "parameters": count_parameters(*(m for m in (pair.generator, pair.discriminator) if m is not None)),
        "tokens": len(explanation.tokens),
        "explain_ms_p50": e50 * 1e3, "explain_ms_p95": e95 * 1e3,
        "ig_steps": args.ig_steps, "ig_s_p50": i50, "ig_s_p95": i95, "ig_delta": delta,
        "matrix_targets": len(results["naive"].targets), "matrix_steps": args.matrix_steps,
        **{f"matrix_s_{name}": t for name, t in matrix_times.items()},
        **{f"matrix_{key}_{name}": value for name, row in accuracy.items() for key, value in row.items()},
        "adaptive_tolerance": args.tolerance, "adaptive_cap": args.adaptive_cap,
        "adaptive_points": sorted(Counter(results["adaptive"].points).items()),
        "adaptive_first_rows": first_rows.get("rows"), "adaptive_first_rows_s": first_rows.get("s"),
        "held_out_max_error": max(e for errors in held_out for e in errors),
        "held_out_rows_over_tolerance": sum(e > args.tolerance for errors in held_out for e in errors),
        "held_out_rows": sum(len(errors) for errors in held_out),
        "ratio_naive_over_captum_batched": matrix_times["naive"] / matrix_times["captum_batched"],
        "ratio_naive_over_shared_forward": matrix_times["naive"] / matrix_times["shared_forward"],
        "matrix_forward_s": forward_s, "matrix_backward_s": backward_s, "ratio_ceiling_exact": ceiling,
        "matrix_max_abs_difference": disagreement,
        "matrix_max_abs_score": naive.abs().max().item(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["bundled", "small"], help="bundled, small, tiny, or folders")
    parser.add_argument("--tokens", type=int, default=30, help="sentence length, [CLS] and [SEP] included")
    parser.add_argument("--repeats", type=int, default=30, help="timed explain runs")
    parser.add_argument("--ig-repeats", type=int, default=10, help="timed IG runs")
    parser.add_argument("--ig-steps", type=int, default=50)
    parser.add_argument("--matrix-steps", type=int, default=50, help="points of the naive, batched and shared engines")
    parser.add_argument("--tolerance", type=float, default=0.01, help="the adaptive engine's completeness tolerance")
    parser.add_argument("--adaptive-cap", type=int, default=128, help="the most points the adaptive engine may use")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    parser.add_argument("--json", default=None, help="also write the rows to this file")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs")

    rows = []
    for name in args.models:
        try:
            pair = random_pair(name) if name in ("small", "tiny") else models.load(name)
        except models.ModelLoadError as error:
            print(f"skipping {name}: {error}")
            continue
        row = bench_model(pair, args)
        rows.append(row)
        print(
            f"\n{row['model']}: {row['parameters'] / 1e6:.1f}M parameters, {row['tokens']}-token sentence\n"
            f"  explain            p50 {row['explain_ms_p50']:7.1f} ms   p95 {row['explain_ms_p95']:7.1f} ms   "
            f"({args.repeats} runs)\n"
            f"  IG ({row['ig_steps']} steps)      p50 {row['ig_s_p50']:7.3f} s    p95 {row['ig_s_p95']:7.3f} s    "
            f"({args.ig_repeats} runs; convergence delta {row['ig_delta']:.1e})\n"
            f"  all-tokens matrix, {row['matrix_targets']} targets; completeness error = |delta| / sum|scores| per "
            f"row; 'vs {REFERENCE_POINTS}' = largest difference from {REFERENCE_POINTS} points / the row's sum|scores|"
        )
        for name, label in (("naive", f"naive loop ({row['matrix_steps']} points)"),
                            ("captum_batched", f"captum batched ({row['matrix_steps']} points)"),
                            ("shared_forward", f"shared forward, previous ({row['matrix_steps']} points)"),
                            ("adaptive", f"adaptive, tolerance {row['adaptive_tolerance']:.0%}")):
            print(f"    {label:40s} {row[f'matrix_s_{name}']:6.2f} s  "
                  f"({row['matrix_s_naive'] / row[f'matrix_s_{name}']:4.1f}x)"
                  f"   error mean {row[f'matrix_error_mean_{name}']:.2e} max {row[f'matrix_error_max_{name}']:.2e}"
                  f"   vs {REFERENCE_POINTS}: {row[f'matrix_vs_reference_{name}']:.2e}")
        print(
            f"    adaptive: points per row {row['adaptive_points']}, first {row['adaptive_first_rows']} rows after "
            f"{row['adaptive_first_rows_s']:.2f} s; held-out sentences: {row['held_out_rows_over_tolerance']} of "
            f"{row['held_out_rows']} rows over the tolerance, largest error {row['held_out_max_error']:.2e}\n"
            f"    the exact engines agree within {row['matrix_max_abs_difference']:.1e} (scores up to "
            f"{row['matrix_max_abs_score']:.1e})\n"
            f"  where the shared engine's time goes: forward over the path {row['matrix_forward_s']:.2f} s once, "
            f"backward {row['matrix_backward_s']:.2f} s per target; an exact engine pays one backward per target, "
            f"so its ceiling over the naive loop is (forward + backward) / backward = {row['ratio_ceiling_exact']:.1f}x"
        )
    print("\n" + json.dumps(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
