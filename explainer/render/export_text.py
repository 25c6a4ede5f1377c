"""Text for the exports (`explainer.render.export`): cleaned so that XML accepts it, its width measured
from real fonts' metrics, shortened with "…" and wrapped onto lines.

An export names the viewer's system UI font, so a character's width is its widest advance among DejaVu Sans and
Liberation Sans (Arial's metrics), regular or bold: assets/glyph_widths.json, which bench/glyph_widths.py reads
off the fonts (Latin letters, digits, punctuation). Outside that table, wide (CJK, emoji) characters count one em,
combining marks nothing, anything else a lowercase letter's widest. `shorten` keeps combining marks with their
letter. No gradio, no torch.
"""

from __future__ import annotations

import html
import json
import unicodedata

from explainer.core.text import visible
from training.project import ASSETS

MAX_SHOWN = 30  # characters of a word drawn; longer words end in "…"


def _xml_char(char: str) -> str:
    code = ord(char)
    if char in "\t\n\r" or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000:
        return char
    return " " if char.isspace() else ""  # \v, \f, \x1c-\x1f: spaces XML 1.0 does not allow; lone surrogates


def clean(text: str) -> str:
    """Text as the app shows it (`visible`), minus the characters XML 1.0 forbids."""
    return "".join(_xml_char(c) for c in visible(text or ""))


def xml_text(text: str) -> str:
    """Escaped for XML and HTML text and attribute values alike."""
    return html.escape(clean(text), quote=True)


WIDTHS = json.loads((ASSETS / "glyph_widths.json").read_text(encoding="utf-8"))["em"]  # {weight: {char: em}}
OTHER = {weight: max(table[c] for c in "abcdefghijklmnopqrstuvwxyz") for weight, table in WIDTHS.items()}


def char_width(char: str, bold: bool = False) -> float:
    """The advance of one character, in em."""
    weight = "bold" if bold else "regular"
    if char in WIDTHS[weight]:
        return WIDTHS[weight][char]
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0.0
    if unicodedata.east_asian_width(char) in ("W", "F") or ord(char) >= 0x1F000:
        return 1.0  # CJK, emoji
    return OTHER[weight]


def text_width(text: str, size: float, bold: bool = False) -> float:
    return sum(char_width(c, bold) for c in text) * size


def shorten(text: str, limit: int = MAX_SHOWN) -> str:
    """At most `limit` characters (combining marks stay with their letter), "…" when cut."""
    if len(text) <= limit:
        return text
    cut = limit - 1
    while cut < len(text) and unicodedata.combining(text[cut]):
        cut += 1
    return text[:cut] + "…"


def fit(text: str, size: float, width: float, bold: bool = False) -> str:
    """`text` cut with "…" until its width is at most `width`."""
    if text_width(text, size, bold) <= width:
        return text
    while text and text_width(text + "…", size, bold) > width:
        text = text[:-1]
    return text + "…"


def wrap(text: str, size: float, width: float) -> list[str]:
    """Lines of at most `width` px, split at spaces; an overlong word is cut."""
    lines, line = [], ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if text_width(candidate, size) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = fit(word, size, width)
    if line:
        lines.append(line)
    return lines or [""]
