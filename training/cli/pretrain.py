"""`pretrain` (one objective) and `compare` (both on the same budget): the trainer with a progress bar."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tqdm import tqdm

from training.cli.flags import add_config_arguments, config_from
from training.config import TrainConfig
from training.events import TrainEvent
from training.trainer import train


def run_with_progress(config: TrainConfig, out: Path, resume: bool) -> TrainEvent | None:
    """Train with a progress bar; return the last event (None when the budget was already spent)."""
    total = config.max_steps
    bar = tqdm(total=total, desc=config.objective.upper(), unit="step", dynamic_ncols=True)
    last = None
    for event in train(config, out, resume=resume):
        bar.update(event.step - bar.n)
        shown = {"loss": event.loss, "mlm_acc": event.mlm_accuracy}
        if config.objective == "rtd":
            shown.update(disc_auc=event.disc_auc, cos=event.token_cosine)
        bar.set_postfix({k: f"{v:.3f}" for k, v in shown.items() if v is not None})
        last = event
    bar.close()
    return last


def cmd_pretrain(args: argparse.Namespace) -> None:
    last = run_with_progress(config_from(args, args.objective), Path(args.out), args.resume)
    print(json.dumps(last.to_dict() if last else {}, indent=2))


def cmd_compare(args: argparse.Namespace) -> None:
    """Both objectives on the same budget, one after the other, in OUT/rtd and OUT/mlm."""
    summary = {}
    for objective in ("rtd", "mlm"):
        last = run_with_progress(config_from(args, objective, both=True), Path(args.out) / objective, args.resume)
        keys = ("step", "flops", "tokens", "supervised_positions", "loss", "mlm_loss", "mlm_accuracy", "disc_auc",
                "token_cosine", "wall_time")
        summary[objective] = {k: last.value(k) if last else None for k in keys}
    (Path(args.out) / "compare.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))


def add_pretrain(sub) -> None:
    p = sub.add_parser("pretrain", help="pretrain one objective")
    p.add_argument("--objective", choices=["rtd", "mlm"], default="rtd")
    p.add_argument("--out", required=True, help="run folder")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    add_config_arguments(p)
    p.set_defaults(func=cmd_pretrain)


def add_compare(sub) -> None:
    p = sub.add_parser("compare", help="RTD and MLM on the same budget (steps, FLOPs or minutes)")
    p.add_argument("--out", required=True, help="folder for OUT/rtd and OUT/mlm")
    p.add_argument("--resume", action="store_true")
    add_config_arguments(p)
    p.set_defaults(func=cmd_compare)
