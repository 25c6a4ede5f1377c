"""`race`: RTD vs MLM side by side on one budget, several seeds (training/race/run.py), then a table and
OUT/summary.json; `record`: a race folder as one small record the Training tab replays."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from tqdm import tqdm

from training.cli.flags import flag_types

RACE_SKIP = {"budget", "amount", "seed"}  # given as --budget-* and --seeds


def add_race_arguments(parser: argparse.ArgumentParser) -> None:
    """Every RaceSettings field; one left out takes the preset's value, as the Training tab does."""
    from training.race.settings import RaceSettings, default_settings

    budget = parser.add_mutually_exclusive_group()  # none given: the preset's (mini: CPU_RACE_FLOPS FLOPs)
    budget.add_argument("--budget-minutes", type=float, help="wall clock of each race (both objectives share it)")
    budget.add_argument("--budget-steps", type=int, help="optimizer steps of each objective")
    budget.add_argument("--budget-flops", type=float, help="training FLOPs of each objective, e.g. 2e14 "
                        "(with no --budget-* flag: the preset's budget; mini: 1.4e13)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="one race per seed, one after the other")
    mini = default_settings("mini", "cpu")
    types = flag_types(RaceSettings)
    for field in dataclasses.fields(RaceSettings):
        if field.name in RACE_SKIP:
            continue
        shown = ("mini on CPU, small on CUDA" if field.name == "preset"
                 else f"the preset's; mini: {getattr(mini, field.name)}")
        parser.add_argument("--" + field.name.replace("_", "-"), type=types[field.name], default=None,
                            help=f"default: {shown}")


def race_table(summaries: list[dict], aggregate: dict, finetuned: dict | None) -> str:
    def pct(value):
        return "    -" if value is None else f"{100 * value:5.1f}"

    lines = ["seed  status     probe: RTD   MLM  floor  RTD-MLM   FLOPs: RTD    MLM     RTD disc/MLM loss"]
    for s in summaries:
        rtd, mlm = s["rtd"], s["mlm"]
        diff = (None if rtd["probe_accuracy"] is None or mlm["probe_accuracy"] is None
                else rtd["probe_accuracy"] - mlm["probe_accuracy"])
        losses = " / ".join("-" if v is None else f"{v:.3f}" for v in (rtd["disc_loss"], mlm["mlm_loss"]))
        lines.append(f"{s['seed']:>4}  {s['status']:<9}      {pct(rtd['probe_accuracy'])} {pct(mlm['probe_accuracy'])} "
                     f"{pct(s['floor']['probe_accuracy'])}   {pct(diff)}   "
                     f"{rtd['flops'] or 0:9.2e} {mlm['flops'] or 0:9.2e}   {losses}")

    for title, stats in (("linear probe", aggregate), ("full fine-tune", finetuned)):
        if stats:
            lines.append(f"{title} over {stats['seeds']} seeds (%): RTD {mean_text(stats, 'rtd')}, "
                         f"MLM {mean_text(stats, 'mlm')}, "
                         f"untrained {mean_text(stats, 'floor')}; RTD - MLM {mean_text(stats, 'rtd_minus_mlm')} "
                         f"(RTD ahead in {stats['rtd_wins']} of {stats['seeds']})")
    return "\n".join(lines)


def mean_text(stats: dict, part: str) -> str:
    m = stats[part]
    return "-" if m["mean"] is None else f"{100 * m['mean']:.1f} +- {100 * m['std']:.1f}"


def race_settings(args: argparse.Namespace):
    """The race's settings from the flags given; every one left out (the budget too) is the preset's."""
    from training.race.settings import RaceSettings, default_settings

    names = {f.name for f in dataclasses.fields(RaceSettings)} - RACE_SKIP
    given = {k: v for k, v in vars(args).items() if k in names and v is not None}
    for kind in ("minutes", "steps", "flops"):
        if getattr(args, f"budget_{kind}") is not None:
            given.update(budget=kind, amount=getattr(args, f"budget_{kind}"))
    return default_settings(given.pop("preset", None), given.pop("device", "auto"), **given)


def _race_seed(base, seed: int, folder: Path) -> tuple[dict, dict]:
    """One seed's race in `folder` (a finished one with the same settings is reused): its summary, and
    race.json as it was before (empty for a fresh race: an older fine-tune result no longer applies)."""
    from training.race.record import build_record, write_record
    from training.race.run import OBJECTIVES, Race

    settings = dataclasses.replace(base, seed=seed)
    previous = json.loads((folder / "race.json").read_text()) if (folder / "race.json").exists() else {}
    if previous.get("status") == "finished" and previous.get("settings") == dataclasses.asdict(settings):
        print(f"seed {seed}: finished before, reusing {folder}")
        return previous["summary"], previous
    race = Race(settings, folder)
    bar = tqdm(total=100, desc=f"race seed {seed}", unit="%", dynamic_ncols=True)

    def show(race: Race) -> None:
        bar.update(int(100 * race.progress()) - bar.n)
        bar.set_postfix({o: race.runners[o].events[-1].step for o in OBJECTIVES if race.runners[o].events})

    summary = race.run(on_step=show)
    bar.close()
    write_record(build_record(folder), folder / "record.json")  # replayable in the Training tab
    return summary, {}


def _finetune_seed(folder: Path, seed: int, epochs: int, previous: dict) -> dict:
    """Full fine-tunes of one race's encoders and floor (reused when race.json holds them for the same
    config); kept in race.json under extras.finetune, as the Training tab does."""
    from training.downstream.finetune import FinetuneConfig
    from training.race.run import finetune_encoders

    config = FinetuneConfig(epochs=epochs, seed=seed)
    done = previous.get("extras", {}).get("finetune", {})
    tuned = done["results"] if done.get("config") == dataclasses.asdict(config) else finetune_encoders(folder, config)
    state = json.loads((folder / "race.json").read_text())
    state.setdefault("extras", {})["finetune"] = {"status": "finished", "config": dataclasses.asdict(config),
                                                  "results": tuned}
    (folder / "race.json").write_text(json.dumps(state, indent=2))
    return tuned


def cmd_race(args: argparse.Namespace) -> None:
    """One race per seed in OUT/seed-N (a finished one is reused), then OUT/summary.json and a table."""
    from training.race.campaign import aggregate

    base = race_settings(args)
    base.validate()
    out = Path(args.out)
    summaries, finetuned = [], []
    for seed in args.seeds:
        folder = out / f"seed-{seed}"
        summary, previous = _race_seed(base, seed, folder)
        if args.finetune:
            tuned = _finetune_seed(folder, seed, args.finetune_epochs, previous)
            summary["finetune"] = {name: result["accuracy"] for name, result in tuned.items()}
            finetuned.append({"rtd": tuned["rtd"], "mlm": tuned["mlm"], "floor": tuned["untrained"]})
        summaries.append(summary)
    result = {"settings": {k: v for k, v in dataclasses.asdict(base).items() if k != "seed"}, "seeds": args.seeds,
              "races": summaries, "probe": aggregate(summaries),
              "finetune": aggregate(finetuned, key="accuracy") if finetuned else None,
              "paper": "not measured here: " + paper_line()}
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(result, indent=2))
    print(race_table(summaries, result["probe"], result["finetune"]))
    print(f"for scale, the paper's result (GLUE dev, not this task): {paper_line()}")
    print(f"wrote {out / 'summary.json'}")


def cmd_record(args: argparse.Namespace) -> None:
    """A race folder -> one small replayable record (e.g. into assets/races/)."""
    from training.race.record import build_record, write_record

    record = build_record(args.race, title=args.title, description=args.description or "")
    path = write_record(record, args.out)
    points = ", ".join(f"{o}: {len(e)} points of {record['steps'][o]:,} steps" for o, e in record["events"].items())
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KB; {points}; {len(record['probes'])} probes)")


def paper_line() -> str:
    from training.paper import PAPER_POINTS, SHORT_SOURCE

    small = {p.model: p for p in PAPER_POINTS}
    rtd, mlm = small["ELECTRA-Small"], small["BERT-Small"]
    return f"{rtd.model} {rtd.glue} vs {mlm.model} {mlm.glue} at {rtd.train_flops:.1e} FLOPs ({SHORT_SOURCE})"


def add_race(sub) -> None:
    p = sub.add_parser("race", help="RTD vs MLM side by side on one budget, probed downstream; several seeds")
    p.add_argument("--out", required=True, help="folder for OUT/seed-N/{rtd,mlm,race.json} and OUT/summary.json")
    p.add_argument("--finetune", action="store_true",
                   help="also fine-tune both encoders and the floor (~6 min each on CPU)")
    p.add_argument("--finetune-epochs", type=int, default=3)
    add_race_arguments(p)
    p.set_defaults(func=cmd_race)


def add_record(sub) -> None:
    p = sub.add_parser("record", help="a race folder as one small record the Training tab replays")
    p.add_argument("race", help="one race's folder (race.json, rtd/, mlm/), e.g. OUT/seed-0")
    p.add_argument("--out", required=True, help="the record file, e.g. assets/races/NAME.json")
    p.add_argument("--title", help="the name shown in the replay list (default: preset, budget, seed, device)")
    p.add_argument("--description", help="one or two sentences shown under the replay")
    p.set_defaults(func=cmd_record)
