"""A class on the teacher's own sentences: today's reading, their subject, instead of the bundled set.

The teacher pastes them at the start (one a line); each is checked as any typed text is, before the class
exists, and a sentence that cannot be played gets a message that names it by its number:
- the text is cleaned as a nickname is (NFKC; control and format characters dropped; spaces made one) and
  is at most MAX_CHARS long;
- it reads as words the model knows: at least MIN_WORDS words, at most a quarter of its tokens unknown
  ([UNK]: emoji, other scripts), nothing the tokenizer drops entirely (the pipeline's own InputError);
- no word from the offensive-word list (training/offensive.py), as for nicknames and round B's words;
- 1 to game.MAX_SENTENCES sentences; the same sentence twice counts once; at most MAX_LINES lines and
  MAX_PASTED characters are read at all (checked before anything else).
The round then plays them in the teacher's order, corrupted by the generator as the bundled ones are.

Why it matters beyond the subject: the bundled sentences are public (assets/game_sentences.json), so a
student who holds that file can diff the screen against it and find every fake before the reveal. The
teacher's own sentences are in no file a student has.
No gradio here.
"""

from __future__ import annotations

from explainer.core.pipeline import sentence_words
from explainer.core.text import InputError
from explainer.core.user_text import clean_text, quote
from explainer.lesson.beat_electra import MAX_SENTENCES
from training.offensive import hides_offensive

MAX_CHARS = 300  # characters of one sentence: a phone shows it as tick boxes, one per word
MIN_WORDS = 4  # fewer, and the generator's 15% has almost nothing to replace
MAX_UNKNOWN = 0.25  # share of [UNK] tokens past which the model cannot read the sentence
MAX_PASTED = MAX_SENTENCES * MAX_CHARS * 4  # characters of the pasted text before its lines are read
MAX_LINES = MAX_SENTENCES * 4  # lines (blank and repeated ones included) read at most: a list is refused past it


def split_lines(text: object) -> list[str]:
    """The pasted box as sentences: one a line, blank lines skipped."""
    if not isinstance(text, str):
        raise ValueError(f"Your sentences are text, one a line, not {quote(text)}.")
    if len(text) > MAX_PASTED:
        raise ValueError(f"Paste at most {MAX_SENTENCES} sentences of at most {MAX_CHARS} characters each.")
    return [line for line in text.splitlines() if line.strip()]


def check_sentences(pair, sentences: object) -> tuple[str, ...]:
    """The teacher's sentences, cleaned and checked (a list of texts, or the pasted box's text); ValueError
    with a message naming the first one that cannot be played, and why. The cheap checks come first, so a
    hostile list costs nothing: its count and each text's length, then cleaning and duplicates dropped, and
    only then the model's tokenizer, once per sentence kept."""
    lines = split_lines(sentences) if isinstance(sentences, str) else sentences
    if not isinstance(lines, (list, tuple)) or not all(isinstance(line, str) for line in lines):
        raise ValueError("Your sentences are a list of texts, one sentence each.")
    if len(lines) > MAX_LINES or sum(map(len, lines)) > MAX_PASTED:
        raise ValueError(f"Give at most {MAX_SENTENCES} sentences of at most {MAX_CHARS} characters each "
                         f"(you gave {len(lines):,} lines).")
    kept: dict[str, int] = {}  # cleaned text -> its line's number, first occurrence only
    for number, line in enumerate(lines, 1):
        try:
            text = clean_text(line, MAX_CHARS, "sentence")
            if hides_offensive(line) or hides_offensive(text):  # as typed, and as it would be shown
                raise ValueError("it holds a word this app does not show; please choose another sentence.")
        except ValueError as error:
            raise ValueError(f"Sentence {number} cannot be played: {error}") from None
        if text and text not in kept:
            kept[text] = number
        if len(kept) > MAX_SENTENCES:
            raise ValueError(f"A class plays at most {MAX_SENTENCES} sentences: you gave more.")
    if not kept:
        raise ValueError("Type or paste at least one sentence, one a line.")
    for text, number in kept.items():
        try:
            _check_one(pair, text)
        except ValueError as error:
            raise ValueError(f"Sentence {number} cannot be played: {error}") from None
    return tuple(kept)


def _check_one(pair, text: str) -> None:
    if len(text.split()) < MIN_WORDS:
        raise ValueError(f"it has fewer than {MIN_WORDS} words ({quote(text, 40)}); "
                         "give the generator more to work on.")
    tokenizer = pair.tokenizer
    try:
        encoded, _ = sentence_words(pair, text)
    except InputError as error:
        raise ValueError(str(error)) from None
    words = [i for i, special in zip(encoded.input_ids, encoded.special) if not special]
    unknown = sum(i == tokenizer.unk_token_id for i in words)
    if unknown > MAX_UNKNOWN * len(words):
        raise ValueError(f"the model does not know {unknown} of its {len(words)} tokens (emoji or another script); "
                         "use English words.")
