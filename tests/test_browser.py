"""The Explore tab in Debian's Chromium (Playwright): type, run, see coloured words, ask why.

Needs `apt-get install -y chromium` (never `playwright install`). Set EXPLORE_SCREENSHOT=path to
keep a full-page screenshot of the tab after the run.
"""

from __future__ import annotations

import os
import re

import pytest
from conftest import wait_for_text, wait_until_idle

pytestmark = pytest.mark.browser  # the `browser` fixture (conftest) skips when chromium is missing
SENTENCE = "The old sailor told a wonderful story about the sea."


@pytest.fixture(scope="module")
def page(new_page, app_url):
    # The first example is judged on load: any test may be the first on this page (two workers share the module),
    # and a sentence typed before that run ends would be judged while the example's result is still on its way.
    page = new_page(app_url, record_requests=True)
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=60_000)
    return page


def chip_words(page, selector: str) -> list[str]:
    return page.locator(f"{selector} .ee-token").all_inner_texts()


def test_typing_a_sentence_shows_every_word_coloured(page):
    # The page explains its first example on load; wait for that, then type our own sentence.
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=30_000)
    box = page.locator("#explore-text textarea")
    box.fill(SENTENCE)
    page.locator("#explore-run").click()
    # "sailor" is in the verdict, as a chip or as "was sailor" under a fake; the first example also has 11 words
    wait_for_text(page, "#explore-verdict", "sailor")
    wait_until_idle(page)
    tokens = page.locator("#explore-verdict .ee-token")
    assert tokens.count() == len(SENTENCE.split()) + 1  # merged into words; the full stop is a word of its own
    colours = [tokens.nth(i).evaluate("e => getComputedStyle(e).backgroundColor") for i in range(tokens.count())]
    assert all(re.fullmatch(r"rgb\(\d+, \d+, \d+\)", c) for c in colours)
    assert "[MASK]" in page.locator("#explore-generator-input").inner_text()
    assert "looks replaced" in page.locator(".ee-legend").inner_text()


def test_asking_why_colours_the_attributions(page):
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=30_000)  # an explanation to ask about
    assert page.locator("#explore-stop").is_disabled()  # nothing to stop yet
    page.locator("#explore-why").click()
    page.locator("#explore-attribution .ee-chip").first.wait_for(timeout=30_000)
    page.wait_for_function("() => document.querySelector('#explore-stop').disabled", timeout=10_000)  # done: idle
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
    shown = page.locator("#explore-verdict").inner_text()
    assert "{{" in shown and "}}" in shown  # its marks are words of their own (a chip, or "was {{" under a fake)


def test_an_offline_hub_model_is_refused_at_once_and_the_page_keeps_working(page, tiny_pair_dir):
    page.get_by_text("Settings: model, mask rate, seed, temperature").click()
    dropdown = page.get_by_label("Model (bundled, a hub pair, or a folder with generator/ and discriminator/)")
    dropdown.click()
    page.get_by_role("option", name="google/electra-small").click()
    status = page.locator("#explore-model-status")
    status.locator(".ee-error").wait_for(timeout=30_000)  # "at once" (no network) is test_explain_models' to say
    assert "offline" in status.inner_text()
    page.wait_for_function(f"() => document.querySelector('#explore-model input')?.value === {str(tiny_pair_dir)!r}",
                           timeout=10_000)
    page.locator("#explore-text textarea").fill("the film was fine")
    page.locator("#explore-run").click()
    page.wait_for_function("() => document.querySelector('#explore-verdict').innerText.includes('film')",
                           timeout=30_000)


def test_manual_mode_lists_the_words_to_mask(page):
    page.locator("#explore-text textarea").fill("the chef ate the meal")
    page.get_by_text("I choose the words to mask").click()
    words = page.locator("#explore-mask-words label")
    words.first.wait_for(timeout=10_000)
    assert words.all_inner_texts() == ["the", "chef", "ate", "the", "meal"]
    words.nth(1).click()
    page.locator("#explore-run").click()
    page.wait_for_function(
        "() => document.querySelector('#explore-generator-input').innerText.trim().startsWith('the [MASK] ate')",
        timeout=30_000)


def test_the_page_makes_no_outbound_requests(page, app_url):
    from urllib.parse import urlparse

    hosts = {urlparse(url).hostname for url in page.requested if urlparse(url).scheme in ("http", "https", "ws", "wss")}
    assert page.requested and hosts <= {urlparse(app_url).hostname}, hosts


def test_detect_only_renames_the_button_and_keeps_the_truth_out_of_the_legend(page):
    run = page.locator("#explore-run")
    page.get_by_text("Detect only: judge my sentence as it is").click()
    page.wait_for_function("() => document.querySelector('#explore-run').innerText.trim() === 'Judge every word'",
                           timeout=10_000)
    page.locator("#explore-text textarea").fill("The old fisherman repaired his banana before the storm arrived.")
    run.click()
    wait_for_text(page, "#explore-generator-input", "Nothing was masked")
    wait_until_idle(page)
    assert "looks replaced" in page.locator(".ee-legend").inner_text()
    assert "really replaced" not in page.locator(".ee-legend").inner_text()
    page.get_by_text("Automatic: mask 15% at random").click()
    page.wait_for_function("() => document.querySelector('#explore-run').innerText.trim().startsWith('Corrupt it')",
                           timeout=10_000)


def test_large_type_doubles_the_results_for_a_projector(page):
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=30_000)
    percent = ("() => parseFloat(getComputedStyle("
               "document.querySelector('#explore-verdict .ee-chip').lastElementChild).fontSize)")
    assert page.evaluate(percent) == pytest.approx(10.5, abs=0.1)  # 0.75 em of the page's 14 px
    page.locator("#explore-large input").check()
    page.wait_for_function(f"() => ({percent})() > 20", timeout=10_000)  # 0.75 em of 28 px
    page.locator("#explore-large input").uncheck()
    page.wait_for_function(f"() => ({percent})() < 11", timeout=10_000)
