"""Every setting a request may carry, bounded where the request enters.

The page (explainer/ui/explore.py), the API (explainer/ui/api.py: /explain, /attribute, /game, /class_start)
and the command line (`python -m explainer`) pass the raw values they were sent through `check`, which
returns them as the right Python type or raises `BoundError` (a ValueError) with a message in the app's
words. So one table says what every knob may be:

- a number (`Number`) is finite and within its range (a raw "Infinity" or "nan" is refused, so no reply
  holds a bare `Infinity`, which strict JSON parsers reject);
- a whole number (`Whole`) is an int (or a float with nothing after the point, or its digits as text), never
  a bool;
- a choice (`Choice`) is one of its options: a new one-of setting is one line in SETTINGS;
- text (`Text`) is a str of at most so many characters; a list of word numbers (`WholeList`) is short.

`reply` bounds what goes back: strict JSON (no NaN, no Infinity) of at most MAX_REPLY_BYTES. The ranges are
wide enough for every example in the README and every control of the page; what they keep out is what a
hostile caller sends: top_k=1000000 (110 MB back, minutes of work), temperature=Infinity, n_steps="many".
No gradio here: the API turns a BoundError into the message its caller sees.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from explainer.core.attribution_types import MAX_STEPS, METHODS
from explainer.core.generators import LABELS as GENERATORS
from explainer.core.text import MAX_CHARS
from explainer.core.user_text import big_number

MAX_TOP_K = 10  # guesses listed per masked word, as the page offers: 512 tokens x 10 guesses is ~0.7 MB of JSON
MAX_TEXT = 5 * MAX_CHARS  # characters a request may send; past MAX_CHARS the pipeline reads the first MAX_CHARS
MAX_MODEL_NAME = 300
MAX_MASK_WORDS = 512  # word numbers in manual mode: no sentence the models read has more words
MAX_REPLY_BYTES = 1_000_000  # the JSON a reply may be
MODES = ("auto", "manual", "detect")
BASELINES = ("pad", "mask")


class BoundError(ValueError):
    """A setting out of its bounds or of the wrong kind; the message is meant for the person who sent it."""


def _shown(raw: object, limit: int = 20) -> str:
    if big_number(raw):
        return big_number(raw)
    text = repr(raw)
    return text[:limit] + "…" if len(text) > limit else text


@dataclass(frozen=True)
class Number:
    """A finite float from `low` to `high`."""

    low: float
    high: float
    what: str

    def __call__(self, name: str, raw: object) -> float:
        value = math.nan
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            value = float(raw)
        elif isinstance(raw, str) and len(raw) <= 40:
            try:
                value = float(raw)
            except ValueError:
                pass
        if not (math.isfinite(value) and self.low <= value <= self.high):
            raise BoundError(f"{name} ({self.what}) is a number from {self.low:g} to {self.high:g}, "
                             f"not {_shown(raw)}.")
        return value


def _whole(raw: object) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and math.isfinite(raw) and raw.is_integer():
        return int(raw)
    if isinstance(raw, str) and len(raw) <= 40:
        try:
            return int(raw.strip())
        except ValueError:
            return None
    return None


@dataclass(frozen=True)
class Whole:
    """A whole number from `low` to `high`."""

    low: int
    high: int
    what: str

    def __call__(self, name: str, raw: object) -> int:
        value = _whole(raw)
        if value is None or not self.low <= value <= self.high:
            raise BoundError(f"{name} ({self.what}) is a whole number from {self.low:,} to {self.high:,}, "
                             f"not {_shown(raw)}.")
        return value


@dataclass(frozen=True)
class Choice:
    options: tuple[str, ...]
    what: str

    def __call__(self, name: str, raw: object) -> str:
        if not isinstance(raw, str) or raw not in self.options:
            raise BoundError(f"{name} ({self.what}) is one of {', '.join(self.options)}, not {_shown(raw)}.")
        return raw


@dataclass(frozen=True)
class Text:
    most: int
    what: str
    optional: bool = False  # None stands for ""

    def __call__(self, name: str, raw: object) -> str:
        if raw is None and self.optional:
            return ""
        if not isinstance(raw, str):
            raise BoundError(f"{name} ({self.what}) must be text, not {_shown(raw)}.")
        if len(raw) > self.most:
            raise BoundError(f"{name} ({self.what}) has at most {self.most:,} characters; this one has {len(raw):,}.")
        return raw


@dataclass(frozen=True)
class Flag:
    what: str

    def __call__(self, name: str, raw: object) -> bool:
        if raw in (0, 1) and not isinstance(raw, float) or raw in ("true", "false"):  # True, False, 0, 1
            return raw in (True, "true")
        raise BoundError(f"{name} ({self.what}) is true or false, not {_shown(raw)}.")


@dataclass(frozen=True)
class WholeList:
    """A list of whole numbers from `low` to `high`, at most `most` of them; None is the empty list."""

    low: int
    high: int
    most: int
    what: str

    def __call__(self, name: str, raw: object) -> tuple[int, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, (list, tuple)) or len(raw) > self.most:
            raise BoundError(f"{name} ({self.what}) is a list of at most {self.most} whole numbers, not {_shown(raw)}.")
        item = Whole(self.low, self.high, self.what)
        return tuple(item(name, value) for value in raw)


# name -> its bound. The page's controls offer less (top_k 1-10, temperature 0.1-3); these are the most any
# caller may ask for.
SETTINGS = {
    "text": Text(MAX_TEXT, "the sentence"),
    "model": Text(MAX_MODEL_NAME, "the model's name; empty for the app's default", optional=True),
    "mode": Choice(MODES, "what gets corrupted"),
    "mask_rate": Number(0.0, 1.0, "the share of tokens masked"),
    "seed": Whole(-2**63, 2**63 - 1, "the masking and sampling seed"),
    "temperature": Number(0.01, 100.0, "the generator's sampling temperature"),
    "top_k": Whole(1, MAX_TOP_K, "the guesses listed per masked word"),
    "mask_words": WholeList(-100_000, 100_000, MAX_MASK_WORDS, "the numbers of the words to mask (0 is the first)"),
    "target": Whole(-1, 100_000, "the token to explain; -1 for the most suspicious one"),
    "method": Choice(METHODS, "the attribution method"),
    "n_steps": Whole(1, MAX_STEPS, "the integration points"),
    "baseline": Choice(BASELINES, "the reference sentence of integrated gradients"),
    "all_tokens": Flag("explain every word"),
    "generator": Choice(tuple(GENERATORS), "who forges the fakes"),
    "tolerance": Number(0.0, 0.5, "the completeness error each row may keep; 0 for exactly n_steps points"),
}


def check(**raw: object) -> dict[str, object]:
    """Each named value checked against SETTINGS; the values as their Python types, or BoundError."""
    unknown = [name for name in raw if name not in SETTINGS]
    if unknown:
        raise BoundError(f"Unknown setting {_shown(unknown[0])}.")
    return {name: SETTINGS[name](name, value) for name, value in raw.items()}


def reply(data: dict) -> dict:
    """`data` itself, once it is known to be strict JSON (no NaN or Infinity) of at most MAX_REPLY_BYTES."""
    try:
        size = len(json.dumps(data, allow_nan=False, ensure_ascii=False, separators=(",", ":")).encode())
    except ValueError:
        raise BoundError("The result holds a number JSON cannot carry (NaN or Infinity); try other settings.") from None
    if size > MAX_REPLY_BYTES:
        raise BoundError(f"The result would be {size / 1e6:.1f} MB, over the {MAX_REPLY_BYTES / 1e6:g} MB a reply may "
                         "be: ask for fewer guesses (top_k) or send a shorter text.")
    return data
