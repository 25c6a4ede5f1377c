"""A newcomer's first ten minutes, in Debian's Chromium, on one served app: the three tabs at 1400 px, at 1280x720
and on a 420-px phone, then a live class (a teacher, a projector, two phones) through every phase. What a person
met as a surprise is asserted here, each where it happened:

- Explore: a second press of the button is a new draw (its seed shown, in the box and in the copied link); the
  ticks of "I choose the words to mask" follow their words when the sentence changes, not their positions;
  neighbouring chips' captions never touch;
- the game: the reveal of a sentence stays inside its box; the closing lines quote the words that fooled;
- Training: the budget reads in the units people use (1.4e13, not 14000000000000); the payoff panel says what
  will appear there before any race; the race's result comes before the explanations (they are folded);
- the live class: no page scrolls sideways on a phone in any phase, no gradio "Home" link, no blank band on
  top; round B's form moves to the next sentence with "Your word" emptied and the sentence shown in full; the
  projector counts the fakes it leaves out; the round-A table has no header without a name;
- everywhere, at every size: no text overlaps other text (bounding boxes, HTML and the charts' SVG alike), no
  page is wider than the screen, and every chart shows a title or a message.

Stop's promptness is asserted on a race's events in tests/test_race_stop.py (no clock here).
"""

from __future__ import annotations

import re

import pytest
from conftest import wait_for_text
from page_layout import look, phones_fit

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PHONE = {"width": 420, "height": 900}


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
    wait_for_text(page, "#explore-mask-words", "cake")
    page.wait_for_timeout(500)
    ticked = page.evaluate("() => [...document.querySelectorAll('#explore-mask-words input:checked')]"
                           ".map(i => i.closest('label').innerText.trim())")
    assert ticked == ["coffee"]  # the tick followed "coffee" (word 4 -> word 7), not position 4 ("the")


def game(page, problems: list[str]) -> None:
    page.get_by_role("tab", name="Classroom", exact=True).click()
    page.get_by_role("tab", name="⑦ Can you beat ELECTRA?").click()
    page.locator("#game-n input[type=number]").fill("3")
    page.locator("#game-n input[type=number]").press("Enter")
    page.locator("#game-start").click()
    for i in range(3):
        wait_for_text(page, "#game-sentence-box", f"Sentence {i + 1} of 3", timeout=30_000)
        page.locator("#game-reveal-button").click()
        wait_for_text(page, "#game-reveal-box", "the truth")
        if i == 0:
            look(page, "the game's reveal", problems)
            page.set_viewport_size({"width": 1400, "height": 900})
        inside = page.evaluate("() => { const r = document.querySelector('#game-reveal'); "
                               "return r.scrollWidth - r.clientWidth; }")
        assert inside <= 1  # every word's card is in the box: nothing scrolls off its right edge
        if i < 2:
            page.locator("#game-next").click()
    wait_for_text(page, "#game-score-box", "Round over")
    for line in re.findall(r"(?:fooled you|fooled ELECTRA): (.*)\.", page.inner_text("#game-score-box")):
        assert re.fullmatch(r"“[^”]+”(?:(?:, | and )“[^”]+”)*", line), line  # quoted words, no raw punctuation


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
    page.get_by_role("tab", name="Replay a recorded race").click()
    wait_for_text(page, "#replay-status-line", "End of the recording", timeout=20_000)
    page.locator("#replay-x-axis").get_by_text("FLOPs", exact=True).click()
    page.wait_for_function("() => [...document.querySelectorAll('#replay-curves .g-xtitle')]"
                           ".some(t => t.textContent.includes('training FLOPs used'))", timeout=15_000)
    look(page, "Training replay", problems)


def live_class(browser, app_url: str, problems: list[str]) -> None:
    teacher = browser.new_page(viewport={"width": 1400, "height": 900})
    teacher.goto(app_url + "class")
    teacher.locator("#class-n input[type=number]").fill("3")
    teacher.locator("#class-n input[type=number]").press("Enter")
    teacher.locator("#class-start").click()
    teacher.locator("#class-view-link").wait_for(timeout=30_000)
    link = teacher.locator("#class-student-link").get_attribute("href")
    projector = browser.new_page(viewport={"width": 1280, "height": 720})
    projector.goto(teacher.locator("#class-view-link").get_attribute("href"))
    wait_for_text(projector, "#class-stage", "Join the class", timeout=30_000)
    phones = []
    for name in ("Ana", "Bo"):
        phone = browser.new_page(viewport=PHONE)
        phone.goto(link)
        phone.locator("#class-join").click()
        wait_for_text(phone, "#class-wait", "Wait for your teacher", timeout=30_000)
        phones.append(phone)
    wait_for_text(projector, "#class-joined", "2", timeout=15_000)
    look(teacher, "the teacher's page in the lobby", problems)
    phones_fit(phones, "the lobby", problems)

    teacher.locator("#class-move").click()  # round A
    for k, phone in enumerate(phones):
        for i in range(3):
            wait_for_text(phone, "#class-sentence", f"sentence {i + 1} of 3", timeout=30_000)
            phone.locator("#class-ticks label").nth(k + i).click()
            phone.locator("#class-submit").click()
            wait_for_text(phone, "#class-saved", "Saved", timeout=30_000)
            if i == 0:
                phones_fit([phone], "round A", problems)
            phone.locator("#class-next").click()
        wait_for_text(phone, "#class-wait", "Round A is done", timeout=30_000)
    headers = projector.locator("#class-progress th").all_inner_texts()
    assert all(h.strip() for h in headers), headers  # no column without a name

    fakes = 0
    for i in range(3):
        teacher.locator("#class-move").click()  # the reveal of sentence i + 1
        wait_for_text(projector, "#class-phase", f"sentence {i + 1} of 3", timeout=15_000)
        wait_for_text(phones[0], "#class-wait-box", "the truth", timeout=15_000)
        wait_for_text(phones[0], "#class-status", f"the {i + 1} revealed", timeout=15_000)
        fakes += phones[0].locator("#class-wait-box .ee-card.ee-faked").count()
        if i == 0:
            phones_fit(phones, "the reveal", problems)  # every word of the reveal on the phone's screen
            look(projector, "the projector in the reveal", problems, sizes=((1280, 720),))

    teacher.locator("#class-move").click()  # round B
    ana = phones[0]
    ana.locator("#class-b-test").wait_for(timeout=30_000)
    wait_for_text(ana, "#class-b-text", "Sentence 1 of 3")
    ana.get_by_label("Word to change").click()
    ana.get_by_role("option").nth(1).click()
    ana.locator("#class-b-new input, #class-b-new textarea").first.fill("dog")
    ana.locator("#class-b-test").click()
    wait_for_text(ana, "#class-b-result", "P(replaced)", timeout=30_000)
    wait_for_text(ana, "#class-b-text", "Sentence 2 of 3")  # the form moved on, the sentence in full
    assert ana.locator("#class-b-new input, #class-b-new textarea").first.input_value() == ""
    shown = ana.locator("#class-b-text .ee-sentence").inner_text()
    chosen = ana.locator("#class-b-sentence input").input_value()
    assert chosen == "2. " + shown or chosen.startswith("2. ") and shown.startswith(chosen[3:].rstrip("…"))
    phones_fit(phones, "round B", problems)

    teacher.locator("#class-move").click()  # the results
    wait_for_text(projector, "#class-phase", "The results", timeout=15_000)
    rows = projector.locator("#class-fooling tr").count() - 1
    more = projector.locator("#class-fooling-more")
    counted = int(re.search(r"and (\d+) more", more.inner_text()).group(1)) if more.count() else 0
    assert rows + counted == fakes, (rows, counted, fakes)  # every fake shown or counted
    look(projector, "the projector at the results", problems, sizes=((1280, 720), (1400, 900)))
    look(teacher, "the teacher's page at the results", problems)
    phones_fit(phones, "the results", problems)
    for page in (teacher, projector, *phones):
        page.close()


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


# One test per tab and one for the class: independent, so that two workers can share them.
def test_a_newcomer_meets_no_surprise_in_explore(browser, app_url):
    checked(browser, app_url, explore)


def test_a_newcomer_meets_no_surprise_in_the_game(browser, app_url):
    checked(browser, app_url, game)


def test_a_newcomer_meets_no_surprise_in_the_training_tab(browser, app_url):
    checked(browser, app_url, training)


def test_a_newcomer_meets_no_surprise_in_the_live_class(browser, app_url):
    problems: list[str] = []
    live_class(browser, app_url, problems)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])
