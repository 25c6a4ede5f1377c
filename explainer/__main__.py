"""`python -m explainer`: the Explore tab's result in a terminal, and the measures of a pair.

    python -m explainer "the chef cooked a delicious meal" --seed 3     # explain (the default): a table or JSON
    python -m explainer measure assets/check_sentences.json --seeds 5   # the classroom measure
    python -m explainer strength --pair assets/model --cut 1 --cut 2    # generators against one discriminator
    python -m explainer targets assets/model                            # every target a pair ships with

A first word that names no subcommand is the sentence: `python -m explainer "text"` is `python -m explainer
explain "text"` (write `explain` first for a sentence that is a subcommand's name), and `--sentences FILE` is the
older spelling of `measure FILE`. The local user owns the machine, so any local folder may be named here (the web
app limits folders to assets/, runs/ and $ELECTRA_MODEL_ROOTS). Exit status 2 on a user error.
"""

from __future__ import annotations

import argparse
import os
import sys

from explainer.cli import explain, measure, strength, targets

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

COMMANDS = ("explain", "measure", "strength", "targets")  # the order --help lists them in
HELP = ("-h", "--help")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m explainer", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="command", required=True, metavar="{" + ",".join(COMMANDS) + "}")
    flags = [explain.pair_flags()]
    explain.add_explain(sub, flags)
    measure.add_measure(sub, flags)
    strength.add_strength(sub)
    targets.add_targets(sub)
    return top


def route(argv: list[str]) -> list[str]:
    """`argv` as the one parser reads it: a first word that names no subcommand is the sentence (`explain`), and
    `--sentences FILE` (the older spelling of the classroom measure) is `measure FILE`."""
    if not argv or argv[0] in COMMANDS or argv[0] in HELP:
        return argv
    if any(a == "--sentences" or a.startswith("--sentences=") for a in argv):
        return ["measure", *(a.removeprefix("--sentences=") for a in argv if a != "--sentences")]
    return ["explain", *argv]


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(route(sys.argv[1:] if argv is None else list(argv)))
    if getattr(args, "threads", None) and args.command in ("explain", "measure"):
        import torch

        torch.set_num_threads(args.threads)
    if args.command in ("explain", "measure"):
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # no "Loading weights" bars in a terminal tool
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
