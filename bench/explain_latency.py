"""Explore-tab latency: explain, integrated gradients, and the all-tokens matrix, on this CPU.

For each model, on one sentence of `--tokens` tokens ([CLS] and [SEP] included):
- `explain`: mask 15% -> generator proposals and sample -> discriminator P(replaced), no
  attributions (`explainer.core.pipeline.explain`), p50 and p95 over `--repeats` runs;
- `IG`: captum LayerIntegratedGradients for the most suspicious token, `--ig-steps` steps,
  p50 and p95 over `--ig-repeats` runs;
- the all-tokens matrix (every token as a target, `--matrix-steps` steps) three ways, timed
  once each after one warm-up: the naive loop (one captum call per target), one batched captum
  call with a per-row target, and the shared-forward engine the app uses; the ratios naive/batched,
  and the largest difference between their matrices (they must agree).

Models: "bundled" (assets/model; skipped with a message when missing), "small" (an
ELECTRA-Small-sized pair, `training.models.PRESETS["small"]`, random weights, the 30,522-token
bert-base-uncased vocabulary), "tiny" (the test preset on that vocabulary: a smoke test), or a
folder with generator/ and discriminator/.

    PYTHONPATH=. .venv/bin/python bench/explain_latency.py                       # bundled + small
    PYTHONPATH=. .venv/bin/python bench/explain_latency.py --models tiny --repeats 3 --ig-repeats 2

Targets (ELECTRA-Small size): explain p50 <= 60 ms, IG p50 <= 1 s, matrix >= 3x.
Left out: GPUs, several sentences at once, the page's own rendering (milliseconds).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a benchmark never downloads

import torch  # noqa: E402

from explainer.core import models  # noqa: E402
from explainer.core.attributions import (  # noqa: E402
    AttributionSettings,
    _path_forward,
    attribute,
    attribution_matrix,
    attribution_matrix_naive,
)
from explainer.core.pipeline import Settings, explain  # noqa: E402
from training.models import PRESETS, build_electra, count_parameters  # noqa: E402
from training.tokenizer import load_tokenizer  # noqa: E402

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
    engines = {
        "naive": lambda: attribution_matrix_naive(pair, explanation, matrix_settings),
        "captum_batched": lambda: attribution_matrix(pair, explanation, matrix_settings, engine="captum"),
        "shared_forward": lambda: attribution_matrix(pair, explanation, matrix_settings, engine="shared"),
    }
    engines["naive"]()  # warm-up (allocator, captum hooks) for all three alike
    matrix_times, results = {}, {}
    for name, run in engines.items():
        start = time.perf_counter()
        results[name] = run()
        matrix_times[name] = time.perf_counter() - start
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
    reference = torch.tensor(results["naive"].scores)
    disagreement = max((torch.tensor(r.scores) - reference).abs().max().item() for r in results.values())

    (e50, e95), (i50, i95) = p50_p95(explain_times), p50_p95(ig_times)
    return {
        "model": pair.name,
        "parameters": count_parameters(*(m for m in (pair.generator, pair.discriminator) if m is not None)),
        "tokens": len(explanation.tokens),
        "explain_ms_p50": e50 * 1e3, "explain_ms_p95": e95 * 1e3,
        "ig_steps": args.ig_steps, "ig_s_p50": i50, "ig_s_p95": i95, "ig_delta": delta,
        "matrix_targets": len(results["naive"].targets), "matrix_steps": args.matrix_steps,
        **{f"matrix_s_{name}": t for name, t in matrix_times.items()},
        "ratio_naive_over_captum_batched": matrix_times["naive"] / matrix_times["captum_batched"],
        "ratio_naive_over_shared_forward": matrix_times["naive"] / matrix_times["shared_forward"],
        "matrix_forward_s": forward_s, "matrix_backward_s": backward_s, "ratio_ceiling_exact": ceiling,
        "matrix_max_abs_difference": disagreement,
        "matrix_max_abs_score": reference.abs().max().item(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["bundled", "small"], help="bundled, small, tiny, or folders")
    parser.add_argument("--tokens", type=int, default=30, help="sentence length, [CLS] and [SEP] included")
    parser.add_argument("--repeats", type=int, default=30, help="timed explain runs")
    parser.add_argument("--ig-repeats", type=int, default=10, help="timed IG runs")
    parser.add_argument("--ig-steps", type=int, default=50)
    parser.add_argument("--matrix-steps", type=int, default=50)
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
            f"  all-tokens matrix ({row['matrix_targets']} targets x {row['matrix_steps']} steps): "
            f"naive loop {row['matrix_s_naive']:.2f} s, captum batched {row['matrix_s_captum_batched']:.2f} s "
            f"({row['ratio_naive_over_captum_batched']:.1f}x), shared forward {row['matrix_s_shared_forward']:.2f} s "
            f"({row['ratio_naive_over_shared_forward']:.1f}x); largest difference "
            f"{row['matrix_max_abs_difference']:.1e} (scores up to {row['matrix_max_abs_score']:.1e})\n"
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
