"""The Explore tab in Debian's Chromium (Playwright): type, run, see coloured words, ask why.

Needs `apt-get install -y chromium` (never `playwright install`). Set EXPLORE_SCREENSHOT=path to
keep a full-page screenshot of the tab after the run.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium: apt-get install -y chromium"),
]
SENTENCE = "The old sailor told a wonderful story about the sea."


@pytest.fixture(scope="module")
def page(app_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(app_url)
        yield page
        browser.close()


def chip_words(page, selector: str) -> list[str]:
    return page.locator(f"{selector} .ee-token").all_inner_texts()


def test_typing_a_sentence_shows_every_word_coloured(page):
    # The page explains its first example on load; wait for that, then type our own sentence.
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=30_000)
    box = page.locator("#explore-text textarea")
    box.fill(SENTENCE)
    page.locator("#explore-run").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('#explore-verdict .ee-token')].map(e => e.innerText).includes('sailor')"
        " || [...document.querySelectorAll('#explore-verdict .ee-chip')].length === 10",
        timeout=30_000,
    )
    tokens = page.locator("#explore-verdict .ee-token")
    assert tokens.count() == len(SENTENCE.split())  # merged into words
    colours = [tokens.nth(i).evaluate("e => getComputedStyle(e).backgroundColor") for i in range(tokens.count())]
    assert all(re.fullmatch(r"rgb\(\d+, \d+, \d+\)", c) for c in colours)
    assert "[MASK]" in page.locator("#explore-generator-input").inner_text()
    assert "looks replaced" in page.locator(".ee-legend").inner_text()


def test_asking_why_colours_the_attributions(page):
    page.locator("#explore-why").click()
    page.locator("#explore-attribution .ee-chip").first.wait_for(timeout=30_000)
    assert "convergence delta" in page.locator("#explore-attribution").inner_text()
    if os.environ.get("EXPLORE_SCREENSHOT"):
        page.wait_for_timeout(500)
        page.screenshot(path=os.environ["EXPLORE_SCREENSHOT"], full_page=True)


def test_hostile_text_stays_text_in_the_page(page):
    attack = "<img src=x onerror=\"document.title='pwned'\"> ${document.title='pwned'} {{7*7}}"
    page.locator("#explore-text textarea").fill(attack)
    page.locator("#explore-run").click()
    page.wait_for_function("() => document.querySelector('#explore-verdict').innerText.includes('onerror')",
                           timeout=30_000)
    assert page.title() != "pwned"
    assert page.locator("#explore-verdict img").count() == 0
    assert "{{7*7}}" in page.locator("#explore-verdict").inner_text()
