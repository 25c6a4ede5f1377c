"""Links that restore a result: a page's settings as URL query parameters, and back, checked.

Explore:   ?text=...&model=bundled&mode=manual&rate=0.15&seed=3&temperature=1&top_k=5&mask_at=4,19&generator=stronger
           (generator: who forged, explainer.core.generators; left out for ELECTRA's own, the default;
           mask_at: manual mode's words to mask, each by the character of the text where it starts, counted from 0,
           so a link keeps naming the same words when the app's idea of a word changes; an old link's `mask=1,4`,
           word numbers as versions before 0.4.0 counted them, is read the old way: explainer/core/link_words.py)
Classroom: ?tab=classroom&text=...&seed=3&view=positions

The pipeline is deterministic given these (same model, sentence, seed and settings: the same
masks, the same samples), so opening a link reproduces the corruption and the verdict. Every value
is checked against the same ranges as the page's controls; a bad one is reported in words and
replaced by its default, never raised. No gradio here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from urllib.parse import urlencode

from explainer.core.generators import ELECTRA, LABELS

MAX_TEXT = 2000  # characters of text a link may carry (browsers and servers cut long URLs)
MAX_MASK_WORDS = 64
MODES = ("auto", "manual", "detect")
CLASSROOM_VIEWS = ("walk", "positions", "difficulty", "efficiency", "hf", "quiz", "game")


@dataclass(frozen=True)
class ExploreLink:
    text: str
    model: str = "bundled"
    mode: str = "auto"
    mask_rate: float = 0.15
    seed: int = 0
    temperature: float = 1.0
    top_k: int = 5
    mask_at: tuple[int, ...] = ()  # manual mode: where each word to mask starts in `text` (characters from 0)
    generator: str = ELECTRA
    legacy_mask: tuple[int, ...] = ()  # an old link's `mask=`: word numbers as versions before 0.4.0 counted them


@dataclass(frozen=True)
class ClassroomLink:
    text: str
    seed: int = 0
    view: str = "walk"


# query parameter -> field, for both pages (short names: links get pasted into chats and slides)
_NAMES = {"text": "text", "model": "model", "mode": "mode", "rate": "mask_rate", "seed": "seed",
          "temperature": "temperature", "top_k": "top_k", "mask_at": "mask_at", "view": "view",
          "generator": "generator", "mask": "legacy_mask"}


def _number(raw: str, low: float, high: float) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"must be a number from {low:g} to {high:g}")
    return value


def _whole(raw: str, low: int, high: int) -> int:
    try:
        value = int(raw.strip())
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise ValueError(f"must be a whole number from {low} to {high}")
    return value


def _text(raw: str) -> str:
    if not raw.strip():
        raise ValueError("is empty")
    if len(raw) > MAX_TEXT:
        raise ValueError(f"is longer than {MAX_TEXT:,} characters")
    return raw


def _mask(raw: str, most: int = 10_000) -> tuple[int, ...]:
    items = [item for item in raw.split(",") if item.strip()]
    if len(items) > MAX_MASK_WORDS:
        raise ValueError(f"names more than {MAX_MASK_WORDS} words")
    return tuple(sorted({_whole(item, 0, most) for item in items}))


def _choice(options: tuple[str, ...]):
    def check(raw: str) -> str:
        if raw not in options:
            raise ValueError(f"must be one of {', '.join(options)}")
        return raw
    return check


def _model(raw: str) -> str:
    if not raw.strip() or len(raw) > 300:
        raise ValueError("must be a model name of at most 300 characters")
    return raw.strip()


_CHECKS = {
    "text": _text, "model": _model, "mode": _choice(MODES), "mask_rate": lambda r: _number(r, 0.05, 0.5),
    "seed": lambda r: _whole(r, 0, 2**31 - 1), "temperature": lambda r: _number(r, 0.1, 3.0),
    "top_k": lambda r: _whole(r, 1, 10), "mask_at": lambda r: _mask(r, MAX_TEXT - 1), "legacy_mask": _mask,
    "view": _choice(CLASSROOM_VIEWS),
    "generator": _choice(tuple(LABELS)),
}


def _parse(params: Mapping[str, str], defaults):
    """(settings, problems): each known parameter checked; a bad one keeps its default and is described."""
    names = {f.name for f in fields(defaults)}
    values, problems = {}, []
    for key, field in _NAMES.items():
        if field not in names or key not in params:
            continue
        raw = str(params[key])
        try:
            values[field] = _CHECKS[field](raw)
        except ValueError as error:
            shown = raw if len(raw) <= 40 else raw[:40] + "…"
            problems.append(f"“{key}” {error} (the link had “{shown}”); the default was used.")
    return replace(defaults, **values), problems


def parse_explore(params: Mapping[str, str], defaults: ExploreLink) -> tuple[ExploreLink | None, list[str]]:
    """The Explore settings a link asks for (None when it names none of them), and what was wrong with it."""
    if params.get("tab", "explore") != "explore" or not any(key in params for key in _NAMES if key != "view"):
        return None, []
    return _parse(params, defaults)


def parse_classroom(params: Mapping[str, str], defaults: ClassroomLink) -> tuple[ClassroomLink | None, list[str]]:
    if params.get("tab") != "classroom":
        return None, []
    return _parse(params, defaults)


def _query(pairs: dict) -> str:
    return "?" + urlencode(pairs, safe=",")  # a comma stays a comma: "mask_at=4,19" reads as it is


def explore_query(link: ExploreLink) -> str:
    pairs = {"text": link.text, "model": link.model, "mode": link.mode, "rate": f"{link.mask_rate:g}",
             "seed": link.seed, "temperature": f"{link.temperature:g}", "top_k": link.top_k}
    if link.mode == "manual" and link.mask_at:
        pairs["mask_at"] = ",".join(str(w) for w in link.mask_at)
    if link.generator != ELECTRA:
        pairs["generator"] = link.generator
    return _query(pairs)


def classroom_query(link: ClassroomLink) -> str:
    return _query({"tab": "classroom", "text": link.text, "seed": link.seed, "view": link.view})
