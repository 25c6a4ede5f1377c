"""Tokens by kind (training.words: special, word, piece, punctuation) for the pipeline: the vocabulary's kinds
found once per tokenizer, the rows of a draw limited to fair fakes, and the tokens that stand alone.

The game and the live class draw each fake from the generator's own softmax limited to tokens a student can judge
in place of the original (`unfair_fakes`): punctuation for punctuation, a number (digits) for a number, and for any
other word an English word (training.lexicon: letters, a vowel, a spell-checker's dictionary), so never "," for
"opens", "st" for "school" or "15" for "milk"; the original itself may always be drawn back. Explore draws from the
whole vocabulary, as ELECTRA does, less what no draw shows (offensive words, [UNK], "[unused667]":
explainer.core.internals). They also mask only tokens that are a word by themselves (`standing_alone`), so a
fake is never glued to the rest of a longer word ("w" of "windowsill" -> "throughindowsill").
"""

from __future__ import annotations

import torch

from training import lexicon, words

# What a fake may be, per token: a word's form (training.lexicon) or the token's kind.
FORMS = (lexicon.ENGLISH, lexicon.NUMBER, lexicon.OTHER, words.PIECE, words.PUNCTUATION, words.SPECIAL)
# The form of fake each form of original takes: an odd word ("bbc", "1st") gets an English word.
# A special original (an emoji read as [UNK]) takes an English word: no special is ever drawn (core.internals).
FAIR = torch.tensor([FORMS.index(f) for f in (lexicon.ENGLISH, lexicon.NUMBER, lexicon.ENGLISH, words.PIECE,
                                              words.PUNCTUATION, lexicon.ENGLISH)])
_KINDS: dict[tuple[int, int], tuple[str, ...]] = {}
_FORMS: dict[tuple[int, int], torch.Tensor] = {}


def token_kinds(tokenizer) -> tuple[str, ...]:
    """The kind of every vocabulary token, by id; found once per tokenizer."""
    key = (id(tokenizer), len(tokenizer))
    if key not in _KINDS:
        _KINDS[key] = tuple(words.vocabulary_kinds(tokenizer))
    return _KINDS[key]


def token_forms(tokenizer) -> torch.Tensor:
    """(V,) every vocabulary token's form, as its index in FORMS: a word's lexicon form, else its kind."""
    key = (id(tokenizer), len(tokenizer))
    if key not in _FORMS:
        tokens = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
        _FORMS[key] = torch.tensor([FORMS.index(lexicon.form_of(token or "") if kind == words.WORD else kind)
                                    for token, kind in zip(tokens, token_kinds(tokenizer))])
    return _FORMS[key]


def unfair_fakes(tokenizer, sentences: list[tuple[torch.Tensor, torch.Tensor, bool]]) -> torch.Tensor:
    """(M, V) bool over the rows of a draw, sentence after sentence; `sentences`: (original ids at its rows (M_i,),
    typed blanks at them (M_i,), whether it draws fair fakes). True at a token that is not a fair fake for the
    row's original (FAIR; a typed blank takes an English word) in a sentence that draws fair fakes, the original
    itself excepted; False everywhere else."""
    vocabulary = token_forms(tokenizer)  # (V,)
    rows = []
    for original, blank, fair in sentences:
        if not fair:
            rows.append(torch.zeros((len(original), len(vocabulary)), dtype=torch.bool))
            continue
        wanted = FAIR[vocabulary[original]].masked_fill(blank, FORMS.index(lexicon.ENGLISH))  # (M_i,)
        unfair = vocabulary[None] != wanted[:, None]  # (M_i, V)
        kept = (~blank).nonzero().squeeze(-1)
        unfair[kept, original[kept]] = False  # drawing the original back is always fair
        rows.append(unfair)
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
