"""What a run reports, typed: one `TrainEvent` per logged step, one `Probe` per probed checkpoint.

The trainer yields `TrainEvent`s; the race, its records, the command line and the app read them by
attribute. On disk they stay the JSON they always were: `to_dict()` writes the keys the trainer has
always written (metrics.jsonl, race.json, race records), and `from_dict()` reads any of those files
back, old ones included: a key it does not know is left out, a key it lacks is None.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

RTD_ONLY = ("disc_accuracy", "disc_precision", "disc_recall", "disc_auc", "disc_loss", "replaced_fraction")


def _known(cls, values: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in values.items() if k in names}


@dataclass(frozen=True, kw_only=True)
class TrainEvent:
    """One logged step of one objective. Counters are cumulative (every process together); the losses and
    accuracies are the step's own. A metric the step could not give (NaN, or RTD's on an MLM run) is None.
    The fields are in the order the trainer has always written them."""
    objective: str | None = None
    step: int
    tokens: int | None = None
    supervised_positions: int | None = None
    flops: float
    wall_time: float
    tokens_per_second: float | None = None
    lr: float | None = None
    loss: float | None = None
    mlm_loss: float | None = None
    mlm_accuracy: float | None = None
    masked_positions: int | None = None
    token_cosine: float | None = None
    disc_accuracy: float | None = None
    disc_precision: float | None = None
    disc_recall: float | None = None
    disc_auc: float | None = None
    disc_loss: float | None = None
    replaced_fraction: float | None = None
    step_supervised_positions: int | None = None
    compute_seconds: float | None = None  # the race's: this objective's own seconds of stepping

    @classmethod
    def from_dict(cls, values: dict) -> TrainEvent:
        """An event from its JSON (a metrics.jsonl line, or a record's thinned point)."""
        return cls(**_known(cls, values))

    def to_dict(self) -> dict:
        """The JSON the trainer writes: RTD's metrics only on an RTD step, the race's seconds only when kept."""
        values = asdict(self)
        if self.objective == "mlm":
            for key in RTD_ONLY:
                values.pop(key)
        if self.compute_seconds is None:
            values.pop("compute_seconds")
        return values

    def value(self, name: str) -> float | None:
        """The metric called `name` (a chart's axis, a record's column); None when this event lacks it."""
        if name not in _NAMES:
            raise KeyError(f"an event has no metric {name!r}")
        return getattr(self, name)


_NAMES = frozenset(f.name for f in fields(TrainEvent))


@dataclass(frozen=True, kw_only=True)
class Probe:
    """A linear probe of one objective's encoder at one step ("untrained": the floor, at step 0)."""
    objective: str
    step: int
    flops: float | None = None  # of pretraining at that step (every file this app writes has it)
    tokens: int | None = None
    accuracy: float  # on the held-out sentences, 0..1
    train_accuracy: float | None = None
    n_train: int | None = None
    n_test: int | None = None
    features: int | None = None
    seconds: float | None = None
    random_init: bool | None = None

    @classmethod
    def from_dict(cls, values: dict) -> Probe:
        return cls(**_known(cls, values))

    def to_dict(self) -> dict:
        return asdict(self)


def last_probe(probes, objective: str) -> Probe | None:
    """The probe of `objective` at its latest step, or None."""
    mine = [p for p in probes if p.objective == objective]
    return max(mine, key=lambda p: p.step) if mine else None
