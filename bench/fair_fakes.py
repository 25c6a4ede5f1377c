"""Fakes a student can judge: the game's and the live class's draw beside Explore's, on the same sentences and seeds.

For each generator, the app's sentences (default: the 40 of assets/game_sentences.json) x `--seeds` seeds, drawn
through the app's own pipeline three times: as Explore draws (ELECTRA's exact draw: any token masked, any token
drawn) and as the game and the live class draw (`game.fake_settings`: only words that stand alone and punctuation are
masked, and each fake is drawn among the fair fakes for the replaced token: an English word for a word, a number for a
number, punctuation for punctuation, explainer.core.kinds); between them, the game's draw before fair fakes
("kinds": any word for a word, punctuation for punctuation). Printed per generator and draw:
- masked: positions masked; inside: of those, inside a word of several tokens (its fake would read glued to the rest);
- fakes: masked positions where the draw differs from the original; other kind: a word for a punctuation mark, a
  mark for a word, a piece for a whole word...; pieces: fakes that are a word piece (`##...`); glued: fakes inside a
  word of several tokens; digits/letters: a fake with digits for a word of letters, or with letters for a number;
  not a word: a fake for a word (not a number) that is not an English word (training.lexicon: "st", "tv", "b",
  "pac", "15"...).
The game's columns are the ones held at 0 (tests/test_words.py and tests/test_fair_words.py check the same on the tiny
pair). `--show` lists the fakes counted as not a word.

    PYTHONPATH=. .venv/bin/python bench/fair_fakes.py               # the bundled pair, 5 seeds (about a minute)
    PYTHONPATH=. .venv/bin/python bench/fair_fakes.py --seeds 1     # a smoke run
"""

from __future__ import annotations

import argparse
from collections import Counter
from unittest import mock

from explainer.core import models
from explainer.core import kinds as fair
from explainer.core.kinds import token_kinds
from explainer.core.pipeline import Settings, explain_many
from explainer.lesson import beat_electra as game
from training import lexicon
from training.sentences import read_sentence_files

COLUMNS = ("masked", "inside", "fakes", "other kind", "pieces", "glued", "digits/letters", "not a word")


def count(pair, kinds, requests, odd: Counter) -> dict[str, int]:
    tally = dict.fromkeys(COLUMNS, 0)
    for explanation in explain_many(pair, requests):
        word_of = {token: word for word in explanation.words for token in word.tokens}
        for m in explanation.masked:
            several = len(word_of[m.position].tokens) > 1
            tally["masked"] += 1
            tally["inside"] += several
            if m.replaced:
                original = explanation.original_ids[m.position]
                tally["fakes"] += 1
                tally["other kind"] += kinds[m.sampled_id] != kinds[original]
                tally["pieces"] += kinds[m.sampled_id] == "piece"
                tally["glued"] += several
                was, drawn = m.original, m.sampled
                tally["digits/letters"] += (_has(was, str.isalpha) and _has(drawn, str.isdigit)
                                            or _has(was, str.isdigit) and _has(drawn, str.isalpha))
                unjudged = kinds[original] == "word" and not lexicon.is_number(was) and not lexicon.is_english(drawn)
                tally["not a word"] += unjudged
                if unjudged:
                    odd[f"{was}->{drawn}"] += 1
    return tally


def _has(token: str, test) -> bool:
    return any(test(c) for c in token)


def _kinds_only(tokenizer):
    """The game's draw before fair fakes: any word for a word (a number, "st"), punctuation for punctuation."""
    forms = _FORMS(tokenizer).clone()
    forms[(forms == fair.FORMS.index(lexicon.NUMBER)) | (forms == fair.FORMS.index(lexicon.OTHER))] = \
        fair.FORMS.index(lexicon.ENGLISH)
    return forms


_FORMS = fair.token_forms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds per sentence (default: 5)")
    parser.add_argument("--sentences", nargs="+", default=None, metavar="FILE",
                        help="JSON sentence files (default: assets/game_sentences.json)")
    parser.add_argument("--model", default=str(models.BUNDLED), help="a pair's folder (default: the bundled pair)")
    parser.add_argument("--show", action="store_true", help="list the fakes counted as not a word")
    args = parser.parse_args(argv)
    pair = models.load(args.model)
    kinds = token_kinds(pair.tokenizer)
    sentences = read_sentence_files(args.sentences) if args.sentences else list(game.load_sentences())
    shown = "the bundled pair" if args.model == str(models.BUNDLED) else args.model
    print(f"{len(sentences)} sentences x {args.seeds} seeds, {shown}")
    header = ["generator", "draw", *COLUMNS]
    widths = [max(10, len(h)) for h in header]
    print("  ".join(f"{h:>{w}}" for h, w in zip(header, widths)))
    for generator in ("electra", "stronger"):
        for draw in ("explore", "kinds", "game"):
            requests = []
            for seed in range(args.seeds):
                for i, sentence in enumerate(sentences):
                    draw_seed = seed * 1000 + i  # the same seed and forger for every draw
                    requests.append((sentence, Settings(seed=draw_seed, generator=generator) if draw == "explore"
                                     else game.fake_settings(draw_seed, generator)))
            odd: Counter = Counter()
            if draw == "kinds":
                with mock.patch.object(fair, "token_forms", _kinds_only):
                    tally = count(pair, kinds, requests, odd)
            else:
                tally = count(pair, kinds, requests, odd)
            print("  ".join(f"{v:>{w}}" for v, w in zip((generator, draw, *tally.values()), widths)))
            if args.show and odd:
                print("    not a word: " + ", ".join(f"{k} x{n}" if n > 1 else k for k, n in odd.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
