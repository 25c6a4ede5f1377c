"""`targets`: every figure a pair is held to before it ships (explainer.lesson.targets), passed or failed."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from dataclasses import asdict
from pathlib import Path

HELP = "every target a pair is held to before it ships: PASS or FAIL, one a line"
DESCRIPTION = ("Does a pair meet the targets a class needs? Every figure the bundled pair is held to: the classroom "
               "measure, the cloze, the everyday table, held-out detection, the swap pairs, the size.")
EXAMPLES = """examples:
    python -m explainer targets assets/model                       # quick: 200 blocks, 1 seed
    python -m explainer targets RUN/best --blocks 0 --seeds 3      # the card's figures: whole splits
    python -m explainer targets assets/model --blocks 0 --seeds 3 --json T.json --evaluation E.json

Exit status 0 when every target passes, 1 otherwise, 2 on a usage error."""


def add_targets(sub) -> None:
    p = sub.add_parser("targets", help=HELP, description=textwrap.fill(DESCRIPTION, 100), epilog=EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pair", help="a folder with generator/ and discriminator/")
    p.add_argument("--blocks", type=int, default=200, help="held-out blocks per text (0: the whole split)")
    p.add_argument("--seeds", type=int, default=1, help="held-out seeds (figures are their mean)")
    p.add_argument("--classroom-seeds", type=int, default=5)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--json", metavar="FILE", help="also write the targets here")
    p.add_argument("--evaluation", metavar="FILE",
                   help="also write the held-out evaluation here (what `python -m training evaluate --out` writes)")
    p.set_defaults(run=run_targets)


def run_targets(args: argparse.Namespace) -> int:
    for flag, path in (("--json", args.json), ("--evaluation", args.evaluation)):
        if path and not Path(path).resolve().parent.is_dir():  # say so now, not after the measuring
            print(f"error: {flag}: the folder of {path[:80]!r} does not exist", file=sys.stderr)
            return 2
    from explainer.lesson.targets import check, report

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    targets, evaluation = check(args.pair, blocks=args.blocks or None, seeds=args.seeds,
                                classroom_seeds=args.classroom_seeds)
    print(report(targets))
    if args.json:
        Path(args.json).write_text(json.dumps([{**asdict(t), "met": t.met} for t in targets], indent=1) + "\n")
    if args.evaluation:
        Path(args.evaluation).write_text(json.dumps(evaluation, indent=2))
    return 0 if all(t.met for t in targets) else 1
