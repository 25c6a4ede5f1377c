"""What every built-in corpus is made of: a train and a held-out tuple of documents, the cleaning they get,
the hash that splits them, and the folder where fetched archives and token caches live.

training/data.py (IMDB, the sentiment task, user files, tokenizing, blocks) and training/english.py (the
broad English sources) both build on this module; neither imports the other back (.importlinter).
"""

from __future__ import annotations

import hashlib
import html
import os
import re
from dataclasses import dataclass
from pathlib import Path


def cache_dir() -> Path:
    return Path(os.environ.get("ELECTRA_CACHE", Path.home() / ".cache" / "electra-explainer"))


def races_dir() -> Path:
    """Where the app keeps its races: $ELECTRA_RACE_DIR, else races/ in the cache folder, from a clone as from the
    installed command: nothing is written inside the work tree unless asked (ELECTRA_RACE_DIR=runs/races)."""
    return Path(os.environ.get("ELECTRA_RACE_DIR") or cache_dir() / "races")


@dataclass(frozen=True)
class Corpus:
    name: str
    train: tuple[str, ...]
    heldout: tuple[str, ...]
    # A second held-out set, kept apart from `heldout` so that set stays comparable across runs: the broad
    # English corpus's added sources' own held-out documents (training/english.py).
    heldout_added: tuple[str, ...] = ()


def clean_text(text: str) -> str:
    text = re.sub(r"<br\s*/?>", " ", text, flags=re.IGNORECASE)
    text = html.unescape(text)
    return re.sub(r"\s+", " ", text).strip()


def _in_percent(text: str, percent: int) -> bool:
    """Stable pseudo-random membership: the same text always lands on the same side."""
    return int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:8], 16) % 100 < percent


def _split(texts: list[str], percent: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    unique = list(dict.fromkeys(texts))  # drop exact duplicates, keep order
    return tuple(t for t in unique if not _in_percent(t, percent)), tuple(t for t in unique if _in_percent(t, percent))
