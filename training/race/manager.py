"""Run one race at a time on a server, in a background thread, and hand out its files.

The Training tab keeps no race in the browser session: the one `RaceManager` of the process owns it,
so a reloaded page (or a second viewer) sees the same running race, and a second start gets a
clear "busy" message instead of a second race fighting for the CPU. The same manager runs the
optional full fine-tune at the end (training.downstream.finetune, the code of `python -m training finetune`).

On a Hugging Face Space with ZeroGPU, the job runs under `spaces.GPU` when that package imports;
elsewhere nothing changes. No gradio here.

Uploads: checked (type, size, binary, UTF-8) before anything starts, then copied into a private
temporary folder that is deleted when the race ends, fails or is stopped; the copy is never in
the race folder, so it never reaches models.zip, which every visitor may download.
A server restart forgets nothing on disk: the manager reopens the newest race folder read-only
(`load_race`); a race that was running when the server died is shown as "interrupted", with the
steps and probes that reached the disk.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import shutil
import tempfile
import threading
import time
import zipfile
from datetime import datetime
from pathlib import Path

from training.data import MAX_UPLOAD_BYTES, load_text_file
from training.race.record import RecordError, build_record, write_record
from training.race.run import OBJECTIVES, Race, finetune_encoders
from training.race.settings import RaceLimits, RaceSettings
from training.events import Probe
from training.runfiles import read_metrics

UPLOAD_SUFFIXES = (".txt", ".jsonl")
RECORD_NAME = "record.json"  # a finished race's replayable record, beside race.json
UPLOAD_PREFIX = "electra-upload-"  # the temporary folder holding a running race's copy of an upload


class RaceBusy(RuntimeError):
    """Another job holds the server; the message is meant for the user, as is."""


def on_gpu(function, seconds: float):
    """`spaces.GPU(duration=seconds)(function)` on a ZeroGPU Space; the function itself elsewhere."""
    try:
        import spaces
    except ImportError:
        return function
    return spaces.GPU(duration=int(seconds))(function)


def check_corpus(path: str | Path, max_bytes: int = MAX_UPLOAD_BYTES) -> str:
    """Validate an uploaded corpus (ValueError with a clear message); return a one-line description."""
    path = Path(path)
    if path.suffix.lower() not in UPLOAD_SUFFIXES:
        raise ValueError(f"{path.name}: upload a .txt file (one document per line) or a .jsonl file "
                         "(one {\"text\": ...} per line)")
    corpus = load_text_file(path, max_bytes=max_bytes)
    words = sum(len(t.split()) for t in corpus.train)
    return f"{path.name}: {len(corpus.train):,} documents, {words:,} words for training"


def metrics_rows(race: Race) -> list[dict]:
    """Every step of both objectives, one row each; the race's own in-memory events (with
    compute_seconds), or the run folders' metrics.jsonl when the race was not run by this process."""
    rows = []
    for objective in OBJECTIVES:
        events = race.runners[objective].events or read_metrics(race.folder / objective)
        rows += [{"objective": objective, **e.to_dict()} for e in events]
    return rows


def write_metrics_csv(race: Race, path: str | Path) -> Path:
    rows = metrics_rows(race)
    fields = list(dict.fromkeys(k for row in rows for k in row))  # union of keys, first-seen order
    path = Path(path)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fields, restval="")
        writer.writeheader()
        writer.writerows(rows)
    return path


def zip_models(race: Race, path: str | Path) -> Path:
    """The trained models (save_pretrained folders), tokenizers, logs and race.json; no optimizer state."""
    path = Path(path)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(race.folder.rglob("*")):
            relative = file.relative_to(race.folder)
            uploaded = file.parent == race.folder and file.stem == "corpus"  # an older race's kept upload: private
            if file.is_file() and file.name != "checkpoint.pt" and file.suffix not in (".zip", ".tmp") \
                    and not uploaded:
                archive.write(file, Path(race.folder.name) / relative)
    return path


def load_race(folder: str | Path) -> Race:
    """A race folder on disk as a finished, read-only `Race` (events from each metrics.jsonl, probes
    from race.json). One that says it was still running when its server died becomes "interrupted"."""
    folder = Path(folder)
    state = json.loads((folder / "race.json").read_text(encoding="utf-8"))
    settings = RaceSettings.from_dict(state["settings"])
    # Built on the CPU and without the server's limits: a GPU race, or one under older limits, stays viewable.
    race = Race(dataclasses.replace(settings, device="cpu"), folder)
    race.settings, race.device = settings, state.get("device") or race.device
    race.status, race.error = state.get("status") or "failed", state.get("error")
    if race.status in ("waiting", "running"):
        race.status, race.error = "interrupted", "the server stopped during this race"
    race.started_at, race.ended_at = state.get("started"), state.get("ended")
    race.probes = [Probe.from_dict(p) for p in state.get("probes") or []]
    race.floor = Probe.from_dict(state["floor"]) if state.get("floor") else None
    race.extras = state.get("extras") or {}
    if (race.extras.get("finetune") or {}).get("status") == "running":
        race.extras["finetune"] = {**race.extras["finetune"], "status": "interrupted"}
    for objective, runner in race.runners.items():
        runner.events, runner.started, runner.done = read_metrics(folder / objective), False, True
    wall = [r.events[-1].wall_time for r in race.runners.values() if r.events]
    seconds = (datetime.fromisoformat(race.ended_at) - datetime.fromisoformat(race.started_at)).total_seconds() \
        if race.started_at and race.ended_at else max(wall, default=0.0)
    race._clock_end = time.perf_counter()  # elapsed() = the race's own duration, frozen
    race._clock_start = race._clock_end - seconds
    race.version = 1
    return race


def latest_race(root: str | Path) -> Race | None:
    """The newest readable race under `root` (by race.json's time), or None."""
    found = sorted(Path(root).glob("*/race.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for path in found:
        try:
            return load_race(path.parent)
        except (OSError, ValueError, KeyError, TypeError):  # a torn or foreign race.json: try the next
            continue
    return None


class RaceManager:
    """At most one job (a race, or a fine-tune of a finished race) per process."""

    def __init__(self, root: str | Path, limits: RaceLimits = RaceLimits(), max_upload_bytes: int = 50 * 2**20):
        self.root, self.limits, self.max_upload_bytes = Path(root), limits, max_upload_bytes
        self.race: Race | None = latest_race(self.root)  # the latest race, running or not; after a restart, from disk
        self.job: str | None = None  # "race" or "finetune" while the thread runs
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._upload_dir: Path | None = None  # the running race's copy of an upload

    def busy(self) -> bool:
        return self.job is not None

    def busy_message(self) -> str:
        race = self.race
        if self.job == "finetune":
            return ("Busy: this server is fine-tuning the last race's encoders; one job runs at a time. "
                    "Wait for it to finish.")
        left = ""
        if race is not None and race.settings.budget == "minutes":
            left = f", about {max(0.0, race.settings.amount - race.elapsed() / 60):.0f} min left"
        what = (f"a {race.settings.preset} race ({race.settings.amount:g} {race.settings.budget}{left})" if race
                else "a race")
        return (f"Busy: {what} is already running on this server, and only one runs at a time. "
                "Its charts are shown here; watch it, or start yours when it has finished.")

    def start(self, settings: RaceSettings, upload: str | Path | None = None) -> Race:
        """Validate, create the race folder and start the race in the background; RaceBusy or ValueError."""
        with self._lock:
            if self.busy():
                raise RaceBusy(self.busy_message())
            settings.validate(self.limits)
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            folder = self.root / f"race-{stamp}-{settings.preset}-seed{settings.seed}"
            n = 1
            while folder.exists():
                n += 1
                folder = self.root / f"race-{stamp}-{settings.preset}-seed{settings.seed}-{n}"
            upload_dir = None
            if upload:
                check_corpus(upload, self.max_upload_bytes)
                # gradio's own upload file may be deleted by its cache cleaner mid-race: keep a private
                # copy, outside the race folder, until the race ends.
                upload_dir = Path(tempfile.mkdtemp(prefix=UPLOAD_PREFIX))
                kept = upload_dir / f"corpus{Path(upload).suffix.lower()}"
                shutil.copyfile(upload, kept)
                settings = dataclasses.replace(settings, corpus=str(kept))
            try:
                race = Race(settings, folder, self.limits)
                self._upload_dir = upload_dir
                self.race, self.job = race, "race"
                self._start_thread(self._run_race, race)
            except BaseException:
                self.job = None
                self._remove_upload(upload_dir)
                raise
            return race

    def stop(self) -> bool:
        """Ask the running race to stop after its current step; False when none runs."""
        race = self.race
        if race is None or not race.running or self.job != "race":
            return False
        race.stop()
        return True

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current job ends (or `timeout` s); True when the server is free."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.busy()

    def _start_thread(self, target, *args) -> None:
        seconds = self.limits.max_minutes * 60 * 1.5 + 120  # ZeroGPU: the job's longest possible run
        self._thread = threading.Thread(target=on_gpu(target, seconds), args=args, daemon=True, name="race")
        self._thread.start()

    def _run_race(self, race: Race) -> None:
        try:
            race.run()
        except Exception:  # noqa: BLE001 - recorded in race.status/error for the page
            pass
        finally:
            self._remove_upload(self._upload_dir)  # finished, stopped or failed: the copy goes
            self._upload_dir = None
            try:
                write_metrics_csv(race, race.folder / "metrics.csv")
                zip_models(race, race.folder / "models.zip")
                if any(r.events for r in race.runners.values()):  # the Training tab can replay it
                    write_record(build_record(race.folder), race.folder / RECORD_NAME)
            except (OSError, RecordError) as error:  # a full disk must not leave the job marked busy
                race.extras["export_error"] = str(error)
            self.job = None
            race.version += 1  # viewers: the files are ready and the server is free

    @staticmethod
    def _remove_upload(upload_dir: Path | None) -> None:
        if upload_dir is not None:
            shutil.rmtree(upload_dir, ignore_errors=True)

    # --- the full fine-tune, offered at the end -------------------------------------------------

    def start_finetune(self, epochs: int = 3, max_train: int | None = None) -> None:
        """Fine-tune the last race's encoders and the untrained floor, one after the other."""
        from training.downstream.finetune import FinetuneConfig

        with self._lock:
            if self.busy():
                raise RaceBusy(self.busy_message())
            race = self.race
            if race is None or race.running:
                raise ValueError("run a race first; the fine-tune uses its trained encoders")
            config = FinetuneConfig(epochs=int(epochs), max_train=max_train, seed=race.settings.seed)
            self.job = "finetune"
            race.extras["finetune"] = {"status": "running", "config": dataclasses.asdict(config), "results": {}}
            race.version += 1
            self._start_thread(self._run_finetune, race, config)

    def _run_finetune(self, race: Race, config) -> None:
        state = race.extras["finetune"]

        def record(name: str, result: dict) -> None:
            state["results"][name] = result
            race.version += 1
            race.write_json()

        try:
            finetune_encoders(race.folder, config, on_result=record)
            state["status"] = "finished"
        except Exception as error:  # noqa: BLE001 - shown on the page
            state["status"], state["error"] = "failed", f"{type(error).__name__}: {error}"
        finally:
            race.write_json()
            self.job = None
            race.version += 1
