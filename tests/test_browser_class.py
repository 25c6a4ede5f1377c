"""A live class in Debian's Chromium: a teacher starts a class on /class, three students join by its link
(each in their own browser context, as on their own phones), play round A and one round B edit; the
teacher's view shows them, with the class's total equal to the sum of the points each student was shown.
A student's page never holds the teacher key, and the class link with a wrong key opens no view.

Set CLASS_SCREENSHOT=prefix to keep screenshots (prefix-projector.png at 1920 px, prefix-phone.png at 420 px).
"""

from __future__ import annotations

import os
import re

import pytest
from conftest import wait_for_text

pytestmark = pytest.mark.browser
N = 3


def play_round_a(page, k: int) -> int:
    """Tick one word per sentence, submit, go on; the student's points as their page shows them."""
    for i in range(N):
        wait_for_text(page, "#class-sentence", f"sentence {i + 1} of {N}", timeout=30_000)
        page.locator("#class-ticks label").nth((k + i) % 3).click()
        page.locator("#class-submit").click()
        wait_for_text(page, "#class-reveal", "the truth", timeout=30_000)
        page.locator("#class-next").click()
    wait_for_text(page, "#class-sentence", "Round A is done", timeout=30_000)
    status = page.locator("#class-status").inner_text()
    assert f"Round A: {N} of {N} sentences answered" in status
    return int(re.search(r"answered, ([+-]?\d+) point", status).group(1))


def test_a_teacher_and_three_students_play_a_live_class(browser, app_url):
    teacher = browser.new_page(viewport={"width": 1920, "height": 1080})
    teacher.goto(app_url + "class")
    teacher.locator("#class-n input[type=number]").fill(str(N))
    teacher.locator("#class-n input[type=number]").press("Enter")
    teacher.locator("#class-start").click()
    teacher.locator("#class-code").wait_for(timeout=30_000)
    code = teacher.locator("#class-code").inner_text().replace("-", "")
    link = teacher.locator("#class-student-link").get_attribute("href")
    secret_link = teacher.locator("#class-teacher-link").text_content()
    assert link.endswith(f"/class?class={code}") and "teacher" not in link
    key = re.search(r"teacher=([\w-]+)", secret_link).group(1)
    assert teacher.locator("#class-join-card svg").count() == 1  # the QR code
    teacher.wait_for_function(f"() => location.search.includes('teacher={key}')")  # a reload keeps the view
    wait_for_text(teacher, "#class-board", "Nobody has joined yet", timeout=15_000)

    students, points = [], []
    for k, nickname in enumerate(("Ana", "<b>Zed</b>", "")):
        page = browser.new_page(viewport={"width": 420, "height": 900})  # its own context: its own phone
        page.goto(link)
        page.locator("#class-join").wait_for(timeout=30_000)
        assert page.locator("#class-code-box input, #class-code-box textarea").first.input_value() == f"{code[:3]}-{code[3:]}"
        if nickname:
            page.locator("#class-nickname input, #class-nickname textarea").first.fill(nickname)
        page.locator("#class-join").click()
        points.append(play_round_a(page, k))
        students.append(page)
        assert key not in page.content()  # the teacher key never reaches a student

    ana = students[0]
    ana.get_by_label("Word to change").click()
    ana.get_by_role("option").nth(1).click()
    ana.locator("#class-b-new input, #class-b-new textarea").first.fill("dog")
    ana.locator("#class-b-test").click()
    wait_for_text(ana, "#class-b-result", "P(replaced)", timeout=30_000)
    assert "Round B: 1 of" in ana.locator("#class-status").inner_text()
    ana.reload()  # the browser remembers the student: the same one, not a new one
    wait_for_text(ana, "#class-status", f"Round A: {N} of {N}", timeout=30_000)
    assert "You are Ana" in ana.locator("#class-status").inner_text()

    wait_for_text(teacher, "#class-joined", "3", timeout=15_000)  # the view refreshes by itself
    wait_for_text(teacher, "#class-board", "1 edit tried", timeout=15_000)
    board = teacher.locator("#class-board")
    assert teacher.locator("#class-answered .ee-n").inner_text() == "3"
    assert int(teacher.locator("#class-total").inner_text()) == sum(points)
    names = teacher.locator("#class-roster").inner_text()
    assert "Ana" in names and "<b>Zed</b>" in names and "Student 3" in names  # escaped: shown, not bold
    assert teacher.locator("#class-roster b").count() == 0
    assert "ELECTRA" in board.inner_text() and teacher.locator("#class-fooling tr").count() >= 2
    if os.environ.get("CLASS_SCREENSHOT"):
        teacher.screenshot(path=os.environ["CLASS_SCREENSHOT"] + "-projector.png", full_page=True)
        students[1].screenshot(path=os.environ["CLASS_SCREENSHOT"] + "-phone.png", full_page=True)

    snoop = students[1]  # a student who guesses at the teacher's link
    snoop.goto(f"{app_url}class?class={code}&teacher=guess")
    wait_for_text(snoop, "#class-message", "Wrong teacher key", timeout=30_000)
    assert snoop.locator("#class-view").count() == 0
    teacher.reload()
    wait_for_text(teacher, "#class-joined", "3", timeout=30_000)  # the teacher's own link reopens the view
    for page in (teacher, *students):
        page.close()


def test_a_wrong_code_says_so_and_the_typed_code_opens_the_class(browser, app_url):
    page = browser.new_page(viewport={"width": 420, "height": 900})
    page.goto(app_url + "class?class=" + "<x>" * 50)
    wait_for_text(page, "#class-message", "No class has the code", timeout=30_000)
    assert len(page.locator("#class-message").inner_text()) < 200
    page.goto(app_url + "class")
    page.locator("#class-typed-code input, #class-typed-code textarea").first.fill("abc-def")
    page.locator("#class-go").click()
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

    teacher = browser.new_page(viewport={"width": 420, "height": 900})  # the teacher's view on a phone
    teacher.goto(app_url + "class")
    teacher.locator("#class-start").wait_for(timeout=30_000)
    assert severe(teacher) == []
    teacher.locator("#class-start").click()
    teacher.locator("#class-code").wait_for(timeout=30_000)
    link = teacher.locator("#class-student-link").get_attribute("href")
    student = browser.new_page(viewport={"width": 420, "height": 900})
    student.goto(link)
    student.locator("#class-join").click()
    wait_for_text(student, "#class-sentence", "sentence 1 of", timeout=30_000)
    student.locator("#class-ticks label").first.click()
    student.locator("#class-submit").click()
    wait_for_text(student, "#class-reveal", "the truth", timeout=30_000)
    wait_for_text(teacher, "#class-answered", "1", timeout=15_000)
    teacher.wait_for_timeout(500)
    for page in (teacher, student):
        assert overflow(page) <= 1
        assert severe(page) == []
        page.close()
