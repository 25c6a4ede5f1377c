"""The first screen of Explore and of the Training tab in Debian's Chromium, at a projector's 1280x720 and a
laptop's 1400x900: a press of Explore's main button brings the verdict into view (it lands below the fold),
switching the forger redraws with the other one, and the Training tab's Start button is in the first screen.
FIRST_MINUTE_SHOTS=folder keeps a screenshot of each."""

from __future__ import annotations

import os
import re

import pytest
from conftest import wait_until_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SIZES = [(1400, 900), (1280, 720)]
IN_VIEW = """(selector) => { const r = document.querySelector(selector).getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight + 1; }"""
DRAWN = "() => document.querySelector('#explore-verdict')?.innerText.includes('The generator replaced')"


def _shot(page, name: str) -> None:
    if os.environ.get("FIRST_MINUTE_SHOTS"):
        page.screenshot(path=os.path.join(os.environ["FIRST_MINUTE_SHOTS"], f"{name}.png"))


@pytest.mark.parametrize("width, height", SIZES)
def test_a_press_brings_the_verdict_into_view_and_another_forger_redraws(new_page, app_url, width, height):
    page = new_page(app_url)
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(DRAWN, timeout=60_000)  # the first example, judged on load
    assert not page.evaluate(IN_VIEW, "#explore-verdict")  # below the fold: a press must bring it up
    first = re.search(r"Draw (\d+)", page.locator("#explore-verdict").inner_text()).group(1)
    page.locator("#explore-run").click()
    # a new draw's number: the old verdict under gradio's progress timer is other text, with the old draw in it
    page.wait_for_function("(old) => { const d = /Draw (\\d+)/.exec(document.querySelector('#explore-verdict')"
                           ".innerText)?.[1]; return d !== undefined && d !== old; }", arg=first, timeout=30_000)
    page.wait_for_function(f"() => ({IN_VIEW})('#explore-verdict')", timeout=30_000)
    wait_until_idle(page)
    draw = re.search(r"Draw \d+", page.locator("#explore-verdict").inner_text()).group()
    _shot(page, f"explore-{width}x{height}")

    drawn = page.locator("#explore-proposals").inner_text()
    assert drawn.startswith("The generator's top guesses")
    page.locator("#explore-generator").get_by_text("A stronger generator").click()  # no press: it redraws
    page.wait_for_function("() => document.querySelector('#explore-proposals')?.innerText"
                           ".startsWith(\"The stronger generator's top guesses\")", timeout=30_000)
    assert draw in page.locator("#explore-verdict").inner_text()  # the same draw's seed, another forger


@pytest.mark.parametrize("width, height", SIZES)
def test_the_training_tabs_start_button_is_in_the_first_screen(new_page, app_url, width, height):
    page = new_page(app_url)
    page.set_viewport_size({"width": width, "height": height})
    page.get_by_role("tab", name="Training", exact=True).click()
    page.locator("#race-start").wait_for(timeout=30_000)
    page.locator("#race-verdict").wait_for(timeout=30_000)
    page.evaluate("() => window.scrollTo(0, 0)")  # the first screen, whatever a late layout shift did to the scroll
    assert page.evaluate("() => window.scrollY") == 0
    assert page.evaluate(IN_VIEW, "#race-start")
    assert "In the longest race recorded" in page.locator("#race-verdict").inner_text()
    _shot(page, f"training-{width}x{height}")
