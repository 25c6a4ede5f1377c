"""Corpora, user files, the token-stream cache, packing and batching (tokenizer training: test_tokenizer.py)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch

from training import data
from training.data import Blocks, clean_text, load_imdb, load_sentiment, load_text_file, pack_blocks, tokenize_stream
from training.tokenizer import train_wordpiece


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("Great film.<br /><br />Loved it.", "Great film. Loved it."),
        ("one<br/>two<BR>three<br  />four", "one two three four"),
        ("  tabs\tand\nnewlines\r\n  here  ", "tabs and newlines here"),
        ("Tom &amp; Jerry", "Tom & Jerry"),
        ("", ""),
        ("<br /> \n ", ""),
        ("caf\u00e9 \U0001f3ac", "caf\u00e9 \U0001f3ac"),
    ],
)
def test_clean_text(raw, clean):
    assert clean_text(raw) == clean


def test_imdb_corpus_splits_are_disjoint_clean_and_duplicate_free():
    corpus = load_imdb()
    assert corpus.name == "imdb"
    assert len(corpus.train) > 20_000 and len(corpus.heldout) > 500
    assert 0.03 < len(corpus.heldout) / (len(corpus.train) + len(corpus.heldout)) < 0.07  # ~5%
    assert set(corpus.train).isdisjoint(corpus.heldout)
    assert len(set(corpus.train)) == len(corpus.train)
    assert len(set(corpus.heldout)) == len(corpus.heldout)
    assert all(corpus.train) and all(corpus.heldout)
    assert not any("<br" in t.lower() for t in corpus.train[:2000])
    assert all(t == clean_text(t) for t in corpus.train[:2000])


def test_sentiment_task_split_is_disjoint_and_binary():
    task = load_sentiment()
    assert len(task.train) > 5000 and len(task.test) > 1000
    train_sentences, test_sentences = {s for s, _ in task.train}, {s for s, _ in task.test}
    assert train_sentences.isdisjoint(test_sentences)
    for split in (task.train, task.test):
        labels = [label for _, label in split]
        assert set(labels) == {0, 1}  # both classes present, nothing else
        assert 0.3 < sum(labels) / len(labels) < 0.7
        assert all(sentence for sentence, _ in split)
    # The pretraining corpus never contains the downstream test sentences.
    assert test_sentences.isdisjoint(load_imdb().train)


# ---------------------------------------------------------------------------------------------
# User files


def write(tmp_path, name: str, content: bytes | str):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("empty.txt", b"", "empty.txt contains no text"),
        ("blank.txt", b"  \n\t\n   \r\n", "blank.txt contains no text"),
        ("only-breaks.txt", b"<br />\n<br/><br/>\n", "only-breaks.txt contains no text"),
        ("latin1.txt", "caf\u00e9 cr\u00e8me\n".encode("latin-1"),
         "latin1.txt is not UTF-8 text (byte 3); re-save it as UTF-8"),
        ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image.txt looks like a binary file, not text"),
        ("bad.jsonl", b'{"text": "fine"}\n{"text": "broken\n',
         'bad.jsonl line 2: expected a JSON object with a "text" field'),
        ("nokey.jsonl", b'{"text": "fine"}\n{"body": "no text key"}\n', 'nokey.jsonl line 2: expected a JSON object'),
        ("list.jsonl", b'["not", "an", "object"]\n', 'list.jsonl line 1: expected a JSON object'),
        ("empty.jsonl", b"\n\n", "empty.jsonl contains no text"),
    ],
)
def test_bad_user_files_raise_clear_messages(tmp_path, name, content, message):
    path = write(tmp_path, name, content)
    with pytest.raises(ValueError) as error:
        load_text_file(path)
    assert message in str(error.value)
    assert str(tmp_path) not in str(error.value)  # the message names the file, not the server's path


def test_missing_file(tmp_path):
    with pytest.raises(ValueError, match="corpus file not found: nothing.txt"):
        load_text_file(tmp_path / "nothing.txt")
    with pytest.raises(ValueError, match="corpus file not found"):
        load_text_file(tmp_path)  # a folder is not a corpus file


def test_too_large_file_is_refused_before_reading(tmp_path):
    path = write(tmp_path, "big.txt", "word " * 1000)  # 5,000 bytes
    with pytest.raises(ValueError) as error:
        load_text_file(path, max_bytes=1000)
    message = str(error.value)
    assert "limit" in message
    # Both sizes are stated so that they can be told apart (no "0.0 MB; the limit is 0 MB").
    assert "4.9 KB" in message and "1000 bytes" in message, message
    assert load_text_file(path, max_bytes=5000).train  # at the limit is fine


def test_megabyte_limit_message(tmp_path):
    path = write(tmp_path, "big.txt", "x" * (3 * 2**20))
    with pytest.raises(ValueError, match=r"corpus file is 3.0 MB; the limit is 2.0 MB"):
        load_text_file(path, max_bytes=2 * 2**20)


def test_txt_is_one_document_per_non_empty_line(tmp_path):
    lines = [f"Review number {i}.<br />It was {'good' if i % 2 else 'bad'}." for i in range(60)]
    path = write(tmp_path, "reviews.txt", "\n\n".join(lines) + "\n\n  \nReview number 0.<br />It was bad.\n")
    corpus = load_text_file(path)
    expected = {clean_text(line) for line in lines}
    assert corpus.name == "reviews"
    assert set(corpus.train) | set(corpus.heldout) == expected
    assert len(corpus.train) + len(corpus.heldout) == 60  # the duplicate last line is dropped
    assert set(corpus.train).isdisjoint(corpus.heldout)
    in_order = [clean_text(line) for line in lines]
    assert list(corpus.train) == [t for t in in_order if t not in corpus.heldout]  # file order kept


def test_jsonl_reads_the_text_field(tmp_path):
    rows = [{"text": f"Document {i}\twith  spaces", "id": i} for i in range(40)]
    path = write(tmp_path, "docs.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n\n")
    corpus = load_text_file(path)
    assert set(corpus.train) | set(corpus.heldout) == {f"Document {i} with spaces" for i in range(40)}
    assert corpus.name == "docs"


def test_a_single_document_always_lands_in_train(tmp_path):
    for i in range(30):  # some of these hash into the held-out 5%
        corpus = load_text_file(write(tmp_path, f"one{i}.txt", f"only document {i}\n"))
        assert corpus.train == (f"only document {i}",) and corpus.heldout == ()


def test_utf8_with_non_ascii_text_is_fine(tmp_path):
    corpus = load_text_file(write(tmp_path, "u.txt", "caf\u00e9 cr\u00e8me \U0001f3ac\n\u65e5\u672c\u8a9e\n"))
    assert set(corpus.train) | set(corpus.heldout) == {"caf\u00e9 cr\u00e8me \U0001f3ac", "\u65e5\u672c\u8a9e"}


# ---------------------------------------------------------------------------------------------
# Packing and the token-stream cache


def test_pack_blocks_shapes_and_boundaries():
    stream = np.arange(10, 110, dtype=np.int32)  # 100 ids
    blocks = pack_blocks(stream, seq_len=10, cls_id=1, sep_id=2)
    assert blocks.shape == (12, 10) and blocks.dtype == torch.long  # 100 // 8 body tokens per block
    assert (blocks[:, 0] == 1).all() and (blocks[:, -1] == 2).all()
    assert torch.equal(blocks[:, 1:-1].reshape(-1), torch.arange(10, 106))  # in order, the tail dropped


def test_pack_blocks_with_real_tokens(imdb_texts, wordpiece):
    stream = tokenize_stream(imdb_texts[:20], wordpiece)
    blocks = pack_blocks(stream, 64, wordpiece.cls_token_id, wordpiece.sep_token_id)
    assert blocks.shape == (len(stream) // 62, 64)
    assert (blocks[:, 0] == wordpiece.cls_token_id).all() and (blocks[:, -1] == wordpiece.sep_token_id).all()


def test_a_stream_shorter_than_one_block_is_a_clear_error():
    with pytest.raises(ValueError,
                       match="the corpus has 5 tokens, fewer than one block of 10; add text or lower --seq-len"):
        pack_blocks(np.arange(5, dtype=np.int32), seq_len=10, cls_id=1, sep_id=2)
    assert pack_blocks(np.arange(8, dtype=np.int32), seq_len=10, cls_id=1, sep_id=2).shape == (1, 10)


def test_tokenize_stream_separates_documents_with_sep(wordpiece):
    texts = ("a good film", "bad acting")
    stream = tokenize_stream(texts, wordpiece)
    expected = []
    for text in texts:
        expected += wordpiece(text, add_special_tokens=False)["input_ids"] + [wordpiece.sep_token_id]
    assert stream.tolist() == expected
    assert stream.dtype == np.int32


def test_tokenize_stream_cache_is_reused(tmp_path, imdb_texts, wordpiece, monkeypatch):
    texts = imdb_texts[:30]
    first = tokenize_stream(texts, wordpiece, tmp_path)
    files = list(tmp_path.glob("stream-*.npy"))
    assert len(files) == 1 and not list(tmp_path.glob("*.tmp*"))

    def no_tokenizing(*args, **kwargs):
        raise AssertionError("the tokenizer was called although the stream is cached")

    monkeypatch.setattr(type(wordpiece), "__call__", no_tokenizing)
    second = tokenize_stream(texts, wordpiece, tmp_path)
    assert np.array_equal(first, second) and second.dtype == first.dtype
    with pytest.raises(AssertionError, match="tokenizer was called"):  # other texts are not cached
        tokenize_stream(texts[:29], wordpiece, tmp_path)


def test_tokenize_stream_cache_is_keyed_by_the_tokenizer(tmp_path, imdb_texts, wordpiece):
    other = train_wordpiece(imdb_texts[:50], 300)
    a = tokenize_stream(imdb_texts[:5], wordpiece, tmp_path)
    b = tokenize_stream(imdb_texts[:5], other, tmp_path)
    assert len(list(tmp_path.glob("stream-*.npy"))) == 2
    assert not np.array_equal(a, b)


def test_tokenize_stream_cache_key_ignores_call_time_padding_state(tmp_path, wordpiece):
    wordpiece = copy.deepcopy(wordpiece)  # the call below changes its state; keep the shared one clean
    texts = ("some text here",)
    tokenize_stream(texts, wordpiece, tmp_path)
    wordpiece(["x", "longer text"], padding=True, truncation=True, max_length=8)  # sets backend state
    tokenize_stream(texts, wordpiece, tmp_path)
    assert len(list(tmp_path.glob("stream-*.npy"))) == 1


def test_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ELECTRA_CACHE", str(tmp_path))
    assert data.cache_dir() == tmp_path


# ---------------------------------------------------------------------------------------------
# Batches


@pytest.fixture
def numbered_blocks() -> Blocks:
    ids = torch.arange(40 * 6).view(40, 6) + 10  # block i is recognisable by its first id
    ids[:, 0], ids[:, -1] = 1, 2  # [CLS] ... [SEP]
    return Blocks(ids, special_ids=(1, 2, 0), seed=0)


def block_numbers(batch: dict) -> list[int]:
    return ((batch["input_ids"][:, 1] - 11) // 6).tolist()


def test_batch_is_a_pure_function_of_the_step(numbered_blocks):
    again = Blocks(numbered_blocks.ids.clone(), numbered_blocks.special_ids, seed=0)
    for step in range(12):
        assert torch.equal(numbered_blocks.batch(step, 8)["input_ids"], again.batch(step, 8)["input_ids"])
    assert block_numbers(numbered_blocks.batch(3, 8)) != block_numbers(numbered_blocks.batch(4, 8))
    other_seed = Blocks(numbered_blocks.ids, numbered_blocks.special_ids, seed=1)
    assert block_numbers(numbered_blocks.batch(0, 8)) != block_numbers(other_seed.batch(0, 8))


def test_one_epoch_visits_every_block_once(numbered_blocks):
    seen = [n for step in range(5) for n in block_numbers(numbered_blocks.batch(step, 8))]
    assert sorted(seen) == list(range(40))
    # The next epoch is shuffled differently.
    next_epoch = [n for step in range(5, 10) for n in block_numbers(numbered_blocks.batch(step, 8))]
    assert sorted(next_epoch) == list(range(40)) and next_epoch != seen


def test_batch_fields(numbered_blocks):
    batch = numbered_blocks.batch(0, 4)
    assert batch["input_ids"].shape == batch["attention_mask"].shape == batch["special_tokens_mask"].shape == (4, 6)
    assert (batch["attention_mask"] == 1).all()
    assert batch["special_tokens_mask"].tolist() == [[1, 0, 0, 0, 0, 1]] * 4


@pytest.mark.parametrize("step", [0, 3, 7])
def test_two_ranks_split_the_global_batch(numbered_blocks, step):
    rank0 = numbered_blocks.batch(step, 4, rank=0, world_size=2)
    rank1 = numbered_blocks.batch(step, 4, rank=1, world_size=2)
    whole = numbered_blocks.batch(step, 8, rank=0, world_size=1)
    assert set(block_numbers(rank0)).isdisjoint(block_numbers(rank1))
    assert torch.equal(torch.cat([rank0["input_ids"], rank1["input_ids"]]), whole["input_ids"])


def test_make_blocks_special_ids(imdb_texts, wordpiece, tmp_path):
    blocks = data.make_blocks(imdb_texts[:20], wordpiece, 32, seed=0, cache=tmp_path)
    assert blocks.special_ids == (wordpiece.cls_token_id, wordpiece.sep_token_id, wordpiece.pad_token_id)
    batch = blocks.batch(0, 4)
    ids = batch["input_ids"]
    assert torch.equal(batch["special_tokens_mask"].bool(),
                       (ids == wordpiece.cls_token_id) | (ids == wordpiece.sep_token_id)
                       | (ids == wordpiece.pad_token_id))


# --- whole-sentence blocks (the mixed-length stream with --mixed-sentences) ------------------------
def test_split_sentences_keeps_closing_quotes_and_needs_a_capital_next():
    from training.data import split_sentences

    text = 'He said "Stop." Then he left. It was 5 p.m. and late! Was it 1999? (It was.) the end'
    assert split_sentences(text) == ['He said "Stop."', "Then he left.", "It was 5 p.m. and late!", "Was it 1999?",
                                     "(It was.) the end"]
    assert split_sentences("") == [] and split_sentences("no end") == ["no end"]


def test_pack_sentences_fills_blocks_with_whole_sentences_of_one_document():
    import numpy as np

    from training.data import pack_sentences

    CLS, SEP, PAD = 101, 102, 0
    sentences = [np.arange(10, 15), np.arange(20, 26), np.arange(30, 60), np.arange(40, 43), np.arange(50, 57),
                 np.arange(60, 65)]
    documents = np.array([0, 0, 0, 0, 1, 1])
    blocks = pack_sentences(sentences, documents, seq_len=16, cls_id=CLS, sep_id=SEP, pad_id=PAD)
    # 5 + 6 tokens share a block; 30 is too long for 14 and 3 too short: both left out, and a block never
    # spans the gap they leave, nor two documents (7 + 5 tokens of document 1 share the last block).
    assert blocks.tolist() == [
        [CLS, *range(10, 15), *range(20, 26), SEP, PAD, PAD, PAD],
        [CLS, *range(50, 57), *range(60, 65), SEP, PAD, PAD],
    ]


def test_sentence_blocks_mask_their_padding(wordpiece):
    from training.data import make_sentence_blocks

    texts = ("The chef cooked a meal for the guests. They ate it all. Then they went home happy.",
             "A second document starts here with one long sentence about nothing in particular.")
    blocks = make_sentence_blocks(texts, wordpiece, seq_len=32, seed=0)
    batch = blocks.batch(0, len(blocks))
    ids, attention = batch["input_ids"], batch["attention_mask"]
    assert (ids[:, 0] == wordpiece.cls_token_id).all()
    lengths = attention.sum(1)
    for row, n in zip(ids, lengths):
        assert row[n - 1] == wordpiece.sep_token_id and (row[n:] == wordpiece.pad_token_id).all()
    assert (attention == (ids != wordpiece.pad_token_id)).all() and lengths.min() < 32
    assert len(blocks) == 2  # one block per document: its sentences fit together


def test_a_share_of_sentence_blocks_lose_their_final_full_stop_as_people_type(wordpiece):
    from training.config import TrainConfig
    from training.data import drop_final_punctuation, make_sentence_blocks

    CLS, SEP, PAD, DOT = 101, 102, 0, 1012
    rows = torch.tensor([[CLS, 5, 6, DOT, SEP, PAD], [CLS, 5, 6, 7, SEP, PAD], [CLS, 5, DOT, 6, DOT, SEP]] * 20)
    none, every = (drop_final_punctuation(rows, share, {DOT}, SEP, PAD, seed=0) for share in (0.0, 1.0))
    assert torch.equal(none, rows)
    assert every[:3].tolist() == [[CLS, 5, 6, SEP, PAD, PAD], [CLS, 5, 6, 7, SEP, PAD], [CLS, 5, DOT, 6, SEP, PAD]]
    half = drop_final_punctuation(rows, 0.5, {DOT}, SEP, PAD, seed=0)
    changed = (half != rows).any(1)
    assert 10 <= int(changed.sum()) <= 30 and not changed[1::3].any()  # only blocks that ended with a mark
    assert torch.equal(half, drop_final_punctuation(rows, 0.5, {DOT}, SEP, PAD, seed=0))  # seeded

    texts = ("The chef cooked a meal for the guests. They ate it all. Then they went home happy!",
             "A second document starts here with one long sentence about nothing in particular.")
    plain = make_sentence_blocks(texts, wordpiece, seq_len=32, seed=0).ids
    typed = make_sentence_blocks(texts, wordpiece, seq_len=32, seed=0, unpunctuated=1.0).ids
    marks = {wordpiece.convert_tokens_to_ids(m) for m in (".", "!")}
    for before, after in zip(plain, typed):
        end = int((before == wordpiece.sep_token_id).nonzero()[0])
        assert int(before[end - 1]) in marks and int(after[end - 1]) not in marks
        assert after[end - 1] == wordpiece.sep_token_id and after[:end - 1].tolist() == before[:end - 1].tolist()
    with pytest.raises(ValueError, match="give mixed_sentences"):
        TrainConfig(mixed_seq_len=32, unpunctuated=0.5, max_steps=10)
    with pytest.raises(ValueError, match="from 0 to 1"):
        TrainConfig(mixed_seq_len=32, mixed_sentences=True, unpunctuated=1.5, max_steps=10)
