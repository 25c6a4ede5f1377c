"""The measurement campaign behind the Training tab's defaults: which CPU race settings, if any,
let ELECTRA's RTD beat the MLM baseline at equal compute within a classroom lesson (10-15 minutes)?

Each named setting is one `python -m training race` on a FLOPs budget per objective (so the result
does not depend on what else the machine is doing, and two settings can run side by side on one
thread each) on the `mini` preset. The default budget, 1.4e13, is the default race (8 minutes with 2
threads on a 2-core CPU, measured); the first campaign used 2.5e13 (16 minutes). Each race is probed
on the Rotten Tomatoes split (all 6,805 training sentences, a fixed 1,706 of the 1,725 test sentences; a linear
probe on frozen mean-pooled features, training/downstream/probe.py).

    PYTHONPATH=. python bench/race_search.py run temp1 temp2 --seeds 0 --threads 1     # run some settings
    PYTHONPATH=. python bench/race_search.py run temp2 --budget 2.5e13                 # on another budget
    PYTHONPATH=. python bench/race_search.py table [--json assets/race_campaign.json]  # every finished one

Results land in runs/race-search/<budget>/<name>/ (seed-N/race.json, summary.json); `table` prints
one line per budget and setting: probe accuracy of RTD, MLM and the untrained floor, RTD - MLM (mean and
standard deviation over seeds), and the discriminator's state at the end (AUC on its own step's
replacements, token cosine: 0.9+ means collapsed representations).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

from training.race.campaign import stats
from training.race.settings import CPU_RACE_FLOPS

BUDGET_FLOPS = CPU_RACE_FLOPS  # per objective: the default race's
BASE = ["--preset", "mini", "--temperature", "1"]  # every setting starts here (later flags win)
PROBE = ["--probe-train", "6824", "--probe-test", "1706", "--probe-every", "0"]
SETTINGS: dict[str, tuple[str, list[str]]] = {  # name -> (what changes from the base "temp1", its flags)
    "temp1": ("the base: mini preset (discriminator 128 wide x 4 layers, generator 32 x 4), 128-token blocks, "
              "batch 32, lr 1e-3, generator temperature 1 (the paper's)", []),
    "seq64": ("base, but 64-token blocks", ["--seq-len", "64"]),
    "lr3e-3": ("base, but learning rate 3e-3", ["--lr", "3e-3"]),
    "gen1": ("base, but a 1-layer generator (weaker)", ["--generator-layers", "1"]),
    "gen16": ("base, but a generator 16 wide (1/8 of the discriminator; weaker)", ["--generator-hidden", "16"]),
    "gen64": ("base, but a generator 64 wide (1/2 of the discriminator; stronger)", ["--generator-hidden", "64"]),
    "temp2": ("base, but generator samples at temperature 2 (more surprising replacements)", ["--temperature", "2"]),
    "temp3": ("base, but generator samples at temperature 3", ["--temperature", "3"]),
    "temp2-seq64": ("base, but temperature 2 and 64-token blocks (the block length the MLM baseline did best with)",
                    ["--temperature", "2", "--seq-len", "64"]),
    "temp2-lr3e-3": ("base, but temperature 2 and learning rate 3e-3", ["--temperature", "2", "--lr", "3e-3"]),
    "dw10": ("base, but discriminator loss weight 10 instead of 50", ["--disc-weight", "10"]),
    "mask30": ("base, but 30% of positions masked instead of 15%", ["--mask-rate", "0.3"]),
    "warmup20": ("base, but 20% of the budget in warmup instead of 5%", ["--warmup", "0.2"]),
}
ROOT = Path("runs/race-search")  # one folder per budget (e.g. runs/race-search/2.5e+13/temp2/seed-0)


def budget_root(budget: float) -> Path:
    return ROOT / f"{budget:g}"


def run(names: list[str], seeds: list[int], threads: int, budget: float) -> None:
    for name in names:
        flags = SETTINGS[name][1]
        command = [sys.executable, "-m", "training", "race", "--budget-flops", f"{budget:g}", "--device", "cpu",
                   "--threads", str(threads), "--seeds", *map(str, seeds), *PROBE, *BASE, *flags,
                   "--out", str(budget_root(budget) / name)]
        print(" ".join(command[1:]), flush=True)
        subprocess.run(command, check=True, stderr=subprocess.DEVNULL)


def _stat(values: list[float]) -> dict:
    s = stats(values)  # training.race.campaign: the same mean and sample sd the race CLI reports
    return {"mean": s["mean"], "sd": s["std"]}


def _finetuned(race: dict) -> dict | None:
    """Test accuracy of the full fine-tune (`race --finetune`) of each encoder, when it finished."""
    finetune = (race.get("extras") or {}).get("finetune") or {}
    if finetune.get("status") != "finished":
        return None
    results = finetune["results"]
    accuracy = {part: results[part]["accuracy"] for part in ("rtd", "mlm", "untrained")}
    return {**accuracy, "rtd_minus_mlm": accuracy["rtd"] - accuracy["mlm"], "epochs": finetune["config"]["epochs"],
            "lr": finetune["config"]["lr"]}


def _finetune_means(runs: list[dict]) -> dict | None:
    if not runs:
        return None
    parts = ("rtd", "mlm", "untrained", "rtd_minus_mlm")
    return {"seeds": len(runs), "rtd_wins": sum(r["rtd_minus_mlm"] > 0 for r in runs),
            "epochs": runs[0]["epochs"], "lr": runs[0]["lr"], **{k: _stat([r[k] for r in runs]) for k in parts}}


def _as_number(folder: Path) -> tuple:
    try:
        return (float(folder.name), folder.name)
    except ValueError:
        return (math.inf, folder.name)


def collect(root: Path = ROOT) -> list[dict]:
    """One record per budget and setting (root/<budget>/<setting>/) with finished races: per-seed results
    and their means. Each record's settings hold its budget ("amount" FLOPs per objective)."""
    budgets = sorted((p for p in root.iterdir() if p.is_dir()), key=_as_number) if root.exists() else []
    folders = [f for budget in budgets for f in sorted(budget.iterdir()) if f.is_dir()]
    records = []
    for folder in folders:
        races = [json.loads(p.read_text()) for p in sorted(folder.glob("seed-*/race.json"))]
        races = [r for r in races if r["status"] == "finished"]
        if not races:
            continue
        seeds = []
        for r in races:
            s = r["summary"]
            seeds.append({
                "seed": s["seed"], "rtd_probe": s["rtd"]["probe_accuracy"], "mlm_probe": s["mlm"]["probe_accuracy"],
                "floor_probe": s["floor"]["probe_accuracy"],
                "rtd_minus_mlm": s["rtd"]["probe_accuracy"] - s["mlm"]["probe_accuracy"],
                "rtd_steps": s["rtd"]["step"], "mlm_steps": s["mlm"]["step"],
                "rtd_flops": s["rtd"]["flops"], "mlm_flops": s["mlm"]["flops"],
                "disc_auc": s["rtd"]["disc_auc"], "disc_loss": s["rtd"]["disc_loss"],
                "rtd_token_cosine": s["rtd"]["token_cosine"], "mlm_token_cosine": s["mlm"]["token_cosine"],
                "mlm_accuracy": s["mlm"]["mlm_accuracy"], "wall_seconds": s.get("wall_seconds"),
                "finetune": _finetuned(r),
            })
        settings = {k: v for k, v in races[0]["settings"].items() if k != "seed"}
        records.append({
            "name": folder.name, "change": SETTINGS[folder.name][0] if folder.name in SETTINGS else None,
            "flags": SETTINGS[folder.name][1] if folder.name in SETTINGS else None, "settings": settings,
            "seeds": seeds,
            "mean": {k: _stat([x[k] for x in seeds]) for k in seeds[0]
                     if k not in ("seed", "finetune") and seeds[0][k] is not None},
            "rtd_wins": sum(x["rtd_minus_mlm"] > 0 for x in seeds),
            "finetune": _finetune_means([x["finetune"] for x in seeds if x["finetune"]]),
        })
    return records


def table(records: list[dict]) -> None:
    print(f"{'FLOPs/obj':<9} {'setting':<12} seeds  RTD probe    MLM probe    floor   RTD-MLM (pts)  RTD wins  "
          f"RTD steps  MLM steps  disc AUC  RTD cos  MLM cos")
    for r in records:
        m, n = r["mean"], len(r["seeds"])
        pct = lambda k: f"{100 * m[k]['mean']:5.1f}+-{100 * m[k]['sd']:3.1f}"
        print(f"{r['settings']['amount']:<9.2g} {r['name']:<12} {n:>5}  {pct('rtd_probe')}  {pct('mlm_probe')}  "
              f"{100 * m['floor_probe']['mean']:5.1f}  "
              f"{100 * m['rtd_minus_mlm']['mean']:+6.1f}+-{100 * m['rtd_minus_mlm']['sd']:3.1f}   "
              f"{r['rtd_wins']:>3}/{n}   "
              f"{m['rtd_steps']['mean']:9.0f}  {m['mlm_steps']['mean']:9.0f}  {m['disc_auc']['mean']:8.3f}  "
              f"{m['rtd_token_cosine']['mean']:7.2f}  {m['mlm_token_cosine']['mean']:7.2f}"
              + (f"  fine-tune over {ft['seeds']} seeds: RTD {100 * ft['rtd']['mean']:.1f}, "
                 f"MLM {100 * ft['mlm']['mean']:.1f}, "
                 f"untrained {100 * ft['untrained']['mean']:.1f}" if (ft := r["finetune"]) else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run")
    p.add_argument("names", nargs="+", choices=sorted(SETTINGS))
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--budget", type=float, default=BUDGET_FLOPS, help="training FLOPs per objective")
    p = sub.add_parser("table")
    p.add_argument("--json", help="also write the records here (the Training tab shows assets/race_campaign.json)")
    args = parser.parse_args()
    if args.command == "run":
        run(args.names, args.seeds, args.threads, args.budget)
    else:
        records = collect()
        table(records)
        if args.json:
            Path(args.json).write_text(json.dumps({"probe": PROBE, "settings": records}, indent=2) + "\n")


if __name__ == "__main__":
    main()
