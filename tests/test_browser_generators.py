"""The choice of generator and typed blanks in Debian's Chromium, on the tiny pair with a tiny stronger generator
(conftest's `app_url`): a typed [MASK] shows both generators' guesses, a link restores the generator, the game's
harder level says so in its score, and a live class started on the stronger generator says so on the projector."""

from __future__ import annotations

import pytest
from conftest import wait_for_text
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
BLANK_SENTENCE = "I drank a cup of [MASK] before work."
SETTLED = ("() => { const v = document.querySelector('#explore-verdict')?.innerText || '';"  # no progress timer on it
           " const busy = document.querySelector('#explore-verdict .progress-text, #explore-verdict .eta-bar');"
           " return !busy && v.includes('The generator replaced') && !v.includes('processing') && !v.includes('queue:')"
           " && !/^\\s*[\\d.]+s\\b/.test(v) && v; }")  # the settled text, read in the same breath


def test_a_typed_blank_shows_both_generators_and_a_link_restores_the_choice(new_page, app_url):
    page = new_page(app_url)
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=30_000)
    assert "Measured on the classroom sentences" in page.locator("#explore-forger-line").inner_text()
    page.locator("#explore-text textarea").fill(BLANK_SENTENCE)
    page.locator("#explore-run").click()
    wait_for_text(page, "#explore-verdict", "filled your blank")
    card = page.locator("#explore-proposals .ee-blank-card")
    expect(card).to_have_count(1)
    halves = card.locator(".ee-guess-half")
    assert halves.nth(0).inner_text().startswith("ELECTRA's generator (drew this one)")
    assert halves.nth(1).inner_text().startswith("A stronger generator")

    page.locator("#explore-generator").get_by_text("A stronger generator").click()  # redraws with it at once
    wait_for_text(page, "#explore-proposals", "A stronger generator (drew this one)")
    # the verdict as drawn, not under gradio's progress timer
    redrawn = page.wait_for_function(SETTLED, timeout=30_000).json_value()
    page.locator("#explore-run").click()  # a new draw, still the stronger generator's
    page.wait_for_function(f"() => document.querySelector('#explore-verdict').innerText !== {redrawn!r}",
                           timeout=30_000)
    verdict = page.wait_for_function(SETTLED, timeout=30_000).json_value()
    assert "A stronger generator (drew this one)" in page.locator("#explore-proposals").inner_text()
    page.locator("#explore-copy-link").click()
    page.wait_for_function("() => document.querySelector('#explore-link textarea, #explore-link input')?.value"
                           ".startsWith('http')", timeout=10_000)
    url = page.locator("#explore-link textarea, #explore-link input").first.input_value()
    assert "generator=stronger" in url
    fresh = new_page(url)
    wait_for_text(fresh, "#explore-proposals", "A stronger generator (drew this one)")
    expect(fresh.locator("#explore-generator input[value=stronger]")).to_be_checked()
    assert fresh.wait_for_function(SETTLED, timeout=30_000).json_value() == verdict


def test_the_game_offers_a_harder_level(new_page, app_url):
    page = new_page(app_url)
    page.get_by_role("tab", name="Classroom").click()
    page.get_by_role("tab", name="⑦ Can you beat ELECTRA?").click()
    page.locator("#game-level").get_by_text("Harder: a stronger generator forges the fakes").click()
    page.locator("#game-start").click()
    wait_for_text(page, "#game-sentence-box", "Sentence 1 of 5", timeout=30_000)
    wait_for_text(page, "#game-score-box", "harder level: a stronger generator forged the fakes")
    page.locator("#game-reveal-button").click()
    wait_for_text(page, "#game-reveal-box", "the truth", timeout=15_000)
    page.locator("#game-share").click()
    wait_for_text(page, "#game-link", "level=harder", timeout=15_000)


def test_a_class_started_on_the_stronger_generator_says_so_on_the_projector(browser, app_url):
    teacher = browser.new_page(viewport={"width": 1280, "height": 900})
    teacher.goto(app_url + "class")
    teacher.locator("#class-generator").get_by_text("Harder: a stronger generator forges the fakes").click()
    teacher.locator("#class-start").click()
    teacher.locator("#class-view-link").wait_for(timeout=30_000)
    projector = browser.new_page(viewport={"width": 1920, "height": 1080})
    projector.goto(teacher.locator("#class-view-link").get_attribute("href"))
    wait_for_text(projector, "#class-forger", "Fakes forged by a stronger generator", timeout=30_000)
    wait_for_text(teacher, "#class-board", "Fakes forged by a stronger generator", timeout=15_000)
    teacher.close()
    projector.close()
