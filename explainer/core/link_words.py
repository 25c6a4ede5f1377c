"""The words a shared link masks, read against its text's words (explainer/core/links.py carries the numbers).

A link made now names each chosen word by the character where it starts in the link's own text (`mask_at=4,19`,
counted from 0, as Python counts a string's characters), so it keeps naming the same words when the app's idea of a
word changes (0.4.0 made punctuation a word of its own; abbreviations and amounts may follow). A character inside a
word names that word. A place that is on no word (a space, past the end) is described and left out.

Links made before 0.4.0 numbered the words (`mask=1,4`) as those versions grouped them: a run of tokens with no
whitespace between them, widened to the whitespace around it, so "arrived." was one word. `legacy_spans` is that
numbering rule, and `legacy_words` gives the words of today's grouping inside each numbered one: the same tokens
the link's maker saw masked. No gradio here.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from explainer.core.text import visible
from training.words import Word

SHOWN = 8  # words named in a notice at most


def word_starts(words: Sequence[Word], places: Sequence[int], chosen: Iterable[int]) -> tuple[int, ...]:
    """The character of the link's text where each chosen word (an index into `words`) starts, in order. `places`:
    explainer.core.text.read_places of that text (the words' spans are in the text as read)."""
    return tuple(sorted({bisect_left(places, words[i].start) for i in chosen if 0 <= i < len(words)}))


def _word_at(words: Sequence[Word], place: int) -> int | None:
    n = bisect_right([w.start for w in words], place) - 1
    return n if n >= 0 and words[n].start <= place < words[n].end else None


def words_at(words: Sequence[Word], places: Sequence[int], starts: Iterable[int],
             text: str) -> tuple[tuple[int, ...], list[str]]:
    """(the indices of the words at those characters of the link's `text`, in order; what was wrong, in words)."""
    found, missed = set(), []
    for start in starts:
        n = _word_at(words, places[start]) if start < len(text) else None
        if n is None:
            missed.append(start)
        else:
            found.add(n)
    problems = []
    if missed:
        what = ", ".join(_place(text, start) for start in missed[:SHOWN]) + (" …" if len(missed) > SHOWN else "")
        problems.append(f"“mask_at” names no word at {what}; left out (a word is named by the character where it "
                        "starts, the first character being 0).")
    return tuple(sorted(found)), problems


def _place(text: str, start: int) -> str:
    if start >= len(text):
        return f"character {start} (the text has {len(text)})"
    return f"character {start} ({'a space' if text[start].isspace() else 'beyond what the model reads'})"


def legacy_spans(text: str, offsets: Sequence[tuple[int, int]], special: Sequence[bool]) -> list[tuple[int, int]]:
    """The words as versions before 0.4.0 numbered them, as character spans of the text as read: a run of tokens
    with no whitespace between them, widened to the whitespace around it ("arrived." one word, "chef's" one)."""
    runs: list[list[int]] = []
    previous_end = None
    for (start, end), is_special in zip(offsets, special):
        if is_special:
            previous_end = None
            continue
        if previous_end is None or any(c.isspace() for c in text[previous_end:start]):
            runs.append([start, end])
        else:
            runs[-1][1] = end
        previous_end = end
    spans = []
    for start, end in runs:
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        while end < len(text) and not text[end].isspace():
            end += 1
        spans.append((start, end))
    return spans


def legacy_words(words: Sequence[Word], spans: Sequence[tuple[int, int]], numbers: Iterable[int],
                 text: str) -> tuple[tuple[int, ...], list[str]]:
    """(the indices of today's words inside each word numbered as before 0.4.0 (`legacy_spans` of `text`, the text as
    read), in order; a notice that says how the numbers were read and which words they name, and what named none)."""
    numbers = sorted(set(numbers))
    named = [spans[n] for n in numbers if 0 <= n < len(spans)]
    found = sorted({w.index for start, end in named for w in words if start <= w.start < end})
    quoted = [f"“{visible(text[start:end])}”" for start, end in named]
    problems = []
    if quoted:
        shown = ", ".join(quoted[:SHOWN]) + (" …" if len(quoted) > SHOWN else "")
        problems.append(f"This link comes from a version before 0.4.0, which numbered words with punctuation joined "
                        f"to them (“arrived.” was one word). Its numbers (“mask=”) were read that way, so it masks the "
                        f"words its maker chose: {shown}. A link copied now names them by where they start "
                        f"(“mask_at=”).")
    outside = [n for n in numbers if not 0 <= n < len(spans)]
    if outside:
        named_as = (f"numbers {', '.join(map(str, outside[:SHOWN]))} name" if len(outside) > 1
                    else f"number {outside[0]} names")
        problems.append(f"The link's word {named_as} no word of its text (it had {len(spans)} words then, counted "
                        f"from 0); left out.")
    return tuple(found), problems

