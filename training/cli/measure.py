"""`cloze`, `guesses` and `rarity`: what a generator guesses for a hidden word (training/downstream/)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from training.project import ASSETS


def _generator(folder: Path):
    """(generator, tokenizer) of a pair folder (its generator/) or of a generator saved alone."""
    from transformers import AutoTokenizer, ElectraForMaskedLM

    from training.models import generator_folder

    if not Path(folder).is_dir():
        raise FileNotFoundError(f"{folder}: no such folder (a pair folder or a generator folder)")
    return (ElectraForMaskedLM.from_pretrained(generator_folder(folder)),
            AutoTokenizer.from_pretrained(generator_folder(folder)))


def cmd_cloze(args: argparse.Namespace) -> None:
    from training.downstream.cloze import cloze, over_seeds
    from training.sentences import read_sentence_files

    if args.seeds < 1:
        raise ValueError("--seeds must be 1 or more")
    sentences = read_sentence_files(args.sentences)  # before the model: a bad file is said at once
    generator, tokenizer = _generator(args.model)
    if args.seeds == 1:
        print(json.dumps(asdict(cloze(generator, tokenizer, sentences)), indent=2))
    else:
        print(json.dumps(over_seeds(generator, tokenizer, sentences, range(args.seeds)), indent=2))


def cmd_guesses(args: argparse.Namespace) -> None:
    from training.downstream.guesses import everyday_hits, everyday_table, load_everyday

    items = load_everyday(args.sentences)
    generator, tokenizer = _generator(args.model)
    rows = everyday_table(generator, tokenizer, items)
    print(json.dumps(rows, indent=2, ensure_ascii=False))
    print(f"the hidden word in the top 3: {everyday_hits(rows)} of {len(rows)}", file=sys.stderr)


def cmd_rarity(args: argparse.Namespace) -> None:
    from training.downstream import cloze
    from training.downstream.evaluate import CLOZE_SENTENCES
    from training.downstream.rarity import by_rarity, guessed_rows, table
    from training.english import load_english
    from training.wordcount import continuation_mask, single_token_counts, training_stream

    from transformers import AutoTokenizer

    from training.models import generator_folder

    for folder in args.models:  # every folder said missing before the corpus is counted
        if not Path(folder).is_dir():
            raise FileNotFoundError(f"{folder}: no such folder (a pair folder or a generator folder)")
    tokenizer = AutoTokenizer.from_pretrained(generator_folder(args.models[0]))
    stream = training_stream(args.corpus, tokenizer)
    counts = single_token_counts(stream, continuation_mask(tokenizer))
    sentences = cloze.heldout_sentences(load_english().heldout, CLOZE_SENTENCES)
    result = {}
    for folder in args.models:
        generator, own = _generator(folder)
        if own.get_vocab() != tokenizer.get_vocab():
            raise ValueError(f"{folder} has another vocabulary than {args.models[0]}")
        groups = by_rarity(guessed_rows(generator, tokenizer, sentences), counts)
        result[str(folder)] = groups
        print(f"{folder}: the held-out cloze ({len(sentences)} sentences) by the hidden word's count in "
              f"{args.corpus}'s {len(stream):,} training tokens")
        print(table(groups), end="\n\n", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
        print(f"wrote {args.json}")


def add_cloze(sub) -> None:
    p = sub.add_parser("cloze", help="the generator's cloze on sentence files (one content word hidden at a time), "
                       "as JSON", description="The generator's cloze on sentence files, as JSON: top-1, top-5, draws "
                       "outside its top 5, word-piece draws (training/downstream/cloze.py).")
    p.add_argument("model", type=Path, help="a pair folder (its generator/) or a generator folder")
    p.add_argument("sentences", nargs="+", help="JSON files: a list of sentences or {\"sentences\": [...]}, pooled")
    p.add_argument("--seeds", type=int, default=1, help="draws under seeds 0..N-1: the mean and each seed's "
                   "figures (the guesses are the same for every seed)")
    p.set_defaults(func=cmd_cloze)


def add_guesses(sub) -> None:
    p = sub.add_parser("guesses", help="a generator's top 3 guesses for a hidden word of each everyday sentence",
                       description="A generator's top 3 guesses for a hidden word of each everyday sentence, as "
                       "JSON; the count of hits on standard error (training/downstream/guesses.py).")
    p.add_argument("model", type=Path, nargs="?", default=ASSETS / "model",
                   help="a pair folder (its generator/) or a generator folder (default: the bundled pair)")
    p.add_argument("--sentences", type=Path, default=ASSETS / "everyday_sentences.json",
                   help='a JSON list of {"sentence": ..., "word": ...} (default: the everyday sentences)')
    p.set_defaults(func=cmd_guesses)


def add_rarity(sub) -> None:
    p = sub.add_parser("rarity", help="the held-out cloze grouped by how often the hidden word occurs in training",
                       description="How a generator's held-out cloze depends on how often the hidden word occurs in "
                       "the text it trained on: one table per generator (training/downstream/rarity.py).")
    p.add_argument("models", nargs="+", type=Path, help="pair folders (their generator/) or generator folders")
    p.add_argument("--corpus", default="english+imdb", help="the training text whose words are counted")
    p.add_argument("--json", metavar="OUT", help="also write the groups as JSON here")
    p.set_defaults(func=cmd_rarity)
