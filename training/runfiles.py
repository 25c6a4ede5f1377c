"""What a pretraining run leaves in its folder, written so that a killed run can resume.

- `metrics.jsonl`: one complete JSON line per event (`MetricsLog`; `read_metrics` reads them back,
  a torn last line from a killed writer dropped);
- `checkpoint.pt`: the model, the optimizer, the counters and the RNG states, replaced atomically
  (`save_checkpoint`, `load_checkpoint`);
- `generator/` + `discriminator/` (RTD) or `encoder/` (MLM), each with the tokenizer (`save_models`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import torch
import transformers

from training.events import TrainEvent
from training.objectives import RTDObjective


@dataclass
class Counters:
    """What a run has done so far, kept in its checkpoint (as a dict: `as_dict`, `from_dict`)."""
    step: int = 0  # optimizer steps
    flops: float = 0.0  # training FLOPs, every process together
    elapsed: float = 0.0  # seconds of training, across resumes
    supervised: int = 0  # positions that carried a loss, every process together
    flops_per_shape: dict[int, float] = field(default_factory=dict)  # one measured step's FLOPs per block length

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict, seq_len: int | None = None) -> Counters:
        """The counters a checkpoint saved. `seq_len`: the block length a checkpoint from before mixed block
        lengths measured its one step's FLOPs on."""
        values = dict(values)
        if "flops_per_step" in values:  # a checkpoint from before mixed block lengths: one shape
            measured = values.pop("flops_per_step")
            values["flops_per_shape"] = {} if measured is None else {seq_len: measured}
        return cls(**{f.name: values[f.name] for f in fields(cls) if f.name in values})


@dataclass(frozen=True)
class Checkpoint:
    """checkpoint.pt as read back: the objective's weights, the optimizer's state, the counters, the RNG states."""
    model: dict
    optimizer: dict
    counters: Counters
    rng_cpu: torch.Tensor
    rng_cuda: list | None

    @classmethod
    def read(cls, path: Path, seq_len: int | None = None) -> Checkpoint:
        state = torch.load(path, map_location="cpu", weights_only=False)
        return cls(state["model"], state["optimizer"], Counters.from_dict(state["counters"], seq_len),
                   state["rng_cpu"], state["rng_cuda"])


class MetricsLog:
    """metrics.jsonl, one complete line per event; a torn last line (a killed writer) is dropped."""

    def __init__(self, path: Path, keep_until_step: int | None):
        self.path = path
        lines = []
        if path.exists() and keep_until_step is not None:
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    break  # torn line from a killed run; everything after it is recomputed
                if TrainEvent.from_dict(event).step > keep_until_step:
                    break
                lines.append(line + "\n")
        tmp = path.with_suffix(".jsonl.tmp")
        tmp.write_text("".join(lines), encoding="utf-8")
        tmp.replace(path)  # atomic: a kill during the rewrite leaves the old file whole

    def append(self, event: TrainEvent) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(event.to_dict()) + "\n")
            f.flush()


def read_metrics(run_dir: str | Path) -> list[TrainEvent]:
    """All complete events of a run (a torn last line is ignored)."""
    events = []
    path = Path(run_dir) / "metrics.jsonl"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                events.append(TrainEvent.from_dict(json.loads(line)))
            except json.JSONDecodeError:
                break
    return events


def save_models(objective: torch.nn.Module, tokenizer, out_dir: Path) -> None:
    """generator/ + discriminator/ (RTD) or encoder/ (MLM), each with tokenizer files."""
    if isinstance(objective, RTDObjective):
        folders = {"generator": objective.generator, "discriminator": objective.discriminator}
    else:
        folders = {"encoder": objective.encoder}
    transformers.utils.logging.disable_progress_bar()
    for name, model in folders.items():
        model.save_pretrained(out_dir / name)
        tokenizer.save_pretrained(out_dir / name)
    tokenizer.save_pretrained(out_dir)


def save_checkpoint(path: Path, objective, optimizer, counters: Counters) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(
        {
            "model": objective.state_dict(),
            "optimizer": optimizer.state_dict(),
            "counters": counters.as_dict(),
            "rng_cpu": torch.get_rng_state(),
            "rng_cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        },
        tmp,
    )
    tmp.replace(path)  # atomic: a kill during the write leaves the previous checkpoint intact


def load_checkpoint(path: Path, objective, optimizer, seq_len: int) -> Counters:
    """Restore the model, the optimizer and the RNG states from `path`; return the run's counters.
    `seq_len`: the block length a checkpoint from before mixed block lengths measured its FLOPs on."""
    checkpoint = Checkpoint.read(path, seq_len)
    objective.load_state_dict(checkpoint.model)
    optimizer.load_state_dict(checkpoint.optimizer)
    torch.set_rng_state(checkpoint.rng_cpu)
    if checkpoint.rng_cuda is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(checkpoint.rng_cuda)
    return checkpoint.counters
