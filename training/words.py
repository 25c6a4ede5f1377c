"""Characters, words and tokens mapped to each other, from the tokenizer's own character offsets.

The one place that asks a tokenizer for offsets (`align`) and decides what a word is (`group`); the
Explorer, the game, the live class, the API, the command line and the cloze, guesses and rarity
measures all read words from here.

A token is of one of four kinds (`kind_of`): a special token ([CLS], [SEP], [PAD]), a *piece* that
continues the word before it (WordPiece's "##ing"), *punctuation* (every character a punctuation mark,
or an ASCII symbol, as BERT's pre-tokenizer splits them), or a *word* (it starts a word: "the", "3",
an emoji read as [UNK]).

A word, as people read it, is a run of tokens with no whitespace between them, cut where
punctuation meets letters: "arrived." is two words, "arrived" and ".", so a fake that replaced the
full stop is a word of its own and masking the stop never hides "arrived". Punctuation *inside* a
word stays in it: an apostrophe or a hyphen between letters ("chef's", "well-known"), a point, comma,
colon or slash between digits ("3.5", "1,000", "9:30"), an ampersand between letters ("R&D", "AT&T").
Every character that is not whitespace belongs to exactly one word, the characters the tokenizer drops
included (a combining accent after a letter, a zero-width joiner): `text[word.start:word.end] == word.text`.

Some shapes are one word as people read them, found on the text itself (`glued`), whatever its tokens:
- a web address ("https://example.com/a?b=1", "www.example.com", "example.com/page") or an email address
  ("ann.lee@example.org"), never with the mark that ends a sentence after it;
- an initialism, single letters each followed by a point ("U.S.", "e.g.", "a.m."), its last point
  included even where it ends the sentence ("in the U.S."): after a word of several letters a point is
  the sentence's own ("arrived" + ".");
- a common abbreviation with its point, from a short list (ABBREVIATIONS: "Dr.", "Mrs.", "St.", "etc.", "vs.",
  "Inc."...), written as listed, or capitalised where the list has it in small letters ("Etc.", as a
  sentence may start); "No." and the months ("Jan.", "Sept."; not "May") only before a number ("No. 5",
  "Jan. 5": "no" and "Jan" also end sentences as a word and a name); "al." only after "et" ("et al.");
  and a degree, a dotted run of capitals each with up to three small letters, one of them a capital alone
  ("Ph.D.", "M.Sc.", "D.Phil."). As with an initialism, the point doubles as the sentence's own at its
  end ("so on, etc." ends with the word "etc."); a sentence that ends after one ("I met Dr. Smith.")
  keeps its own point ("Dr.", "Smith", ".");
- an amount: a currency sign directly before a number ("$3.50", "€5", "£1,000"), a sign before a number
  ("-3", "+2"), a number with a leading point (".5") or a percent sign directly after it ("10%");
- "#tag", "@user", "C++", "C#", and the contractions "'n'" ("rock 'n' roll") and "'90s".
A glued shape then acts as one word token: a joiner between it and a word joins them ("U.S.-based",
"U.S.'s"), a piece continues it, and a mark or a word right after its own mark stays apart ("$3.50" + ".",
"10%" + "off", "U.S." + "[MASK]", "US" + "$5"). Times, ordinals and ratios ("9:30am", "21st", "50/50") are
one word by the rules above already. Left out: abbreviations not in the list ("Gen.", "Rev.", "dept.": their
point is a word of its own, "Gen" + "."), the list in capitals ("DR."), contractions that open with an
apostrophe ("'em", "'til" read as "'" + "em"), web addresses without "http", "www." or a common ending (.com,
.org, .net, .edu, .gov, .io).

`readable` writes a token for people: a piece as "-ing" (never "##ing"), everything else as it is.
Left out: tokenizers without character offsets (slow ones), and pair inputs (token type 1).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import torch

SPECIAL, WORD, PIECE, PUNCTUATION = "special", "word", "piece", "punctuation"
PIECE_MARK = "-"  # how a piece is written for people: "-ing", "-s"
JOINERS = frozenset("'’‘-‐‑–")  # punctuation that stays inside a word between letters: chef's, well-known
NUMBER_JOINERS = frozenset(".,:/")  # ... and between digits: 3.5, 1,000, 9:30, 24/7
LETTER_JOINERS = frozenset("&")  # ... and between letters: R&D, AT&T
_URL_CHAR = r"[^\s<>\"'()\[\]{}“”‘’«»—–…]"  # a character a web address holds
_PATH = rf"{_URL_CHAR}*(?![.,;:!?-]){_URL_CHAR}"  # the rest of one, ending with no sentence's mark
_LABEL = r"\w+(?:-+\w+)*"  # a part of a domain name: "example", "my-site"
_NUMBER = r"(?:\d+(?:[.,:/]\d+)*|\.\d+)"  # 3, 3.50, 1,000, 9:30, .5
_CURRENCY = "$£€¥₹¢"
# Abbreviations read as one word with their point (see the module's docstring for the case rules).
ABBREVIATIONS = frozenset({
    "Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Jr", "Sr",  # titles, and "St." for a saint or a street
    "Inc", "Ltd", "Co", "Corp", "Mt", "Ave", "Fig",  # firms, places, figures
    "etc", "vs", "approx", "cf",
})
BEFORE_A_NUMBER = frozenset({  # ... only before a number: "No. 5", "Jan. 5", "Sept. 2020"
    "No", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec",
})


def _written(forms: frozenset[str]) -> str:
    """The forms as a regex alternation, each as listed and, where it opens with a small letter, capitalised."""
    written = {f for form in forms for f in (form, form[0].upper() + form[1:])}
    return "|".join(sorted(written, key=lambda f: (-len(f), f)))  # the longest first: "Mrs" before "Mr"


_DEGREE_PART = r"[A-Z][a-z]{0,3}\."  # "Ph.", "D.", "Sc."
GLUED = re.compile("|".join((  # the shapes that are one word as people read them; the first that fits wins
    rf"(?:https?://|www\.){_PATH}",  # web address
    rf"(?<![\w.+-])[\w.+-]+@{_LABEL}(?:\.{_LABEL})+",  # email address
    rf"(?<![\w.@/-])(?:{_LABEL}\.)+(?:com|org|net|edu|gov|io)(?![\w-])(?:/(?:{_PATH})?)?",  # example.com
    r"(?<![\w.])(?:[^\W\d_]\.){2,}(?!\w)",  # initialism: U.S., e.g., a.m.
    rf"(?<![\w.])(?:(?:{_written(ABBREVIATIONS)})\.(?!\w)|(?:{_written(BEFORE_A_NUMBER)})\.(?=\s*\d)"
    r"|(?<=\b[Ee]t )al\.(?!\w))",  # Dr., etc., No. 5, Jan. 5, et al.
    rf"(?<![\w.])(?=(?:{_DEGREE_PART}){{2,}}(?!\w))(?:{_DEGREE_PART})*[A-Z]\.(?:{_DEGREE_PART})*(?!\w)",  # Ph.D.
    rf"(?:(?<![\w.])[-+−])?[{_CURRENCY}]{_NUMBER}",  # $3.50, €5, -$2
    rf"(?<![\w.])(?:[-+−]{_NUMBER}%?|\.\d+%?|{_NUMBER}%)",  # -3, .5, 10%
    r"(?<![\w+#])[A-Za-z](?:\+\+|#)(?![\w+#])",  # C++, C#
    r"(?<![\w@#])[#@]\w+",  # #tag, @user
    r"(?<!\w)['’](?:n['’]|\d0s)(?!\w)",  # rock 'n' roll, the '90s
)))


@dataclass(frozen=True)
class Word:
    index: int
    start: int  # character span in the text
    end: int
    text: str  # == text[start:end]
    tokens: tuple[int, ...]  # token positions, in order
    punctuation: bool = False  # made only of punctuation ("." or "?!")


@dataclass(frozen=True)
class Alignment:
    """A text as a tokenizer read it: its tokens' spans and kinds, and its words."""

    text: str
    input_ids: tuple[int, ...]  # (T,) with [CLS] ... [SEP]
    offsets: tuple[tuple[int, int], ...]  # (T,) character span of each token; (0, 0) for specials
    kinds: tuple[str, ...]  # (T,) SPECIAL, WORD, PIECE or PUNCTUATION
    words: tuple[Word, ...]
    truncated: bool  # the text had more tokens than `max_length`

    @property
    def special(self) -> tuple[bool, ...]:
        return tuple(k == SPECIAL for k in self.kinds)

    def word_of(self) -> dict[int, int]:
        """{token position: index of its word}; specials have none."""
        return {position: word.index for word in self.words for position in word.tokens}

    def tokens_in(self, start: int, end: int) -> list[int]:
        """Positions of the tokens that overlap the characters [start, end) (a token that runs past an edge
        still carries part of the span)."""
        return [i for i, (a, b) in enumerate(self.offsets) if b > a and a < end and b > start]


def piece_prefix(tokenizer) -> str:
    """The mark the vocabulary puts before a piece that continues a word ("##" for WordPiece)."""
    model = getattr(getattr(tokenizer, "backend_tokenizer", None), "model", None)
    return getattr(model, "continuing_subword_prefix", None) or "##"


def is_punctuation(text: str) -> bool:
    """Every character a punctuation mark (Unicode P*) or an ASCII symbol ("$", "+"): what BERT's
    pre-tokenizer splits off as a token of its own. Emoji and other symbols are not."""
    return bool(text) and all(unicodedata.category(c).startswith("P") or (c.isascii() and not c.isalnum()
                                                                          and not c.isspace()) for c in text)


def kind_of(token: str, prefix: str = "##", special: bool = False) -> str:
    """SPECIAL, PIECE, PUNCTUATION or WORD for one vocabulary token."""
    if special:
        return SPECIAL
    if prefix and token.startswith(prefix) and len(token) > len(prefix):
        return PIECE
    return PUNCTUATION if is_punctuation(token) else WORD


def readable(token: str, prefix: str = "##") -> str:
    """A token as people read it: "##ing" -> "-ing"; a word, punctuation or [MASK] as it is."""
    if prefix and token.startswith(prefix) and len(token) > len(prefix):
        return PIECE_MARK + token[len(prefix):]
    return token


def vocabulary_kinds(tokenizer) -> list[str]:
    """The kind of every token id of the vocabulary (`kind_of`), in id order."""
    prefix, specials = piece_prefix(tokenizer), set(tokenizer.all_special_ids)
    kinds = [WORD] * len(tokenizer)
    for token, index in tokenizer.get_vocab().items():
        bracketed = token.startswith("[") and token.endswith("]") and len(token) > 2  # [unused3] and the like
        kinds[index] = kind_of(token, prefix, index in specials or bracketed)
    return kinds


def kind_mask(tokenizer, kind: str) -> torch.Tensor:
    """(V,) bool: True where a vocabulary token is of `kind`."""
    return torch.tensor([k == kind for k in vocabulary_kinds(tokenizer)], dtype=torch.bool)


def align(tokenizer, text: str, max_length: int | None = None) -> Alignment:
    """`text` through `tokenizer` (a fast one: it reports offsets), truncated to `max_length` tokens when given.
    A fast tokenizer keeps its truncation settings in its shared Rust object, set per call: a caller that shares
    it between threads holds its lock around this call (and only this one)."""
    if not getattr(tokenizer, "is_fast", False):
        raise TypeError("words need a fast tokenizer: only those report character offsets")
    encoding = tokenizer(text, return_offsets_mapping=True, return_special_tokens_mask=True,
                         truncation=max_length is not None, max_length=max_length,
                         return_overflowing_tokens=max_length is not None)
    rows = encoding["input_ids"]
    nested = bool(rows) and isinstance(rows[0], list)  # one row per window when overflow was asked for
    ids = rows[0] if nested else rows
    offsets = encoding["offset_mapping"][0] if nested else encoding["offset_mapping"]
    special = encoding["special_tokens_mask"][0] if nested else encoding["special_tokens_mask"]
    prefix = piece_prefix(tokenizer)
    tokens = tokenizer.convert_ids_to_tokens(ids)
    kinds = tuple(kind_of(token, prefix, bool(s)) if not (not s and token == tokenizer.unk_token)
                  else _unknown_kind(text[a:b]) for token, s, (a, b) in zip(tokens, special, offsets))
    offsets = tuple((int(a), int(b)) for a, b in offsets)
    return Alignment(text, tuple(ids), offsets, kinds, group(text, offsets, kinds), nested and len(rows) > 1)


def _unknown_kind(span: str) -> str:
    return PUNCTUATION if is_punctuation(span) else WORD


def glued(text: str) -> list[tuple[int, int]]:
    """The character spans of the shapes in `text` that are one word as people read them (see the module's
    docstring), in order, none overlapping."""
    return [match.span() for match in GLUED.finditer(text)]


def _units(text: str, offsets, kinds) -> list[list[int]]:
    """The text's tokens (specials and empty ones left out) in runs that are read as one: the tokens that start
    inside one glued span, touching each other, together; every other token alone."""
    spans, units, inside = glued(text), [], None
    n = 0
    for position, kind in enumerate(kinds):
        (a, b) = offsets[position]
        if kind == SPECIAL or b <= a:
            continue
        while n < len(spans) and spans[n][1] <= a:
            n += 1
        here = n if n < len(spans) and spans[n][0] <= a else None
        touching = bool(units) and not any(c.isspace() for c in text[offsets[units[-1][-1]][1]:a])
        if here is not None and here == inside and touching:
            units[-1].append(position)
        else:
            units.append([position])
        inside = here
    return units


def _joins(text: str, spans, kinds, edges, n: int) -> bool:
    """Whether the unit `n` continues the word of the unit `n - 1` (their character `spans`, `kinds` and the kinds of
    their first and last tokens, `edges`; no whitespace between them)."""
    if kinds[n] == PIECE or kinds[n - 1] == kinds[n] == PUNCTUATION:
        return True  # a piece, or a run of marks ("?!")
    if PUNCTUATION not in (kinds[n - 1], kinds[n]):  # a run of letters ("I😀you"), not where a glued shape's
        return PUNCTUATION not in (edges[n - 1][1], edges[n][0])  # mark meets a word: "U.S." "[MASK]", "10%" "off"
    # Punctuation meets a word: the mark joins only as a joiner between two word tokens ("chef's", "3.5").
    mark = n if kinds[n] == PUNCTUATION else n - 1
    if mark == 0 or mark + 1 >= len(spans):
        return False
    if kinds[mark - 1] == PUNCTUATION or kinds[mark + 1] != WORD:
        return False
    if spans[mark - 1][1] != spans[mark][0] or spans[mark][1] != spans[mark + 1][0]:
        return False
    sign, left, right = text[slice(*spans[mark])], text[spans[mark][0] - 1], text[spans[mark + 1][0]]
    return (sign in JOINERS or sign in NUMBER_JOINERS and left.isdigit() and right.isdigit()
            or sign in LETTER_JOINERS and left.isalpha() and right.isalpha())


def group(text: str, offsets: tuple[tuple[int, int], ...], kinds: tuple[str, ...]) -> tuple[Word, ...]:
    """The words of `text` from its tokens' spans and kinds (see the module's docstring)."""
    units = _units(text, offsets, kinds)
    spans = [(offsets[unit[0]][0], offsets[unit[-1]][1]) for unit in units]
    # A glued run acts as one word token (a piece where it starts with one: it continues the word before).
    unit_kinds = [kinds[unit[0]] if len(unit) == 1 or kinds[unit[0]] == PIECE else WORD for unit in units]
    edges = [(kinds[unit[0]], kinds[unit[-1]]) for unit in units]
    groups: list[list[int]] = []
    for n, unit in enumerate(units):
        touching = n > 0 and not any(c.isspace() for c in text[spans[n - 1][1]:spans[n][0]])
        if touching and _joins(text, spans, unit_kinds, edges, n):
            groups[-1].extend(unit)
        else:
            groups.append(list(unit))
    words = []
    for index, positions in enumerate(groups):
        start, end = offsets[positions[0]][0], offsets[positions[-1]][1]
        # The characters the tokenizer dropped around a word stay with it, never past whitespace or into the
        # next word's first token; those before a word go to it only where no word touches them on the left.
        floor = words[-1].end if words else 0
        while start > floor and not text[start - 1].isspace():
            start -= 1
        following = groups[index + 1][0] if index + 1 < len(groups) else None
        ceiling = offsets[following][0] if following is not None else len(text)
        while end < ceiling and not text[end].isspace():
            end += 1
        punctuation = all(kinds[p] == PUNCTUATION for p in positions)
        words.append(Word(index, start, end, text[start:end], tuple(positions), punctuation))
    return tuple(words)


def is_piece(shown: str) -> bool:
    """Whether a token written by `readable` is a piece ("-ing"): the mark, then a letter or digit."""
    return len(shown) > 1 and shown.startswith(PIECE_MARK) and shown[1].isalnum()


def as_guess(shown: str) -> str:
    """A guess as people read it: a piece reads as one, "-s (an ending)"; a word or a mark as it is."""
    return f"{shown} (an ending)" if is_piece(shown) else shown


def readable_ids(tokenizer, ids) -> list[str]:
    """The tokens of `ids` as people read them (`readable`)."""
    prefix = piece_prefix(tokenizer)
    return [readable(token, prefix) for token in tokenizer.convert_ids_to_tokens(list(ids))]


CLOSING = frozenset(".,;:!?)]}”’»…%")  # a word made of these hugs the word before it
OPENING = frozenset("([{“‘«¿¡$£€#")  # ... and of these, the word after it
QUOTES = ('"', "'")


def separators(shown: Sequence[str]) -> list[str]:
    """The space to write before each of a sentence's words when only their texts are known (a round's words, a
    results file): none before closing punctuation or after an opening mark, a straight quote closing every
    second time; one space everywhere else. With the text at hand, its own spacing is the truth."""
    out, quotes = [], 0
    for n, word in enumerate(shown):
        previous = shown[n - 1] if n else ""
        opened = bool(previous) and set(previous) <= OPENING or previous in QUOTES and quotes % 2 == 1
        closing = bool(word) and word[0] in CLOSING and set(word) <= CLOSING | set(QUOTES)
        out.append("" if n == 0 or opened or closing or word in QUOTES and quotes % 2 == 1 else " ")
        quotes += sum(word.count(q) for q in QUOTES) if is_punctuation(word) else 0
    return out


def joined(shown: Sequence[str]) -> str:
    """A sentence's words as one line (`separators`): "arrived" "." -> "arrived."."""
    return "".join(gap + word for gap, word in zip(separators(shown), shown))
