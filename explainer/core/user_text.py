"""What people type, made safe to keep and to quote: nicknames, words, a teacher's sentences, and the short
quotes of a bad value that messages carry.

Plain text both ways: whatever page shows a message or a typed text escapes it, as it escapes every user text.
"""

from __future__ import annotations

import unicodedata

from training.offensive import visible


def big_number(value: object) -> str:
    """"a number of 5,001 digits" for an int too long to quote (Python's repr refuses past 4,300 digits); ""
    for anything else."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of {int(value.bit_length() * 0.30103) + 1:,} digits"  # log10(2): to a digit, give or take
    return ""


def quote(value: object, limit: int = 20) -> str:
    """At most `limit` characters of what was sent, as a repr (control characters shown as escapes), "…" when
    cut. Plain text: the page that shows a message escapes it, as it escapes every user text."""
    if isinstance(value, str):
        return repr(value[:limit]) + ("…" if len(value) > limit else "")
    if big_number(value):
        return big_number(value)
    text = repr(value)[:limit + 1]
    return text[:limit] + ("…" if len(text) > limit else "")


def clean_text(text: object, limit: int, what: str) -> str:
    """NFKC, control, format and other invisible characters dropped (training.offensive.visible: what is shown is
    what the offensive-word check read), whitespace runs made one space; ValueError past `limit`."""
    if not isinstance(text, str):
        raise ValueError(f"The {what} must be text, not {quote(text)}.")
    text = unicodedata.normalize("NFKC", text[:limit * 8])
    text = " ".join(visible("".join(c for c in text
                                    if not unicodedata.category(c).startswith("C") or c.isspace())).split())
    if len(text) > limit:
        raise ValueError(f"The {what} has at most {limit} characters: {quote(text)} is longer.")
    return text
