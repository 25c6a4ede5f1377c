"""What does a generator guess for a hidden word? Its top-k tokens on everyday sentences.

- `mask_word`: the sentence's input ids with every WordPiece token of one word replaced by
  [MASK] (found through the tokenizer's character offsets), and the masked positions.
- `top_guesses`: the generator's k most probable tokens, with their softmax probabilities, at
  the first masked position.
- `everyday_table`: `top_guesses` (k = 3) over a fixture of sentences, one row per sentence, with
  the hidden word's rank among all the generator's guesses; `assets/everyday_sentences.json` holds 8
  everyday, non-film ones. It shows what a generator trained on film reviews knows about the rest of
  the language, model against model; `everyday_hits` counts the rows whose word is in the top 3.

Left out: guesses for the later pieces of a multi-piece word (they would need the earlier pieces
filled in first; the first piece is the generator's own, unconditioned guess), sampling (the
training step draws from the distribution; here only its top is read), case-sensitive matching
(the bundled vocabulary is lowercase, so the word is found regardless of case) and slow
(pure-Python) tokenizers, which give no character offsets.

    python -m training guesses assets/model        # the table for a run folder, as JSON
    python -m training guesses assets/stronger-generator   # a generator saved alone
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import torch

from training import words
from training.project import ASSETS

EVERYDAY = ASSETS / "everyday_sentences.json"


def load_everyday(path: str | Path = EVERYDAY) -> list[dict[str, str]]:
    """The fixture: a list of {"sentence": ..., "word": ...}."""
    return json.loads(Path(path).read_text())


def _word_span(sentence: str, word: str) -> tuple[int, int]:
    """Character span of the first whole-word occurrence of `word` (not a part of a longer word)."""
    if not word.strip():
        raise ValueError("the word to mask is empty")
    # \w-lookarounds rather than \b: \b fails next to a word that itself starts or ends with
    # punctuation ("don't", "(film)"), and "car" must not match inside "cart".
    match = re.search(rf"(?<!\w){re.escape(word.strip())}(?!\w)", sentence, flags=re.IGNORECASE)
    if match is None:
        raise ValueError(f"the word {word!r} is not a whole word of the sentence {sentence!r}")
    return match.span()


def mask_word(tokenizer, sentence: str, word: str, max_length: int | None = None) -> tuple[torch.Tensor, list[int]]:
    """(input ids (1, T) with [MASK] on every token of `word`'s first occurrence, their positions).

    Tokens are matched by their character offsets, so a word the tokenizer splits into pieces
    ("un", "##bel", ...) is hidden whole: leaving a piece visible would give the answer away.
    """
    start, end = _word_span(sentence, word)
    aligned = words.align(tokenizer, sentence, max_length)  # TypeError for a tokenizer without offsets
    input_ids = torch.tensor([aligned.input_ids])
    # Overlap, not containment: a token that runs past the word's edge still carries part of it.
    positions = aligned.tokens_in(start, end)
    if not positions:
        # Truncated away, or made only of characters the tokenizer drops (control characters).
        raise ValueError(f"the word {word!r} has no token in the tokenized sentence {sentence!r}"
                         + (f" (first {max_length} tokens)" if max_length is not None else ""))
    input_ids[0, positions] = tokenizer.mask_token_id
    return input_ids, positions


def _probs_at(generator, input_ids: torch.Tensor, position: int) -> torch.Tensor:
    """The generator's softmax (V,) at `position` of `input_ids` (1, T), in float32."""
    was_training = generator.training
    generator.eval()  # dropout off: the same sentence must always give the same guesses
    try:
        with torch.no_grad():
            logits = generator(input_ids=input_ids, attention_mask=torch.ones_like(input_ids)).logits[0, position]
    finally:
        generator.train(was_training)  # leave the caller's model as it was given
    # float32 whatever the weights' dtype: a half-precision softmax flattens the small probabilities.
    return torch.softmax(logits.float(), dim=-1)


def _top(tokenizer, probs: torch.Tensor, k: int) -> list[tuple[str, float]]:
    top = torch.topk(probs, k)
    return list(zip(words.readable_ids(tokenizer, top.indices.tolist()), top.values.tolist()))


def top_guesses(generator, tokenizer, sentence: str, word: str, k: int = 3) -> list[tuple[str, float]]:
    """The generator's k most probable tokens at the first piece of the masked `word`, best first.

    Raises ValueError if `word` is not a whole word of `sentence`, or if k is not in 1..vocabulary.
    """
    vocab_size = generator.config.vocab_size
    if not 1 <= k <= vocab_size:
        raise ValueError(f"k must be between 1 and the vocabulary size ({vocab_size}), got {k}")
    input_ids, positions = mask_word(tokenizer, sentence, word, max_length=generator.config.max_position_embeddings)
    return _top(tokenizer, _probs_at(generator, input_ids, positions[0]), k)


def everyday_table(generator, tokenizer, items: Iterable[Mapping[str, str]]) -> list[dict]:
    """One row per item: the sentence, the masked word and its pieces, the top-3 guesses, and the rank of the
    word's first piece among all the generator's guesses (1 = its best guess)."""
    rows = []
    for item in items:
        sentence, word = item["sentence"], item["word"]
        input_ids, positions = mask_word(tokenizer, sentence, word, max_length=generator.config.max_position_embeddings)
        original = tokenizer(sentence)["input_ids"]
        probs = _probs_at(generator, input_ids, positions[0])
        rows.append({
            "sentence": sentence,
            "word": word,
            # The guesses are for the first piece only: name the pieces so that a reader can tell.
            "pieces": words.readable_ids(tokenizer, [original[p] for p in positions]),
            "guesses": [{"token": token, "probability": p} for token, p in _top(tokenizer, probs, 3)],
            "rank": int((probs > probs[original[positions[0]]]).sum()) + 1,
        })
    return rows


def everyday_hits(rows: list[dict]) -> int:
    """Rows of `everyday_table` whose hidden word's first piece is among the generator's three guesses."""
    return sum(row["pieces"][0] in {g["token"] for g in row["guesses"]} for row in rows)


if __name__ == "__main__":  # the older spelling, handed to the one parser: python -m training guesses ...
    from training.__main__ import main

    main(["guesses", *sys.argv[1:]])
