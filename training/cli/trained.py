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

    if args.seeds < 1:
        raise ValueError("--seeds must be 1 or more")
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    result = evaluate_pair(args.model, n_blocks=args.blocks or None, seed=args.seed, temperature=args.temperature,
                           seeds=args.seeds, generator=args.generator)
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))


def cmd_watch(args: argparse.Namespace) -> None:
    from training.watch import watch

    if args.table:
        from training.watch import curve_table, generator_table, read_records, run_tokens_per_step

        table = generator_table if args.best_by == "generator" else curve_table
        print(table(read_records(*args.baseline, Path(args.run) / "watch.jsonl"), run_tokens_per_step(args.run)))
        return
    if not (Path(args.run) / "config.json").exists():
        raise FileNotFoundError(f"{args.run} is not a run folder (no config.json)")
    watch(args.run, every_minutes=args.every_minutes, threads=args.threads, once=args.once, best_by=args.best_by)


def cmd_export(args: argparse.Namespace) -> None:
    from training.export import export_generator, export_pair

    if args.generator_only and args.calibrate:
        raise ValueError("--calibrate fits the discriminator: it has no meaning with --generator-only")
    if args.generator_only:
        print(json.dumps(export_generator(args.run, args.out, args.dtype), indent=2))
        return
    print(json.dumps(export_pair(args.run, args.out, args.dtype, calibrate=args.calibrate), indent=2))


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
    p.add_argument("--dtype", choices=["float16", "bfloat16", "float32"], default="float16",
                   help="storage; loads as float32")
    p.add_argument("--calibrate", action="store_true", help="fit a scale and bias on the discriminator's logit so that "
                   "P(replaced) is calibrated at Explore's 15%% (held-out text; rankings unchanged) and fold them in")
    p.add_argument("--generator-only", action="store_true", help="save the generator alone in OUT (a plain "
                   "masked language model with its own embeddings), e.g. assets/stronger-generator")
    p.set_defaults(func=cmd_export)


def add_evaluate(sub) -> None:
    p = sub.add_parser("evaluate", help="discriminator vs its own generator on held-out text, and swap pairs")
    p.add_argument("model", help="folder with generator/ and discriminator/")
    p.add_argument("--generator", metavar="DIR", help="another generator against the pair's discriminator: a pair "
                   "folder or a generator folder (e.g. assets/stronger-generator)")
    p.add_argument("--blocks", type=int, default=200, help="held-out blocks per text (0: the whole split)")
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0, help="the first seed of masks and samples")
    p.add_argument("--seeds", type=int, default=1, help="seeds SEED, SEED+1, ...: figures are their mean")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--out")
    p.set_defaults(func=cmd_evaluate)


def add_watch(sub) -> None:
    p = sub.add_parser("watch", help="evaluate a running run's checkpoints on a fixed held-out slice; keep the best")
    p.add_argument("run", help="the run folder (its checkpoint.pt is read, never its model folders)")
    p.add_argument("--every-minutes", type=float, default=30.0)
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1: the run keeps the rest)")
    p.add_argument("--once", action="store_true", help="measure the latest checkpoint once and stop")
    p.add_argument("--table", action="store_true", help="print the learning curve so far (RUN/watch.jsonl) as a "
                   "Markdown table, and stop")
    p.add_argument("--baseline", nargs="*", default=[], metavar="FILE", help="with --table: measurements to list "
                   "first (e.g. the starting pair's, step 0), as JSON or JSON lines")
    p.add_argument("--best-by", choices=("score", "generator"), default="score",
                   help="what RUN/best/ keeps, and --table shows: the discriminator's held-out ROC-AUC (score) or, "
                   "for a run that trains the generator, its cloze top-5 on held-out sentences")
    p.set_defaults(func=cmd_watch)
