"""Links that restore a result: settings -> query string -> the same settings; bad values -> defaults + words."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explainer.core import links

DEFAULTS = links.ExploreLink("The old fisherman repaired his boat.", "bundled")


def params_of(query: str) -> dict:
    return dict(parse_qsl(urlsplit(query).query, keep_blank_values=True))


@settings(deadline=None, max_examples=60)
@given(text=st.text(min_size=1, max_size=300).filter(str.strip), seed=st.integers(0, 2**31 - 1),
       rate=st.floats(0.05, 0.5), temperature=st.floats(0.1, 3.0), top_k=st.integers(1, 10),
       mode=st.sampled_from(links.MODES), mask=st.lists(st.integers(0, 1999), max_size=6, unique=True))
def test_a_link_round_trips_every_setting(text, seed, rate, temperature, top_k, mode, mask):
    link = links.ExploreLink(text, "google/electra-small", mode, rate, seed, temperature, top_k, tuple(sorted(mask)))
    parsed, problems = links.parse_explore(params_of(links.explore_query(link)), DEFAULTS)
    assert problems == []
    expected = link if mode == "manual" else links.ExploreLink(text, link.model, mode, rate, seed, temperature, top_k)
    assert parsed.text == expected.text and parsed.mask_at == expected.mask_at and parsed.legacy_mask == ()
    assert (parsed.mode, parsed.seed, parsed.top_k, parsed.model) == (mode, seed, top_k, link.model)
    assert parsed.mask_rate == pytest.approx(rate, rel=1e-5)
    assert parsed.temperature == pytest.approx(temperature, rel=1e-5)


@pytest.mark.parametrize("key, raw, what", [
    ("seed", "abc", "whole number"), ("seed", "-4", "whole number"), ("rate", "nan", "number from 0.05 to 0.5"),
    ("rate", "0.9", "number from 0.05 to 0.5"), ("temperature", "1e999", "number"), ("top_k", "0", "from 1 to 10"),
    ("mode", "<script>", "one of auto, manual, detect"), ("text", "   ", "is empty"), ("text", "x" * 2001, "longer"),
    ("mask", "1,two", "whole number"), ("model", "", "model name"), ("mask_at", "4,-1", "from 0 to 1999"),
    ("mask_at", "2001", "from 0 to 1999"), ("mask_at", ",".join(["1"] * 65), "more than 64 words"),
])
def test_a_bad_value_is_described_and_its_default_used(key, raw, what):
    parsed, problems = links.parse_explore({"text": "A sentence.", key: raw}, DEFAULTS)
    assert len(problems) == 1 and what in problems[0] and "the default was used" in problems[0]
    field = {"rate": "mask_rate", "mask": "legacy_mask"}.get(key, key)
    assert getattr(parsed, field) == getattr(DEFAULTS, field)


def test_a_page_without_link_parameters_is_left_alone():
    assert links.parse_explore({}, DEFAULTS) == (None, [])
    assert links.parse_explore({"game": "42"}, DEFAULTS) == (None, [])
    assert links.parse_explore({"tab": "classroom", "text": "x"}, DEFAULTS) == (None, [])


def test_a_classroom_link_names_the_sentence_seed_and_view():
    link = links.ClassroomLink("The chef cooked a meal.", 7, "positions")
    parsed, problems = links.parse_classroom(params_of(links.classroom_query(link)), links.ClassroomLink("x"))
    assert parsed == link and problems == []
    parsed, problems = links.parse_classroom({"tab": "classroom", "view": "slides"}, links.ClassroomLink("x"))
    assert parsed.view == "walk" and "one of walk" in problems[0]


@pytest.mark.parametrize("ticked, after, expected", [
    ([3], "She walked to the shop for coffee .", [6]),  # "coffee" moved from word 3 to word 6
    ([6, 9], "She walked to the shop for coffee and the paper", [3, 8]),  # each "the" to a "the", in order
    ([9], "She walked to the shop for coffee and the paper", [8]),  # the 2nd "the" to the 2nd one
    ([2], "She walked to the shop", []),  # "my" is gone: so is its tick
    ([99, -1], "I drank my coffee", []),  # ticks that name no word
    ([7], "The Dog ran.", [1]),  # case and punctuation around a word do not matter ("dog" -> "Dog")
])
def test_ticks_follow_their_words_when_the_sentence_changes(ticked, after, expected):
    from explainer.core.text import follow_words

    before = "I drank my coffee and walked the dog to the park".split()
    assert follow_words(before, ticked, after.split()) == expected
