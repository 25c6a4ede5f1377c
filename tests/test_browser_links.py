"""Links in Debian's Chromium: a copied link, opened in a fresh page, shows the same result; a bad one says so."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from conftest import wait_for_text
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
SENTENCE = "My sister bought a new bicycle and rode it to work."


def verdict(page) -> list[tuple[str, str]]:
    """(word, the number under it) for every chip of the discriminator's verdict."""
    chips = page.locator("#explore-verdict .ee-chip")
    return [(chips.nth(i).locator(".ee-token").inner_text(), chips.nth(i).inner_text()) for i in range(chips.count())]


def settled(page) -> None:
    """Wait for the page's first explanation, and for our sentence's."""
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=30_000)


def test_a_copied_link_opens_the_same_corruption_and_verdict(new_page, app_url):
    page = new_page(app_url)
    settled(page)
    page.locator("#explore-text textarea").fill(SENTENCE)
    page.get_by_text("Settings: model, mask rate, seed, temperature").click()
    seed = page.locator("label:has-text('Seed (same seed, same result)') input")
    seed.wait_for(state="visible")
    page.wait_for_timeout(500)  # the accordion has finished opening: typed into a settled box, as a person would
    seed.fill("7")
    seed.press("Tab")
    expect(seed).to_have_value("7", timeout=5_000)
    page.locator("#explore-run").click()
    wait_for_text(page, "#explore-verdict", "bicycle")
    before = verdict(page)
    page.locator("#explore-copy-link").click()
    page.wait_for_function("() => document.querySelector('#explore-link textarea, #explore-link input')?.value"
                           ".startsWith('http')", timeout=10_000)
    url = page.locator("#explore-link textarea, #explore-link input").first.input_value()
    assert "seed=7" in url and "bicycle" in url and page.url == url  # the address bar carries it too

    fresh = new_page(url)
    wait_for_text(fresh, "#explore-verdict", "bicycle")
    assert verdict(fresh) == before
    assert (fresh.locator("#explore-generator-input").inner_text()
            == page.locator("#explore-generator-input").inner_text())
    assert "Opened from a link" in fresh.locator("#explore-link-note").inner_text()


def test_a_bad_link_shows_a_message_and_runs_with_the_defaults(new_page, app_url):
    page = new_page(f"{app_url}?text={quote(SENTENCE)}&seed=banana&top_k=99&mode=<b>x</b>")
    wait_for_text(page, "#explore-verdict", "bicycle")
    note = page.locator("#explore-link-note").inner_text()
    assert "“seed” must be a whole number" in note and "“top_k”" in note and "“mode”" in note
    assert page.locator("#explore-link-note b").count() == 0  # the link's text stays text


def test_the_exported_picture_and_card_are_written_and_open(new_page, app_url, tmp_path):
    import xml.etree.ElementTree as ET

    page = new_page(app_url)
    settled(page)
    words = [word for word, _ in verdict(page)]
    files = {}
    for button, name in (("#explore-verdict-svg", "verdict.svg"), ("#explore-card", "card.html"),
                         ("#explore-json", "results.json")):  # each written when its button is pressed
        with page.expect_download(timeout=30_000) as download:
            page.locator(button).click()
        files[name] = tmp_path / name
        download.value.save_as(files[name])
    svg = ET.parse(files["verdict.svg"]).getroot()
    assert svg.tag.endswith("svg") and len(svg.findall(".//{http://www.w3.org/2000/svg}rect")) == len(words)
    assert json.loads(files.pop("results.json").read_text())["explanation"]["text"] == page.locator(
        "#explore-text textarea").input_value()
    for name, path in files.items():  # each opens on its own, offline, and shows every word
        viewer = new_page(path.as_uri())
        shown = viewer.locator("body").inner_text() if name.endswith(".html") else path.read_text(encoding="utf-8")
        assert all(word in shown for word in words), name
    card = new_page(files["card.html"].as_uri())
    assert card.locator("script").count() == 0 and card.locator(".ee-chip, [role=img]").count() >= len(words)


def test_a_lesson_link_opens_the_classroom_on_its_sentence_seed_and_view(new_page, app_url):
    page = new_page(f"{app_url}?tab=classroom&text={quote(SENTENCE)}&seed=5&view=positions")
    wait_for_text(page, "#classroom-positions", "RTD target", timeout=60_000)  # the view the link names, drawn
    assert page.locator("#classroom-text textarea").input_value() == SENTENCE
    assert page.locator("#classroom-seed input").input_value() == "5"
    assert "Opened from a link" in page.locator("#classroom-link-note").inner_text()
    held = []  # a busy server: any call the view's tab makes to it stays unanswered until the link is copied

    def hold(route):
        if holding:
            held.append(route)
        else:
            route.continue_()

    holding = True
    page.route("**/gradio_api/queue/join**", hold)
    page.get_by_role("tab", name="① Walk-through").click()
    page.wait_for_timeout(500)
    holding = False
    page.locator("#classroom-copy-link").click()
    page.wait_for_function("() => document.querySelector('#classroom-link textarea, #classroom-link input')?.value"
                           ".startsWith('http')", timeout=10_000)
    url = page.locator("#classroom-link textarea, #classroom-link input").first.input_value()
    for route in held:
        route.continue_()
    assert "tab=classroom" in url and "seed=5" in url and "view=walk" in url  # the view shown when it was copied

    bad = new_page(f"{app_url}?tab=classroom&seed=x&view=slides")
    wait_for_text(bad, "#classroom-link-note", "“view” must be one of")
    assert "“seed” must be a whole number" in bad.locator("#classroom-link-note").inner_text()


CHOSEN = {  # a link of today's (characters where the words start); an old `mask=` link's words are read in
    # tests/test_link_words.py, and reach the page the same way
    "mask_at=9,22": ("She paid $3.50 in the U.S. and left.", ["$3.50", "U.S."], "She paid [MASK] in the [MASK]"),
}


@pytest.mark.parametrize("chosen", list(CHOSEN))
def test_a_link_with_chosen_words_opens_them_ticked_and_masked(new_page, app_url, chosen):
    """The link's ticks reach the picker and the first run (the page reads the picker before they arrive), and a
    link copied from that page names the same words."""
    text, words, kept = CHOSEN[chosen]
    page = new_page(f"{app_url}?text={quote(text)}&mode=manual&{chosen}")
    wait_for_text(page, "#explore-generator-input", "[MASK]")
    ticked = page.locator("#explore-mask-words input:checked")
    expect(ticked).to_have_count(len(words), timeout=10_000)
    assert [ticked.nth(i).locator("xpath=..").inner_text().strip() for i in range(len(words))] == words
    seen = page.locator("#explore-generator-input").inner_text()
    assert seen.count("[MASK]") == len(words) and kept in " ".join(seen.split())
    page.locator("#explore-copy-link").click()
    page.wait_for_function("() => document.querySelector('#explore-link textarea, #explore-link input')?.value"
                           ".startsWith('http')", timeout=10_000)
    url = page.locator("#explore-link textarea, #explore-link input").first.input_value()
    starts = sorted(text.index(w) for w in words)
    assert f"mask_at={','.join(map(str, starts))}" in url
