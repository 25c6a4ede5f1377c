"""What a race is asked to do: its settings, the server's bound on them, and the defaults per preset.

`RaceSettings` is everything the Training tab and `python -m training race` let a user choose;
`train_config(objective)` turns it into the trainer's `TrainConfig` for one side of the race.
`RaceLimits` is the server's upper bound on a race's budget (the CLI runs without one).
The per-preset defaults are what the tab fills in and what the CLI uses when a flag is left out.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path

import torch

from training.bundle import is_bundle
from training.config import TrainConfig, for_objective, refuse_unknown
from training.data import BUILT_IN_CORPORA
from training.downstream.probe import ProbeConfig

BUDGETS = ("minutes", "steps", "flops")
PACES = ("flops", "steps", "time")

# The CPU defaults (mini) were chosen by a measurement campaign (bench/race_search.py; its results are
# in assets/race_campaign.json and the Training tab shows them). A generator sampling at temperature 1
# leaves the from-scratch discriminator at the base rate; at temperature 2 it learns (AUC ~0.8). The
# default budget, 1.4e13 training FLOPs per objective, is the one that fits a 10-minute lesson
# (CPU_RACE_MINUTES with 2 threads on a 2-core CPU); 2.5e13 (16 minutes) was measured too.
# The GPU default (small) keeps the paper's settings, unmeasured here.
DEFAULTS_MEASURED = True
DEFAULT_PRESET = {"cpu": "mini", "cuda": "small"}  # on a GPU the paper's ELECTRA-Small size
CPU_RACE_FLOPS = 1.4e13  # per objective: the campaign's budget for the default race
CPU_RACE_MINUTES = 8  # the default mini race took 8 min 19 s with 2 threads on the project's 2-core CPU (measured)
MEASURED_RACE_MINUTES = {1.4e13: 8.3, 2.5e13: 16.3}  # mini races with 2 threads on that CPU, probes included
PRESET_DEFAULTS = {  # per preset: what the Training tab fills in and the CLI's defaults
    "tiny": dict(tokenizer="wordpiece:1000", max_documents=200, seq_len=64, batch_size=8, lr=2e-3,
                 budget="steps", amount=300, probe_every=10, probe_train=500, probe_test=300),  # a seconds-long demo
    "mini": dict(tokenizer="wordpiece:8000", seq_len=128, batch_size=32, lr=1e-3, temperature=2.0,
                 budget="flops", amount=CPU_RACE_FLOPS, probe_every=300, probe_train=6824, probe_test=1706),
    "small": dict(tokenizer="wordpiece:8000", seq_len=128, batch_size=32, lr=5e-4, budget="minutes", amount=10.0,
                  probe_every=100),
}


@dataclass(frozen=True)
class RaceLimits:
    """The server's upper bound on one race (the CLI passes none)."""

    max_minutes: float = 30.0  # wall clock of the whole race; also a hard stop for steps/FLOPs budgets
    max_steps: int = 50_000  # per objective
    max_flops: float = 1e17  # per objective (the default CPU race uses CPU_RACE_FLOPS)
    presets: tuple[str, ...] = ("tiny", "mini", "small")
    local_corpora: bool = False  # any file, or a token bundle's folder, as the corpus: the command line's own bounded
    #   race (a borrowed GPU's, training/race/device_run.py); never a server's, whose corpora are uploads


@dataclass(frozen=True)
class RaceSettings:
    preset: str = "mini"  # encoder sizes, training/models.py; the MLM encoder = the discriminator's size
    budget: str = "minutes"  # "minutes" (race wall clock), "steps" or "flops" (each objective)
    amount: float = 10.0  # of the budget's unit
    pace: str = "flops"  # kept level between the two: "flops" (fair compute), "steps", "time"
    # built in: "imdb" (IMDB reviews), "english" (broad English), joined by "+"; or a .txt/.jsonl path
    corpus: str = "imdb"
    tokenizer: str = "wordpiece:8000"  # a small trained vocabulary: cheap embeddings and softmax
    max_documents: int | None = None  # only the first N training documents (tests, quick demos)
    seq_len: int = 128  # tokens per block
    batch_size: int = 32  # blocks per step
    lr: float = 5e-4  # peak learning rate (both objectives)
    warmup: float = 0.05  # fraction of the budget in linear warmup
    mask_rate: float = 0.15  # positions selected per sequence (both objectives)
    disc_weight: float = 50.0  # lambda on the discriminator's BCE (paper: 50)
    temperature: float = 1.0  # generator sampling temperature
    generator_layers: int | None = None  # override the preset's generator depth
    generator_hidden: int | None = None  # ... and width (the paper: 1/4 to 1/2 of the discriminator's)
    probe_every: int = 0  # steps between probes of each objective's checkpoint; 0: only at the end
    probe_train: int = 2000  # sentiment sentences the probe is fitted on
    probe_test: int = 1000  # sentiment sentences it is scored on
    seed: int = 0
    device: str = "auto"  # "auto" (CUDA with bf16 when present, else CPU), "cpu", "cuda"
    threads: int | None = None  # torch CPU threads; None leaves torch's default

    def validate(self, limits: RaceLimits | None = None) -> None:
        """Raise ValueError with a message meant for the user, as is."""
        from training.models import PRESETS

        allowed = limits.presets if limits else tuple(PRESETS)
        if self.preset not in allowed:
            raise ValueError(f"unknown preset {self.preset!r}; choose one of {', '.join(allowed)}")
        if self.budget not in BUDGETS:
            raise ValueError(f"the budget is counted in {', '.join(BUDGETS)}, not {self.budget!r}")
        if self.pace not in PACES:
            raise ValueError(f"pace must be one of {', '.join(PACES)}, not {self.pace!r}")
        if not (isinstance(self.amount, (int, float)) and math.isfinite(self.amount) and self.amount > 0):
            raise ValueError(f"the budget must be a positive number of {self.budget}")
        if self.budget == "steps" and self.amount < 1:
            raise ValueError("a steps budget needs at least 1 step")
        if limits is not None:
            bound = {"minutes": limits.max_minutes, "steps": limits.max_steps, "flops": limits.max_flops}[self.budget]
            if self.amount > bound:
                raise ValueError(f"this server allows at most {bound:g} {self.budget} per race "
                                 f"(asked for {self.amount:g}); lower the budget")
        if not (isinstance(self.temperature, (int, float)) and math.isfinite(self.temperature)
                and 0 < self.temperature <= 100):
            raise ValueError("the generator temperature must be a number above 0 (at most 100), "
                             f"not {self.temperature!r}")
        for name, most in (("generator_layers", 24), ("generator_hidden", 1024)):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, int) and 1 <= value <= most):
                raise ValueError(f"{name.replace('_', ' ')} must be a whole number from 1 to {most}, not {value!r}")
        if self.probe_every < 0 or self.seed < 0:
            raise ValueError("probe interval and seed must not be negative")
        self._check_corpus(server=limits is not None and not limits.local_corpora)
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device must be auto, cpu or cuda, not {self.device!r}")
        if self.device == "cuda" and not torch.cuda.is_available():
            raise ValueError("no CUDA device on this machine; choose auto or cpu")

    def _check_corpus(self, server: bool) -> None:
        """Built-in names (joined by "+" too) or .txt/.jsonl files; the CLI may also name any existing file, or a
        token bundle's folder (training/bundle.py), alone.
        Whether a file exists and reads is the corpus loader's to say (training.data)."""
        parts = [part.strip() for part in str(self.corpus).split("+")]
        if not all(parts) or len(set(parts)) != len(parts):
            raise ValueError(f"corpus {self.corpus!r}: name each part once, joined by + (e.g. english+imdb)")
        for part in parts:
            path = Path(part)
            if part in BUILT_IN_CORPORA or path.suffix.lower() in (".txt", ".jsonl") or (not server and path.is_file()):
                continue
            if not server and len(parts) == 1 and is_bundle(path):  # tokenized elsewhere (training/bundle.py)
                continue
            raise ValueError(f"unknown corpus {part!r}; choose {' or '.join(BUILT_IN_CORPORA)} (or both, joined by +), "
                             "or a .txt or .jsonl file")

    def train_config(self, objective: str, limits: RaceLimits | None = None) -> TrainConfig:
        """The trainer's config for one objective of this race."""
        minutes = self.amount if self.budget == "minutes" else None
        if limits is not None:  # the server's wall-clock bound stops any race
            minutes = min(minutes or limits.max_minutes, limits.max_minutes)
        pair = for_objective(objective, dict(  # the generator's settings: the RTD side's alone
            disc_weight=self.disc_weight, temperature=self.temperature, generator_layers=self.generator_layers,
            generator_hidden=self.generator_hidden))
        return TrainConfig(
            objective=objective, preset=self.preset, corpus=self.corpus, tokenizer=self.tokenizer,
            max_documents=self.max_documents, seq_len=self.seq_len, batch_size=self.batch_size, lr=self.lr,
            warmup=self.warmup, mask_rate=self.mask_rate, **pair,
            max_steps=int(self.amount) if self.budget == "steps" else None,
            max_flops=float(self.amount) if self.budget == "flops" else None, max_minutes=minutes,
            log_every=1,  # one event per step: the race interleaves step by step
            checkpoint_every=self.probe_every or 500,  # the probe reads the checkpoint's folders
            seed=self.seed, device=self.device, threads=self.threads,
        )

    def probe_config(self) -> ProbeConfig:
        # A race on a token bundle probes the task the bundle carries (the same sentences as the built-in task).
        task = self.corpus if is_bundle(self.corpus) else None
        return ProbeConfig(n_train=self.probe_train, n_test=self.probe_test, seed=self.seed, task=task)

    @classmethod
    def from_dict(cls, values: dict) -> "RaceSettings":
        """Settings from a dict (race.json's); a key that is no setting is an error naming it."""
        names = {f.name for f in dataclasses.fields(cls)}
        refuse_unknown(values, names, "race setting")
        return cls(**values)


def default_settings(preset: str | None = None, device: str = "auto", **changes) -> RaceSettings:
    """The Training tab's starting point for a preset (by default the one for this machine)."""
    preset = preset or DEFAULT_PRESET["cuda" if use_cuda(device) else "cpu"]
    return RaceSettings(preset=preset, device=device, **{**PRESET_DEFAULTS.get(preset, {}), **changes})


COMPARED = ("preset", "tokenizer", "seq_len", "batch_size", "lr", "warmup", "mask_rate", "disc_weight", "temperature",
            "generator_layers", "generator_hidden", "pace")  # what a measured setting and the defaults share


def matches_defaults(settings: dict) -> bool:
    """Whether a measured race's settings (a dict, as in race.json) are the CPU defaults of its preset,
    budget included, probe schedule aside (it does not change training): the test that a campaign's
    record is the race the tab starts."""
    defaults = default_settings(settings.get("preset"), "cpu")
    same_budget = (settings.get("budget", defaults.budget) == defaults.budget
                   and math.isclose(settings.get("amount", defaults.amount), defaults.amount, rel_tol=1e-6))
    return same_budget and all(settings.get(k, getattr(defaults, k)) == getattr(defaults, k) for k in COMPARED)


def use_cuda(device: str) -> bool:
    return device == "cuda" or (device == "auto" and torch.cuda.is_available())


def describe_device(device: str = "auto", threads: int | None = None) -> str:
    """What "auto" (or the user's choice) resolves to, in words; `threads`: the race's CPU threads
    when it sets them (otherwise torch's current number)."""
    if use_cuda(device):
        return f"GPU ({torch.cuda.get_device_name(0)}), bf16 autocast"
    threads = threads or torch.get_num_threads()
    return (f"CPU ({threads} thread{'s' if threads > 1 else ''})"
            + ("; no CUDA device found" if device == "auto" else ""))
