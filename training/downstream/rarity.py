"""How a generator's cloze depends on how often the hidden word occurs in the text it trained on.

A small generator learns a word's contexts from the times it read the word. This runs the held-out cloze
(`training.downstream.cloze`: 400 held-out broad English sentences, one content word hidden at a time, the
sentences `evaluate` uses) and groups the blanks by the hidden word's whole-word count in the training token
stream (`training.wordcount`): per group, the blanks and the share of them with the word among the
generator's best guess, its five best, and its three best (the everyday table's measure).

Left out: draws (the figures here are the generator's guesses only, the same for every seed), and words of
several pieces (the cloze leaves them out).

    python -m training rarity assets/stronger-generator assets/model   # one table per generator
"""

from __future__ import annotations

import bisect
import sys

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
    lines += [f"{g['occurrences']:<24} {g['blanks']:>7,} "
              f"{share(g['top1']):>7} {share(g['top3']):>7} {share(g['top5']):>7}"
              for g in groups]
    return "\n".join(lines)


if __name__ == "__main__":  # the older spelling, handed to the one parser: python -m training rarity ...
    from training.__main__ import main

    main(["rarity", *sys.argv[1:]])
