"""CLI: python -m training pretrain | compare | race | record | finetune | evaluate | watch | export | corpus | cloze
| guesses | rarity  (--help on each)."""

from __future__ import annotations

import argparse
import sys

from training.cli import corpus, measure, pretrain, race, trained


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m training", description=__doc__)
    sub = top.add_subparsers(dest="command", required=True)
    for add in (pretrain.add_pretrain, pretrain.add_compare, race.add_race, trained.add_finetune, trained.add_export,
                trained.add_evaluate, trained.add_watch, race.add_record, corpus.add_corpus,
                measure.add_cloze, measure.add_guesses, measure.add_rarity):  # the order --help lists them in
        add(sub)
    return top


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        args.func(args)
    except (ValueError, FileNotFoundError, RuntimeError) as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    main()
