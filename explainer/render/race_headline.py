"""What the Training tab leads with: the recorded race that trained the most (its seeds together, with their
numbers), then why the short race a visitor starts on a CPU cannot tell the two objectives apart.

The order is a rule, not a file name: recorded races (assets/races/) are grouped by their settings, seeds
together, and the group whose races reached the most training FLOPs per objective leads; a longer race, or a
GPU race once one is recorded there, comes first on its own. Plain data in, escaped Markdown out: no gradio.
"""

from __future__ import annotations

import json

from explainer.render.device_race import device_run_markdown
from explainer.render.style import esc
from training.events import last_probe
from training.race.device_record import device_run_summary
from training.race.campaign import OBJECTIVES, budget_text, final_gap, separated, stats
from training.race.record import record_events, record_floor, record_probes

SAME_RACE_IGNORES = ("seed", "threads", "device", "probe_every")  # what seeds of one race may differ in


def trained_flops(record: dict) -> float:
    """The training FLOPs per objective a record reached: the smaller of its two objectives' last counts."""
    events = {o: record_events(record, o) for o in OBJECTIVES if (record.get("events") or {}).get(o)}
    reached = [max(e.flops or 0.0 for e in events[o]) for o in events]
    return min(reached) if len(reached) == len(OBJECTIVES) else 0.0


def _race_key(record: dict) -> str:
    return json.dumps({k: v for k, v in record["settings"].items() if k not in SAME_RACE_IGNORES}, sort_keys=True,
                      default=str)


def leading_races(records: list[dict]) -> list[dict]:
    """The seeds of the recorded race that trained the most (both objectives probed at the end); [] if none."""
    groups: dict[str, list[dict]] = {}
    for record in records:
        if final_gap(record) is not None:
            groups.setdefault(_race_key(record), []).append(record)
    if not groups:
        return []
    return max(groups.values(), key=lambda g: (sum(map(trained_flops, g)) / len(g), len(g)))


def record_order(record: dict, leaders: list[dict]) -> tuple:
    """A sort key for a list of records: the leading race's seeds first (by seed), then the most trained."""
    return (not any(record is r for r in leaders), -trained_flops(record), record["settings"].get("seed", 0))


def _last_probe(record: dict, objective: str) -> float:
    return last_probe(record_probes(record), objective).accuracy


def _where(records: list[dict]) -> str:
    devices = {str(r.get("device") or "").lower() for r in records}
    if all(d.startswith("cpu") for d in devices):
        return "a CPU"
    return "a GPU" if all("cuda" in d or "gpu" in d for d in devices) else "this project's machines"


def _minutes(records: list[dict]) -> str:
    minutes = sorted(round((r.get("elapsed") or 0) / 60) for r in records)
    return f"{minutes[0]} minutes" if minutes[0] == minutes[-1] else f"{minutes[0]}–{minutes[-1]} minutes"


def lead_markdown(races: list[dict]) -> str:
    """One paragraph: the leading race's gap (mean ± sd over its seeds), each encoder's probe and the floor."""
    gaps = [final_gap(r) for r in races]
    spread, n = stats(gaps), len(races)
    gap, sd = 100 * spread["mean"], 100 * spread["std"]
    mean = lambda values: 100 * sum(values) / len(values)
    rtd, mlm = mean([_last_probe(r, "rtd") for r in races]), mean([_last_probe(r, "mlm") for r in races])
    floor = [f.accuracy for r in races if (f := record_floor(r))]
    wins = sum(g > 0 for g in gaps)
    # one seed: its direction, said to be one seed; more: a side only beyond two standard errors (separated)
    side = separated(gaps) if n > 1 else "ahead" if gaps[0] > 0 else "behind" if gaps[0] < 0 else "level"
    verb = {"ahead": "ELECTRA's encoder pulls ahead of the BERT-style one",
            "behind": "ELECTRA's encoder falls behind the BERT-style one",
            "level": "ELECTRA's encoder and the BERT-style one end level"}[side]
    seeds = (f"over {n} seeds, ELECTRA ahead in {wins} of {n}" if n > 1
             else "in one seed (not yet a claim: one race can come out either way)")
    probes = f"ELECTRA {rtd:.1f}%, BERT-style {mlm:.1f}%" + (f", untrained {mean(floor):.1f}%" if floor else "")
    return (f"**In the longest race recorded ({esc(budget_text(races[0]['settings']))}, {_minutes(races)} on "
            f"{_where(races)}), {verb}: {gap:+.1f}" + (f" ± {sd:.1f}" if n > 1 else "") + " points** of probe "
            f"accuracy {seeds} ({probes}). Replay it under “Replay a race”.")


def short_race_markdown(group: dict | None, minutes: float, flops: float) -> str:
    """Why the race below, `minutes` long on a CPU (`flops` each), cannot tell the two apart, from the
    measured seeds at that budget (campaign.gaps_by_budget's group); "" when it was not measured."""
    if not group or group["n"] < 2:
        return ""
    gap, sd, n = 100 * group["mean"], 100 * group["sd"], group["n"]
    wins = sum(g > 0 for g in group["gaps"])
    budget = f"{flops:.1e}".replace("e+", "e")
    side = separated(group["gaps"])
    if side != "level":
        word = "ahead" if side == "ahead" else "behind"
        return (f"**The {minutes:g}-minute race below ({budget} FLOPs each) shows less:** ELECTRA is {word} there too, "
                f"by {gap:+.1f} ± {sd:.1f} points over {n} seeds (ahead in {wins} of {n}).")
    return (f"**A race of {minutes:g} minutes on a CPU, as below, is too short to tell them apart:** at {budget} FLOPs "
            f"each the gap is {gap:+.1f} ± {sd:.1f} points over {n} seeds (ahead in {wins}), less than its spread "
            "from seed to seed.")


def headline_markdown(records: list[dict], short_group: dict | None, minutes: float, flops: float) -> str:
    """The Training tab's first lines: the leading recorded race, then the short race's limits ("" when
    neither is known)."""
    races = leading_races(records)
    machine = next((s for r in races if (s := device_run_summary(r))), None)  # a race on a borrowed GPU
    parts = [lead_markdown(races) if races else "", device_run_markdown(machine) if machine else "",
             short_race_markdown(short_group, minutes, flops)]
    return "\n\n".join(f"{p}" for p in parts if p)
