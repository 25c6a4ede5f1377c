"""A newcomer's first ten minutes, in Debian's Chromium, on one served app: the three tabs at 1400 px, at 1280x720
and on a 420-px phone. What a person met as a surprise is asserted here, each where it happened:

- Explore: a second press of the button is a new draw (its seed shown, in the box and in the copied link); the
  ticks of "I choose the words to mask" follow their words when the sentence changes, not their positions;
  neighbouring chips' captions never touch;
- Training: the budget reads in the units people use (1.4e13, not 14000000000000); the payoff panel says what
  will appear there before any race; the race's result comes before the explanations (they are folded);
- everywhere, at every size: no text overlaps other text (bounding boxes, HTML and the charts' SVG alike), no
  page is wider than the screen, and every chart shows a title or a message (tests/page_layout.py).

The game a newcomer met (the reveal inside its box, the closing lines quoting the words that fooled) is looked at
in tests/test_browser_game.py's whole round; the live class a newcomer met (no page scrolls sideways on a phone in
any phase, no gradio "Home" link, no blank band on top; round B's form moves on; the projector counts the fakes it
leaves out; no nameless round-A header) in the class's own walk through its phases, tests/test_browser_class.py.
Stop's promptness is asserted on a race's events in tests/test_race_stop.py (no clock here).
"""

from __future__ import annotations

import re

import pytest
from conftest import wait_for_text
from page_layout import look

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def draw_shown(page) -> str:
    return re.search(r"Draw (\d+):", page.inner_text("#explore-verdict")).group(1)


def explore(page, problems: list[str]) -> None:
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=60_000)
    draws = [draw_shown(page)]
    assert draws == ["0"]  # the first example, as a link or a reload gives it back
    for _ in range(2):  # each press: a new draw, shown beside the verdict and in the seed box
        page.locator("#explore-run").click()
        page.wait_for_function(f"() => !document.querySelector('#explore-verdict').innerText.includes("
                               f"'Draw {draws[-1]}:')", timeout=30_000)
        draws.append(draw_shown(page))
    assert len(set(draws)) == 3, draws
    page.get_by_text("Settings: model, mask rate, seed, temperature").click()
    page.locator("#explore-seed input").wait_for(state="visible")
    assert page.locator("#explore-seed input").input_value() == draws[-1]
    page.get_by_text("Settings: model, mask rate, seed, temperature").click()
    page.locator("#explore-copy-link").click()
    page.wait_for_function("() => document.querySelector('#explore-link textarea, #explore-link input')?.value"
                           ".startsWith('http')", timeout=10_000)
    assert f"seed={draws[-1]}" in page.locator("#explore-link textarea, #explore-link input").first.input_value()
    gaps = page.evaluate("""() => { const chips = [...document.querySelectorAll('#explore-verdict .ee-chip')]
        .map(c => c.getBoundingClientRect());
      return chips.slice(1).map((b, i) => Math.abs(b.top - chips[i].top) < 2 ? b.left - chips[i].right : 99); }""")
    assert min(gaps) >= 6, gaps  # neighbouring captions ("39% was old", "68% was fisherman") never touch
    look(page, "Explore", problems)
    page.set_viewport_size({"width": 1400, "height": 900})

    page.get_by_text("I choose the words to mask").click()
    page.locator("#explore-text textarea").fill("I drank my coffee and walked home")
    wait_for_text(page, "#explore-mask-words", "coffee")
    page.locator("#explore-mask-words label").filter(has_text=re.compile(r"^\s*coffee\s*$")).click()
    page.locator("#explore-text textarea").fill("She walked to the shop for coffee and cake")
    wait_for_text(page, "#explore-mask-words", "cake")  # the new words and their ticks come in one update
    ticked = page.evaluate("() => [...document.querySelectorAll('#explore-mask-words input:checked')]"
                           ".map(i => i.closest('label').innerText.trim())")
    assert ticked == ["coffee"]  # the tick followed "coffee" (word 4 -> word 7), not position 4 ("the")


def training(page, problems: list[str]) -> None:
    from explainer.ui.races import CURVES_HELP, PAYOFF_HELP

    page.get_by_role("tab", name="Training", exact=True).click()
    page.locator("#race-verdict").wait_for(timeout=30_000)
    amount = page.locator("#race-amount input, #race-amount textarea").first.input_value()
    assert re.fullmatch(r"\d+(\.\d+)?(e\d+)?", amount) and len(amount) <= 8, amount  # 1.4e13, 300 or 8
    page.wait_for_function("() => [...document.querySelectorAll('#race-payoff .annotation-text')]"
                           ".some(a => a.textContent.includes('No race yet'))", timeout=30_000)
    page.set_viewport_size({"width": 1400, "height": 900})
    top = page.evaluate("() => document.querySelector('#race-payoff').getBoundingClientRect().top + window.scrollY")
    assert top < 1500, top  # the race's result before the explanations, which are folded
    assert not re.search(r"\bLeft:|\bRight:|on the right", CURVES_HELP + PAYOFF_HELP)  # the charts are stacked
    look(page, "Training", problems)
    # Wide first, then narrower: a chart first drawn on a phone and then widened keeps the phone's bottom margin
    # (plotly's automargin grows, never shrinks) and its legend sits on the x-axis: a plotly quirk, not checked here.
    page.set_viewport_size({"width": 1400, "height": 900})
    page.get_by_role("tab", name="Replay a race").click()
    wait_for_text(page, "#replay-status-line", "End of the recording", timeout=20_000)
    page.locator("#replay-x-axis").get_by_text("FLOPs", exact=True).click()
    page.wait_for_function("() => [...document.querySelectorAll('#replay-curves .g-xtitle')]"
                           ".some(t => t.textContent.includes('training FLOPs used'))", timeout=15_000)
    look(page, "Training replay", problems)


def checked(browser, url: str, tour) -> None:
    """`tour(page, problems)` on a fresh 1400x900 page of the app; then no problem may be left."""
    problems: list[str] = []
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(url)
    try:
        tour(page, problems)
    finally:
        page.close()
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


# One test per tab: independent, so that two workers can share them.
def test_a_newcomer_meets_no_surprise_in_explore(browser, app_url):
    checked(browser, app_url, explore)


def test_a_newcomer_meets_no_surprise_in_the_training_tab(browser, app_url):
    checked(browser, app_url, training)


# The game's round is looked at the same way in tests/test_browser_game.py::test_play_a_whole_round_then_fool_the_
# discriminator (one round played instead of two).
# The live class (a teacher, a projector, phones) is looked at the same way, in every phase, by the class's own walk
# through its phases: tests/test_browser_class.py::test_a_teacher_moves_a_class_through_every_phase_and_nothing_leaks_
# before_the_reveal (one class run instead of two).
