"""The Training tab in Debian's Chromium (Playwright): start a tiny race, watch the charts grow, stop
it; reload the page and find the running race again.

Needs `apt-get install -y chromium` (never `playwright install`). Set TRAINING_SCREENSHOT=path to keep
a full-page screenshot of the tab in mid-race.
"""

from __future__ import annotations

import os

import pytest
from conftest import N_DOCUMENTS, WORDPIECE, wait_for_text
from playwright.sync_api import expect

from training.race.manager import RaceManager
from training.race.settings import RaceLimits, RaceSettings

pytestmark = pytest.mark.browser  # the `browser` fixture (conftest) skips when chromium is missing
LAST_X = "() => document.querySelector('#race-curves .js-plotly-plot')?.data?.[0]?.x?.at(-1) ?? null"
STATUS = "#race-status-line"


@pytest.fixture(scope="module")
def manager(app_url, tmp_path_factory):
    """The app's race manager, pointed at a temporary folder for this module (never runs/)."""
    from explainer.ui import races

    previous = races.MANAGER
    races.MANAGER = RaceManager(tmp_path_factory.mktemp("races"), RaceLimits(max_minutes=3))
    yield races.MANAGER
    races.MANAGER.stop()
    races.MANAGER.wait(60)
    races.MANAGER = previous


@pytest.fixture(scope="module")
def page(new_page, app_url, manager):
    page = new_page(app_url)
    page.get_by_role("tab", name="Training").click()
    yield page


def wait_for_new_x(page, previous) -> object:
    """Wait until the loss chart's last point moves past `previous`; return the new last x."""
    page.wait_for_function(f"() => {{ const x = ({LAST_X})(); return x !== null && x !== {previous!r}; }}"
                           if previous is not None else f"() => ({LAST_X})() !== null", timeout=60_000)
    return page.evaluate(LAST_X)


def test_start_a_tiny_race_watch_it_grow_and_stop_it(page, manager, monkeypatch):
    page.get_by_label("Model size (preset)").click()
    page.get_by_role("option", name="tiny").click()
    page.wait_for_function("() => document.querySelector('#race-amount input')?.value === '300'")  # tiny's default
    page.get_by_text("steps (each)").click()
    page.locator("#race-amount input").fill("20000")
    page.locator("#race-start").click()
    page.locator("#race-started").wait_for(timeout=10_000)
    wait_for_text(page, STATUS, "RTD step", timeout=60_000)

    first = wait_for_new_x(page, None)
    second = wait_for_new_x(page, first)
    third = wait_for_new_x(page, second)  # the chart redrew at least twice on its own
    assert first < second < third
    assert manager.race.settings.preset == "tiny" and manager.race.settings.budget == "steps"

    if os.environ.get("TRAINING_SCREENSHOT"):
        page.wait_for_function("() => (document.querySelector('#race-payoff .js-plotly-plot')?.data?.[0]?.x?.length"
                               " ?? 0) >= 3", timeout=60_000)
        page.wait_for_timeout(1500)
        page.screenshot(path=os.environ["TRAINING_SCREENSHOT"], full_page=True)

    page.locator("#race-stop").click()
    wait_for_text(page, STATUS, "Stopped", timeout=60_000)
    stopped_at = page.locator(STATUS).inner_text()
    page.wait_for_timeout(2500)
    assert page.locator(STATUS).inner_text() == stopped_at  # nothing moves after the stop
    race = manager.race
    assert race.status == "stopped" and race.runners["rtd"].events[-1].step < 20_000
    assert ((race.folder / "rtd" / "checkpoint.pt").exists()
            and (race.folder / "mlm" / "encoder" / "config.json").exists())
    page.wait_for_function("() => !document.querySelector('#race-zip')?.disabled", timeout=10_000)

    # The freshly trained pair opens in the Explore tab (its folder must be an allowed root, as runs/ is).
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(manager.root))
    page.locator("#race-explore").click()
    page.wait_for_function("() => document.querySelector('#explore-model-status')"
                           f"?.innerText.includes({race.folder.name!r})", timeout=30_000)
    assert "discriminator 2 layers × 32" in page.locator("#explore-model-status").inner_text()
    assert page.locator("#explore-model-status").is_visible()  # the page switched to the Explore tab
    page.get_by_role("tab", name="Training").click()


def test_a_reload_reattaches_to_the_running_race(page, manager):
    settings = RaceSettings(preset="tiny", budget="steps", amount=20_000, tokenizer=WORDPIECE,
                            max_documents=N_DOCUMENTS, seq_len=64, batch_size=8, lr=2e-3, probe_every=0, device="cpu")
    race = manager.start(settings)
    page.reload()
    page.get_by_role("tab", name="Training").click()
    wait_for_text(page, STATUS, "Running", timeout=30_000)
    assert "tiny preset" in page.locator("#race-status-box").inner_text()
    first = wait_for_new_x(page, None)
    second = wait_for_new_x(page, first)
    assert second > first and manager.race is race

    # A second visitor (here: the same page) finds Start asleep and saying why (a start sent anyway is told the
    # server is busy: tests/test_race_server.py), and the race keeps going.
    start = page.locator("#race-start")
    expect(start).to_be_disabled(timeout=10_000)
    assert start.inner_text().strip() == "A race is running…"
    assert manager.race is race and race.running

    page.locator("#race-stop").click()
    wait_for_text(page, STATUS, "Stopped", timeout=60_000)
    assert race.status == "stopped"
    expect(start).to_be_enabled(timeout=10_000)  # awake again once the race has ended
    assert start.inner_text().strip() == "Start the race"


def _count_ticks(page) -> list:
    """The calls the live race's timer makes from `page`, as they are sent (the app's other calls left out)."""
    import json

    from explainer.ui import app

    timer = app.race_timer._id
    fns = {d["id"] for d in app.demo.get_config_file()["dependencies"] if [timer, "tick"] in map(list, d["targets"])}
    assert fns, "the race timer has no tick"
    sent: list = []
    page.on("request", lambda r: sent.append(1) if "/queue/join" in r.url
            and json.loads(r.post_data or "{}").get("fn_index") in fns else None)
    return sent


def _ticks_arrive(page, sent: list, more: int = 2, within_s: float = 30) -> bool:
    start = len(sent)
    for _ in range(int(within_s * 10)):
        if len(sent) >= start + more:
            return True
        page.wait_for_timeout(100)
    return False


def test_the_race_is_asked_for_only_while_the_training_tab_is_open(new_page, app_url):
    """The live race's timer wakes with the Training tab (or a link that opens on it) and sleeps on the others: a
    page that had opened the tab once went on asking the server every second, on any tab, for a race it did not
    show (gradio draws a tab, and starts its timer, the first time it is opened)."""
    page = new_page(app_url)
    sent = _count_ticks(page)
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=60_000)  # the first example, on load
    page.wait_for_timeout(2_500)
    assert not sent  # on Explore: no tick
    page.get_by_role("tab", name="Training", exact=True).click()
    assert _ticks_arrive(page, sent)  # the tab open: it ticks
    page.get_by_role("tab", name="Classroom", exact=True).click()
    page.wait_for_timeout(1_500)  # a tick already on its way
    asleep = len(sent)
    page.wait_for_timeout(2_500)
    assert len(sent) == asleep

    linked = new_page(f"{app_url}?tab=training")
    assert _ticks_arrive(linked, _count_ticks(linked))  # a page opened on the tab by a link ticks without a click
