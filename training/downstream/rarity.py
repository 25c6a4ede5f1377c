"""How a generator's cloze depends on how often the hidden word occurs in the text it trained on.

A small generator learns a word's contexts from the times it read the word. This runs the held-out cloze
(`training.downstream.cloze`: 400 held-out broad English sentences, one content word hidden at a time, the
sentences `evaluate` uses) and groups the blanks by the hidden word's whole-word count in the training token
stream (`training.wordcount`): per group, the blanks and the share of them with the word among the
generator's best guess, its five best, and its three best (the everyday table's measure).

Left out: draws (the figures here are the generator's guesses only, the same for every seed), and words of
several pieces (the cloze leaves them out).

    python -m training.downstream.rarity assets/stronger-generator assets/model   # one table per generator
"""

from __future__ import annotations

import bisect
import json
import sys
from pathlib import Path

import numpy as np

EDGES = (100, 300, 1_000, 3_000, 10_000)  # group bounds: fewer than 100 occurrences, 100-299, ...


def group_names(edges: tuple[int, ...]) -> list[str]:
    """"under 100", "100-299", ..., "10,000+" for edges (100, 300, ..., 10_000)."""
    bounds = [0, *edges]
    return [f"under {edges[0]:,}", *(f"{low:,}-{high - 1:,}" for low, high in zip(bounds[1:], bounds[2:])),
            f"{edges[-1]:,}+"]


def by_rarity(rows: list[dict], counts: np.ndarray, edges: tuple[int, ...] = EDGES) -> list[dict]:
    """`cloze_rows`' rows grouped by `counts[token id of the hidden word]`: one dict per group, rarest first."""
    groups: list[list[dict]] = [[] for _ in range(len(edges) + 1)]
    for row in rows:
        groups[bisect.bisect_right(edges, counts[row["token_id"]])].append(row)

    def share(picked, hit):
        return sum(r[hit] for r in picked) / len(picked) if picked else None

    return [{"occurrences": name, "blanks": len(picked), "top1": share(picked, "top1_hit"),
             "top3": share(picked, "top3_hit"), "top5": share(picked, "top5_hit")}
            for name, picked in zip(group_names(edges), groups)]


def guessed_rows(generator, tokenizer, sentences: list[str]) -> list[dict]:
    """The cloze's rows (one seed: the guesses do not depend on it) with the hidden word's id and a top-3 hit."""
    from training.downstream import cloze

    rows = cloze.cloze_rows(generator, tokenizer, sentences)
    for row in rows:
        row["token_id"] = tokenizer.convert_tokens_to_ids(row["original"])
        row["top3_hit"] = row["original"] in row["top5"][:3]
    return rows


def table(groups: list[dict]) -> str:
    def share(x):
        return "" if x is None else f"{x:.1%}"

    lines = [f"{'occurrences in training':<24} {'blanks':>7} {'top-1':>7} {'top-3':>7} {'top-5':>7}"]
    lines += [f"{g['occurrences']:<24} {g['blanks']:>7,} {share(g['top1']):>7} {share(g['top3']):>7} {share(g['top5']):>7}"
              for g in groups]
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    import argparse

    from transformers import AutoTokenizer, ElectraForMaskedLM

    from training.downstream import cloze
    from training.downstream.evaluate import CLOZE_SENTENCES
    from training.english import load_english
    from training.models import generator_folder
    from training.wordcount import continuation_mask, single_token_counts, training_stream

    parser = argparse.ArgumentParser(prog="python -m training.downstream.rarity", description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", type=Path, help="pair folders (their generator/) or generator folders")
    parser.add_argument("--corpus", default="english+imdb", help="the training text whose words are counted")
    parser.add_argument("--json", metavar="OUT", help="also write the groups as JSON here")
    args = parser.parse_args(argv)
    tokenizer = AutoTokenizer.from_pretrained(generator_folder(args.models[0]))
    stream = training_stream(args.corpus, tokenizer)
    counts = single_token_counts(stream, continuation_mask(tokenizer))
    sentences = cloze.heldout_sentences(load_english().heldout, CLOZE_SENTENCES)
    result = {}
    for folder in args.models:
        generator = ElectraForMaskedLM.from_pretrained(generator_folder(folder))
        if AutoTokenizer.from_pretrained(generator_folder(folder)).get_vocab() != tokenizer.get_vocab():
            parser.error(f"{folder} has another vocabulary than {args.models[0]}")
        groups = by_rarity(guessed_rows(generator, tokenizer, sentences), counts)
        result[str(folder)] = groups
        print(f"{folder}: the held-out cloze ({len(sentences)} sentences) by the hidden word's count in "
              f"{args.corpus}'s {len(stream):,} training tokens")
        print(table(groups), end="\n\n", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main(sys.argv[1:])
