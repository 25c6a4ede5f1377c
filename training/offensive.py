"""Offensive text in the built-in corpora: better-profanity 0.7.0's word list, less the ordinary words it
also holds (`ALLOWED`: "god", "kill", "hell"...), which State of the Union speeches and 19th-century books
use innocently. training/english.py drops every line `is_offensive` flags. Whole words and phrases only,
never substrings ("Scunthorpe" passes).
"""

from __future__ import annotations

import re
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
