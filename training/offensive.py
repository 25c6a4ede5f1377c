"""Offensive text in the built-in corpora: better-profanity 0.7.0's word list, less the ordinary words it
also holds (`ALLOWED`: "god", "kill", "hell"...), which State of the Union speeches and 19th-century books
use innocently. training/english.py drops every line `is_offensive` flags. Whole words and phrases only,
never substrings ("Scunthorpe" passes).

What people type (nicknames, a teacher's sentences, round B's words) is checked with `hides_offensive`: the text
as it is, and its `skeleton`, which sees through the disguises a swear word wears to pass a word list while the
tokenizer, which drops those marks, still reads it whole:
- Unicode NFKC (fullwidth and styled letters become plain ones), then lower case;
- invisible characters and marks removed: format characters (zero-width space and joiners, soft hyphen),
  combining marks (accents, the combining grapheme joiner U+034F, variation selectors) and the Hangul fillers;
- look-alike letters mapped to Latin by Unicode's confusables table (confusable-homoglyphs' copy of it: Cyrillic
  "с" is "c", Greek "ο" is "o");
- single letters spaced or dotted apart joined ("f u c k", "f.u.c.k").
So "café", "naïve" and "Zoë" pass (their skeletons, cafe, naive and zoe, are ordinary words), and a name that
hides a listed word behind any of these is refused.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache

# better-profanity's list holds these ordinary words too; dropping every line with "god" or
# "kill" would strip speeches and books of whole topics, so they are kept.
ALLOWED = frozenset({
    "arian", "aryan", "drunk", "dummy", "erect", "facial", "fanny", "fat", "flange", "gay", "god", "hebe",
    "hell", "hemp", "heroin", "herpes", "hitler", "hiv", "hoar", "hump", "jerk", "jerked", "kill", "klan", "knob",
    "leper", "loin", "loins", "lust", "lusty", "murder", "naked", "napalm", "nazi", "nazism", "niggle",
    "opiate", "opium", "oral", "orally", "organ", "ovum", "ovary", "paddy", "pawn", "pot", "prick", "prig",
    "prude", "queer", "reich", "revue", "rum", "rump", "screw", "seaman", "seamen", "seduce", "sex", "sexual",
    "slave", "slope", "snatch", "sniper", "snuff", "steamy", "stoned", "strip", "stroke", "stupid", "suck",
    "sucked", "tawdry", "thrust", "thug", "tinkle", "tramp", "trashy", "ugly", "unwed", "urine", "uterus",
    "virgin", "vixen", "vodka", "vomit", "vulgar", "wad", "wang", "weed", "weirdo", "wench", "whiz", "willy",
    "womb", "woody", "racy", "nude", "pasty", "potty", "junkie", "junky", "moron", "nimrod", "ninny", "sissy",
})


@lru_cache(maxsize=1)
def _blocked() -> tuple[frozenset[str], tuple[str, ...]]:
    """better-profanity's list less ALLOWED: single words, and multi-word phrases."""
    from importlib.resources import files

    import better_profanity  # only its word list is used

    listed = files(better_profanity).joinpath("profanity_wordlist.txt").read_text(encoding="utf-8").split("\n")
    words = {w.strip().lower() for w in listed if w.strip()} - ALLOWED
    return frozenset(w for w in words if " " not in w), tuple(sorted(w for w in words if " " in w))


_WORD = re.compile(r"[\w$@!+.'-]+")


def is_offensive(text: str) -> bool:
    single, phrases = _blocked()
    lowered = text.lower()
    words = {w.strip(".'-!") for w in _WORD.findall(lowered)}
    if not single.isdisjoint(words) or not single.isdisjoint(_WORD.findall(lowered)):
        return True
    spaced = " " + " ".join(re.findall(r"\w+", lowered)) + " "
    return any(f" {p} " in spaced for p in phrases)


def blocked_token_ids(vocabulary: dict[str, int]) -> list[int]:
    """The ids of the vocabulary's tokens that are offensive words on their own (a "##" piece read as its
    text): the explainer's generator never proposes or draws them in front of a class."""
    return sorted(i for token, i in vocabulary.items() if is_offensive(token.removeprefix("##")))


# Invisible letters that are no format character or mark: the Hangul fillers draw nothing.
INVISIBLE = frozenset("\u034f\u115f\u1160\u3164\uffa0\u2800")  # the grapheme joiner; U+2800: blank Braille
_SPACED = re.compile(r"(?<![^\W_])[^\W\d_](?:[\s._*·-]+[^\W\d_](?![^\W_])){2,}")  # 3+ single letters apart


@lru_cache(maxsize=1)
def _latin() -> dict[int, str]:
    """Non-ASCII characters that look like one Latin letter or digit (Unicode's confusables table), for
    str.translate."""
    from importlib.resources import files

    import confusable_homoglyphs  # only its copy of Unicode's confusables table is used

    table = json.loads(files(confusable_homoglyphs).joinpath("confusables.json").read_text(encoding="utf-8"))
    latin = {}
    for char, glyphs in table.items():
        if len(char) == 1 and not char.isascii():
            target = next((g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalnum()), None)
            if target:
                latin[ord(char)] = target.lower()
                # What NFKC and lower case make of a look-alike looks like it too (skeleton applies both first):
                # the lunate sigma becomes a final sigma, its capital a capital sigma, then a small one.
                for folded in {char.lower(), unicodedata.normalize("NFKC", char),
                               unicodedata.normalize("NFKC", char).lower()}:
                    if len(folded) == 1 and not folded.isascii():
                        latin.setdefault(ord(folded), target.lower())
    return latin


def visible(text: str) -> str:
    """`text` less what draws nothing: format characters, the grapheme joiner and the Hangul fillers."""
    return "".join(c for c in text if c not in INVISIBLE and unicodedata.category(c) != "Cf")


def skeleton(text: str) -> str:
    """What a word list should read in `text`: NFKC, lower case, invisible characters and every combining mark
    removed, look-alike letters made Latin, single letters spaced apart joined."""
    # Lower case first (the table reads a capital I as an l, the small look-alikes of I as an i), and the table
    # before NFKC too, which is lossy: it turns a capital lunate sigma (a C) into a sigma, which looks like an o.
    text = text.lower().translate(_latin())
    for _ in range(2):  # the table maps some letters NFKC makes (and NFKC some the table leaves): both, twice
        text = unicodedata.normalize("NFD", visible(unicodedata.normalize("NFKC", text).lower()))
        text = "".join(c for c in text if not unicodedata.category(c).startswith("M")).translate(_latin())
    return _SPACED.sub(lambda m: re.sub(r"[\s._*·-]+", "", m.group()), text)


def hides_offensive(text: str) -> bool:
    """Whether `text`, or what it looks like under its disguises (`skeleton`), holds a listed word."""
    return is_offensive(text) or is_offensive(skeleton(text))
