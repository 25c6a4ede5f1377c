"""How often a word occurs in a corpus's training text, counted in the token stream the trainer reads.

A generator can only learn what a context asks for from the times it saw the word there: a word that occurs
a few dozen times in 20M tokens is one a small generator rarely guesses, however long it trains. This counts,
for each word, its whole-word occurrences in the tokenized training stream (`data.tokenize_stream`, the cache
the trainer itself fills): the word's WordPiece pieces in a row, not followed by a further "##" piece, so "car"
is not counted inside "cart" ("car", "##t").

Left out: case (the bundled vocabulary is uncased), inflections ("planted" is not "plant") and the sentence
blocks the trainer also cuts from the same documents (they hold the same words again).

    python -m training corpus words fisherman bakery umbrella --corpus english+imdb
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from training import words as alignment


def training_stream(corpus: str, tokenizer) -> np.ndarray:
    """The corpus's training documents as the trainer tokenizes them (its cached .npy stream)."""
    from training import data

    return data.tokenize_stream(data.load_corpus(corpus).train, tokenizer, data.cache_dir())


def continuation_mask(tokenizer) -> np.ndarray:
    """(V,) True where a token id is a piece that continues a word ("##s": training.words)."""
    return np.array([kind == alignment.PIECE for kind in alignment.vocabulary_kinds(tokenizer)], dtype=bool)


def count_pieces(stream: np.ndarray, pieces: list[int], continuation: np.ndarray) -> int:
    """Places where `pieces` occur in a row in `stream` and the next token (if any) is not a continuation."""
    if not pieces:
        return 0
    n, k = len(stream), len(pieces)
    if n < k:
        return 0
    hits = stream[: n - k + 1] == pieces[0]  # (n - k + 1,)
    for offset, piece in enumerate(pieces[1:], start=1):
        hits &= stream[offset: n - k + 1 + offset] == piece
    starts = np.flatnonzero(hits)
    after = starts + k
    inside = after < n
    ends_word = np.ones(len(starts), dtype=bool)
    ends_word[inside] = ~continuation[stream[after[inside]]]
    return int(ends_word.sum())


def single_token_counts(stream: np.ndarray, continuation: np.ndarray) -> np.ndarray:
    """(V,) for every token id, its count as a whole word of one token (not followed by a "##" piece): the
    same figure as `count_pieces(stream, [id], continuation)` for each id at once."""
    whole = np.ones(len(stream), dtype=bool)
    whole[:-1] = ~continuation[stream[1:]]
    return np.bincount(stream[whole], minlength=len(continuation))


def word_counts(stream: np.ndarray, tokenizer, words: Iterable[str]) -> list[dict]:
    """One row per word: the word, its pieces, its whole-word count and its count per million tokens."""
    continuation = continuation_mask(tokenizer)
    rows = []
    for word in words:
        pieces = tokenizer(word.strip(), add_special_tokens=False)["input_ids"]
        if not pieces:
            raise ValueError(f"{word!r} has no token in this vocabulary")
        count = count_pieces(stream, pieces, continuation)
        rows.append({"word": word.strip(), "pieces": alignment.readable_ids(tokenizer, pieces), "count": count,
                     "per_million": count / max(len(stream), 1) * 1e6})
    return rows
