"""A class on the teacher's own sentences, in Debian's Chromium: the teacher pastes three sentences of their
own on /class and starts; a student joins from their phone; in round A the phone shows those sentences, in the
teacher's order, forged by the generator (most words as the teacher wrote them, at least one replaced). A
sentence that cannot be played is named on the teacher's page instead.

Set CLASS_SCREENSHOT=prefix to keep prefix-own-refused.png, prefix-own-teacher.png and prefix-own-phone-N.png.
"""

from __future__ import annotations

import os

import pytest
from conftest import wait_for_text

pytestmark = [pytest.mark.browser, pytest.mark.slow]
OWN = ["Our class planted three trees behind the school last spring.",
       "The library opens early on Mondays for students who want to read.",
       "My sister baked a cake for her friend's birthday party."]


def test_a_class_on_three_sentences_of_the_teachers_own(browser, app_url, wordpiece):
    from training.words import align

    prefix = os.environ.get("CLASS_SCREENSHOT")
    teacher = browser.new_page(viewport={"width": 1280, "height": 900})
    teacher.goto(app_url + "class")
    box = teacher.locator("#class-own textarea")
    box.fill("Too short\n" + "\n".join(OWN))
    teacher.locator("#class-start").click()
    wait_for_text(teacher, "#class-message", "Sentence 1 cannot be played: it has fewer than 4 words")
    if prefix:
        teacher.screenshot(path=f"{prefix}-own-refused.png", full_page=True)
    box.fill("\n".join(OWN))
    teacher.locator("#class-start").click()
    teacher.locator("#class-student-link").wait_for(timeout=30_000)
    link = teacher.locator("#class-student-link").get_attribute("href")
    if prefix:
        teacher.screenshot(path=f"{prefix}-own-teacher.png", full_page=True)

    phone = browser.new_page(viewport={"width": 420, "height": 900})
    phone.goto(link)
    phone.locator("#class-join").click()
    wait_for_text(phone, "#class-wait", "Wait for your teacher", timeout=30_000)
    teacher.locator("#class-move").click()  # round A
    for i, own in enumerate(OWN):
        wait_for_text(phone, "#class-sentence", f"sentence {i + 1} of {len(OWN)}", timeout=30_000)
        shown = [phone.locator("#class-ticks label").nth(j).inner_text().strip()
                 for j in range(phone.locator("#class-ticks label").count())]
        written = [w.text for w in align(wordpiece, own, 128).words]  # "spring" and "." apart
        same = sum(a == b for a, b in zip(shown, written))
        assert len(shown) == len(written) and len(written) / 2 <= same < len(written), (shown, written)
        if prefix:
            phone.screenshot(path=f"{prefix}-own-phone-{i + 1}.png", full_page=True)
        phone.locator("#class-submit").click()
        wait_for_text(phone, "#class-saved", "Saved", timeout=30_000)
        phone.locator("#class-next").click()
    wait_for_text(phone, "#class-wait", "Round A is done", timeout=30_000)
