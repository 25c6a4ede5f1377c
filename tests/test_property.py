"""Random Unicode through the whole pipeline (hypothesis): it never fails except with its own clear
InputError, and the words it shows map back to the text exactly.

What "exactly" means, checked on every example:
- every word is `text[start:end]`, words are in order and do not overlap, and only whitespace or
  characters the tokenizer drops lie between them (nothing the model read is left out of a word);
- a word is a run of tokens with no whitespace between them (training.words: cut where punctuation meets
  letters), widened to the whitespace or the next word on both sides (no whitespace between its tokens or in
  the widening; a token itself may span a character Python calls whitespace but the tokenizer drops, like a
  form feed);
- every non-special token lies inside the one word it is assigned to;
- in detect-only mode a word is shown exactly as typed; in automatic mode the unchanged ones are;
- the result is JSON-able, as /explain returns it.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from explainer.core.pipeline import Settings, explain
from explainer.core.text import InputError

PIECES = ["the", "chef", "café", "cafe\u0301", "naïve", "don't", "(film)", "3.14", "\U0001f355",
          "\U0001f468\u200d\U0001f469", "\u0645\u0631\u062d\u0628\u0627", "\u05e9\u05dc\u05d5\u05dd", "\u4e2d\u6587",
          "<script>", "\u202e", "\u200b", "\x00", "\u0301", "\ufffd", " ", "  ", "\n", "\t", "\u3000", "\u00a0",
          "\u2028", "\x1c"]
# Arbitrary code points (no surrogates: a str from a browser or JSON never holds one), and sentences
# built from awkward pieces, so both noise and near-real text are drawn.
TEXTS = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=120),
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=30).map(" ".join),
)
MESSAGES = ("Type a sentence first: the text box is empty.", "Nothing to judge: the tokenizer drops every character")


def dropped(tokenizer, chars: str) -> bool:
    """True if the tokenizer reads nothing at all in `chars` (only [CLS] and [SEP] come out)."""
    return len(tokenizer(chars)["input_ids"]) == 2


def check_words_map_back(result, tokenizer) -> None:
    text, words = result.text, result.words
    previous_end = 0
    starts, ends = {w.start for w in words}, {w.end for w in words}
    for word in words:
        assert 0 <= previous_end <= word.start < word.end <= len(text)
        assert text[word.start:word.end] == word.text
        pieces = [result.tokens[p] for p in word.tokens]
        bounds = [word.start, *(x for t in pieces for x in (t.start, t.end)), word.end]
        between = [text[a:b] for a, b in zip(bounds[::2], bounds[1::2])]  # around and between its tokens
        assert not any(c.isspace() for part in between for c in part), (repr(word.text), between)
        assert word.start == 0 or text[word.start - 1].isspace() or word.start in ends  # touching the word before
        assert word.end == len(text) or text[word.end].isspace() or word.end in starts
        gap = text[previous_end:word.start]
        assert all(c.isspace() for c in gap) or dropped(tokenizer, gap), repr(gap)
        previous_end = word.end
    for token in result.tokens:
        if token.special:
            assert token.word is None
            continue
        word = words[token.word]
        assert token.position in word.tokens and word.start <= token.start <= token.end <= word.end
    assert sorted(p for w in words for p in w.tokens) == [t.position for t in result.tokens if not t.special]
    if not result.truncated:  # the rest of the text was read and dropped, or is whitespace
        tail = text[previous_end:]
        assert all(c.isspace() for c in tail) or dropped(tokenizer, tail), repr(tail)


@settings(max_examples=50, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, seed=st.integers(0, 2**31), detect=st.booleans())
@example(text="cafe\u0301 Z\u0334a\u0337l\u0338g\u0335o\u0336 \u202eevil\u202c", seed=0, detect=True)
@example(text="\u0301 \ufffd the\x1cfilm \x00", seed=0, detect=False)
@example(text="0\x0c\xb8", seed=0, detect=False)
def test_random_unicode_never_breaks_the_pipeline(tiny_pair, text, seed, detect):
    try:
        result = explain(tiny_pair, text, Settings(mode="detect" if detect else "auto", seed=seed))
    except InputError as error:  # the pipeline's own refusals, with its own messages
        assert str(error).startswith(MESSAGES), str(error)
        assert not text.strip() or dropped(tiny_pair.tokenizer, text)
        return
    check_words_map_back(result, tiny_pair.tokenizer)
    for word in result.words:
        unchanged = all(result.tokens[p].corrupted == result.tokens[p].original for p in word.tokens)
        if detect or unchanged:
            assert word.corrupted == word.text
    json.dumps(result.to_dict(), ensure_ascii=False)
