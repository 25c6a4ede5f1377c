"""CLI: python -m training pretrain | compare | race | record | finetune | evaluate | watch | export | corpus  (--help on each)."""

from __future__ import annotations

import argparse
import sys

from training.cli import corpus, pretrain, race, trained

# Every subcommand's handler and helpers live in training/cli/; importable from here too, by their old names.
from training.cli.corpus import cmd_corpus_fetch, cmd_corpus_stats  # noqa: F401
from training.cli.corpus import stats_table as _stats_table  # noqa: F401
from training.cli.flags import CONFIG_SKIP as _SKIP  # noqa: F401
from training.cli.flags import add_config_arguments as _add_config_arguments  # noqa: F401
from training.cli.flags import config_from as _config  # noqa: F401
from training.cli.flags import flag_types as _flag_types  # noqa: F401
from training.cli.pretrain import cmd_compare, cmd_pretrain  # noqa: F401
from training.cli.pretrain import run_with_progress as _run  # noqa: F401
from training.cli.race import RACE_SKIP as _RACE_SKIP  # noqa: F401
from training.cli.race import add_race_arguments as _add_race_arguments  # noqa: F401
from training.cli.race import cmd_race, cmd_record, race_settings  # noqa: F401
from training.cli.race import mean_text as _mean  # noqa: F401
from training.cli.race import paper_line as _paper_line  # noqa: F401
from training.cli.race import race_table as _race_table  # noqa: F401
from training.cli.trained import cmd_evaluate, cmd_export, cmd_finetune  # noqa: F401
from training.config import TrainConfig  # noqa: F401
from training.trainer import train  # noqa: F401


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (pretrain.add_pretrain, pretrain.add_compare, race.add_race, trained.add_finetune, trained.add_export,
                trained.add_evaluate, trained.add_watch, race.add_record, corpus.add_corpus):  # the order --help lists them in
        add(sub)
    args = parser.parse_args(argv)
    try:
        args.func(args)
    except (ValueError, FileNotFoundError, RuntimeError) as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    main()
