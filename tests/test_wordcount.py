"""training.wordcount: whole-word counts in a token stream, pieces in a row and no "##" piece after them."""

from __future__ import annotations

import numpy as np
import pytest

from training.tokenizer import PACKAGED, load_tokenizer
from training.words import readable
from training.wordcount import count_pieces, continuation_mask, word_counts


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer(PACKAGED)  # bert-base-uncased's vocabulary, offline


def stream_of(tokenizer, *texts: str) -> np.ndarray:
    ids = [t for text in texts
           for t in (*tokenizer(text, add_special_tokens=False)["input_ids"], tokenizer.sep_token_id)]
    return np.array(ids, dtype=np.int32)


def test_whole_words_are_counted_and_pieces_apart_are_not_the_word(tokenizer):
    pieces = tokenizer.tokenize("unbelievably")
    assert len(pieces) > 1  # several pieces: counted only in a row
    stream = stream_of(tokenizer, "The car and the cart.", "An unbelievably good car", "unbelievably", "un bel")
    rows = {r["word"]: r for r in word_counts(stream, tokenizer, ["car", "unbelievably", "boat", " Car "])}
    assert rows["car"]["count"] == 2 and rows["Car"]["count"] == 2  # uncased, trimmed; "cart" is a token of its own
    assert rows["unbelievably"]["count"] == 2  # "un bel": not it
    assert rows["unbelievably"]["pieces"] == [readable(p) for p in pieces]  # a piece as people read it: "-bel"
    assert rows["boat"]["count"] == 0 and rows["boat"]["per_million"] == 0.0
    assert rows["car"]["per_million"] == pytest.approx(2 / len(stream) * 1e6)


def test_a_word_at_the_very_end_of_the_stream_and_edge_cases(tokenizer):
    continuation = continuation_mask(tokenizer)
    assert continuation[tokenizer.convert_tokens_to_ids("##s")]
    assert not continuation[tokenizer.convert_tokens_to_ids("car")]
    car, s = tokenizer.convert_tokens_to_ids(["car", "##s"])
    assert count_pieces(np.array([car], dtype=np.int32), [car], continuation) == 1
    assert count_pieces(np.array([car, s, car], dtype=np.int32), [car], continuation) == 1  # "cars" is not "car"
    assert count_pieces(np.array([], dtype=np.int32), [car], continuation) == 0
    assert count_pieces(np.array([car], dtype=np.int32), [car, s, car], continuation) == 0
    assert count_pieces(np.array([car], dtype=np.int32), [], continuation) == 0
    with pytest.raises(ValueError, match="no token"):
        word_counts(np.array([car], dtype=np.int32), tokenizer, ["   "])


def test_single_token_counts_match_the_count_of_each_word(tokenizer):
    from training.wordcount import single_token_counts

    continuation = continuation_mask(tokenizer)
    stream = stream_of(tokenizer, "cars and a car", "the car", "unbelievably good", "car")
    counts = single_token_counts(stream, continuation)
    assert counts.shape == (len(continuation),)
    for token in ("car", "and", "good", "un", "the"):
        index = tokenizer.convert_tokens_to_ids(token)
        assert counts[index] == count_pieces(stream, [index], continuation), token
    assert counts[tokenizer.convert_tokens_to_ids("car")] == 3 and counts[tokenizer.convert_tokens_to_ids("un")] == 0


def test_the_cloze_grouped_by_how_rare_the_hidden_word_is():
    from training.downstream.rarity import by_rarity, table

    counts = np.zeros(10, dtype=np.int64)
    counts[[1, 2, 3]] = [50, 500, 50_000]

    def row(token, top1, top3, top5):
        return {"token_id": token, "top1_hit": top1, "top3_hit": top3, "top5_hit": top5}

    rows = [row(1, False, False, True), row(1, False, False, False), row(2, True, True, True),
            row(3, False, True, True)]
    groups = by_rarity(rows, counts, edges=(100, 1_000))
    assert [g["occurrences"] for g in groups] == ["under 100", "100-999", "1,000+"]
    assert [g["blanks"] for g in groups] == [2, 1, 1]
    assert groups[0]["top5"] == 0.5 and groups[0]["top3"] == 0.0 and groups[1]["top1"] == 1.0
    assert groups[2]["top3"] == 1.0 and groups[2]["top1"] == 0.0
    empty = by_rarity(rows[:1], counts, edges=(100, 1_000))
    assert empty[1]["blanks"] == 0 and empty[1]["top1"] is None
    assert "under 100" in table(groups) and "50.0%" in table(groups)
