"""The guesses view (explainer/render/guesses.py): every bar to one scale across cards and a blank's two
columns, and the one line beside a draw from outside the top k, with the share the top k hold."""

from __future__ import annotations

import re
from types import SimpleNamespace

from explainer.core.pipeline import MaskedPosition, Proposal, Settings
from explainer.render.guesses import guesses_html


def _position(guesses: dict[str, float], drawn: str, drawn_p: float, **kwargs) -> MaskedPosition:
    proposals = tuple(Proposal(word, i, p, False) for i, (word, p) in enumerate(guesses.items()))
    drawn_id = next((p.token_id for p in proposals if p.token == drawn), 999)
    return MaskedPosition(1, "coffee", True, proposals, drawn, drawn_id, drawn_p, True, **kwargs)


def _widths(html: str) -> dict[str, float]:
    """{word: its bar's width in %} in the order drawn (the last bar of a word wins)."""
    words = re.findall(r'class="ee-guess-word"[^>]*><bdi>(.*?)</bdi>', html)
    widths = [float(w) for w in re.findall(r"width: ([0-9.]+)%", html)]
    return dict(zip(words, widths))


def _view(*masked: MaskedPosition, generator: str = "electra", temperature: float = 1.0):
    return SimpleNamespace(masked=masked, settings=Settings(generator=generator, temperature=temperature))


def test_bars_of_two_cards_share_one_scale():
    tea = _position({"tea": 0.56, "coffee": 0.20}, "tea", 0.56)
    great = _position({"great": 0.025, "good": 0.0125}, "great", 0.025)
    html = guesses_html(_view(tea, great))
    widths = _widths(html)
    assert widths["tea"] == 100.0 and widths["coffee"] == round(100 * 0.20 / 0.56, 1)
    assert widths["great"] == round(100 * 0.025 / 0.56, 1) == 4.5 and widths["good"] == 2.2
    assert "a full bar is 56%" in html


def test_a_typed_blanks_two_columns_share_one_scale():
    others = (Proposal("great", 7, 0.025, False), Proposal("fine", 8, 0.01, False))
    blank = _position({"tea": 0.56, "milk": 0.1}, "tea", 0.56, typed=True, others=others, others_generator="stronger")
    widths = _widths(guesses_html(_view(blank)))
    assert widths["tea"] == 100.0 and widths["great"] == 4.5 and widths["fine"] == 1.8


def test_a_tail_draw_says_why_with_the_share_of_the_top_k():
    hazy = _position({"hours": 0.022, "money": 0.019, "dinner": 0.019, "beer": 0.019, "it": 0.016},
                     "hazy", 0.0000038)
    html = guesses_html(_view(hazy))
    (line,) = re.findall(r'class="ee-tail-line"[^>]*>(.*?)</p>', html)
    assert "ELECTRA&#x27;s generator draws at random" in line and "at temperature 1, as in ELECTRA&#x27;s" in line
    assert "its top 5 here hold 9.5%, so most draws come from the long tail" in line
    assert "← drawn, not in the top 5" in html


def test_a_draw_inside_the_top_k_gets_no_tail_line_and_another_temperature_is_named():
    inside = _position({"tea": 0.56, "coffee": 0.20}, "tea", 0.56)
    assert "ee-tail-line" not in guesses_html(_view(inside))
    outside = _position({"tea": 0.56, "coffee": 0.20}, "rain", 0.01)
    line = re.findall(r'class="ee-tail-line"[^>]*>(.*?)</p>', guesses_html(_view(outside, generator="stronger",
                                                                                 temperature=2.0)))[0]
    assert line.startswith("Why so unlikely a word? A stronger generator draws") and "(at temperature 2)" in line
    assert "its top 2 here hold 76%, so a draw can come from the long tail" in line
