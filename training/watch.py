"""Watch a long training run: every so often, evaluate its latest checkpoint on a fixed held-out slice,
append the figures to the run's `watch.jsonl`, and keep the best pair so far in `best/`.

A campaign trains for hours in the background (`python -m training pretrain ... --resume`, restarted
whenever it stops); this process runs beside it with one thread (each measurement, a minute or two, slows
the run while it lasts: on two cores, three busy threads wait on each other), so the learning curve is measured on
the same text at every point, and whoever ships a pair later picks it from `best/` without re-running
anything. It reads only `checkpoint.pt`, which the trainer replaces atomically, never the model folders
the trainer may be halfway through writing.

What it measures, per point (`training.downstream.evaluate.detection`, seed 0, 15% masked as Explore shows):
- held-out broad English and held-out IMDB, 128-token blocks: ROC-AUC against the pair's own generator,
  recall and false alarms at P > 0.5, the generator's top-1 where it saw [MASK];
- held-out broad English cut into 32-token blocks, about the length people type: the same, plus how often
  the highest-rated token of a block is a replaced one;
- the same text as blocks of whole sentences (`[CLS]` sentences `[SEP]` padding), the shape of what people
  type into Explore;
- the swap pairs (`assets/swap_pairs.json`): in how many of the 40 the swapped word is the top-flagged one;
- the generator alone: the cloze on 400 held-out broad English sentences, one content word hidden at a time
  (`training.downstream.cloze`): top-1, top-5, draws outside its top 5, word-piece draws.
"Best" is, by default, the highest mean ROC-AUC of the two 128-token slices: the figure the targets rank pairs
by; the others are recorded beside it. A run that trains the generator (`--best-by generator`) keeps instead
the checkpoint with the best cloze top-5 on held-out text.

Left out: the Explore pipeline's word-level classroom measure (`python -m explainer measure FILE`): the
training library never imports the app, and the sentences it uses are for the final check, not for picking.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
from dataclasses import asdict
from pathlib import Path

import torch
from transformers import AutoTokenizer

from training.build import build_objective
from training.config import WARM_START_ONLY, TrainConfig
from training.downstream import cloze
from training.downstream.evaluate import CLOZE_SENTENCES, detection, swap_pairs
from training.runfiles import Checkpoint

SLICES = (  # (name, corpus, block length, blocks, whole sentences?)
    ("english", "english", 128, 160, False),
    ("imdb", "imdb", 128, 160, False),
    ("english_short", "english", 32, 480, False),
    ("english_sentences", "english", 32, 480, True),
)


def _heldout(corpus: str) -> tuple[str, ...]:
    from training import data as data_lib

    if corpus == "english":
        from training.english import load_english

        return load_english().heldout
    return data_lib.load_imdb().heldout


def load_checkpoint_pair(run: Path):
    """(generator, discriminator, tokenizer, step) from the run's checkpoint.pt, as the trainer last saved them."""
    settings = json.loads((run / "config.json").read_text())
    # The checkpoint holds every weight: build the architecture only (no warm start to copy from).
    # (and the settings that only shape a warm start go back to their defaults with it: the config refuses them alone)
    defaults = {f.name: f.default for f in dataclasses.fields(TrainConfig)}
    config = TrainConfig.from_dict({**settings, **{k: defaults[k] for k in WARM_START_ONLY}})
    tokenizer = AutoTokenizer.from_pretrained(run)
    checkpoint = Checkpoint.read(run / "checkpoint.pt")
    objective, _ = build_objective(config, len(tokenizer), tokenizer.pad_token_id)
    objective.load_state_dict(checkpoint.model)
    return objective.generator, objective.discriminator, tokenizer, int(checkpoint.counters.step)


def measure(generator, discriminator, tokenizer, texts: dict[str, tuple[str, ...]]) -> dict:
    """The fixed slices' figures for one pair."""
    out = {}
    for name, corpus, seq_len, blocks, sentences in SLICES:
        result = detection(generator, discriminator, tokenizer, texts[corpus], seq_len=seq_len, n_blocks=blocks, seed=0,
                           sentences=sentences)
        out[name] = {k: round(v, 5) if isinstance(v, float) else v for k, v in result.items()}
    swaps = swap_pairs(discriminator, tokenizer)
    out["swap_pairs"] = {"hits": sum(r["hit"] for r in swaps["pairs"]), "pairs": len(swaps["pairs"]),
                         "above_half": round(swaps["above_half"], 5)}
    out["score"] = round((out["english"]["auc"] + out["imdb"]["auc"]) / 2, 5)
    blanks = cloze.cloze(generator, tokenizer, cloze.heldout_sentences(texts["english"], CLOZE_SENTENCES))
    out["cloze"] = {k: round(v, 5) if isinstance(v, float) else v for k, v in asdict(blanks).items()}
    return out


BEST_BY = {  # what "best" means: the figure a run keeps its best checkpoint by (higher is better)
    "score": lambda record: record["score"],
    "generator": lambda record: record.get("cloze", {}).get("top5", float("-inf")),
}


def watch_once(run: Path, texts: dict, last_step: int | None, best_by: str = "score") -> dict | None:
    """Measure the run's checkpoint if it moved since `last_step`; record it, and keep it in best/ if best."""
    if not (run / "checkpoint.pt").exists():
        return None
    generator, discriminator, tokenizer, step = load_checkpoint_pair(run)
    if step == last_step:
        return None
    started = time.perf_counter()
    record = {"step": step, "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
              **measure(generator, discriminator, tokenizer, texts)}
    record["seconds"] = round(time.perf_counter() - started, 1)
    log = run / "watch.jsonl"
    previous = [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.exists() else []
    rank = BEST_BY[best_by]
    best = max((rank(r) for r in previous), default=float("-inf"))
    record["best"] = rank(record) > best
    if record["best"]:
        tmp = run / "best.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        for name, model in (("generator", generator), ("discriminator", discriminator)):
            model.save_pretrained(tmp / name)
            tokenizer.save_pretrained(tmp / name)
        (tmp / "measured.json").write_text(json.dumps(record, indent=2))
        shutil.rmtree(run / "best", ignore_errors=True)
        tmp.rename(run / "best")
    with open(log, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
    return record


def watch(run: str | Path, every_minutes: float = 30.0, threads: int = 1, once: bool = False,
          best_by: str = "score") -> None:
    """Measure the run now, then every `every_minutes`, until killed (or once); keep the best by `best_by`."""
    if best_by not in BEST_BY:
        raise ValueError(f"best_by must be one of {', '.join(BEST_BY)}, not {best_by!r}")
    torch.set_num_threads(threads)
    run = Path(run)
    texts = {corpus: _heldout(corpus) for corpus in {c for _, c, *_ in SLICES}}
    log = run / "watch.jsonl"
    last = json.loads(log.read_text().splitlines()[-1])["step"] if log.exists() and log.read_text().strip() else None
    checkpoint, seen = run / "checkpoint.pt", None
    while True:
        # Loading a checkpoint (models + optimizer, ~200 MB) to read its step costs seconds: only a replaced
        # file (the trainer writes a new one and renames it over the old) can hold a new step.
        stamp = checkpoint.stat().st_mtime_ns if checkpoint.exists() else None
        record = watch_once(run, texts, last, best_by) if stamp is not None and stamp != seen else None
        seen = stamp
        if record is not None:
            last = record["step"]
            print(json.dumps({"step": record["step"], "score": record["score"], "best": record["best"],
                              **{name: {k: record[name][k] for k in ("auc", "recall", "false_alarm_rate")}
                                 for name, *_ in SLICES}}), flush=True)
        if once:
            return
        time.sleep(every_minutes * 60 if record is not None else 60)  # no new checkpoint yet: look again soon


TOKENS_PER_STEP = 2048  # the campaign's steps: 16 blocks of 128 tokens, or 64 of 32 (the same tokens)


def _cell(record: dict, name: str, key: str, digits: int = 3) -> str:
    value = record.get(name, {}).get(key)
    return "–" if value is None else f"{value:.{digits}f}"


def _swaps(record: dict) -> str:
    swaps = record.get("swap_pairs")
    return "–" if swaps is None else f"{swaps['hits']} of {swaps['pairs']}"


def curve_table(records: list[dict], tokens_per_step: int = TOKENS_PER_STEP) -> str:
    """The learning curve as a Markdown table, one row per measured step (the last record of a step wins):
    held-out ROC-AUC of broad English and IMDB and their mean (the score), then the whole-sentence blocks'
    AUC, recall, false alarms and top-rated token, then the 32-token cuts' AUC and top-rated token."""
    by_step = {int(r["step"]): r for r in records}
    lines = ["| step | tokens seen | broad English AUC | IMDB AUC | **mean (the score)** | sentence blocks: AUC "
             "| recall | false alarms | top-rated token replaced | 32-token cuts: AUC | top-rated token replaced "
             "| swap pairs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for step, r in sorted(by_step.items()):
        score = r.get("score", (r["english"]["auc"] + r["imdb"]["auc"]) / 2)
        lines.append(f"| {step:,} | {step * tokens_per_step / 1e6:.1f}M | {_cell(r, 'english', 'auc')} | "
                     f"{_cell(r, 'imdb', 'auc')} | **{score:.4f}** | {_cell(r, 'english_sentences', 'auc')} | "
                     f"{_cell(r, 'english_sentences', 'recall')} | "
                     f"{_cell(r, 'english_sentences', 'false_alarm_rate')} | "
                     f"{_cell(r, 'english_sentences', 'top_rated_replaced')} | {_cell(r, 'english_short', 'auc')} | "
                     f"{_cell(r, 'english_short', 'top_rated_replaced')} | {_swaps(r)} |")
    return "\n".join(lines)


def generator_table(records: list[dict], tokens_per_step: int = TOKENS_PER_STEP) -> str:
    """A generator's learning curve as a Markdown table, one row per measured step: its top-1 and top-5 where it
    saw [MASK] in held-out broad English blocks (15% masked), the cloze on held-out sentences (top-1, top-5,
    draws outside its top 5, word-piece draws), and the discriminator's ROC-AUC against it."""
    by_step = {int(r["step"]): r for r in records}
    lines = ["| step | tokens seen | top-1 at [MASK] | top-5 at [MASK] | cloze top-1 | cloze top-5 "
             "| draws outside top 5 | word-piece draws | broad English AUC | IMDB AUC |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for step, r in sorted(by_step.items()):
        lines.append(f"| {step:,} | {step * tokens_per_step / 1e6:.1f}M | "
                     f"{_cell(r, 'english', 'generator_top1_at_mask')} | "
                     f"{_cell(r, 'english', 'generator_top5_at_mask')} | {_cell(r, 'cloze', 'top1')} | "
                     f"{_cell(r, 'cloze', 'top5')} | {_cell(r, 'cloze', 'outside_top5')} | "
                     f"{_cell(r, 'cloze', 'piece_draws')} | {_cell(r, 'english', 'auc')} | {_cell(r, 'imdb', 'auc')} |")
    return "\n".join(lines)


def run_tokens_per_step(run: str | Path) -> int:
    """Tokens in one step of the run (blocks x block length, from its config.json), or the campaign's default."""
    config = Path(run) / "config.json"
    if not config.exists():
        return TOKENS_PER_STEP
    settings = json.loads(config.read_text())
    return int(settings.get("batch_size", 16)) * int(settings.get("seq_len", 128))


def read_records(*paths: str | Path) -> list[dict]:
    """The JSON lines of watch.jsonl files (or single-record JSON files, like a step-0 baseline), in order."""
    records = []
    for path in paths:
        text = Path(path).read_text(encoding="utf-8")
        try:
            records.append(json.loads(text))  # one record (indented or not)
        except json.JSONDecodeError:  # JSON lines: one record a line
            records.extend(json.loads(line) for line in text.splitlines() if line.strip())
    return records

