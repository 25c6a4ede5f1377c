"""How strong a generator should be, measured: the paper's Figure 3 trade-off on this project's pair, as data.

Several generators play against ONE discriminator (the bundled pair's): the pair's own generator, the same
generator cut after its first layers (a weaker one: its LM head reads an earlier layer's output), and any other
generator folder named on the command line. For each one:

- on held-out broad English (`training.english`), `training.downstream.evaluate.detection`: the generator's top-1
  and top-5 where it saw [MASK], and the discriminator's ROC-AUC, recall and false-alarm rate (P > 0.5);
- on the classroom sentences, `explainer.lesson.measure.classroom_measure` (Explore's game under a few seeds):
  replaced words flagged, original words flagged, and how often the top-rated word is a replaced one.

A generator plays on its own embeddings, as it is stored: in a pair trained with shared embeddings those are the
discriminator's; a pair trained with untied ones (`--untie-embeddings`) keeps each network's own. The study
ships beside the bundled model (`STRENGTH_FILE`) and is measured once, on a CPU:

    python -m explainer strength --pair assets/model --cut 1 --cut 2 --out assets/generator_strength.json

A generator's folder may be gone when the study is extended (a training run's intermediate): `--keep STUDY` keeps
an earlier study's points for the generators not measured again, provided it belongs to the same discriminator
(weights hash), the same held-out blocks, seeds and sentences, and gives the shipped generator, measured again, the
same figures (`merge_studies`).

Left out: training generators of other sizes here (a `--generator` folder brings one trained elsewhere).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import MISSING, asdict, dataclass, fields, replace
from pathlib import Path

import torch

from training.project import ASSETS

STRENGTH_FILE = ASSETS / "generator_strength.json"
SENTENCE_FILES = (ASSETS / "game_sentences.json", ASSETS / "check_sentences.json")
SEQ_LEN = 128  # tokens per held-out block
KEEP_TOLERANCE = 0.002  # how far the shipped generator's figures may move for an earlier study's points to be kept
STRONGER_NAME = "a stronger generator (ships beside the pair)"
MEASURE_COMMAND = ("python -m explainer strength --pair assets/model --cut 1 --cut 2 "
                   "--out assets/generator_strength.json")


@dataclass(frozen=True)
class StrengthPoint:
    name: str
    shipped: bool  # the generator the bundled pair ships with
    layers: int
    hidden: int
    top1_at_mask: float  # the generator's top guess is the original, where it saw [MASK] (held-out English)
    top5_at_mask: float  # the original among its five best guesses there
    auc: float  # the discriminator's ROC-AUC against this generator's fakes (same blocks)
    recall: float  # replaced tokens flagged (P > 0.5)
    false_alarm_rate: float  # original tokens flagged
    classroom_recall: float  # replaced words flagged on the classroom sentences
    classroom_false_alarms: float  # original words flagged there
    classroom_top_word: float  # scenes whose top-rated word is a replaced one (among scenes with fakes)
    stronger: bool = False  # the stronger generator that ships beside the pair (the app's second forger)


@dataclass(frozen=True)
class StrengthStudy:
    discriminator: str  # a description of the one discriminator every generator plays against
    discriminator_sha256: str  # of its model.safetensors: which model the points belong to
    blocks: int  # held-out blocks of SEQ_LEN tokens
    seeds: tuple[int, ...]  # the classroom measure's seeds
    sentences: int  # classroom sentences
    points: tuple[StrengthPoint, ...]

    def to_dict(self) -> dict:
        return asdict(self)

    def forgers(self) -> tuple[StrengthPoint | None, StrengthPoint | None]:
        """(the shipped generator's point, the stronger generator's): the two generators the app lets people
        choose; None where the study has no such point."""
        shipped = next((p for p in self.points if p.shipped), None)
        return shipped, next((p for p in self.points if p.stronger), None)

    @classmethod
    def from_dict(cls, data: dict) -> StrengthStudy:
        """The inverse of `to_dict`; ValueError naming what is missing or of the wrong type."""
        if not isinstance(data, dict):
            raise ValueError("the study must be a JSON object")
        study = _typed(cls, data, skip=("seeds", "points"))
        seeds, points = data.get("seeds"), data.get("points")
        if not isinstance(seeds, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
            raise ValueError("'seeds' must be a list of integers")
        if not isinstance(points, list) or not points or not all(isinstance(p, dict) for p in points):
            raise ValueError("'points' must be a non-empty list of objects")
        return cls(**study, seeds=tuple(seeds), points=tuple(StrengthPoint(**_typed(StrengthPoint, p)) for p in points))


def _typed(cls, data: dict, skip: tuple[str, ...] = ()) -> dict:
    """`cls`'s fields from `data`, each checked against its annotation (str, bool, int or float); a field with a
    default may be absent (a study written before the field existed)."""
    checks = {"str": (str,), "bool": (bool,), "int": (int,), "float": (int, float)}
    values = {}
    for f in fields(cls):
        if f.name in skip:
            continue
        if f.name not in data and f.default is not MISSING:
            continue
        if f.name not in data:
            raise ValueError(f"{cls.__name__} lacks {f.name!r}")
        value = data[f.name]
        wanted = checks[f.type]
        if not isinstance(value, wanted) or (f.type != "bool" and isinstance(value, bool)):
            raise ValueError(f"{cls.__name__}.{f.name} must be a {f.type}, not {value!r}")
        values[f.name] = float(value) if f.type == "float" else value
    return values


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_study(path: str | Path = STRENGTH_FILE) -> StrengthStudy | None:
    """The measured study, or None when it has not been measured (no file); ValueError if it is malformed."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        return StrengthStudy.from_dict(json.loads(text))
    except (json.JSONDecodeError, ValueError, TypeError) as error:
        raise ValueError(f"{path} is not a generator-strength study: {error}") from None


def check_keepable(kept: StrengthStudy, discriminator_sha256: str, blocks: int, seeds: tuple[int, ...],
                   sentences: int) -> None:
    """ValueError unless `kept` was measured against this discriminator with these blocks, seeds and sentences (what
    can be checked before measuring anything)."""
    wanted = {"discriminator_sha256": discriminator_sha256, "blocks": blocks, "seeds": tuple(seeds),
              "sentences": sentences}
    for what, said in (("discriminator_sha256", "discriminator (its weights' hash)"), ("blocks", "number of blocks"),
                       ("seeds", "seeds"), ("sentences", "number of classroom sentences")):
        if getattr(kept, what) != wanted[what]:
            raise ValueError(f"the kept study was measured with another {said} "
                             f"({getattr(kept, what)!r} against {wanted[what]!r}): measure every point again")


def shipped_drift(new: StrengthStudy, kept: StrengthStudy) -> tuple[float, str, float, float]:
    """How far the shipped generator's figures in `new` moved from `kept`'s: the largest difference, with the
    figure's name and its two values. ValueError if `kept` has no point of that name, or another layer count or
    width for it."""
    largest = (0.0, "", 0.0, 0.0)
    before = {p.name: p for p in kept.points if p.shipped}
    for point in (p for p in new.points if p.shipped):
        old = before.get(point.name)
        if old is None:
            raise ValueError(f"the kept study has no point for the shipped generator {point.name!r}: "
                             "measure every point again")
        for f in fields(StrengthPoint):
            now, then = getattr(point, f.name), getattr(old, f.name)
            if not isinstance(now, float):
                if now != then:
                    raise ValueError(f"the shipped generator's {f.name} differs from the kept study's ({then!r} then, "
                                     f"{now!r} now): measure every point again")
            elif abs(now - then) > largest[0]:
                largest = (abs(now - then), f.name, then, now)
    return largest


def merge_studies(new: StrengthStudy, kept: StrengthStudy, tolerance: float = KEEP_TOLERANCE) -> StrengthStudy:
    """`new`'s points, then `kept`'s points for generators `new` did not measure (by name), in `kept`'s order.

    ValueError unless the two were measured the same way, against the same discriminator: its weights' hash,
    the held-out blocks, the seeds and the sentence count; and the shipped generator's figures (measured in both)
    agree within `tolerance` (each figure is a fraction: 0.002 is 0.2 percentage points, far below what the figure
    can show; the bundled pair measured by this code a few versions apart moved by 0.0016, in the classroom recall).
    Anything else would draw points measured another way on one figure."""
    check_keepable(kept, new.discriminator_sha256, new.blocks, new.seeds, new.sentences)
    drift, name, then, now = shipped_drift(new, kept)
    if drift > tolerance:
        raise ValueError(f"the shipped generator's {name} differs from the kept study's ({then!r} then, {now!r} now, "
                         f"more than {tolerance}): it was measured another way; measure every point again")
    names = {p.name for p in new.points}
    return replace(new, points=new.points + tuple(p for p in kept.points if p.name not in names))


def cut_generator(generator, layers: int):
    """A copy of `generator` (an ElectraForMaskedLM) keeping only its first `layers` encoder layers: its LM head
    then reads that layer's output. The original is left as it is."""
    total = generator.config.num_hidden_layers
    if not 1 <= layers <= total:
        raise ValueError(f"a generator of {total} layers can be cut after 1 to {total} layers, not {layers}")
    cut = copy.deepcopy(generator)
    cut.electra.encoder.layer = cut.electra.encoder.layer[:layers]
    cut.config.num_hidden_layers = layers
    return cut


def measure_generator(name: str, generator, discriminator, tokenizer, texts: Sequence[str], sentences: Sequence[str],
                      *, seeds: Iterable[int] = range(5), blocks: int = 200, shipped: bool = False,
                      stronger: bool = False) -> StrengthPoint:
    """One generator against `discriminator`: on `blocks` held-out blocks of `texts` and on the classroom
    `sentences` under `seeds`. The generator plays on its own embeddings, as stored."""
    from explainer.core.models import ModelPair
    from explainer.lesson.measure import classroom_measure
    from training.downstream.evaluate import detection

    g, d = generator.config, discriminator.config
    if g.vocab_size != d.vocab_size:
        raise ValueError(f"{name}: its vocabulary ({g.vocab_size} tokens) must be the discriminator's "
                         f"({d.vocab_size}): the two read the same token ids")
    seeds = tuple(seeds)
    generator.eval(), discriminator.eval()
    with torch.no_grad():
        held_out = detection(generator, discriminator, tokenizer, texts, seq_len=SEQ_LEN, n_blocks=blocks, seed=0)
        classroom = classroom_measure(ModelPair(generator, discriminator, tokenizer, name), sentences, seeds)
    return StrengthPoint(
        name, shipped, g.num_hidden_layers, g.hidden_size,
        held_out["generator_top1_at_mask"], held_out["generator_top5_at_mask"], held_out["auc"], held_out["recall"],
        held_out["false_alarm_rate"], classroom.recall, classroom.false_alarm_rate, classroom.top_word_replaced,
        stronger,
    )


def heldout_texts() -> tuple[str, ...]:
    """The broad English corpus's held-out documents (fetched into the cache on first use)."""
    from training.english import load_english

    return load_english().heldout


def layers_text(n: int) -> str:
    """"1 layer", "3 layers": a generator's depth in words."""
    return f"{n} layer" if n == 1 else f"{n} layers"


if __name__ == "__main__":  # the older spelling, handed to the one parser: python -m explainer strength ...
    import runpy
    import sys

    sys.argv[1:1] = ["strength"]
    runpy.run_module("explainer", run_name="__main__", alter_sys=True)
