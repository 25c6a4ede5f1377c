"""Sentence files: the one reader of the JSON files of sentences that the measures, the game and the command
lines read (assets/game_sentences.json, assets/check_sentences.json, a user's own).

A file holds a JSON list of sentences, or an object whose "sentences" is one (the app's fixtures, which add an
"about"). Each sentence is a non-blank string of at most MAX_CHARS characters, and a file holds at least one.
Anything else is a ValueError that names the file and, for a bad sentence, its number (1 is the first).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

MAX_CHARS = 1_000  # characters of one sentence: a sentence, not a document (the bundled ones are under 80)
FORMS = 'a JSON list of sentences, or an object {"sentences": [...]}'


def read_sentences(path: str | Path) -> list[str]:
    """The sentences of one file, in order; ValueError saying what is wrong otherwise."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path} is a folder, not a file of sentences") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text") from None
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON ({error.msg}, line {error.lineno}): it must hold {FORMS}") from None
    if isinstance(data, dict):
        if "sentences" not in data:
            raise ValueError(f"{path} is a JSON object without a \"sentences\" list: it must hold {FORMS}")
        data = data["sentences"]
    if not isinstance(data, list):
        raise ValueError(f"{path} holds a JSON {type(data).__name__}: it must hold {FORMS}")
    if not data:
        raise ValueError(f"{path} holds no sentence: its list is empty")
    for number, sentence in enumerate(data, 1):
        if not isinstance(sentence, str):
            raise ValueError(f"{path}: sentence {number} is not a string of text but {json.dumps(sentence)[:60]}")
        if not sentence.strip():
            raise ValueError(f"{path}: sentence {number} is blank")
        if len(sentence) > MAX_CHARS:
            raise ValueError(f"{path}: sentence {number} is {len(sentence):,} characters long, over the "
                             f"{MAX_CHARS:,} a sentence may be")
    return data


def read_sentence_files(paths: Iterable[str | Path]) -> list[str]:
    """The sentences of each file, pooled in order; ValueError if no file is named, or as `read_sentences`."""
    paths = list(paths)
    if not paths:
        raise ValueError("no sentence file named")
    return [sentence for path in paths for sentence in read_sentences(path)]
