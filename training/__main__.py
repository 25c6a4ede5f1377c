"""CLI: python -m training pretrain | compare | finetune | evaluate  (--help on each)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from tqdm import tqdm

from training.trainer import TrainConfig, train

# Arguments shared by pretrain and compare, generated from TrainConfig so they never drift.
_SKIP = {"objective"}


def _add_config_arguments(parser: argparse.ArgumentParser) -> None:
    for field in dataclasses.fields(TrainConfig):
        if field.name in _SKIP:
            continue
        flag = "--" + field.name.replace("_", "-")
        kind = {int: int, float: float, str: str}.get(type(field.default), str)
        if field.name in ("max_steps", "max_documents", "threads", "generator_layers", "checkpoint_every"):
            kind = int
        if field.name in ("max_flops", "max_minutes"):
            kind = float
        parser.add_argument(flag, type=kind, default=field.default, help=f"default: {field.default}")


def _config(args: argparse.Namespace, objective: str) -> TrainConfig:
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    return TrainConfig(**{k: v for k, v in vars(args).items() if k in names and k != "objective"}, objective=objective)


def _run(config: TrainConfig, out: Path, resume: bool) -> dict:
    """Train with a progress bar; return the last event."""
    total = config.max_steps
    bar = tqdm(total=total, desc=config.objective.upper(), unit="step", dynamic_ncols=True)
    last: dict = {}
    for event in train(config, out, resume=resume):
        bar.update(event["step"] - bar.n)
        shown = {"loss": event["loss"], "mlm_acc": event["mlm_accuracy"]}
        if config.objective == "rtd":
            shown.update(disc_auc=event["disc_auc"], cos=event["token_cosine"])
        bar.set_postfix({k: f"{v:.3f}" for k, v in shown.items() if v is not None})
        last = event
    bar.close()
    return last


def cmd_pretrain(args: argparse.Namespace) -> None:
    last = _run(_config(args, args.objective), Path(args.out), args.resume)
    print(json.dumps(last, indent=2))


def cmd_compare(args: argparse.Namespace) -> None:
    """Both objectives on the same budget, one after the other, in OUT/rtd and OUT/mlm."""
    summary = {}
    for objective in ("rtd", "mlm"):
        last = _run(_config(args, objective), Path(args.out) / objective, args.resume)
        summary[objective] = {k: last.get(k) for k in ("step", "flops", "tokens", "supervised_positions", "loss", "mlm_loss", "mlm_accuracy", "disc_auc", "token_cosine", "wall_time")}
    (Path(args.out) / "compare.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))


def cmd_finetune(args: argparse.Namespace) -> None:
    from training.finetune import FinetuneConfig, finetune

    config = FinetuneConfig(epochs=args.epochs, lr=args.lr, batch_size=args.batch_size, seed=args.seed,
                            max_train=args.max_train, threads=args.threads)
    result = finetune(args.model, config, random_init=args.random_init)
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2))


def cmd_evaluate(args: argparse.Namespace) -> None:
    from training.evaluate import evaluate_pair

    result = evaluate_pair(args.model, n_blocks=args.blocks, seed=args.seed, temperature=args.temperature)
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("pretrain", help="pretrain one objective")
    p.add_argument("--objective", choices=["rtd", "mlm"], default="rtd")
    p.add_argument("--out", required=True, help="run folder")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    _add_config_arguments(p)
    p.set_defaults(func=cmd_pretrain)

    p = sub.add_parser("compare", help="RTD and MLM on the same budget (steps, FLOPs or minutes)")
    p.add_argument("--out", required=True, help="folder for OUT/rtd and OUT/mlm")
    p.add_argument("--resume", action="store_true")
    _add_config_arguments(p)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("finetune", help="fine-tune an encoder on the built-in sentiment task")
    p.add_argument("model", help="a discriminator/ or encoder/ folder (the generator is not used)")
    p.add_argument("--random-init", action="store_true", help="same architecture, random weights (the floor)")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--max-train", type=int, default=None, help="use only N training sentences")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--out", help="write the result JSON here")
    p.set_defaults(func=cmd_finetune)

    p = sub.add_parser("evaluate", help="discriminator vs its own generator on held-out text, and swap pairs")
    p.add_argument("model", help="folder with generator/ and discriminator/")
    p.add_argument("--blocks", type=int, default=200)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out")
    p.set_defaults(func=cmd_evaluate)

    args = parser.parse_args(argv)
    try:
        args.func(args)
    except (ValueError, FileNotFoundError, RuntimeError) as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    main()
