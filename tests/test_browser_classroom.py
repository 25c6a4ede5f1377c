"""The Classroom tab in Debian's Chromium (Playwright): step through the walk-through, present it from the
keyboard and go on to present the game, answer a question.

Needs `apt-get install -y chromium` (never `playwright install`). Set CLASSROOM_SCREENSHOTS=prefix to
keep full-page screenshots (prefix-walk.png, -present, -present-game, -positions, -quiz).
"""

from __future__ import annotations

import os

import pytest

from explainer.core.pipeline import explain
from explainer.lesson.supervision import TOY_SETTINGS, TOY_TEXT
from explainer.lesson.quiz import QUESTIONS

pytestmark = pytest.mark.browser  # the `browser` fixture (conftest) skips when chromium is missing
SHOTS = os.environ.get("CLASSROOM_SCREENSHOTS")


@pytest.fixture(scope="module")
def page(new_page, app_url):
    page = new_page(app_url)
    page.get_by_role("tab", name="Classroom").click()
    yield page


def shot(page, name: str) -> None:
    if SHOTS:
        page.wait_for_timeout(300)
        page.screenshot(path=f"{SHOTS}-{name}.png", full_page=True)


def step(page) -> str:
    return page.locator("#walk-step .ee-step").get_attribute("data-step")


def wait_for_step(page, name: str) -> None:
    page.wait_for_function(f"() => document.querySelector('#walk-step .ee-step')?.dataset.step === {name!r}",
                           timeout=15_000)


def to_step(page, name: str) -> None:
    """Walk to `name` by the buttons (none pressed when the walk is already there): a test that starts a worker's
    page (two workers share this module) finds it at the first step, not where the test above left it."""
    order = ("mask", "propose", "swap", "detect")
    page.locator("#walk-step .ee-step").wait_for(timeout=30_000)
    while (here := order.index(step(page))) != order.index(name):
        ahead = here < order.index(name)
        page.locator("#walk-next" if ahead else "#walk-back").click()
        wait_for_step(page, order[here + (1 if ahead else -1)])


def test_back_and_next_walk_through_the_four_steps(page):
    wait_for_step(page, "mask")
    assert "[MASK]" in page.locator("#walk-step").inner_text()
    for name in ("propose", "swap", "detect"):
        page.locator("#walk-next").click()
        wait_for_step(page, name)
    assert "Step 4 of 4: Detect" in page.locator("#walk-step").inner_text()
    assert page.locator("#walk-step .ee-chip").count() > 5  # every token coloured by P(replaced)
    page.locator("#walk-next").click()  # past the end: stays on the last step
    page.wait_for_timeout(500)
    assert step(page) == "detect"
    page.locator("#walk-back").click()
    wait_for_step(page, "swap")
    shot(page, "walk")


def test_presenter_mode_is_full_screen_and_driven_by_the_keyboard(page):
    to_step(page, "swap")  # where the walk-through above ends
    page.locator("#classroom-present input").check()
    page.wait_for_function("() => document.body.classList.contains('ee-present')", timeout=5_000)
    stage = page.locator("#classroom-stage").bounding_box()
    assert stage["width"] >= 1200 and stage["height"] >= 850  # covers the window
    page.locator("#walk-step").click()  # focus out of the checkbox, as a presenter would
    page.keyboard.press("ArrowLeft")
    wait_for_step(page, "propose")
    page.keyboard.press("ArrowRight")
    wait_for_step(page, "swap")
    page.keyboard.press("PageDown")
    wait_for_step(page, "detect")
    shot(page, "present")
    game_size = _presents_the_game(page)
    assert step(page) == "detect"  # the arrows pressed on the game's view left the walk-through where it was
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.classList.contains('ee-present')", timeout=5_000)
    normal = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#classroom-game-tab .prose p'))"
                           ".fontSize)")
    assert game_size >= 1.5 * normal  # presenter mode enlarged the game
    page.get_by_role("tab", name="① Walk-through").click()
    wait_for_step(page, "detect")
    page.wait_for_function("() => !document.body.classList.contains('ee-present')", timeout=5_000)
    page.keyboard.press("ArrowLeft")  # outside presenter mode the arrows are the page's again
    page.wait_for_timeout(500)
    assert step(page) == "detect"


def _presents_the_game(page) -> float:
    """In presenter mode the views' tab bar stays on the stage: ⑦ opens, large, and the arrow keys leave the
    walk-through alone while the game is on screen. Returns the game's rules' type size (px)."""
    page.get_by_role("tab", name="⑦ Can you beat ELECTRA?").click(timeout=5_000)
    page.locator("#game-start").wait_for(timeout=10_000)
    assert page.locator("#game-start").is_visible() and not page.locator("#walk-panel").is_visible()
    inside = page.evaluate("() => document.querySelector('#classroom-stage').contains("
                           "document.querySelector('#game-start'))")
    assert inside  # the game is on the full-screen stage, not under it
    page.locator("#fool-test").scroll_into_view_if_needed()  # the foot of the game's view
    for fixed in (page.locator("#classroom-present"), page.get_by_role("tab", name="① Walk-through")):
        box = fixed.bounding_box()
        assert box and 0 <= box["y"] < 200, box  # the switch and the views stay on screen as the view scrolls
    page.locator("#game-code input").click()
    page.keyboard.press("Escape")  # in a text box the keys are the box's: presenter mode stays on
    assert page.evaluate("() => document.body.classList.contains('ee-present')")
    page.locator("#classroom-game-tab .prose p").first.click()
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(500)
    shot(page, "present-game")
    return page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#classroom-game-tab .prose p'))"
                         ".fontSize)")


def test_the_toy_sentence_restarts_at_step_one_and_counts_as_the_pipeline_does(page, tiny_pair):
    expected = explain(tiny_pair, TOY_TEXT, TOY_SETTINGS)  # masks "the" and "cooked", as the paper's figure
    page.locator("#classroom-toy").click()
    # the toy's own first step ("as in the paper's Figure 2"): the page's first example opens on a "mask" step too
    page.wait_for_function("() => { const s = document.querySelector('#walk-step .ee-step');"
                           " return s?.dataset.step === 'mask' && s.innerText.includes('Figure 2'); }", timeout=15_000)
    assert page.locator("#classroom-text textarea").input_value() == TOY_TEXT
    page.get_by_role("tab", name="② Supervised positions").click()
    n = len(expected.tokens)
    page.wait_for_function(f"() => document.querySelector('#classroom-positions .ee-count-rtd')?.innerText"
                           f".startsWith('RTD (ELECTRA): {n} of {n} ')", timeout=10_000)
    mlm = page.locator("#classroom-positions .ee-count-mlm").inner_text()
    assert mlm.startswith(f"MLM (BERT): {len(expected.masked)} of {n} positions")
    shot(page, "positions")
    page.get_by_role("tab", name="① Walk-through").click()


def test_answering_a_question_gives_feedback_and_a_score(page):
    page.get_by_role("tab", name="⑥ Knowledge check").click()
    first = QUESTIONS[0]
    assert first.prompt in page.locator("#quiz-question").inner_text()
    page.locator("#quiz-choices").get_by_label(first.answer).check()
    page.locator("#quiz-check").click()
    page.locator("#quiz-feedback .ee-feedback").wait_for(timeout=10_000)
    assert "Correct" in page.locator("#quiz-feedback").inner_text()
    assert "Score: 1 / 1" in page.locator("#quiz-score").inner_text()
    page.locator("#quiz-next").click()
    second = QUESTIONS[1]
    assert second.kind == "short"
    page.wait_for_function(f"() => document.querySelector('#quiz-question').innerText.includes({second.prompt[:30]!r})",
                           timeout=10_000)
    page.locator("#quiz-short textarea").fill("the original")
    page.locator("#quiz-check").click()
    page.wait_for_function("() => document.querySelector('#quiz-feedback').innerText.includes('Not quite')",
                           timeout=10_000)
    assert "Score: 1 / 2" in page.locator("#quiz-score").inner_text()
    shot(page, "quiz")
