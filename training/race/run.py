"""A race: ELECTRA (RTD) and the BERT-style baseline (MLM) trained side by side on one budget.

Both objectives run the project's one training loop (`training.trainer.train`, a generator that
yields one event per step here). The race advances whichever objective is behind on the pace
counter (training FLOPs by default, or steps, or its own compute seconds), so the two curves grow
together and, under equal FLOPs, never drift apart by more than one step's FLOPs. Every
`probe_every` steps each objective's checkpoint is scored by a linear probe on the sentiment task
(training/downstream/probe.py), and at the end; an untrained encoder of the same size is the floor.

On disk, one race folder:  rtd/ (generator/, discriminator/, metrics.jsonl, checkpoint.pt, ...),
mlm/ (encoder/, ...), race.json (settings, status, started/ended, device, probes, final numbers).

Budgets (training/race/settings.py): "minutes" is the race's wall clock (both objectives share
it); "steps" and "flops" are per objective. `RaceLimits` is the server's bound; the CLI has none.
No gradio here: the Training tab (explainer/ui/training_tab.py) and the CLI (`python -m training
race`) both drive this module; `RaceManager` (race_manager.py) runs one race at a time in a thread.

Left out: several races at once; resuming a race (each objective can be resumed with `pretrain
--resume` on its folder, but the interleaving would not be the same).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, replace
from datetime import datetime, timezone
from pathlib import Path

from training.config import TrainConfig
from training.downstream.probe import ProbeStopped, probe
from training.events import Probe, TrainEvent, last_probe
from training.race.settings import DEFAULTS_MEASURED, RaceLimits, RaceSettings, describe_device, use_cuda
from training.trainer import train

OBJECTIVES = ("rtd", "mlm")
ENCODER_FOLDER = {"rtd": "discriminator", "mlm": "encoder"}  # what each objective keeps after pretraining


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class _Runner:
    """One objective's training generator plus the race's own counters for it."""

    def __init__(self, objective: str, config: TrainConfig, folder: Path, stop):
        self.objective, self.folder = objective, folder
        self._halt = threading.Event()  # this objective alone has had its share (the race's stop ends both)
        self.generator = train(config, folder, stop=lambda: stop() or self._halt.is_set())
        self.started = self.done = False
        self.events: list[TrainEvent] = []
        self.compute_seconds = 0.0  # time spent inside this objective's steps (the other's excluded)
        self.loading_since: float | None = None  # while the trainer loads the text and builds the model: since when
        self.loading_seconds = 0.0  # how long that took (kept off the race's clock)

    def level(self, pace: str) -> float:
        """The pace counter: the race advances the objective that is behind on it."""
        if not self.events:
            return 0.0
        last = self.events[-1]
        return {"flops": last.flops, "steps": last.step, "time": self.compute_seconds}[pace]

    def advance(self) -> TrainEvent | None:
        """One training step; None when the budget is spent (the trainer has saved everything)."""
        began = time.perf_counter()
        if not self.started:  # the first call also loads the text and builds the model
            self.started, self.loading_since = True, began
        event = next(self.generator, None)
        if self.loading_since is not None:  # the trainer's clock starts after its set-up: the rest was loading
            self.loading_seconds = max(0.0, time.perf_counter() - began - (event.wall_time if event else 0.0))
            self.loading_since = None
        if event is None:
            self.done = True
            return None
        # The first call's step alone (the trainer's clock), not the loading before it.
        seconds = event.wall_time if not self.events else time.perf_counter() - began
        self.compute_seconds += seconds
        tokens = (event.tokens or 0) - ((self.events[-1].tokens or 0) if self.events else 0)
        # The trainer's tokens_per_second counts the wall time of both objectives; use this one's own time.
        event = replace(event, compute_seconds=self.compute_seconds, tokens_per_second=tokens / max(seconds, 1e-9))
        self.events.append(event)
        return event

    def halt(self) -> None:
        """End this objective alone, cleanly (the trainer saves), e.g. once it has caught up."""
        self._halt.set()
        self.finish()

    def finish(self) -> None:
        """After stop(): let the trainer leave its loop and save (only if it ever started)."""
        if self.started and not self.done:
            for event in self.generator:  # nothing normally: it stops at the loop's top
                self.events.append(replace(event, compute_seconds=self.compute_seconds))
        self.done = True


class Race:
    """One race in `folder`. `run()` trains both objectives; `stop()` ends it cleanly from any thread."""

    def __init__(self, settings: RaceSettings, folder: str | Path, limits: RaceLimits | None = None):
        settings.validate(limits)
        self.settings, self.folder, self.limits = settings, Path(folder), limits
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.version = 0  # bumped on every change, so a viewer redraws only when something moved
        self.status, self.error = "waiting", None
        self.started_at = self.ended_at = None
        self._clock_start: float | None = None
        self._clock_end: float | None = None
        self.device = describe_device(settings.device, settings.threads)
        self.runners = {o: _Runner(o, settings.train_config(o, limits), self.folder / o, self._stop.is_set)
                        for o in OBJECTIVES}
        self.probes: list[Probe] = []
        self.floor: Probe | None = None  # the untrained encoder's probe
        self.extras: dict = {}  # later jobs on this race (fine-tuning) keep their results here

    # --- control --------------------------------------------------------------------------------

    def stop(self) -> None:
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    @property
    def running(self) -> bool:
        return self.status in ("waiting", "running")

    def run(self, on_step=None) -> dict:
        """Train until the budget is spent or stop() is called; return the summary. Never leaves
        race.json saying "running": a failure is recorded (status "failed", the message) and re-raised.
        `on_step(race)` is called after every step (the CLI's progress bar)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._lock:
            self.status, self.started_at, self._clock_start = "running", _now(), time.perf_counter()
            self.version += 1
        self.write_json()
        status, error = "failed", "interrupted"  # what race.json says if even Ctrl-C gets through
        try:
            self._race(on_step or (lambda race: None))
            self._final_probes()
            status, error = ("stopped" if self.stopping else "finished"), None
        except Exception as exc:  # recorded for the UI, then re-raised
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            with self._lock:
                self.status, self.error, self.ended_at, self._clock_end = status, error, _now(), time.perf_counter()
                self.version += 1
            self.write_json()
        return self.summary()

    def _race(self, on_step) -> None:
        pace = self.settings.pace
        while True:
            active = [r for r in self.runners.values() if not r.done]
            if not active:
                return
            if self.stopping:
                for runner in active:
                    runner.finish()
                return
            # A wall-clock budget ends each trainer on its own clock, and the two clocks started a few
            # seconds apart (the first one also loaded the data); so once one objective has ended,
            # the other ends as soon as it has caught up on the pace counter: the race stays level.
            # (Steps and FLOPs budgets end each objective on its own count: nothing to level there.)
            on_the_clock = self.settings.budget == "minutes" or (
                self.limits is not None and self.elapsed() >= 60 * self.limits.max_minutes)
            ended = [r.level(pace) for r in self.runners.values() if r.done and r.events] if on_the_clock else []
            caught_up = [r for r in active if ended and r.events and r.level(pace) >= max(ended)]
            for r in caught_up:
                r.halt()
                with self._lock:
                    self.version += 1
            active = [r for r in active if r not in caught_up]
            if not active:
                return
            runner = min(active, key=lambda r: r.level(pace))  # ties go to RTD (listed first)
            event = runner.advance()
            with self._lock:
                self.version += 1
            if event is None:
                continue
            on_step(self)
            every = self.settings.probe_every
            # The trainer saves step k's checkpoint on the call after yielding step k, so when step
            # k+1 arrives, step k's folders are complete on disk.
            if every and event.step > 1 and (event.step - 1) % every == 0:
                self._probe(runner, event.step - 1, event)

    def _probe(self, runner: _Runner, step: int, event: TrainEvent) -> None:
        """Probe `runner`'s checkpoint of `step` (and the untrained floor, once). A Stop leaves it between two
        batches of sentences, with no record: the race ends within a batch of its current step."""
        if any(p.objective == runner.objective and p.step == step for p in self.probes) or step == 0:
            return
        folder = runner.folder / ENCODER_FOLDER[runner.objective]
        if not (folder / "config.json").exists() or self.stopping:
            return
        device = "cuda" if use_cuda(self.settings.device) else "cpu"
        try:
            if self.floor is None:
                floor = probe(folder, self.settings.probe_config(), random_init=True, device=device,
                              stop=self._stop.is_set)
                with self._lock:
                    self.floor = Probe(objective="untrained", step=0, flops=0.0, tokens=0, **floor.to_dict())
            result = probe(folder, self.settings.probe_config(), device=device, stop=self._stop.is_set)
        except ProbeStopped:
            return
        record = Probe(objective=runner.objective, step=step, flops=event.flops / event.step * step,
                       tokens=(event.tokens or 0) // event.step * step, **result.to_dict())
        with self._lock:
            self.probes.append(record)
            self.version += 1
        self.write_json()

    def _final_probes(self) -> None:
        """The last checkpoints' probes, when the budget ran out. After a Stop there are none: Stop means now
        (the models are saved; the probes made so far stay; `python -m training finetune` scores them later)."""
        if self.stopping:
            return
        for runner in self.runners.values():
            if runner.events:
                last = runner.events[-1]
                self._probe(runner, last.step, last)

    # --- reading --------------------------------------------------------------------------------

    def loading(self) -> str | None:
        """The objective whose trainer is loading the text and building its model right now, or None."""
        return next((o for o, r in self.runners.items() if r.loading_since is not None), None)

    def loading_for(self) -> float:
        """Seconds the trainer that is loading now has been at it (0 when none is)."""
        since = [r.loading_since for r in self.runners.values() if r.loading_since is not None]
        return time.perf_counter() - since[0] if since else 0.0

    def loading_seconds(self) -> float:
        """Seconds spent loading so far (both objectives): off the race's clock, so not against a minutes budget."""
        now = time.perf_counter()
        return sum(r.loading_seconds + (now - r.loading_since if r.loading_since is not None else 0.0)
                   for r in self.runners.values())

    def elapsed(self) -> float:
        """Seconds of racing since the race started, loading left out, frozen when it ended."""
        if self._clock_start is None:
            return 0.0
        return max(0.0, (self._clock_end or time.perf_counter()) - self._clock_start - self.loading_seconds())

    def snapshot(self) -> dict:
        """A consistent copy of everything a viewer shows (cheap: lists are copied, not events)."""
        with self._lock:
            return {
                "version": self.version, "status": self.status, "error": self.error, "stopping": self.stopping,
                "settings": asdict(self.settings), "folder": str(self.folder), "device": self.device,
                "started": self.started_at, "ended": self.ended_at, "elapsed": self.elapsed(),
                "events": {o: list(r.events) for o, r in self.runners.items()},
                "probes": list(self.probes), "floor": self.floor, "extras": dict(self.extras),
                "progress": self.progress(), "loading": self.loading(), "loading_for": self.loading_for(),
            }

    def progress(self) -> float:
        """Fraction of the budget used, 0..1 (both objectives averaged; minutes: the race clock)."""
        s = self.settings
        if s.budget == "minutes":
            return min(1.0, self.elapsed() / 60 / s.amount)
        key = "step" if s.budget == "steps" else "flops"
        done = [min(1.0, r.events[-1].value(key) / s.amount) if r.events else 0.0 for r in self.runners.values()]
        return sum(done) / len(done)

    def final_probe(self, objective: str) -> Probe | None:
        return last_probe(self.probes, objective)

    def summary(self) -> dict:
        keys = ("step", "flops", "tokens", "supervised_positions", "compute_seconds", "loss", "mlm_loss",
                "mlm_accuracy", "disc_loss", "disc_accuracy", "disc_auc", "replaced_fraction", "token_cosine")
        result = {"seed": self.settings.seed, "status": self.status, "error": self.error, "device": self.device,
                  "wall_seconds": self.elapsed(), "folder": str(self.folder)}
        for objective, runner in self.runners.items():
            last = runner.events[-1] if runner.events else None
            final = self.final_probe(objective)
            result[objective] = {**{k: last.value(k) if last else None for k in keys},
                                 "probe_accuracy": final.accuracy if final else None,
                                 "probe_step": final.step if final else None}
        result["floor"] = {"probe_accuracy": self.floor.accuracy if self.floor else None}
        return result

    def write_json(self) -> None:
        """race.json, written atomically (a viewer may read it at any time)."""
        with self._lock:
            state = {"settings": asdict(self.settings), "status": self.status, "error": self.error,
                     "started": self.started_at, "ended": self.ended_at, "device": self.device,
                     "limits": asdict(self.limits) if self.limits else None,
                     "defaults_measured": DEFAULTS_MEASURED, "probes": [p.to_dict() for p in self.probes],
                     "floor": self.floor.to_dict() if self.floor else None,
                     "extras": self.extras}
        state["summary"] = self.summary()
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / "race.json.tmp"
        tmp.write_text(json.dumps(state, indent=2, default=str), encoding="utf-8")
        tmp.replace(self.folder / "race.json")


def finetune_encoders(folder: str | Path, config, on_result=None) -> dict:
    """Full fine-tune (training.downstream.finetune, the CLI's code) of a race's two encoders and of the
    untrained floor, one after the other; `on_result(name, result)` after each. ~6 min each on a CPU."""
    from training.downstream.finetune import finetune

    folder = Path(folder)
    jobs = [(o, folder / o / ENCODER_FOLDER[o], False) for o in OBJECTIVES]
    jobs.append(("untrained", folder / "rtd" / ENCODER_FOLDER["rtd"], True))
    results = {}
    for name, model_dir, random_init in jobs:
        results[name] = finetune(model_dir, config, random_init=random_init)
        if on_result:
            on_result(name, results[name])
    return results
