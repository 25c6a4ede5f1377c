"""The teacher's hold on the room, in Debian's Chromium: on the teacher's page, "Remove a student" lists who
joined (read with the key the page holds), removes the one chosen with their answers, and "Lock the room" makes
the class refuse a join; reopened, the page shows the lock as it is.

Set CLASS_MODERATION_SCREENSHOT=path.png to keep a screenshot of the teacher's page after the removal.
"""

from __future__ import annotations

import pytest
from conftest import screenshot_if_asked, wait_for_text

from explainer.lesson.live_class import session as class_session
from explainer.ui import api

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_teacher_removes_a_student_and_locks_the_room(browser, app_url):
    teacher = browser.new_page(viewport={"width": 1280, "height": 900})
    teacher.goto(app_url + "class")
    teacher.locator("#class-start").click()
    teacher.locator("#class-view-link").wait_for(timeout=30_000)
    code = teacher.locator("#class-code").first.inner_text().replace("-", "")
    api.class_join(code, "Ana"), api.class_join(code, "Bot")
    teacher.locator("#class-remove-pick input").click()
    teacher.get_by_role("option", name="2: Bot").click()
    teacher.locator("#class-remove").click()
    wait_for_text(teacher, "#class-message", "Bot (student 2) was removed with their answers")
    assert [s.nickname for s in class_session.default_store().students(code)] == ["Ana"]
    screenshot_if_asked(teacher, "CLASS_MODERATION_SCREENSHOT")
    teacher.locator("#class-lock input").check()
    for _ in range(300):  # the click's event reaches the server (30 s at most: a loaded machine is slow)
        if class_session.default_store().get_class(code).locked:
            break
        teacher.wait_for_timeout(100)
    with pytest.raises(Exception, match="This class is locked"):
        api.class_join(code, "Late")
    teacher.reload()
    teacher.locator("#class-lock input").wait_for(timeout=30_000)
    teacher.wait_for_function("() => document.querySelector('#class-lock input').checked", timeout=15_000)
