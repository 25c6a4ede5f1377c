"""User text -> tokens with character offsets, and tokens -> words that map back to the text exactly.

The checks a user meets before any model runs live here: empty or whitespace-only input, text
made only of invisible characters, text longer than the model reads (truncated, with a notice),
characters the vocabulary does not know (emoji, some scripts: shown as [UNK], with a notice).

Words are training.words' (the one alignment of characters, words and tokens): "arrived." is two words,
"arrived" and ".", "chef's" one of three tokens, and `text[word.start:word.end] == word.text` always holds; the
characters the tokenizer drops (a combining accent, a zero-width joiner) stay in their word.
A blank the user types, "[MASK]" in any case and with spaces inside the brackets or none around them
("[mask]", "[ Mask ]", "of[MASK]before"), is read as the vocabulary's mask token, a word of its own: the
generator fills it (explainer/core/pipeline.py). `cased_like` gives a fake drawn from an uncased vocabulary the
capitals of the word it replaced, for display.
Left out: sentence splitting, pair inputs (token type 1).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import torch

from training import words
from training.offensive import blocked_token_ids
from training.words import Word

MAX_CHARS = 20_000  # read at most this much text; far beyond any model's 512 tokens
TYPED_BLANK = re.compile(r"\[\s*mask\s*\]", re.IGNORECASE)  # a blank as people type it


class InputError(ValueError):
    """Text the explainer cannot judge; the message is meant for the user, as is."""


@dataclass(frozen=True)
class Encoded:
    text: str  # the user's text (capped at MAX_CHARS); offsets index into it
    input_ids: tuple[int, ...]  # (T,) with [CLS] ... [SEP]
    offsets: tuple[tuple[int, int], ...]  # (T,) character span of each token; (0, 0) for specials
    special: tuple[bool, ...]  # (T,) [CLS]/[SEP]
    truncated: bool  # the text had more tokens than the model reads
    notices: tuple[str, ...]  # what the user should know about how the text was read
    kinds: tuple[str, ...] = ()  # (T,) training.words: special, word, piece or punctuation
    words: tuple[Word, ...] = ()  # the text's words (training.words.group)


def is_invisible(char: str) -> bool:
    """Zero-width spaces/joiners, bidi controls, BOM: format (Cf) and control (Cc) characters."""
    return unicodedata.category(char) in ("Cf", "Cc") and not char.isspace()


def visible(text: str) -> str:
    """Text for display: invisible and direction-changing characters removed."""
    return "".join(c for c in text if not is_invisible(c))


def encode(tokenizer, text: str, max_tokens: int) -> Encoded:
    """Tokenize with offsets, truncating to `max_tokens` ([CLS] and [SEP] included)."""
    if not getattr(tokenizer, "is_fast", False):
        raise InputError("This model's tokenizer cannot map tokens back to characters (not a fast tokenizer).")
    text = text or ""
    notices = []
    if len(text) > MAX_CHARS:
        notices.append(f"The text was cut to its first {MAX_CHARS:,} characters before reading.")
        text = text[:MAX_CHARS]
    if not text.strip():
        raise InputError("Type a sentence first: the text box is empty.")
    text, rewritten = typed_blanks(text, tokenizer.mask_token)
    if rewritten:
        notices.append(f"Each blank you typed is read as {tokenizer.mask_token}, a word of its own.")
    aligned = words.align(tokenizer, text, max_tokens)
    ids, offsets, truncated = aligned.input_ids, aligned.offsets, aligned.truncated
    if all(aligned.special):
        raise InputError("Nothing to judge: the tokenizer drops every character of this text (invisible "
                         "zero-width or control characters, lone accents, unreadable symbols).")
    if truncated:
        used = max(end for _, end in offsets)
        notices.append(f"The text is longer than this model reads at once ({max_tokens} tokens): only the first "
                       f"{used:,} of {len(text):,} characters are judged; the rest is ignored.")
    unknown = sum(i == tokenizer.unk_token_id for i in ids)
    if unknown:
        notices.append(f"{unknown} token(s) are unknown to this model's vocabulary (emoji or other scripts) and "
                       f"are read as {tokenizer.unk_token}.")
    if any(is_invisible(c) for c in text):
        notices.append("Invisible characters (zero-width or direction marks) were ignored.")
    return Encoded(text, ids, offsets, aligned.special, truncated, tuple(notices), aligned.kinds, aligned.words)


def typed_blanks(text: str, mask_token: str | None) -> tuple[str, bool]:
    """(the text with every typed blank written as `mask_token` and kept apart from the letters around it,
    whether anything changed). A vocabulary without a mask token leaves the text as it is."""
    if not mask_token:
        return text, False
    written = TYPED_BLANK.sub(lambda match: "{}{}{}".format(*_sides(text, match, mask_token)), text)
    return written, written != text


def _sides(text: str, match: re.Match, mask_token: str) -> tuple[str, str, str]:
    """A typed blank as read: a space before it after a letter or digit, the mask token, a space after it before one."""
    before = " " if match.start() > 0 and text[match.start() - 1].isalnum() else ""
    after = " " if match.end() < len(text) and text[match.end()].isalnum() else ""
    return before, mask_token, after


def read_places(text: str, mask_token: str | None) -> tuple[int, ...]:
    """Where each character of `text`, and its end, stands in the text as read (`typed_blanks`): every character of
    a typed blank at its mask token. Never decreasing, so a place in the text as read goes back by bisection."""
    places, shift, cursor = [], 0, 0
    for match in TYPED_BLANK.finditer(text) if mask_token else ():
        before, token, after = _sides(text, match, mask_token)
        places += range(cursor + shift, match.start() + shift)
        places += [match.start() + shift + len(before)] * (match.end() - match.start())
        shift += len(before) + len(token) + len(after) - (match.end() - match.start())
        cursor = match.end()
    return tuple(places + list(range(cursor + shift, len(text) + shift + 1)))


def cased_like(drawn: str, word: str, at_start: bool) -> str:
    """A fake from an uncased vocabulary with the capitals of the word it went into (display only): ALL CAPS when
    the whole word is (two letters or more); a capital first letter when it brings the word's first letter
    (`at_start`) and the word starts with one ("Sally" at a sentence's start, "McDonald"); else as drawn (a piece
    inside "iPhone")."""
    letters = [c for c in word if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return drawn.upper()
    if at_start and letters and letters[0].isupper():
        index = next((i for i, c in enumerate(drawn) if c.isalpha()), None)
        if index is not None:
            return drawn[:index] + drawn[index].upper() + drawn[index + 1:]
    return drawn


def as_read(word: Word, pieces, text: str, drawn_kinds) -> str:
    """`word` as the discriminator read it, from its tokens (explainer.core.pipeline.Token) and the kind of each
    token it read (by position). Unchanged tokens keep the user's own spelling (case, accents), with the
    characters the tokenizer dropped around them; a replaced one shows its fake, with the capitals of the text it
    replaced (`cased_like`; a filled blank none): a piece that stands first is written as one, as drawn ("-hini";
    "-ution.S." for "U.S.", never "-UTION.S.": it names a piece of the vocabulary, it spells nothing), a piece after
    others joins them ("fisher" + "-s" = "fishers"), and a whole word drawn for a piece stands apart ("fisher dog"):
    what the discriminator read, never two words glued."""
    parts, cursor, after_replaced = [], word.start, False
    for n, t in enumerate(pieces):
        if not after_replaced:
            parts.append(text[cursor:t.start])
        changed = t.corrupted != t.original
        kind = drawn_kinds[t.position]
        if not changed:
            parts.append(text[t.start:t.end])
        elif t.blank:
            parts.append(t.corrupted)
        elif kind == words.PIECE and n == 0:  # a word's ending standing first, as the guesses list it: "-ution"
            parts.append(t.corrupted)  # as drawn: "U.S." gives "-ution.S.", never "-UTION.S."
        else:
            drawn = t.corrupted.removeprefix(words.PIECE_MARK) if kind == words.PIECE else t.corrupted
            at_start = not any(c.isalpha() for part in parts for c in part)  # no letter shown before this piece
            apart = " " if kind == words.WORD and n > 0 and t.original.startswith(words.PIECE_MARK) else ""
            parts.append(apart + cased_like(drawn, word.text, at_start))
        cursor, after_replaced = t.end, changed
    if not after_replaced:
        parts.append(text[cursor:word.end])
    return "".join(parts)


_BLOCKED: dict[tuple[int, int], torch.Tensor] = {}


def blocked_ids(tokenizer) -> torch.Tensor:
    """The vocabulary's tokens the generator must never show (offensive words: training.offensive),
    found once per tokenizer."""
    key = (id(tokenizer), len(tokenizer))
    if key not in _BLOCKED:
        _BLOCKED[key] = torch.tensor(blocked_token_ids(tokenizer.get_vocab()), dtype=torch.long)
    return _BLOCKED[key]


def follow_words(before: list[str] | tuple[str, ...], ticked, after: list[str] | tuple[str, ...]) -> list[int]:
    """The ticks on the words `before` (indices), moved onto the same words in `after`: a tick on "coffee" stays on
    "coffee" wherever it now stands, and goes when the word is gone. The k-th "the" ticked goes to the k-th "the"
    (or the last one left); case and the punctuation around a word are ignored ("Arrived." is "arrived")."""
    def key(word: str) -> str:
        shown = visible(word).strip()
        return (shown.strip(".,;:!?\"'()[]{}“”‘’«»…-—") or shown).lower()  # punctuation alone is its own key

    places: dict[str, list[int]] = {}
    for i, word in enumerate(after):
        places.setdefault(key(word), []).append(i)
    moved = []
    for i in sorted({int(t) for t in ticked or () if 0 <= int(t) < len(before)}):
        word = key(before[i])
        rank = sum(key(w) == word for w in before[:i])
        spots = places.get(word, [])
        free = [p for p in spots[min(rank, len(spots) - 1):] + spots[::-1] if p not in moved]
        if word and free:
            moved.append(free[0])
    return sorted(moved)
