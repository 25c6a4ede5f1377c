"""Memory of the all-words attribution (the heatmap): the server's peak above its loaded models, by length.

For each text length, the all-words matrix as `/attribute` computes it (integrated gradients, `--n-steps`
points, `--tolerance`, the [PAD] baseline, the server's time limit, `--limit`) runs in a fresh process twice:
- "before" (the baseline): the whole integration path held in one autograd graph, glibc's default arenas,
  nothing trimmed;
- "now": graphs of at most `GRAPH_CELLS` points x tokens (`explainer.core.integration`, a longer path
  integrated in parts), at most 2 malloc arenas and the freed heap trimmed at the end (`explainer.core.memory`,
  as the served app does).
Each line: tokens, the rows explained and their points, seconds, the process's peak resident memory and its
rise above the loaded, warmed-up models (`resource.getrusage`, max RSS), what stays resident after the request
(what the next request starts from), and the largest difference between the two variants' rows where both ran
at the same points (they should agree to float rounding).

    PYTHONPATH=. .venv/bin/python bench/attribution_memory.py                    # bundled pair, 50/200/600 words
    PYTHONPATH=. .venv/bin/python bench/attribution_memory.py --words 600 --threads 1

Target: the 600-word heatmap adds at most ~400 MB to the server (so a Space of 1.6 GB holds it beside the app).
Left out: the single-word attribution (captum's batches are bounded by the same cells), GPUs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a benchmark never downloads

TEXT = ("the old man walked slowly to the market on a cold morning and bought some bread cheese and apples "
        "for his family before the rain started and the streets filled with people going home")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def one(model: str, words: int, variant: str, n_steps: int, tolerance: float, threads: int, limit: float) -> dict:
    """One run in this process (the parent starts a fresh one per line, so each peak is its own)."""
    import torch

    torch.set_num_threads(threads)
    from explainer.core import integration, models
    from explainer.core.attributions import AttributionSettings, iter_matrix
    from explainer.core.pipeline import Settings, explain

    from explainer.core import memory

    if variant == "before":
        integration.GRAPH_CELLS = 10 ** 9
        memory.trim = lambda: False
    else:
        memory.limit_arenas()
    pair = models.load(model)
    text = " ".join((TEXT.split() * (words // len(TEXT.split()) + 1))[:words])
    explanation = explain(pair, text, Settings(mask_rate=0.15, seed=0))
    settings = AttributionSettings(n_steps=n_steps, tolerance=tolerance, baseline="pad")
    warm = explain(pair, TEXT, Settings(mask_rate=0.15, seed=0))
    *_, _ = iter_matrix(pair, warm, AttributionSettings(n_steps=4))  # the first call's allocations, both variants
    loaded = peak_mb()
    start = time.perf_counter()
    *_, matrix = iter_matrix(pair, explanation, settings, limit)
    seconds = time.perf_counter() - start
    resident = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    return {"words": words, "variant": variant, "tokens": len(explanation.tokens), "rows": len(matrix.targets),
            "points": sorted(set(matrix.points or ())), "seconds": round(seconds, 2), "peak_mb": round(peak_mb()),
            "rise_mb": round(peak_mb() - loaded),
            "after_mb": round(resident - loaded), "scores": [list(r) for r in matrix.scores]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="assets/model")
    parser.add_argument("--words", type=int, nargs="+", default=[50, 200, 600])
    parser.add_argument("--n-steps", type=int, default=50)
    parser.add_argument("--tolerance", type=float, default=0.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=float, default=10.0, help="the server's seconds per request (its default)")
    parser.add_argument("--one", nargs=2, metavar=("WORDS", "VARIANT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.model, int(args.one[0]), args.one[1], args.n_steps, args.tolerance, args.threads,
                             args.limit)))
        return
    print("| words | tokens | variant | rows | points | seconds | peak MB | rise MB | stays MB | max diff |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for words in args.words:
        runs = {}
        for variant in ("before", "now"):
            out = subprocess.run([sys.executable, __file__, "--model", args.model, "--n-steps", str(args.n_steps),
                                  "--tolerance", str(args.tolerance), "--threads", str(args.threads),
                                  "--limit", str(args.limit),
                                  "--one", str(words), variant], capture_output=True, text=True, check=True)
            runs[variant] = json.loads(out.stdout.strip().splitlines()[-1])
        a, b = runs["before"]["scores"], runs["now"]["scores"]
        same = runs["before"]["points"] == runs["now"]["points"]  # the price can differ between processes
        diff = max((abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb)), default=0.0)
        shown = f"{diff:.2g}" if same else "(other points)"
        for variant, r in runs.items():
            print(f"| {words} | {r['tokens']} | {variant} | {r['rows']} | {r['points']} | {r['seconds']} | "
                  f"{r['peak_mb']} | {r['rise_mb']} | {r['after_mb']} | {shown} |", flush=True)


if __name__ == "__main__":
    main()
