"""A live class in Debian's Chromium, through every phase: a teacher starts a class on /class, opens the
projector's view-only link, three students join by its link (each in their own browser context, as on their own
phones) and follow the teacher's phases: the lobby, round A, the reveal of each sentence, round B, the results,
the end. Before the reveal no student page and no projector page holds a fake marked or ELECTRA's verdict;
after it they do. The class's total equals the sum of the students' points. The teacher key is in no page's
HTML and no address; the projector's token moves nothing.

The same walk checks what a newcomer met on each page (tests/page_layout.py), in every phase: no text over
other text, no page or box on a phone scrolling sideways, no gradio "Home" link, no blank band on top of a phone;
the round-A table has no header without a name; round B takes no bet the student did not choose, shows its
verdict in the form's place (its "Next sentence →" on the screen), then moves to the next sentence with "Your
word" emptied, no bet chosen and the sentence shown in full; the projector's results show or count every fake revealed.

Set CLASS_SCREENSHOT=prefix to keep screenshots of each phase: prefix-PHASE-1920.png and -1280.png (the
projector), prefix-PHASE-phone.png (a student at 420 px).
"""

from __future__ import annotations

import os
import re

import pytest
from conftest import wait_for_text
from page_layout import look, phones_fit, settle

pytestmark = [pytest.mark.browser, pytest.mark.slow]
N = 3
TRUTH = ("✗", "⚑", "flagged", "was “", "the truth")  # a fake marked, ELECTRA's verdict, the reveal's table


def no_scroll(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollHeight <= window.innerHeight + 1 && "
                         "document.documentElement.scrollWidth <= window.innerWidth + 1")


def shoot(pages: dict, phase: str) -> None:
    """The projector fits 1920x1080 and 1280x720 without scrolling in this phase (screenshots when asked)."""
    prefix = os.environ.get("CLASS_SCREENSHOT")
    projector = pages["projector"]
    for width, height in ((1280, 720), (1920, 1080)):
        projector.set_viewport_size({"width": width, "height": height})
        settle(projector, resized=False)  # laid out again at this size (no chart on it to redraw)
        assert no_scroll(projector), f"{phase} scrolls at {width}x{height}"
        if prefix:
            projector.screenshot(path=f"{prefix}-{phase}-{width}.png")
    if prefix:
        pages["phone"].screenshot(path=f"{prefix}-{phase}-phone.png", full_page=True)


def test_a_teacher_moves_a_class_through_every_phase_and_nothing_leaks_before_the_reveal(browser, app_url):
    problems: list[str] = []  # what a newcomer would meet on a page, each with its phase; asserted at the end
    teacher = browser.new_page(viewport={"width": 1280, "height": 900})
    teacher.goto(app_url + "class")
    teacher.locator("#class-n input[type=number]").fill(str(N))
    teacher.locator("#class-n input[type=number]").press("Enter")
    teacher.locator("#class-start").click()
    teacher.locator("#class-view-link").wait_for(timeout=30_000)
    code = teacher.locator("#class-code").first.inner_text().replace("-", "")
    link = teacher.locator("#class-student-link").get_attribute("href")
    view_link = teacher.locator("#class-view-link").get_attribute("href")
    teacher.wait_for_function("() => location.search.includes('teach=1')")
    assert link.endswith(f"/class?class={code}") and "view=" in view_link and "teacher" not in teacher.url

    projector = browser.new_page(viewport={"width": 1920, "height": 1080})
    projector.goto(view_link, wait_until="commit")  # it and the phones load at once; each is waited for below
    phones = []
    for _ in range(3):
        phones.append(browser.new_page(viewport={"width": 420, "height": 900}))  # its own context: its own phone
        phones[-1].goto(link, wait_until="commit")
    wait_for_text(projector, "#class-stage", "Join the class", timeout=30_000)
    assert projector.locator("#class-stage svg").count() == 1  # the QR code
    size = projector.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#class-stage .ee-in'))"
                              ".fontSize)")
    assert size >= 28

    for page, nickname in zip(phones, ("Ana", "<b>Zed</b>", "")):  # they join one after the other
        page.locator("#class-join").wait_for(timeout=30_000)
        if nickname:
            page.locator("#class-nickname input, #class-nickname textarea").first.fill(nickname)
        page.locator("#class-join").click()
        wait_for_text(page, "#class-wait", "Wait for your teacher", timeout=30_000)
    wait_for_text(projector, "#class-joined", "3", timeout=15_000)  # the projector refreshes by itself
    names = projector.locator("#class-roster").inner_text()
    assert "Ana" in names and "<b>Zed</b>" in names and "Student 3" in names  # escaped: shown, not bold
    pages = {"projector": projector, "phone": phones[0]}
    shoot(pages, "lobby")
    look(teacher, "the teacher's page in the lobby", problems)
    teacher.locator("#class-end").click()  # armed, then Cancel: the class goes on
    teacher.locator("#class-end-cancel").click()
    teacher.locator("#class-end").wait_for(timeout=15_000)
    assert not teacher.locator("#class-end-sure").is_visible()
    teacher.set_viewport_size({"width": 1280, "height": 900})
    phones_fit(phones, "the lobby", problems)

    def every_html() -> str:
        return "".join(p.content() for p in (projector, teacher, *phones))

    teacher.locator("#class-move").click()  # round A
    for i in range(N):  # sentence by sentence, the three phones answering together
        for k, page in enumerate(phones):
            wait_for_text(page, "#class-sentence", f"sentence {i + 1} of {N}", timeout=30_000)
            page.locator("#class-ticks label").nth((k + i) % 3).click()
            page.locator("#class-submit").click()
            if i == 0 and k == 0:  # Ana's first answer, alone on the projector
                wait_for_text(page, "#class-saved", "Saved", timeout=30_000)
                wait_for_text(projector, "#class-progress", "1 of 3", timeout=15_000)
                shoot(pages, "round_a")
        for page in phones:
            wait_for_text(page, "#class-saved", "Saved", timeout=30_000)
            if i == 0:
                phones_fit([page], "round A", problems)
            page.locator("#class-next").click()
    for page in phones:
        wait_for_text(page, "#class-wait", "Round A is done", timeout=30_000)
    wait_for_text(projector, "#class-answered", "3", timeout=15_000)
    headers = projector.locator("#class-progress th").all_inner_texts()
    assert all(h.strip() for h in headers), headers  # no column without a name
    html = every_html()
    assert not any(mark in html for mark in TRUTH) and "class-revealed" not in html  # nothing names a fake yet

    forged = browser.new_page()  # the projector's token, or anything off its page, moves nothing (read below)
    forged.goto(view_link.replace("view=", "teacher="), wait_until="commit")  # it loads during the reveal
    teacher.locator("#class-move").click()  # the reveal of sentence 1
    wait_for_text(projector, "#class-phase", f"sentence 1 of {N}", timeout=15_000)
    assert ("✗" in projector.locator("#class-revealed").inner_text()
            and "ELECTRA" in projector.inner_text("#class-stage"))
    for page in phones:
        wait_for_text(page, "#class-wait", "showing the answers", timeout=15_000)
        assert "the truth" in page.inner_text("#class-wait-box")
    wait_for_text(phones[0], "#class-status", f"so far (1 of {N} sentences revealed)", timeout=15_000)
    fakes = phones[0].locator("#class-wait-box .ee-card.ee-faked").count()  # the fakes of each revealed sentence
    phones_fit(phones, "the reveal", problems)  # every word of the reveal on the phone's screen
    look(projector, "the projector in the reveal", problems, sizes=((1280, 720),))
    shoot(pages, "reveal")
    wait_for_text(forged, "#class-message", "Wrong teacher key", timeout=30_000)
    forged.close()
    for i in range(1, N):
        teacher.locator("#class-move").click()
        wait_for_text(projector, "#class-phase", f"sentence {i + 1} of {N}", timeout=15_000)
        wait_for_text(phones[0], "#class-wait-box", "the truth", timeout=15_000)
        wait_for_text(phones[0], "#class-status", f"({i + 1} of {N} sentences revealed)", timeout=15_000)
        fakes += phones[0].locator("#class-wait-box .ee-card.ee-faked").count()
    points = []
    for page in phones:
        wait_for_text(page, "#class-status", f"({N} of {N} sentences revealed)", timeout=15_000)
        points.append(int(re.search(r"answered, ([+-]?\d+) point", page.inner_text("#class-status")).group(1)))

    teacher.locator("#class-move").click()  # round B
    wait_for_text(projector, "#class-phase", "Round B", timeout=15_000)
    ana = phones[0]
    ana.locator("#class-b-box, #class-b-test").first.wait_for(timeout=15_000)
    wait_for_text(ana, "#class-b-text", f"Sentence 1 of {N}")
    ana.get_by_label("Word to change").click()
    ana.get_by_role("option").nth(1).click()
    ana.locator("#class-b-new input, #class-b-new textarea").first.fill("dog")
    ana.locator("#class-b-test").click()  # no bet chosen: none is made for her
    wait_for_text(ana, "#class-message", "Place your bet first", timeout=30_000)
    ana.get_by_text("ELECTRA will be fooled").click()
    ana.locator("#class-b-test").click()
    wait_for_text(ana, "#class-b-result", "P(replaced)", timeout=30_000)  # the verdict, in the form's place
    assert not ana.locator("#class-b-test").is_visible() and "You predicted" in ana.inner_text("#class-b-result")
    assert ana.evaluate("() => document.querySelector('#class-b-next').getBoundingClientRect().bottom") <= 900
    ana.locator("#class-b-next").click()
    wait_for_text(ana, "#class-b-text", f"Sentence 2 of {N}")  # the form moved on, the sentence in full
    assert ana.locator("#class-b-bet input:checked").count() == 0
    assert ana.locator("#class-b-new input, #class-b-new textarea").first.input_value() == ""
    shown = ana.locator("#class-b-text .ee-sentence").inner_text()
    chosen = ana.locator("#class-b-sentence input").input_value()
    assert chosen == "2. " + shown or chosen.startswith("2. ") and shown.startswith(chosen[3:].rstrip("…"))
    phones_fit(phones, "round B", problems)
    wait_for_text(projector, "#class-stage", "of 1 edit fooled", timeout=15_000)
    fooled = int(projector.locator("#class-fooled").inner_text())  # round B counts: a point per edit that fooled it
    shoot(pages, "round_b")

    teacher.locator("#class-move").click()  # the results
    wait_for_text(projector, "#class-phase", "The results", timeout=15_000)
    assert int(projector.locator("#class-total").inner_text()) == sum(points) + fooled
    rows = projector.locator("#class-fooling tr").count() - 1
    more = projector.locator("#class-fooling-more")
    counted = int(re.search(r"and (\d+) more", more.inner_text()).group(1)) if more.count() else 0
    assert rows + counted == fakes, (rows, counted, fakes)  # every fake shown or counted
    look(projector, "the projector at the results", problems, sizes=((1280, 720), (1400, 900)))
    look(teacher, "the teacher's page at the results", problems)
    teacher.set_viewport_size({"width": 1280, "height": 900})
    phones_fit(phones, "the results", problems)
    teacher.locator("#class-csv").wait_for(timeout=15_000)
    with teacher.expect_download() as download:
        teacher.locator("#class-csv").click()
    text = open(download.value.path(), encoding="utf-8").read()
    assert text.startswith("kind,sentence") and "Ana" in text and "<b>Zed</b>" in text
    shoot(pages, "results")

    teacher.locator("#class-move").click()  # the end
    wait_for_text(projector, "#class-phase", "has ended", timeout=15_000)
    for page in phones:
        wait_for_text(page, "#class-wait", "This class has ended", timeout=15_000)
    shoot(pages, "ended")
    key_free = every_html() + projector.url + teacher.url + "".join(p.url for p in phones)
    assert "teacher=" not in key_free  # the key is in no page and no address
    teacher.reload()  # this browser's storage reopens the teacher's page
    wait_for_text(teacher, "#class-move", "The class has ended", timeout=30_000)
    for page in (teacher, projector, *phones):
        page.close()
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def test_a_wrong_code_says_so_and_the_code_typed_first_on_a_phone_opens_the_class(browser, app_url):
    page = browser.new_page(viewport={"width": 420, "height": 900})
    page.goto(app_url + "class?class=" + "<x>" * 50)
    wait_for_text(page, "#class-message", "No class has the code", timeout=30_000)
    assert len(page.locator("#class-message").inner_text()) < 200
    page.goto(app_url + "class")
    top = {name: page.locator(f"#class-{name}").bounding_box()["y"] for name in ("typed-code", "go", "start")}
    assert top["typed-code"] < top["go"] < top["start"]  # on a phone the student's box comes before the teacher's
    page.locator("#class-typed-code input, #class-typed-code textarea").first.fill("abc-def")
    page.locator("#class-typed-code input, #class-typed-code textarea").first.press("Enter")  # or "Go to the class"
    page.wait_for_url("**/class?class=abc-def", timeout=15_000)
    wait_for_text(page, "#class-message", "No class has the code", timeout=30_000)
    page.close()


def test_the_class_pages_fit_a_phone_and_have_no_serious_accessibility_violation(browser, app_url):
    from axe_playwright_python.sync_playwright import Axe

    def severe(page) -> list[str]:
        found = Axe().run(page).response["violations"]
        return [f"{v['id']}: {v['help']}" for v in found if v["impact"] in ("serious", "critical")]

    def overflow(page) -> int:  # pixels the page is wider than the screen (0: nothing scrolls sideways)
        return page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")

    teacher = browser.new_page(viewport={"width": 420, "height": 900})  # the teacher's page on a phone
    teacher.goto(app_url + "class")
    teacher.locator("#class-start").wait_for(timeout=30_000)
    assert severe(teacher) == []
    teacher.locator("#class-start").click()
    teacher.locator("#class-student-link").wait_for(timeout=30_000)
    link = teacher.locator("#class-student-link").get_attribute("href")
    student = browser.new_page(viewport={"width": 420, "height": 900})
    student.goto(link)
    student.locator("#class-join").click()
    wait_for_text(student, "#class-wait", "Wait for your teacher", timeout=30_000)
    teacher.locator("#class-move").click()
    wait_for_text(student, "#class-sentence", "sentence 1 of", timeout=30_000)
    student.locator("#class-ticks label").first.click()
    student.locator("#class-submit").click()
    wait_for_text(student, "#class-saved", "Saved", timeout=30_000)
    wait_for_text(teacher, "#class-progress", "1 of 1", timeout=15_000)
    for page in (teacher, student):
        assert overflow(page) <= 1
        assert severe(page) == []
        page.close()
