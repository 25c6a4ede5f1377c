"""Which tokens read as an English word, which as a number, and which as neither: what makes a fake fair to judge.

A vocabulary holds many tokens that are a "word" to a tokenizer (training.words.WORD) but not to a reader:
abbreviations ("st", "tv", "mr"), acronyms and names cut short ("bbc", "pac"), single letters ("b"), fragments
("ies"), numbers ("121"). A student shown one in place of a word cannot judge it as a word. `form_of` sorts a token
that stands as a word into NUMBER (ASCII digits only), ENGLISH (a word of English) or OTHER (anything else), by rules
that hold for any text, not a list tuned to some sentences:

- letters only (`str.isalpha`: "café" yes, "mp3", "don't" no);
- at least one vowel letter (a, e, i, o, u, y): English spells every word but a few interjections ("hmm", "shh")
  with one, where abbreviations ("st", "km", "tv", "mr") have none;
- two letters or more, but "a" and "i": the only one-letter words of English;
- in a spell-checker's English dictionary (pyspellchecker's: 160,572 words, American spelling, inflections included,
  built from subtitles' word counts and checked word lists; MIT), case aside, or a British spelling of a word in it
  ("colour", "centre", "organise", "defence", "programme": training.british, well-known rules narrowed to where
  they are regular). It leaves out acronyms ("bbc"), most names ("drummond") and fragments ("ies").

Model-agnostic: strings in, a name out. The dictionary is read once, on first use (about 0.1 s).
"""

from __future__ import annotations

import functools

from training import british

NUMBER, ENGLISH, OTHER = "number", "english", "other"
VOWELS = frozenset("aeiouy")
ONE_LETTER_WORDS = frozenset("ai")


@functools.cache
def _dictionary():
    from spellchecker import SpellChecker  # imported on first use: the app's other paths never need it

    return SpellChecker(language="en", distance=1)


def is_number(token: str) -> bool:
    """ASCII digits only: "7", "121", "1990" (not "1st", "½" or "3.5", which is several tokens anyway)."""
    return token.isascii() and token.isdigit()


def is_english(token: str) -> bool:
    """Whether `token` reads as a word of English (the rules above)."""
    word = token.lower()
    if not word.isalpha() or not VOWELS & set(word):
        return False
    if len(word) == 1:
        return word in ONE_LETTER_WORDS
    known = _dictionary()
    return word in known or british.is_british(word, known)


def form_of(token: str) -> str:
    """NUMBER, ENGLISH or OTHER for a token that stands as a word."""
    if is_number(token):
        return NUMBER
    return ENGLISH if is_english(token) else OTHER
