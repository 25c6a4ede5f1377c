"""Training a WordPiece vocabulary on the corpus, and loading (and caching) a tokenizer by name."""

from __future__ import annotations

import pytest
from transformers import AutoTokenizer

from training.tokenizer import train_wordpiece


def test_trained_wordpiece_adds_cls_and_sep_and_round_trips(imdb_texts, tmp_path):
    tokenizer = train_wordpiece(imdb_texts[:100], 500)
    assert len(tokenizer) == 500
    ids = tokenizer("The movie was GREAT!")["input_ids"]
    assert ids[0] == tokenizer.cls_token_id and ids[-1] == tokenizer.sep_token_id
    assert tokenizer.convert_ids_to_tokens(ids[1:3]) == ["the", "movie"]  # lowercased words
    assert {tokenizer.pad_token, tokenizer.unk_token, tokenizer.cls_token, tokenizer.sep_token,
            tokenizer.mask_token} == {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    pair = tokenizer("first", "second")["input_ids"]
    assert pair[0] == tokenizer.cls_token_id and pair.count(tokenizer.sep_token_id) == 2

    tokenizer.save_pretrained(tmp_path)
    loaded = AutoTokenizer.from_pretrained(tmp_path)
    assert len(loaded) == 500
    assert loaded.get_vocab() == tokenizer.get_vocab()
    for text in imdb_texts[100:110]:
        assert loaded(text)["input_ids"] == tokenizer(text)["input_ids"]
    assert (loaded.cls_token_id, loaded.sep_token_id, loaded.mask_token_id, loaded.pad_token_id) == (
        tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.mask_token_id, tokenizer.pad_token_id)


def test_training_a_tokenizer_on_nothing_is_a_clear_error():
    with pytest.raises(ValueError, match="cannot train a tokenizer on an empty corpus"):
        train_wordpiece(["", "   "], 100)


def test_load_tokenizer_caches_trained_vocabularies(imdb_texts, tmp_path):
    from training.tokenizer import load_tokenizer

    first = load_tokenizer("wordpiece:300", imdb_texts[:50], tmp_path)
    folders = list(tmp_path.glob("wordpiece-300-*"))
    assert len(folders) == 1 and (folders[0] / "tokenizer.json").exists()
    second = load_tokenizer("wordpiece:300", imdb_texts[:50], tmp_path)
    assert second.get_vocab() == first.get_vocab()
    with pytest.raises(ValueError, match="needs the corpus's training texts"):
        load_tokenizer("wordpiece:300")


def test_one_corpus_trains_one_vocabulary_numbered_one_way(imdb_texts):
    """`tokenizers` numbers tied tokens in hash order, a new numbering every training: a seeded tiny model would
    draw other tokens on another machine. The ids are set in one order: the special tokens first, then the rest."""
    first, second = (train_wordpiece(imdb_texts[:50], 300) for _ in range(2))
    tokens = first.convert_ids_to_tokens(list(range(len(first))))
    assert tokens == second.convert_ids_to_tokens(list(range(len(second))))
    assert tokens[:5] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] and tokens[5:] == sorted(tokens[5:])
    assert first.decode(first("Sally opened it.")["input_ids"], skip_special_tokens=True) == "sally opened it."


def test_unknown_tokenizer_offline_is_a_clear_error(monkeypatch):
    from training.tokenizer import load_tokenizer

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(RuntimeError, match="not a local folder and the hub is offline"):
        load_tokenizer("someone/some-tokenizer")
