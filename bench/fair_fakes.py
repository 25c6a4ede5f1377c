"""Fakes a student can judge: the game's and the live class's draw beside Explore's, on the same sentences and seeds.

For each generator, the app's sentences (default: the 40 of assets/game_sentences.json) x `--seeds` seeds, drawn twice
through the app's own pipeline: as Explore draws (ELECTRA's exact draw: any token masked, any token drawn) and as the
game and the live class draw (`game.fake_settings`: only words that stand alone and punctuation are masked, and each
fake is drawn among tokens of the replaced token's kind). Printed per generator and draw:
- masked: positions masked; inside: of those, inside a word of several tokens (its fake would read glued to the rest);
- fakes: masked positions where the draw differs from the original; other kind: a word for a punctuation mark, a
  mark for a word, a piece for a whole word...; pieces: fakes that are a word piece (`##...`); glued: fakes inside a
  word of several tokens.
The game's columns are the ones held at 0 (tests/test_words.py checks the same on the tiny pair).

    PYTHONPATH=. .venv/bin/python bench/fair_fakes.py               # the bundled pair, 5 seeds (about a minute)
    PYTHONPATH=. .venv/bin/python bench/fair_fakes.py --seeds 1     # a smoke run
"""

from __future__ import annotations

import argparse

from explainer.core import models
from explainer.core.kinds import token_kinds
from explainer.core.pipeline import Settings, explain_many
from explainer.lesson import beat_electra as game
from training.sentences import read_sentence_files


def count(pair, kinds, requests) -> dict[str, int]:
    tally = dict.fromkeys(("masked", "inside", "fakes", "other kind", "pieces", "glued"), 0)
    for explanation in explain_many(pair, requests):
        word_of = {token: word for word in explanation.words for token in word.tokens}
        for m in explanation.masked:
            several = len(word_of[m.position].tokens) > 1
            tally["masked"] += 1
            tally["inside"] += several
            if m.replaced:
                tally["fakes"] += 1
                tally["other kind"] += kinds[m.sampled_id] != kinds[explanation.original_ids[m.position]]
                tally["pieces"] += kinds[m.sampled_id] == "piece"
                tally["glued"] += several
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds per sentence (default: 5)")
    parser.add_argument("--sentences", nargs="+", default=None, metavar="FILE",
                        help="JSON sentence files (default: assets/game_sentences.json)")
    parser.add_argument("--model", default=str(models.BUNDLED), help="a pair's folder (default: the bundled pair)")
    args = parser.parse_args(argv)
    pair = models.load(args.model)
    kinds = token_kinds(pair.tokenizer)
    sentences = read_sentence_files(args.sentences) if args.sentences else list(game.load_sentences())
    shown = "the bundled pair" if args.model == str(models.BUNDLED) else args.model
    print(f"{len(sentences)} sentences x {args.seeds} seeds, {shown}")
    header = ["generator", "draw", "masked", "inside", "fakes", "other kind", "pieces", "glued"]
    print("  ".join(f"{h:>10}" for h in header))
    for generator in ("electra", "stronger"):
        for draw in ("explore", "game"):
            requests = []
            for seed in range(args.seeds):
                for i, sentence in enumerate(sentences):
                    draw_seed = seed * 1000 + i  # the same seed and forger for both draws
                    requests.append((sentence, Settings(seed=draw_seed, generator=generator) if draw == "explore"
                                     else game.fake_settings(draw_seed, generator)))
            tally = count(pair, kinds, requests)
            print("  ".join(f"{v:>10}" for v in (generator, draw, *tally.values())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
