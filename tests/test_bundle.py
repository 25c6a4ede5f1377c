"""Token bundles (training/bundle.py): a corpus tokenized here that a race reads on a machine without its text.
Written once per module from the tests' small IMDB slice; a run on the bundle is the run on its corpus."""

from __future__ import annotations

import dataclasses
import json
import shutil

import numpy as np
import pytest
from conftest import N_DOCUMENTS, WORDPIECE

from training.bundle import is_bundle, read_bundle, read_header, read_sentiment
from training.config import TrainConfig
from training.data import cache_dir, load_sentiment, tokenize_stream
from training.race.settings import RaceLimits, RaceSettings
from training.trainer import train

pytestmark = pytest.mark.slow  # every test reads the bundle written from the tests' IMDB slice: seconds, once


def test_a_bundle_holds_the_stream_and_the_tokenizer_a_run_on_its_corpus_makes(bundle, imdb_texts, wordpiece):
    tokens = read_bundle(bundle, WORDPIECE)
    expected = tokenize_stream(imdb_texts, wordpiece, cache_dir())
    assert tokens.stream.dtype == np.uint16 and np.array_equal(tokens.stream, expected)
    header = tokens.header
    assert (header["corpus"], header["documents"], header["tokens"], header["vocab_size"]) == (
        "imdb", N_DOCUMENTS, len(expected), len(wordpiece))
    sentence = "The acting was wooden, but the score soared."
    assert tokens.tokenizer(sentence)["input_ids"] == wordpiece(sentence)["input_ids"]
    assert tokens.tokenizer.mask_token_id == wordpiece.mask_token_id and len(tokens.tokenizer) == len(wordpiece)
    long = len(tokens.tokenizer("word " * 600)["input_ids"])
    assert long == len(wordpiece("word " * 600)["input_ids"]) > 600  # no call's truncation saved into the file


def test_the_bundle_carries_the_probes_task_unchanged(bundle):
    assert read_sentiment(bundle) == load_sentiment()
    header = read_header(bundle)
    assert header["sentiment"] == {"train": len(load_sentiment().train), "test": len(load_sentiment().test)}


def test_a_torn_foreign_or_mismatched_bundle_is_refused_with_its_reason(bundle, tmp_path):
    with pytest.raises(ValueError, match="tokenized with 'wordpiece:1000', not 'wordpiece:8000'"):
        read_bundle(bundle, "wordpiece:8000")
    torn = tmp_path / "torn"
    shutil.copytree(bundle, torn)
    stream = bytearray((torn / "stream.npy").read_bytes())
    stream[-1] ^= 1
    (torn / "stream.npy").write_bytes(bytes(stream))
    with pytest.raises(ValueError, match="stream.npy does not match its checksum"):
        read_bundle(torn)
    shutil.copyfile(bundle / "stream.npy", torn / "stream.npy")
    (torn / "sentiment.json").unlink()
    with pytest.raises(ValueError, match="lacks sentiment.json"):
        read_sentiment(torn)
    (torn / "header.json").write_text(json.dumps({"schema": "something else"}))
    with pytest.raises(ValueError, match="not a token bundle"):
        read_header(torn)
    assert is_bundle(bundle) and not is_bundle(tmp_path) and not is_bundle(bundle / "header.json")


TINY = TrainConfig(objective="rtd", preset="tiny", corpus="imdb", tokenizer=WORDPIECE, max_documents=N_DOCUMENTS,
                   seq_len=64, batch_size=8, lr=2e-3, max_steps=3, log_every=1, checkpoint_every=1000, seed=0,
                   device="cpu")


def test_a_run_on_the_bundle_is_the_run_on_its_corpus(bundle, tmp_path):
    on_text = list(train(TINY, tmp_path / "text"))
    on_bundle = list(train(dataclasses.replace(TINY, corpus=str(bundle), max_documents=None), tmp_path / "bundle"))
    assert [e.loss for e in on_bundle] == [e.loss for e in on_text]
    assert [e.flops for e in on_bundle] == [e.flops for e in on_text]
    config = json.loads((tmp_path / "bundle" / "config.json").read_text())
    assert config["vocab_size"] == read_header(bundle)["vocab_size"]


@pytest.mark.parametrize("changes, message", [
    (dict(max_documents=5), "max_documents: needs the corpus's text"),
    (dict(max_documents=None, mixed_seq_len=32, mixed_sentences=True), "mixed_sentences: needs the corpus's text"),
    (dict(max_documents=None, tokenizer="bert-base-uncased"), "tokenized with 'wordpiece:1000'"),
])
def test_settings_a_bundle_cannot_honour_are_errors_that_name_them(bundle, tmp_path, changes, message):
    with pytest.raises(ValueError, match=message):
        next(train(dataclasses.replace(TINY, corpus=str(bundle), **changes), tmp_path))


def test_the_command_lines_race_may_read_a_bundle_and_probe_its_task_a_servers_may_not(bundle):
    settings = RaceSettings(preset="tiny", corpus=str(bundle), tokenizer=WORDPIECE, budget="steps", amount=5)
    settings.validate()
    settings.validate(RaceLimits(local_corpora=True))
    with pytest.raises(ValueError, match="unknown corpus"):
        settings.validate(RaceLimits())
    assert settings.probe_config().task == str(bundle)
    assert RaceSettings(preset="tiny").probe_config().task is None
    with pytest.raises(ValueError, match="unknown corpus"):
        dataclasses.replace(settings, corpus=f"imdb+{bundle}").validate()
