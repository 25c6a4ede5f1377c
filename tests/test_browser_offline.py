"""Nothing is loaded from outside the machine, in Debian's Chromium: every request the page makes while each tab
loads and is used (an Explore run and its "Explain every word" heatmap, the Classroom's views, the game, a
Training-tab replay) goes to the app's own origin: no web fonts, scripts, images, analytics or iframes from
elsewhere, and no element in the page points at another origin for something to load. The server, which runs
in this process, is watched too: it resolves no outside name and opens no connection off the machine while it
serves the page (gradio's analytics and version check, a hub download).

Needs `apt-get install -y chromium` (never `playwright install`).
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

import pytest
from conftest import wait_for_text
from page_layout import settle

pytestmark = pytest.mark.browser  # the `browser` fixture (conftest) skips when chromium is missing

# What the page points at to load (not the links a visitor may follow): stylesheets, preconnects, icons,
# scripts, images, frames, media; `url(...)` in an inline style.
POINTERS_JS = """() => {
  const found = [];
  const take = (element, attribute) => { const value = element.getAttribute(attribute);
    if (value) found.push(`${element.tagName.toLowerCase()}[${attribute}]: ${new URL(value, document.baseURI).href}`);
  };
  document.querySelectorAll('link[href]').forEach(e => take(e, 'href'));
  document.querySelectorAll('script[src], img[src], iframe[src], embed[src], source[src], video[src], audio[src], '
                            + 'track[src], input[src]').forEach(e => take(e, 'src'));
  document.querySelectorAll('img[srcset], source[srcset]').forEach(e =>
    e.getAttribute('srcset').split(',').forEach(part => { const url = part.trim().split(/\\s+/)[0];
      if (url) found.push(`${e.tagName.toLowerCase()}[srcset]: ${new URL(url, document.baseURI).href}`); }));
  document.querySelectorAll('object[data]').forEach(e => take(e, 'data'));
  document.querySelectorAll('image[href], use[href]').forEach(e => take(e, 'href'));
  document.querySelectorAll('[style*="url("]').forEach(e =>
    [...e.getAttribute('style').matchAll(/url\\(\\s*['"]?([^'")]+)/g)].forEach(m =>
      found.push(`style url(): ${new URL(m[1], document.baseURI).href}`)));
  return found;
}"""


def origin(url: str) -> tuple:
    parts = urlsplit(url)
    default = {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(parts.scheme)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return scheme, parts.hostname, parts.port or default


def outside(urls, app_url: str) -> list[str]:
    """The addresses among `urls` that leave the app's origin (data: and blob: stay in the page)."""
    home = origin(app_url)
    addresses = {u: u.split(": ", 1)[-1] for u in urls}  # "img[src]: http://..." -> the address
    return sorted(u for u, a in addresses.items()
                  if urlsplit(a).scheme not in ("data", "blob", "about", "javascript") and origin(a) != home)


def _local(host) -> bool:
    if host in (None, "", "localhost", b"localhost"):
        return True
    try:
        address = ipaddress.ip_address(host.decode() if isinstance(host, bytes) else host)
    except ValueError:
        return False  # a name to look up elsewhere
    return address.is_loopback or address.is_unspecified


@pytest.fixture
def server_reached(monkeypatch):
    """Every outside name this process looks up and every outside address it connects to, while the test runs."""
    reached: list[str] = []
    connect, connect_ex, getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

    def note(address) -> None:
        if isinstance(address, tuple) and not _local(address[0]):
            reached.append(f"connect {address[0]}:{address[1]}")

    def watched_getaddrinfo(host, *args, **kwargs):
        if not _local(host):
            reached.append(f"look up {host}")
        return getaddrinfo(host, *args, **kwargs)

    def watched_connect(self, address):
        note(address)
        return connect(self, address)

    def watched_connect_ex(self, address):
        note(address)
        return connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", watched_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", watched_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", watched_getaddrinfo)
    return reached


def test_no_tab_loads_anything_from_outside_the_machine(browser, app_url, server_reached):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    requested: list[str] = []
    context.on("request", lambda request: requested.append(request.url))  # every frame and worker of every page
    page = context.new_page()
    page.on("websocket", lambda socket: requested.append(socket.url))
    pointers: list[str] = []
    try:
        page.goto(app_url)
        # Explore: the first example on load, then our own sentence, then the heatmap of every word.
        page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=60_000)
        page.locator("#explore-text textarea").fill("The old sailor told a story.")
        page.locator("#explore-run").click()
        wait_for_text(page, "#explore-verdict", "sailor", timeout=30_000)
        page.get_by_label("Gradient × input (faster)").check()
        page.locator("#explore-why-all").click()
        page.wait_for_function(  # every row of the heatmap done
            "() => /(\\d+) of \\1 rows in/.test(document.querySelector('.ee-matrix-note')?.innerText ?? '')",
            timeout=60_000)
        page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
        pointers += page.evaluate(POINTERS_JS)

        # Classroom: every view in turn (the sweep and the efficiency chart draw on first opening).
        page.get_by_role("tab", name="Classroom").click()
        page.locator("#walk-step .ee-step").wait_for(timeout=30_000)
        views = page.locator("#classroom-views button[role=tab]")
        names = views.all_inner_texts()
        assert len(names) >= 7, names
        for name in names:
            page.get_by_role("tab", name=name.strip(), exact=True).click()
            settle(page)  # the view drawn: no progress overlay, and nothing on the page moving
            pointers += page.evaluate(POINTERS_JS)
        # The game (the last view): a round started and one sentence revealed.
        page.locator("#game-start").click()
        wait_for_text(page, "#game-sentence-box", "Sentence 1 of", timeout=30_000)
        page.locator("#game-reveal-button").click()
        wait_for_text(page, "#game-reveal-box", "the truth", timeout=15_000)
        pointers += page.evaluate(POINTERS_JS)

        # Training: the tab, then a recorded race replayed (its charts drawn).
        page.get_by_role("tab", name="Training", exact=True).click()
        page.get_by_role("tab", name="Replay a race").click()
        wait_for_text(page, "#replay-status-line", "End of the recording", timeout=30_000)
        page.get_by_text("the whole race in 10 s").click()
        scrubber = page.locator("#replay-scrubber input[type=number]")  # the last fifth played: 2 s, not 10
        scrubber.fill("80")
        scrubber.press("Enter")
        wait_for_text(page, "#replay-status-line", "· 80% ·", timeout=10_000)
        page.locator("#replay-play").click()
        wait_for_text(page, "#replay-status-line", "Replaying", timeout=10_000)
        wait_for_text(page, "#replay-status-line", "End of the recording", timeout=30_000)
        page.locator("#replay-curves .js-plotly-plot").wait_for(timeout=10_000)
        page.wait_for_timeout(1_000)  # anything a chart or a late widget fetches
        pointers += page.evaluate(POINTERS_JS)
    finally:
        context.close()

    assert requested, "no request recorded"
    assert not outside(requested, app_url), f"requests that left the machine: {outside(requested, app_url)}"
    assert not outside(pointers, app_url), f"the page points outside the machine: {outside(pointers, app_url)}"
    assert not server_reached, f"the server reached off the machine: {sorted(set(server_reached))}"
