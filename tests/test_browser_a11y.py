"""axe-core in Debian's Chromium (Playwright, axe-playwright-python): each tab as a visitor opens it has
no accessibility violation rated serious or critical (gradio's default theme misses AA contrast on its
buttons and subdued text: app.THEME fixes it); the Explore chips and the Classroom's Detect step (the
shared chips) have none at all.

Needs `apt-get install -y chromium` (never `playwright install`). Set A11Y_REPORT=path to keep axe's
full report of every scan (JSON, one entry per tab).
"""

from __future__ import annotations

import re

import json
import os

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.conftest import wait_for_text, wait_until_idle
from tests.page_layout import settle

pytestmark = pytest.mark.browser  # the `browser` fixture (conftest) skips when chromium is missing

SEVERE = ("serious", "critical")
REPORTS: dict[str, list[dict]] = {}

def violations(page, name: str, context: str | None = None) -> list[dict]:
    """axe's violations on the page (or inside the `context` selector): rule, impact, targets, summary."""
    wait_until_idle(page, context)  # a faded pending output fails contrast: check the settled page
    settle(page, resized=False)  # and one fading back in (a transition still running) fails it too
    results = Axe().run(page, context=context)
    found = [{"rule": v["id"], "impact": v["impact"], "help": v["help"],
              "targets": [" ".join(map(str, node["target"])) for node in v["nodes"]],
              "html": [node["html"][:200] for node in v["nodes"]],
              "why": [" ".join(check["message"] for check in node["any"] + node["all"] + node["none"])
                      for node in v["nodes"]]} for v in results.response["violations"]]
    REPORTS[name] = found
    if os.environ.get("A11Y_REPORT"):
        with open(os.environ["A11Y_REPORT"], "w", encoding="utf-8") as out:
            json.dump(REPORTS, out, indent=1, ensure_ascii=False)
    return found


def describe(found: list[dict]) -> str:
    return "\n".join(f"{v['rule']} ({v['impact']}): {v['help']}; {', '.join(v['targets'][:6])}" for v in found)


@pytest.fixture(scope="module")
def page(new_page, app_url):
    page = new_page(app_url)
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=60_000)  # the first example, on load
    return page


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()
    if name == "Explore":
        page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=30_000)
    elif name == "Classroom":
        page.locator("#walk-step .ee-step").wait_for(timeout=30_000)
    else:
        page.locator("#race-verdict").wait_for(timeout=30_000)
    settle(page)  # plots and late widgets settle: no progress overlay, nothing on the page moving


def test_explore_chips_keep_their_names_in_the_page_and_have_no_violation(page):
    """The chips' accessible names survive gradio (no sanitizer strips role/title) and axe finds nothing."""
    open_tab(page, "Explore")
    page.locator("#explore-why").click()
    page.locator("#explore-attribution .ee-chip").first.wait_for(timeout=60_000)
    wait_for_text(page, "#explore-attribution", "convergence delta")
    for view in ("#explore-verdict", "#explore-attribution"):
        chips = page.locator(f"{view} .ee-chip")
        named = page.locator(f'{view} .ee-chip[role="img"][title]')
        assert chips.count() > 0 and named.count() == chips.count()
        assert ", " in named.first.get_attribute("title")
    assert "bold and underlined: flagged" in page.locator("#explore-verdict .ee-legend").inner_text()
    found = violations(page, "Explore chips", "#explore-verdict, #explore-attribution")
    assert not found, describe(found)


@pytest.mark.parametrize("tab", ["Explore", "Classroom", "Training"])
def test_no_serious_or_critical_violation_in_the_tab(page, tab):
    open_tab(page, tab)
    severe = [v for v in violations(page, tab) if v["impact"] in SEVERE]
    assert not severe, describe(severe)  # gradio's own contrast shortfalls are fixed by app.THEME


def test_classroom_detect_step_has_no_serious_violation(page):
    """The walk-through's last step colours every token with the shared chips (style.chip)."""
    open_tab(page, "Classroom")
    for name in ("propose", "swap", "detect"):
        page.locator("#walk-next").click()
        page.wait_for_function(f"() => document.querySelector('#walk-step .ee-step')?.dataset.step === {name!r}",
                               timeout=15_000)
    severe = [v for v in violations(page, "Classroom detect", "#walk-step") if v["impact"] in SEVERE]
    assert not severe, describe(severe)


def test_the_explore_tab_works_from_the_keyboard_alone(new_page, app_url):
    """Type; Tab to the run button, Enter; Tab reaches the next buttons in order; Enter on "Explain this word"
    explains it."""
    page = new_page(app_url)
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=60_000)
    page.locator("#explore-text textarea").focus()
    page.keyboard.press("Control+a")
    page.keyboard.type("The quiet librarian sorted the returned books.")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('[id]')?.id") == "explore-run"
    page.keyboard.press("Enter")
    wait_for_text(page, "#explore-verdict", "librarian", timeout=60_000)
    visited = ["explore-run"]
    for _ in range(120):  # walk the tab order until the attribution button has focus
        page.keyboard.press("Tab")
        here = page.evaluate("() => document.activeElement.closest('[id]')?.id || ''")
        visited.append(here)
        if here == "explore-why":
            break
    assert "explore-run" in visited and visited[-1] == "explore-why", visited
    page.keyboard.press("Enter")
    page.locator("#explore-attribution .ee-chip").first.wait_for(timeout=60_000)
    # Each press draws anew (the seed is shown), so which word was replaced varies: the explanation names one.
    assert re.search(r"Why is “[^”]+”.* rated \d+% replaced\?", page.locator("#explore-attribution").inner_text())
