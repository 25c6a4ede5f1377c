"""Tokens by kind (training.words: special, word, piece, punctuation) for the pipeline: the vocabulary's kinds
found once per tokenizer, the rows of a draw limited to the original's kind, and the tokens that stand alone.

The game and the live class draw each fake from the generator's own softmax limited to tokens of the kind it
replaces (a word for a word, punctuation for punctuation), so a student judges a word, never
"," for "opens"; Explore draws from the whole vocabulary, as ELECTRA does. They also mask only tokens that are a
word by themselves (`standing_alone`), so a fake is never glued to the rest of a longer word ("w" of "windowsill"
-> "throughindowsill").
"""

from __future__ import annotations

import torch

from training import words

NAMES = (words.WORD, words.PIECE, words.PUNCTUATION, words.SPECIAL)
_KINDS: dict[tuple[int, int], tuple[str, ...]] = {}
_NUMBERED: dict[tuple[int, int], torch.Tensor] = {}


def token_kinds(tokenizer) -> tuple[str, ...]:
    """The kind of every vocabulary token, by id; found once per tokenizer."""
    key = (id(tokenizer), len(tokenizer))
    if key not in _KINDS:
        _KINDS[key] = tuple(words.vocabulary_kinds(tokenizer))
    return _KINDS[key]


def other_kinds(tokenizer, sentences: list[tuple[torch.Tensor, torch.Tensor, bool]]) -> torch.Tensor:
    """(M, V) bool over the rows of a draw, sentence after sentence; `sentences`: (original ids at its rows (M_i,),
    typed blanks at them (M_i,), whether it keeps to kinds). True at a token of another kind than the row's
    original (a typed blank takes a word) in a sentence that keeps to kinds; False everywhere else."""
    key = (id(tokenizer), len(tokenizer))
    if key not in _NUMBERED:
        _NUMBERED[key] = torch.tensor([NAMES.index(k) for k in token_kinds(tokenizer)])
    vocabulary = _NUMBERED[key]  # (V,) each token's kind, as its index in NAMES
    rows = []
    for original, blank, same_kind in sentences:
        wanted = vocabulary[original].masked_fill(blank, NAMES.index(words.WORD))  # (M_i,)
        rows.append(vocabulary[None] != wanted[:, None] if same_kind
                    else torch.zeros((len(original), len(vocabulary)), dtype=torch.bool))
    return torch.cat(rows)


def standing_alone(kinds: tuple[str, ...], sentence_words: tuple[words.Word, ...]) -> torch.Tensor:
    """(T,) bool over a sentence's tokens (`kinds` per token): True at a whole word by itself ("the", "dog") or a
    punctuation mark (","), the one token of its word; False inside a word of several tokens ("window" "##sill",
    "chef" "'" "s", "3" "." "50"), and at specials."""
    alone = torch.zeros(len(kinds), dtype=torch.bool)
    for word in sentence_words:
        if len(word.tokens) == 1 and kinds[word.tokens[0]] in (words.WORD, words.PUNCTUATION):
            alone[word.tokens[0]] = True
    return alone
