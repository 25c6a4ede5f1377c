"""Run one race at a time on a server, in a background thread, and hand out its files.

The Training tab keeps no race in the browser session: the one `RaceManager` of the process owns it,
so a reloaded page (or a second viewer) sees the same running race, and a second start gets a
clear "busy" message instead of a second race fighting for the CPU. The same manager runs the
optional full fine-tune at the end (training.finetune, the code of `python -m training finetune`).

On a Hugging Face Space with ZeroGPU, the job runs under `spaces.GPU` when that package imports;
elsewhere nothing changes. No gradio here.
"""

from __future__ import annotations

import csv
import dataclasses
import shutil
import threading
import zipfile
from datetime import datetime
from pathlib import Path

from training.data import MAX_UPLOAD_BYTES, load_text_file
from training.race import OBJECTIVES, Race, finetune_encoders
from training.race_settings import RaceLimits, RaceSettings
from training.trainer import read_metrics

UPLOAD_SUFFIXES = (".txt", ".jsonl")


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
        rows += [{"objective": objective, **e} for e in events]
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
            if file.is_file() and file.name != "checkpoint.pt" and file.suffix not in (".zip", ".tmp"):
                archive.write(file, Path(race.folder.name) / relative)
    return path


class RaceManager:
    """At most one job (a race, or a fine-tune of a finished race) per process."""

    def __init__(self, root: str | Path, limits: RaceLimits = RaceLimits(), max_upload_bytes: int = 50 * 2**20):
        self.root, self.limits, self.max_upload_bytes = Path(root), limits, max_upload_bytes
        self.race: Race | None = None  # the latest race, running or not
        self.job: str | None = None  # "race" or "finetune" while the thread runs
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def busy(self) -> bool:
        return self.job is not None

    def busy_message(self) -> str:
        race = self.race
        if self.job == "finetune":
            return "Busy: this server is fine-tuning the last race's encoders; one job runs at a time. Wait for it to finish."
        left = ""
        if race is not None and race.settings.budget == "minutes":
            left = f", about {max(0.0, race.settings.amount - race.elapsed() / 60):.0f} min left"
        what = f"a {race.settings.preset} race ({race.settings.amount:g} {race.settings.budget}{left})" if race else "a race"
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
            if upload:
                check_corpus(upload, self.max_upload_bytes)
                folder.mkdir(parents=True)
                kept = folder / f"corpus{Path(upload).suffix.lower()}"  # the upload's temp file may vanish
                shutil.copyfile(upload, kept)
                settings = dataclasses.replace(settings, corpus=str(kept))
            race = Race(settings, folder, self.limits)
            self.race, self.job = race, "race"
            self._start_thread(self._run_race, race)
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
            try:
                write_metrics_csv(race, race.folder / "metrics.csv")
                zip_models(race, race.folder / "models.zip")
            except OSError as error:  # a full disk must not leave the job marked busy
                race.extras["export_error"] = str(error)
            self.job = None
            race.version += 1  # viewers: the files are ready and the server is free

    # --- the full fine-tune, offered at the end -------------------------------------------------

    def start_finetune(self, epochs: int = 3, max_train: int | None = None) -> None:
        """Fine-tune the last race's encoders and the untrained floor, one after the other."""
        from training.finetune import FinetuneConfig

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
