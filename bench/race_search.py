"""The measurement campaign behind the Training tab's defaults: which CPU race settings, if any,
let ELECTRA's RTD beat the MLM baseline at equal compute within a classroom's 10 minutes?

Each named setting is one `python -m training race` on a FLOPs budget per objective (so the result
does not depend on what else the machine is doing, and two settings can run side by side on one
thread each); the budget is what a 10-minute race with 2 threads on a 2-core CPU spends on the
`mini` preset. Each race is probed on the full Rotten Tomatoes split (6,824 train / 1,706 test
sentences; a linear probe on frozen mean-pooled features, training/probe.py).

    python bench/race_search.py run default seq64 --seeds 0 --threads 1   # run some settings
    python bench/race_search.py table                                     # every finished one

Results land in runs/race-search/<name>/ (seed-N/race.json, summary.json); `table` prints one line
per setting and seed count: probe accuracy of RTD, MLM and the untrained floor, RTD - MLM (mean and
standard deviation over seeds), and the discriminator's state at the end (AUC on its own step's
replacements, token cosine: 0.9+ means collapsed representations).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

BUDGET_FLOPS = 2.5e13  # per objective: ~10 minutes of a mini race with 2 threads on this 2-core CPU
PROBE = ["--probe-train", "6824", "--probe-test", "1706", "--probe-every", "0"]
SETTINGS: dict[str, list[str]] = {  # name -> flags on top of the mini preset's defaults
    "default": [],
    "seq64": ["--seq-len", "64"],
    "lr3e-3": ["--lr", "3e-3"],
    "gen1": ["--generator-layers", "1"],
    "temp2": ["--temperature", "2"],
    "dw10": ["--disc-weight", "10"],
    "mask30": ["--mask-rate", "0.3"],
    "warmup20": ["--warmup", "0.2"],
    "tiny": ["--preset", "tiny", "--max-documents", "1000000", "--tokenizer", "wordpiece:8000"],
}
ROOT = Path("runs/race-search")


def run(names: list[str], seeds: list[int], threads: int, budget: float) -> None:
    for name in names:
        flags = SETTINGS[name]
        command = [sys.executable, "-m", "training", "race", "--budget-flops", f"{budget:g}", "--device", "cpu",
                   "--threads", str(threads), "--seeds", *map(str, seeds), *PROBE, *flags,
                   "--out", str(ROOT / name)]
        print(" ".join(command[1:]), flush=True)
        subprocess.run(command, check=True, stderr=subprocess.DEVNULL)


def table() -> None:
    print(f"{'setting':<22} seeds  RTD probe    MLM probe    floor   RTD-MLM (pts)  wins  "
          f"RTD steps  MLM steps  disc AUC  RTD cos  MLM cos")
    for folder in sorted(ROOT.iterdir()) if ROOT.exists() else []:
        races = [json.loads(p.read_text()) for p in sorted(folder.glob("seed-*/race.json"))]
        races = [r for r in races if r["status"] == "finished"]
        if not races:
            continue
        s = [r["summary"] for r in races]

        def stat(values):
            values = [100 * v for v in values]
            mean = sum(values) / len(values)
            sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5 if len(values) > 1 else 0.0
            return mean, sd

        rtd, mlm, floor = (stat([x[k]["probe_accuracy"] for x in s]) for k in ("rtd", "mlm", "floor"))
        diff = stat([x["rtd"]["probe_accuracy"] - x["mlm"]["probe_accuracy"] for x in s])
        wins = sum(x["rtd"]["probe_accuracy"] > x["mlm"]["probe_accuracy"] for x in s)
        mean = lambda o, k: sum(x[o][k] or 0 for x in s) / len(s)  # noqa: E731
        print(f"{folder.name:<22} {len(s):>5}  {rtd[0]:5.1f}+-{rtd[1]:3.1f}  {mlm[0]:5.1f}+-{mlm[1]:3.1f}  "
              f"{floor[0]:5.1f}  {diff[0]:+6.1f}+-{diff[1]:3.1f}   {wins}/{len(s)}  "
              f"{mean('rtd', 'step'):9.0f}  {mean('mlm', 'step'):9.0f}  {mean('rtd', 'disc_auc'):8.3f}  "
              f"{mean('rtd', 'token_cosine'):7.2f}  {mean('mlm', 'token_cosine'):7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run")
    p.add_argument("names", nargs="+", choices=sorted(SETTINGS))
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--budget", type=float, default=BUDGET_FLOPS, help="training FLOPs per objective")
    sub.add_parser("table")
    args = parser.parse_args()
    if args.command == "run":
        run(args.names, args.seeds, args.threads, args.budget)
    else:
        table()


if __name__ == "__main__":
    main()
