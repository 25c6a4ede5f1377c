"""training.wordcount: whole-word counts in a token stream, pieces in a row and no "##" piece after them."""

from __future__ import annotations

import numpy as np
import pytest

from training.tokenizer import PACKAGED, load_tokenizer
from training.wordcount import count_pieces, continuation_mask, word_counts


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer(PACKAGED)  # bert-base-uncased's vocabulary, offline


def stream_of(tokenizer, *texts: str) -> np.ndarray:
    ids = [t for text in texts for t in (*tokenizer(text, add_special_tokens=False)["input_ids"], tokenizer.sep_token_id)]
    return np.array(ids, dtype=np.int32)


def test_whole_words_are_counted_and_pieces_apart_are_not_the_word(tokenizer):
    pieces = tokenizer.tokenize("unbelievably")
    assert len(pieces) > 1  # several pieces: counted only in a row
    stream = stream_of(tokenizer, "The car and the cart.", "An unbelievably good car", "unbelievably", "un bel")
    rows = {r["word"]: r for r in word_counts(stream, tokenizer, ["car", "unbelievably", "boat", " Car "])}
    assert rows["car"]["count"] == 2 and rows["Car"]["count"] == 2  # uncased, trimmed; "cart" is a token of its own
    assert rows["unbelievably"]["count"] == 2 and rows["unbelievably"]["pieces"] == pieces  # "un bel": not it
    assert rows["boat"]["count"] == 0 and rows["boat"]["per_million"] == 0.0
    assert rows["car"]["per_million"] == pytest.approx(2 / len(stream) * 1e6)


def test_a_word_at_the_very_end_of_the_stream_and_edge_cases(tokenizer):
    continuation = continuation_mask(tokenizer)
    assert continuation[tokenizer.convert_tokens_to_ids("##s")] and not continuation[tokenizer.convert_tokens_to_ids("car")]
    car, s = tokenizer.convert_tokens_to_ids(["car", "##s"])
    assert count_pieces(np.array([car], dtype=np.int32), [car], continuation) == 1
    assert count_pieces(np.array([car, s, car], dtype=np.int32), [car], continuation) == 1  # "cars" is not "car"
    assert count_pieces(np.array([], dtype=np.int32), [car], continuation) == 0
    assert count_pieces(np.array([car], dtype=np.int32), [car, s, car], continuation) == 0
    assert count_pieces(np.array([car], dtype=np.int32), [], continuation) == 0
    with pytest.raises(ValueError, match="no token"):
        word_counts(np.array([car], dtype=np.int32), tokenizer, ["   "])
