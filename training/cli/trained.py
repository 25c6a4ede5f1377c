"""`finetune` and `evaluate` (what a trained encoder or pair is worth) and `export` (a run's pair in the
bundled model's compact form)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def cmd_finetune(args: argparse.Namespace) -> None:
    from training.downstream.finetune import FinetuneConfig, finetune

    config = FinetuneConfig(epochs=args.epochs, lr=args.lr, batch_size=args.batch_size, seed=args.seed,
                            max_train=args.max_train, threads=args.threads)
    result = finetune(args.model, config, random_init=args.random_init)
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2))


def cmd_evaluate(args: argparse.Namespace) -> None:
    from training.downstream.evaluate import evaluate_pair

    result = evaluate_pair(args.model, n_blocks=args.blocks, seed=args.seed, temperature=args.temperature)
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))


def cmd_export(args: argparse.Namespace) -> None:
    from training.export import export_pair

    print(json.dumps(export_pair(args.run, args.out, args.dtype), indent=2))


def add_finetune(sub) -> None:
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


def add_export(sub) -> None:
    p = sub.add_parser("export", help="save a run's generator + discriminator compactly (e.g. into assets/model)")
    p.add_argument("run", help="run folder with generator/ and discriminator/")
    p.add_argument("--out", required=True)
    p.add_argument("--dtype", choices=["float16", "bfloat16", "float32"], default="float16", help="storage; loads as float32")
    p.set_defaults(func=cmd_export)


def add_evaluate(sub) -> None:
    p = sub.add_parser("evaluate", help="discriminator vs its own generator on held-out text, and swap pairs")
    p.add_argument("model", help="folder with generator/ and discriminator/")
    p.add_argument("--blocks", type=int, default=200)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out")
    p.set_defaults(func=cmd_evaluate)
