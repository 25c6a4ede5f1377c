"""Does a pair meet the targets a class needs? One command checks every figure the bundled pair is held to.

    python -m explainer targets assets/model                       # quick: 200 blocks, 1 seed
    python -m explainer targets RUN/best --blocks 0 --seeds 3      # the card's figures: whole splits
    python -m explainer targets assets/model --blocks 0 --seeds 3 --json T.json --evaluation E.json

Each target is a figure, its threshold and where it comes from:
- the classroom measure (`explainer.lesson.measure`, Explore's own pipeline at its defaults, seeds 0-4), on the
  game's 40 sentences and on the 40 check sentences, each set alone: replaced words flagged (P > 0.5) >= 30%,
  false alarms <= 3%, the top-rated word a replaced one in >= 75% of scenes;
- the generator's cloze (`training.downstream.cloze`) on the 80 game and check sentences together, one content
  word hidden at a time, draws at temperature 1 over seeds 0-2: the original its best guess >= 15%, in its top 5
  >= 35%, draws outside its top 5 <= 55%, word-piece draws <= 1%;
- the everyday table (`training.downstream.guesses`, `assets/everyday_sentences.json`): the hidden word among
  the generator's top 3 in >= 3 of the 8 sentences;
- held-out text (`training.downstream.evaluate.evaluate_pair`): the generator's top-1 where it saw [MASK] on
  broad English >= 0.33 and its top-5 there >= 0.52 (plausible fakes: no weaker generator bought with
  detection); the discriminator's ROC-AUC against its own generator >= 0.86 on broad English and on IMDB;
- the swap pairs (`assets/swap_pairs.json`): the swapped word is the top-flagged one in >= 28 of 40;
- size: the two folders together <= 100 MB as stored (float16).
Left out: fine-tuning (>= +5 points over random weights on sentiment), which takes an hour here:
`python -m training finetune`.

Prints one line per target (PASS / FAIL, the figure, the threshold); `--json FILE` writes them. Exit status 0
when every target passes, 1 otherwise.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from pathlib import Path

from training.project import ASSETS
from training.sentences import read_sentences

SENTENCE_SETS = {"game": ASSETS / "game_sentences.json", "check": ASSETS / "check_sentences.json"}
MAX_MB = 100.0
CLOZE_SEEDS = 3  # the cloze's draws at temperature 1, seeds 0-2 (its guesses are the same for every seed)


@dataclass(frozen=True)
class Target:
    name: str
    figure: float
    op: str  # ">=" or "<="
    threshold: float
    shown: str  # the figure as people read it
    wanted: str  # the threshold as people read it

    @property
    def met(self) -> bool:
        compare = operator.ge if self.op == ">=" else operator.le
        return not math.isnan(self.figure) and compare(self.figure, self.threshold)


def _share(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.1%}"


def classroom_targets(name: str, measure) -> list[Target]:
    """The three classroom targets of one sentence set (an `explainer.lesson.measure.ClassroomMeasure`)."""
    return [
        Target(f"classroom ({name}): replaced words flagged", measure.recall, ">=", 0.30, _share(measure.recall),
               "30%"),
        Target(f"classroom ({name}): false alarms", measure.false_alarm_rate, "<=", 0.03,
               _share(measure.false_alarm_rate), "3%"),
        Target(f"classroom ({name}): top-rated word replaced", measure.top_word_replaced, ">=", 0.75,
               _share(measure.top_word_replaced), "75%"),
    ]


def cloze_targets(result: dict) -> list[Target]:
    """The generator's four cloze targets (`training.downstream.cloze.over_seeds`' result on the 80 sentences)."""
    return [
        Target("cloze: original word the best guess", result["top1"], ">=", 0.15, _share(result["top1"]), "15%"),
        Target("cloze: original word in the top 5", result["top5"], ">=", 0.35, _share(result["top5"]), "35%"),
        Target("cloze: draws outside the top 5", result["outside_top5"], "<=", 0.55, _share(result["outside_top5"]),
               "55%"),
        Target("cloze: word-piece draws", result["piece_draws"], "<=", 0.01, _share(result["piece_draws"]), "1%"),
    ]


def everyday_target(rows: list[dict]) -> Target:
    from training.downstream.guesses import everyday_hits

    hits = everyday_hits(rows)
    return Target("everyday table: hidden word in the top 3", hits * 8 / len(rows), ">=", 3,
                  f"{hits} of {len(rows)}", "3 of 8")


def heldout_targets(evaluation: dict) -> list[Target]:
    """The held-out and swap-pair targets from `evaluate_pair`'s result."""
    english, imdb = evaluation["heldout_english"], evaluation["heldout_imdb"]
    hits = round(evaluation["swap_pairs"]["hit_rate"] * len(evaluation["swap_pairs"]["pairs"]))
    total = len(evaluation["swap_pairs"]["pairs"])
    return [
        Target("generator top-1 at [MASK], broad English", english["generator_top1_at_mask"], ">=", 0.33,
               f"{english['generator_top1_at_mask']:.3f}", "0.33"),
        Target("generator top-5 at [MASK], broad English", english["generator_top5_at_mask"], ">=", 0.52,
               f"{english['generator_top5_at_mask']:.3f}", "0.52"),
        Target("ROC-AUC, broad English", english["auc"], ">=", 0.86, f"{english['auc']:.4f}", "0.86"),
        Target("ROC-AUC, IMDB", imdb["auc"], ">=", 0.86, f"{imdb['auc']:.4f}", "0.86"),
        Target("swap pairs: swapped word top-flagged", hits * 40 / total, ">=", 28, f"{hits} of {total}", "28 of 40"),
    ]


def size_target(folder: Path) -> Target:
    size = sum(f.stat().st_size for part in ("generator", "discriminator") for f in (folder / part).rglob("*")
               if f.is_file())
    return Target("both folders, as stored", size / 1e6, "<=", MAX_MB, f"{size / 1e6:.1f} MB", f"{MAX_MB:g} MB")


def check(folder: str | Path, *, blocks: int | None = 200, seeds: int = 1,
          classroom_seeds: int = 5) -> tuple[list[Target], dict]:
    """Every target for the pair in `folder` (generator/ and discriminator/), and the held-out evaluation behind
    them (`evaluate_pair`'s result: what `python -m training evaluate --out` writes, the model card's
    measured/evaluate.json), so that a ship measures the whole splits once."""
    from explainer.core import models
    from explainer.lesson.measure import classroom_measure
    from training.downstream import cloze, guesses
    from training.downstream.evaluate import evaluate_pair

    folder = Path(folder)
    pair = models.load(str(folder))  # roots=None: any local folder (the user's own machine)
    targets, everything = [], []
    for name, path in SENTENCE_SETS.items():
        sentences = read_sentences(path)
        everything += sentences
        targets += classroom_targets(name, classroom_measure(pair, sentences, range(classroom_seeds)))
    targets += cloze_targets(cloze.over_seeds(pair.generator, pair.tokenizer, everything, range(CLOZE_SEEDS)))
    targets.append(everyday_target(guesses.everyday_table(pair.generator, pair.tokenizer, guesses.load_everyday())))
    evaluation = evaluate_pair(folder, n_blocks=blocks, seeds=seeds)
    targets += heldout_targets(evaluation)
    targets.append(size_target(folder))
    return targets, evaluation


def report(targets: list[Target]) -> str:
    width = max(len(t.name) for t in targets)
    lines = [f"{'PASS' if t.met else 'FAIL'}  {t.name:<{width}}  {t.shown:>10}  (target {t.op} {t.wanted})"
             for t in targets]
    met = sum(t.met for t in targets)
    return "\n".join([*lines, f"{met} of {len(targets)} targets met"])


if __name__ == "__main__":  # the older spelling, handed to the one parser: python -m explainer targets ...
    import runpy
    import sys

    sys.argv[1:1] = ["targets"]
    runpy.run_module("explainer", run_name="__main__", alter_sys=True)
