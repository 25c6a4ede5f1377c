"""Race records: a finished race as one small JSON file that the Training tab replays.

A record holds what the live charts drew (each objective's metrics, thinned to at most
`MAX_EVENTS` points, each point averaging the noisy per-step metrics since the previous one),
every probe, the untrained floor, the settings, the device it ran on and how long it took.
`build_record(race_folder)` makes one from a race's folder (race.json, rtd/metrics.jsonl,
mlm/metrics.jsonl); `load_record(path)` reads one back and checks it, with a clear message for a
file that is corrupt, foreign or from a newer version; `replay_snapshot(record, position)` is what
the race looked like when `position` (0..1) of it had run, in the shape of `Race.snapshot()`, so
the live charts draw it unchanged.

No gradio, no torch: records are plain data.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from training.events import Probe, TrainEvent
from training.race.campaign import budget_text

SCHEMA = "electra-explainer/race-record"
VERSION = 1
MAX_EVENTS = 400  # per objective: the charts draw every point of a record (render_training.MAX_POINTS)
MAX_BYTES = 8 * 2**20  # a record is a few hundred KB; anything far larger is not one
OBJECTIVES = ("rtd", "mlm")

# Cumulative counters: kept as they stand at the kept step.
COUNTERS = ("step", "tokens", "supervised_positions", "flops", "wall_time")
# Noisy per-step metrics: averaged over the steps a kept point stands for.
AVERAGED = ("loss", "mlm_loss", "mlm_accuracy", "disc_loss", "disc_accuracy", "disc_auc", "replaced_fraction",
            "token_cosine")
PACE_KEYS = {"flops": "flops", "steps": "step", "time": "wall_time"}


class RecordError(ValueError):
    """A file that is not a race record this version can replay; the message says why."""


# --- writing ----------------------------------------------------------------------------------------


def _read_events(path: Path) -> list[TrainEvent]:
    events = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                events.append(TrainEvent.from_dict(json.loads(line)))
    events.sort(key=lambda e: e.step)
    return events


def thin_events(events: list[TrainEvent], max_events: int = MAX_EVENTS) -> list[dict]:
    """At most `max_events` points (a record's JSON), the last step always kept; each point carries the counters
    at its step and the mean of every noisy metric over the steps since the previous kept point."""
    if not events:
        return []
    n = len(events)
    stride = max(1, math.ceil(n / max_events))
    kept, start = [], 0
    ends = list(range(stride - 1, n, stride))
    if ends[-1] != n - 1:
        ends.append(n - 1)
    for end in ends:
        window = events[start:end + 1]
        point = {k: events[end].value(k) for k in COUNTERS if events[end].value(k) is not None}
        for key in AVERAGED:
            values = [v for e in window if isinstance(v := e.value(key), (int, float)) and math.isfinite(v)]
            if values:
                point[key] = float(f"{sum(values) / len(values):.6g}")  # 6 digits: more than a chart shows
        kept.append(point)
        start = end + 1
    return kept


def build_record(race_folder: str | Path, title: str | None = None, description: str = "",
                 max_events: int = MAX_EVENTS) -> dict:
    """The record of the race in `race_folder` (a folder with race.json, rtd/ and mlm/)."""
    folder = Path(race_folder)
    try:
        race = json.loads((folder / "race.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise RecordError(f"{folder} holds no readable race.json ({error})") from None
    events = {o: _read_events(folder / o / "metrics.jsonl") for o in OBJECTIVES}
    if not any(events.values()):
        raise RecordError(f"{folder}: neither objective logged a step, so there is nothing to replay")
    settings = race["settings"]
    summary = race.get("summary") or {}
    elapsed = max([(e[-1].wall_time or 0.0) for e in events.values() if e] + [summary.get("wall_seconds") or 0.0])
    default_title = f"{budget_text(settings)}, seed {settings['seed']}, {elapsed / 60:.0f} min"
    return {
        "schema": SCHEMA, "version": VERSION, "title": title or default_title, "description": description,
        "settings": settings, "device": race.get("device"), "status": race.get("status"),
        "started": race.get("started"), "ended": race.get("ended"), "elapsed": elapsed,
        "steps": {o: (e[-1].step if e else 0) for o, e in events.items()},
        "events": {o: thin_events(e, max_events) for o, e in events.items()},
        "probes": race.get("probes") or [], "floor": race.get("floor"), "extras": race.get("extras") or {},
        "summary": summary,
    }


def dumps(record: dict) -> str:
    """JSON text with one event per line: small, and readable in a diff."""
    def events(points: list[dict]) -> str:
        return "[\n" + ",\n".join("   " + json.dumps(e) for e in points) + "\n  ]" if points else "[]"

    parts = []
    for key, value in record.items():
        if key == "events":
            inner = ",\n".join(f"  {json.dumps(o)}: {events(points)}" for o, points in value.items())
            parts.append(f' "events": {{\n{inner}\n }}')
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value, default=str)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_record(record: dict, path: str | Path) -> Path:
    """Write `record` as JSON (atomically), checked by the same rules the loader applies."""
    validate(record)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(dumps(record), encoding="utf-8")
    tmp.replace(path)
    return path


# --- reading ----------------------------------------------------------------------------------------


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def validate(record) -> dict:
    """Raise RecordError saying what is wrong with `record`; return it when it can be replayed."""
    if not isinstance(record, dict):
        raise RecordError("not a race record: the file holds no JSON object")
    if record.get("schema") != SCHEMA:
        raise RecordError("not a race record of this app (its \"schema\" field is missing or different)")
    version = record.get("version")
    if not isinstance(version, int) or version < 1:
        raise RecordError("a race record without a valid version number")
    if version > VERSION:
        raise RecordError(f"a race record of version {version}, made by a newer version of this app "
                          f"(this one reads version {VERSION}): update the app to replay it")
    for key, kind in (("settings", dict), ("events", dict), ("probes", list)):
        if not isinstance(record.get(key), kind):
            raise RecordError(f"a damaged race record: {key!r} is missing or not a {kind.__name__}")
    for key in ("pace", "budget", "amount", "preset", "seed"):
        if key not in record["settings"]:
            raise RecordError(f"a damaged race record: its settings lack {key!r}")
    if record["settings"]["pace"] not in PACE_KEYS:
        raise RecordError(f"a damaged race record: unknown pace {record['settings']['pace']!r}")
    if not _number(record.get("elapsed", 0.0)):
        raise RecordError("a damaged race record: 'elapsed' is not a number")
    for objective in OBJECTIVES:
        events = record["events"].get(objective)
        if not isinstance(events, list):
            raise RecordError(f"a damaged race record: no event list for {objective!r}")
        previous = None
        for i, point in enumerate(events):
            if not isinstance(point, dict) or not all(_number(point.get(k)) for k in ("step", "flops", "wall_time")):
                raise RecordError(f"a damaged race record: {objective} point {i + 1} lacks step, flops or wall_time")
            for key, value in point.items():
                if value is not None and not _number(value):
                    raise RecordError(f"a damaged race record: {objective} point {i + 1} has a non-number {key!r}")
            event = TrainEvent.from_dict(point)
            if previous is not None and event.step <= previous.step:
                raise RecordError(f"a damaged race record: {objective}'s steps do not increase at point {i + 1}")
            previous = event
    if not any(record["events"][o] for o in OBJECTIVES):
        raise RecordError("an empty race record: neither objective has a point to replay")
    for i, probe in enumerate(record["probes"]):
        if (not isinstance(probe, dict) or probe.get("objective") not in OBJECTIVES
                or not all(_number(probe.get(k)) for k in ("step", "flops", "accuracy"))):
            raise RecordError(f"a damaged race record: probe {i + 1} lacks objective, step, flops or accuracy")
    floor = record.get("floor")
    if floor is not None and not (isinstance(floor, dict) and _number(floor.get("accuracy"))):
        raise RecordError("a damaged race record: the untrained floor has no accuracy")
    return record


def load_record(path: str | Path) -> dict:
    """Read and check one record file; RecordError (with the file's name) when it cannot be replayed."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise RecordError(f"{path.name}: {path.stat().st_size / 2**20:.0f} MB is far too large for a race record")
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise RecordError(f"{path.name}: cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path.name}: not a race record (not UTF-8 text)") from None
    try:
        record = json.loads(text)
    except ValueError as error:
        raise RecordError(f"{path.name}: not a race record (invalid JSON: {error})") from None
    try:
        return validate(record)
    except RecordError as error:
        raise RecordError(f"{path.name}: {error}") from None


def list_records(folder: str | Path, load=load_record) -> list[tuple[str, Path]]:
    """(title, path) of every readable record in `folder`, by title; unreadable files are left out.
    `load(path)` reads one (a caching loader avoids parsing every file on every call)."""
    found = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            found.append((load(path)["title"], path))
        except RecordError:
            continue
    return sorted(found, key=lambda item: item[0])


# --- replaying ---------------------------------------------------------------------------------------


def record_events(record: dict, objective: str) -> list[TrainEvent]:
    """One objective's points of a (checked) record, typed."""
    return [TrainEvent.from_dict(point) for point in record["events"].get(objective) or []]


def record_probes(record: dict) -> list[Probe]:
    """A (checked) record's probes, typed."""
    return [Probe.from_dict(probe) for probe in record.get("probes") or []]


def record_floor(record: dict) -> Probe | None:
    return Probe.from_dict(record["floor"]) if record.get("floor") else None


def _level(record: dict, event: TrainEvent) -> float:
    return float(event.value(PACE_KEYS[record["settings"]["pace"]]))


def total_level(record: dict) -> float:
    """The pace counter (FLOPs, steps or seconds) where the record ends: position 1."""
    return max((_level(record, e[-1]) for o in OBJECTIVES if (e := record_events(record, o))), default=0.0)


def _probe_level(record: dict, probe: Probe) -> float:
    pace = record["settings"]["pace"]
    if pace == "flops":
        return float(probe.flops)
    if pace == "steps":
        return float(probe.step)
    events = record_events(record, probe.objective)
    at = [e for e in events if e.step >= probe.step]
    return float(at[0].wall_time if at else (events[-1].wall_time if events else 0.0))


def replay_snapshot(record: dict, position: float) -> dict:
    """The race as it stood when `position` (0..1, clipped) of it had run, shaped like Race.snapshot().
    The race kept both objectives level on its pace counter, so the replay cuts both at one level."""
    position = min(1.0, max(0.0, float(position) if _number(position) else 0.0))
    end = total_level(record)
    cut = position * end
    events = {o: [e for e in record_events(record, o) if _level(record, e) <= cut + 1e-9 * max(1.0, end)]
              for o in OBJECTIVES}
    probes = [p for p in record_probes(record) if _probe_level(record, p) <= cut + 1e-9 * max(1.0, end)]
    shown = [e[-1].wall_time for e in events.values() if e]
    finished = position >= 1.0
    return {
        "version": position, "status": (record.get("status") or "finished") if finished else "running", "error": None,
        "stopping": False, "settings": record["settings"], "folder": record["title"], "device": record.get("device"),
        "started": record.get("started"), "ended": record.get("ended") if finished else None,
        "elapsed": record.get("elapsed", 0.0) if finished else (max(shown) if shown else 0.0),
        "events": events, "probes": probes, "floor": record_floor(record) if probes else None,
        "extras": (record.get("extras") or {}) if finished else {}, "progress": position,
    }
