"""Statistics over measured races: mean and spread over seeds, when a gap counts as a difference, the
campaign's verdict, budgets in words, and ELECTRA − BERT-style per budget from the shipped measurements
(assets/race_campaign.json and the records under assets/races/). Plain data: no torch, no plotly.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from training.events import Probe, last_probe
from training.project import ASSETS
from training.race.settings import (
    CPU_RACE_FLOPS,
    CPU_RACE_MINUTES,
    MEASURED_RACE_MINUTES,
    default_settings,
    matches_defaults,
)

OBJECTIVES = ("rtd", "mlm")
CAMPAIGN_FILE = ASSETS / "race_campaign.json"  # written by bench/race_search.py table --json


def load_campaign(path: str | Path = CAMPAIGN_FILE) -> dict | None:
    """The measurement campaign behind the defaults, or None when it is missing or unreadable."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def stats(values: list[float | None]) -> dict:
    """Mean and sample standard deviation of the values that are not None (0 for a single one)."""
    values = [v for v in values if v is not None]
    if not values:
        return {"mean": None, "std": None, "n": 0}
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1) if len(values) > 1 else 0.0
    return {"mean": mean, "std": math.sqrt(var), "n": len(values)}


def aggregate(summaries: list[dict], key: str = "probe_accuracy") -> dict:
    """Mean and sample standard deviation over seeds of each objective's `key`, the floor's, and of
    the per-seed difference RTD - MLM (the number the race is about)."""

    pick = lambda s, o: (s.get(o) or {}).get(key)
    differences = [pick(s, "rtd") - pick(s, "mlm") for s in summaries
                   if pick(s, "rtd") is not None and pick(s, "mlm") is not None]
    return {"rtd": stats([pick(s, "rtd") for s in summaries]), "mlm": stats([pick(s, "mlm") for s in summaries]),
            "floor": stats([pick(s, "floor") for s in summaries]), "rtd_minus_mlm": stats(differences),
            "rtd_wins": sum(d > 0 for d in differences), "seeds": len(summaries)}


MIN_SEEDS_FOR_A_CLAIM = 3


def same_budget(a: dict, b: dict) -> bool:
    """Whether two campaign records raced on the same budget."""
    return (a["settings"].get("budget"), a["settings"].get("amount")) == (b["settings"].get("budget"),
                                                                          b["settings"].get("amount"))


def race_minutes(flops: float) -> float:
    """About how long a mini race on `flops` per objective takes with 2 threads on a 2-core CPU:
    measured for the budgets in MEASURED_RACE_MINUTES, else the default's length scaled by compute."""
    measured = next((m for f, m in MEASURED_RACE_MINUTES.items() if math.isclose(f, flops, rel_tol=0.01)), None)
    return measured if measured is not None else CPU_RACE_MINUTES * flops / CPU_RACE_FLOPS


def on_cpu(settings: dict, device: str | None = None) -> bool:
    """Whether a race ran on a CPU: its settings say so, or "auto" (or nothing) resolved to one (`device`, a
    record's description of its machine, when known: "CPU (2 threads)", "GPU (NVIDIA H200), bf16 autocast")."""
    chosen = settings.get("device") or "auto"
    if chosen != "auto":
        return chosen == "cpu"
    return device is None or not device.strip().lower().startswith("gpu")  # describe_device's words


def budget_label(settings: dict, device: str | None = None, elapsed: float | None = None) -> str:
    """A record's budget in words: "1.4e13 FLOPs (~9 min)" on the 2-core CPU the minutes were measured on,
    "2.1e16 FLOPs (6 min)" elsewhere when the race's own wall time `elapsed` (seconds) is known, "300 steps",
    "10 minutes". `device`: what the race ran on (a record's "device"); the CPU's minutes never label another's."""
    budget, amount = settings.get("budget"), settings.get("amount")
    if amount is None:
        return "–"
    if budget != "flops":
        return f"{amount:g} {budget}"
    text = f"{amount:.1e} FLOPs".replace("e+", "e")
    if on_cpu(settings, device):
        return f"{text} (~{race_minutes(amount):.0f} min)"
    return f"{text} ({elapsed / 60:.0f} min)" if elapsed else text


def separated(differences: list[float]) -> str:
    """Per-seed differences A - B: "ahead" or "behind" when their mean is more than twice its standard
    error (sample sd / sqrt(seeds)), else "level"; one seed is always "level"."""
    spread = stats(differences)  # the mean and sample sd the race CLI reports
    if spread["n"] < 2 or abs(spread["mean"]) <= 2 * spread["std"] / math.sqrt(spread["n"]):
        return "level"
    return "ahead" if spread["mean"] > 0 else "behind"


def standing(record: dict) -> str:
    """RTD against MLM over a campaign record's seeds (see `separated`)."""
    return separated([s["rtd_minus_mlm"] for s in record["seeds"]])


def campaign_verdict(campaign: dict | None) -> dict | None:
    """Which measured setting, if any, shows RTD ahead of MLM: at least 3 seeds, ahead in every one.
    {"shown": bool, "best": the setting with the largest mean RTD - MLM, "settings": n, "races": n}."""
    records = (campaign or {}).get("settings") or []
    if not records:
        return None
    diff = lambda r: r["mean"]["rtd_minus_mlm"]["mean"]
    convincing = [r for r in records if len(r["seeds"]) >= MIN_SEEDS_FOR_A_CLAIM
                  and r["rtd_wins"] == len(r["seeds"]) and diff(r) > 0]
    best = max(convincing or records, key=diff)
    return {"shown": bool(convincing), "best": best, "settings": len(records),
            "races": sum(len(r["seeds"]) for r in records)}


def budget_text(settings: dict) -> str:
    """ "8e13 FLOPs each", "2,000 steps each", "30 minutes": a race's budget in words."""
    amount, budget = settings["amount"], settings["budget"]
    if budget == "flops":
        return f"{amount:.2g} FLOPs each".replace("e+", "e")
    if budget == "steps":
        return f"{int(amount):,} steps each"
    return f"{amount:g} minutes"


def same_recipe(settings: dict) -> bool:
    """Whether a race ran the CPU defaults of its preset on any budget (the probe schedule aside)."""
    try:
        defaults = default_settings(settings.get("preset"), "cpu")
    except (KeyError, ValueError):
        return False
    return settings.get("budget") == "flops" and matches_defaults(
        {**settings, "budget": defaults.budget, "amount": defaults.amount})


def final_gap(record: dict) -> float | None:
    """A record's last ELECTRA probe minus its last BERT-style probe (accuracy, 0..1), when both exist."""
    probes = [Probe.from_dict(p) for p in record.get("probes") or []]
    rtd, mlm = (last_probe(probes, o) for o in OBJECTIVES)
    return rtd.accuracy - mlm.accuracy if rtd and mlm else None


def _device_run_hardware(record: dict) -> str | None:
    """The machine a device run (training/race/device_run.py) recorded `record` on, or None for any other race."""
    run = (record.get("extras") or {}).get("device_run")
    name = ((run.get("hardware") or {}).get("name") if isinstance(run, dict) else None) or None
    return str(name) if name and record.get("settings", {}).get("budget") == "flops" else None


def gaps_by_budget(campaign: dict | None, records: list[dict]) -> list[dict]:
    """RTD - MLM probe accuracy per seed, grouped by FLOPs budget, for the races that ran the default
    recipe: the campaign's (assets/race_campaign.json) and the recorded ones (assets/races/), and the races a
    device run recorded on a borrowed GPU, on the recipe it sized for that machine.
    [{"flops", "gaps" (per seed, 0..1), "mean", "sd", "n", "sources"}], by budget."""
    groups: dict[float, dict] = {}

    def add(flops: float, gaps: list[float], source: str) -> None:
        key = next((f for f in groups if math.isclose(f, flops, rel_tol=0.01)), float(flops))
        group = groups.setdefault(key, {"flops": key, "gaps": [], "sources": []})
        group["gaps"] += gaps
        if source not in group["sources"]:
            group["sources"].append(source)

    for entry in (campaign or {}).get("settings") or []:
        try:
            if same_recipe(entry["settings"]):
                add(float(entry["settings"]["amount"]), [float(s["rtd_minus_mlm"]) for s in entry["seeds"]],
                    "measurement campaign")
        except (KeyError, TypeError, ValueError):
            continue
    for record in records:
        gap = final_gap(record)
        if gap is None:
            continue
        if same_recipe(record["settings"]):
            add(float(record["settings"]["amount"]), [gap], "recorded races")
        elif _device_run_hardware(record):  # a race sized for a borrowed GPU: its own recipe (device_run.py)
            add(float(record["settings"]["amount"]), [gap], f"a race on {_device_run_hardware(record)}")
    result = []
    for flops in sorted(groups):
        gaps = groups[flops]["gaps"]
        mean = sum(gaps) / len(gaps)
        sd = math.sqrt(sum((g - mean) ** 2 for g in gaps) / (len(gaps) - 1)) if len(gaps) > 1 else 0.0
        result.append({**groups[flops], "mean": mean, "sd": sd, "n": len(gaps)})
    return result
