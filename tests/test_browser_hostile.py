"""Hostile text in the Explore tab, in Debian's Chromium (Playwright): it renders as text and runs no script.

The attacks set `window.__pwned`; after each, the page must still have it undefined, show the literal
text, and hold no element the text could have created. Needs `apt-get install -y chromium`.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser  # the `browser` fixture (conftest) skips when chromium is missing
ATTACKS = [
    '<img src=x onerror="window.__pwned=1">',
    "<script>window.__pwned=1</script>",
    '<svg onload="window.__pwned=1"></svg> <iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
]


@pytest.fixture(scope="module")
def page(new_page, app_url):
    page = new_page(app_url)
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=60_000)  # the first example, on load
    page.get_by_text("Detect only: judge my sentence as it is").click()  # words shown exactly as typed
    yield page


def pwned(page) -> bool:
    return page.evaluate("() => window.__pwned !== undefined || document.title === 'pwned'")


@pytest.mark.parametrize("attack", ATTACKS)
def test_hostile_text_renders_as_text_and_runs_nothing(page, attack, wordpiece):
    from training.words import align

    expected = [w.text for w in align(wordpiece, attack, 128).words]  # a tag's marks are words of their own
    page.locator("#explore-text textarea").fill(attack)
    page.locator("#explore-run").click()
    # wait for this attack's verdict, not the previous one's: every attack starts with the same "<" chip
    page.wait_for_function(
        "(words) => [...document.querySelectorAll('#explore-verdict .ee-token')].map(e => e.innerText).join('\\n')"
        " === words.join('\\n')",
        arg=expected, timeout=30_000)
    page.wait_for_timeout(300)  # give an injected handler (img onerror, svg onload) time to fire
    assert not pwned(page)
    chips = page.locator("#explore-verdict .ee-token").all_inner_texts()
    assert chips == expected and "".join(chips) == "".join(attack.split())  # every word, literally, one chip each
    assert page.locator("#explore-verdict").locator("img, script, svg, iframe").count() == 0
    assert page.locator("img[src=x], iframe[srcdoc], svg[onload]").count() == 0  # nowhere on the page


def test_a_hostile_model_name_is_shown_as_text(page):
    page.get_by_text("Settings: model, mask rate, seed, temperature").click()
    box = page.locator("#explore-model input")
    box.fill(ATTACKS[0])
    box.press("Enter")
    status = page.locator("#explore-model-status .ee-error")
    status.wait_for(timeout=10_000)
    page.wait_for_timeout(300)
    assert not pwned(page)
    assert ATTACKS[0] in status.inner_text() and "neither a local folder nor a valid hub id" in status.inner_text()
    assert page.locator("#explore-model-status img").count() == 0
