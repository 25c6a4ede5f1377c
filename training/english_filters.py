"""Two line filters of the broad English corpus (training/english.py), beside the offensive-word one:

- the app's own sentences stay out of training: a line that holds one of the sentences of
  assets/game_sentences.json, check_sentences.json, everyday_sentences.json or swap_pairs.json, or
  any 7-word span of one, is dropped (the check sentences were written to occur in no corpus);
- a source added after the first six repeats none of them: a paragraph (a line of at least
  DEDUP_MIN_WORDS words) whose normalised text an earlier source or an earlier line already holds is
  dropped (a book that two packages ship comes once), and so is the rest of a document that lost most of its
  words that way (COPIED_SHARE: a copy whose short lines alone were new). The first six are never filtered, so their
  documents, and the fixed held-out split of them, stay as they were.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

FIXTURE_SPAN = 7  # words: a shared span this long is a copy of a fixture sentence, not a coincidence
DEDUP_MIN_WORDS = 8  # shorter lines ("Yes.", "CHAPTER I") repeat innocently and are not deduplicated
COPIED_SHARE = 0.5  # a document that lost more than this share of its words as repeats is a copy: dropped whole
FIXTURE_FILES = ("game_sentences.json", "check_sentences.json", "everyday_sentences.json", "swap_pairs.json")
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    """Lower-case letters and digits only: the same sentence in another case, spacing or punctuation matches."""
    return _WORD.findall(text.lower())


def fixture_sentences(assets: Path) -> list[str]:
    """Every sentence of the app's fixtures (the swap pairs' both sides)."""
    sentences = []
    for name in FIXTURE_FILES:
        data = json.loads((assets / name).read_text(encoding="utf-8"))
        for item in data["sentences"] if isinstance(data, dict) else data:
            if isinstance(item, str):
                sentences.append(item)
            else:
                sentences.extend(item[key] for key in ("sentence", "original", "swapped") if key in item)
    return sentences


@dataclass(frozen=True)
class FixtureFilter:
    """Whether a line holds a fixture sentence or a FIXTURE_SPAN-word span of one."""

    spans: frozenset[tuple[str, ...]]
    short: tuple[str, ...]  # whole sentences shorter than a span, as " w1 w2 ... " to find inside a line

    @classmethod
    def of(cls, sentences: list[str]) -> FixtureFilter:
        spans, short = set(), []
        for sentence in sentences:
            w = words(sentence)
            if len(w) < FIXTURE_SPAN:
                short.append(f" {' '.join(w)} ")
            spans.update(tuple(w[i:i + FIXTURE_SPAN]) for i in range(len(w) - FIXTURE_SPAN + 1))
        return cls(frozenset(spans), tuple(s for s in short if s.strip()))

    def hits(self, line: str) -> bool:
        w = words(line)
        if any(tuple(w[i:i + FIXTURE_SPAN]) in self.spans for i in range(len(w) - FIXTURE_SPAN + 1)):
            return True
        if self.short and len(w) >= 3:
            joined = f" {' '.join(w)} "
            return any(s in joined for s in self.short)
        return False


@lru_cache(maxsize=1)
def app_fixtures() -> FixtureFilter:
    from training.project import ASSETS

    return FixtureFilter.of(fixture_sentences(ASSETS))


def _key(w: list[str]) -> bytes:
    return hashlib.blake2b(" ".join(w).encode(), digest_size=8).digest()


@dataclass
class Deduplicator:
    """The normalised paragraphs seen so far, and what was dropped as a repeat (lines and words)."""

    seen: set[bytes] = field(default_factory=set)
    dropped_lines: int = 0
    dropped_words: int = 0

    def remember(self, line: str) -> None:
        w = words(line)
        if len(w) >= DEDUP_MIN_WORDS:
            self.seen.add(_key(w))

    def fresh(self, line: str) -> bool:
        """True the first time a paragraph is seen (remembering it); False for a repeat, counted as dropped."""
        w = words(line)
        if len(w) < DEDUP_MIN_WORDS:
            return True
        key = _key(w)
        if key in self.seen:
            self.dropped_lines += 1
            self.dropped_words += len(line.split())
            return False
        self.seen.add(key)
        return True

    def drop(self, lines: list[str]) -> None:
        """Count a copied document's remaining lines as dropped too."""
        self.dropped_lines += len(lines)
        self.dropped_words += sum(len(line.split()) for line in lines)
