"""The Classroom game in Debian's Chromium: a class link fills in the code, a whole round A is played
(tick, reveal, next) to its score, round B tests an edited word, and the game fits a phone-sized window. The
round is looked at as a newcomer met it: the first reveal at 1400 px, 1280x720 and 420 px (no text over other
text, nothing wider than the screen: tests/page_layout.py), every reveal inside its box, and the closing lines
quoting the words that fooled.

Set GAME_SCREENSHOT=prefix to keep screenshots (prefix-wide.png at 1400 px, prefix-phone.png at 420 px).
"""

from __future__ import annotations

import os
import re

import pytest
from conftest import wait_for_text
from page_layout import look

pytestmark = pytest.mark.browser


def open_game(new_page, url: str, width: int = 1280):
    return to_game(new_page(url), width)


def to_game(page, width: int = 1280):
    """The game's view on an opened page of the app."""
    page.set_viewport_size({"width": width, "height": 900})
    page.get_by_role("tab", name="Classroom").click()
    page.get_by_role("tab", name="⑦ Can you beat ELECTRA?").click()
    page.locator("#game-start").wait_for()
    return page


def first_sentence(page) -> str:
    page.locator("#game-start").click()
    wait_for_text(page, "#game-sentence-box", "Sentence 1 of 5", timeout=30_000)
    return page.locator("#game-sentence-box .ee-big").inner_text()


def test_a_class_link_gives_everyone_the_same_round_and_a_bad_one_says_so(browser, new_page, app_url):
    links = {}
    for code in ("42", "-5"):  # the student's and the bad link's pages load while the teacher shares
        links[code] = browser.new_page(viewport={"width": 1280, "height": 900})
        links[code].goto(f"{app_url}?game={code}", wait_until="commit")
    teacher = open_game(new_page, app_url)
    teacher.locator("#game-code input").fill("42")
    teacher.locator("#game-share").click()
    wait_for_text(teacher, "#game-link", "?game=42", timeout=15_000)
    shared = teacher.locator("#game-link code").inner_text()
    assert shared == f"{app_url.rstrip('/')}/?game=42"  # the page's own address, not its queue's
    expected = first_sentence(teacher)
    page = to_game(links["42"])  # a student opens the class link
    page.wait_for_function("() => document.querySelector('#game-code input')?.value === '42'", timeout=15_000)
    assert "Round code 42 from your link" in page.locator("#game-link-note").inner_text()
    assert first_sentence(page) == expected  # the same sentence, the same corruption, on another page
    bad = to_game(links["-5"])
    wait_for_text(bad, "#game-link-note", "was not used", timeout=15_000)
    assert bad.locator("#game-code input").input_value() == "1"  # the default kept
    for opened in links.values():
        opened.close()


def test_play_a_whole_round_then_fool_the_discriminator(new_page, app_url):
    page = open_game(new_page, app_url, width=1400)
    page.locator("#game-code input").fill("3")
    page.locator("#game-n input[type=number]").fill("3")
    page.locator("#game-n input[type=number]").press("Enter")
    page.locator("#game-start").click()
    problems: list[str] = []
    for index in range(3):
        wait_for_text(page, "#game-sentence-box", f"Sentence {index + 1} of 3", timeout=30_000)
        page.locator("#game-ticks label").first.click()
        page.locator("#game-reveal-button").click()
        wait_for_text(page, "#game-reveal-box", "the truth", timeout=15_000)
        assert "✗ fake" in page.locator("#game-reveal-box").inner_text()  # every sentence has one
        if index == 0:
            look(page, "the game's reveal", problems)
            page.set_viewport_size({"width": 1400, "height": 900})
        inside = page.evaluate("() => { const r = document.querySelector('#game-reveal'); "
                               "return r.scrollWidth - r.clientWidth; }")
        assert inside <= 1  # every word's card is in the box: nothing scrolls off its right edge
        if index < 2:
            page.locator("#game-next").click()
    wait_for_text(page, "#game-score-box", "Round over", timeout=15_000)
    assert "round code 3" in page.locator("#game-score-box").inner_text()
    closing = re.findall(r"(?:fooled you|fooled ELECTRA): (.*)\.", page.inner_text("#game-score-box"))
    assert closing  # the round names the words that fooled
    for line in closing:
        assert re.fullmatch(r"“[^”]+”(?:(?:, | and )“[^”]+”)*", line), line  # quoted words, no raw punctuation
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])
    if os.environ.get("GAME_SCREENSHOT"):
        page.screenshot(path=os.environ["GAME_SCREENSHOT"] + "-wide.png", full_page=True)

    page.locator("#fool-text textarea").fill("The cat sat on the warm mat by the door.")
    page.locator("#fool-text textarea").press("Tab")
    page.get_by_label("Word to change").click()
    # the word list follows the sentence (it was empty): the click waits for "cat" to be offered
    page.get_by_role("option", name="cat", exact=True).click()
    page.locator("#fool-new textarea").fill("dog")
    page.locator("#fool-test").click()
    wait_for_text(page, "#fool-result", "P(replaced)", timeout=30_000)
    assert "“cat” → “dog”" in page.locator("#fool-result").inner_text()
    assert "in 1" in page.locator("#fool-result").inner_text()


def test_the_game_fits_a_phone(new_page, app_url):
    page = open_game(new_page, app_url, width=420)
    page.locator("#game-start").click()
    wait_for_text(page, "#game-sentence-box", "Sentence 1 of", timeout=30_000)
    page.locator("#game-reveal-button").click()
    wait_for_text(page, "#game-reveal-box", "the truth", timeout=15_000)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1  # the reveal table scrolls inside its own box, the page does not
    if os.environ.get("GAME_SCREENSHOT"):
        page.screenshot(path=os.environ["GAME_SCREENSHOT"] + "-phone.png", full_page=True)
