"""Every view is usable on a phone, in Debian's Chromium at 420 px wide: after an Explore run, in each of the
Classroom's views and on the Training tab, no word is broken across two lines in the middle (the generator's
guess cards once wrapped each proposal letter by letter: "shi / p"), no word is wider than the box that clips
it (Explore's "Show whole words" checkbox was a 34-px sliver), no bordered pill is split over two lines (the
walk-through's "4 / Detect"), and nothing makes the page wider than the screen (a wide table scrolls inside
its own box), and no chart's titles, annotations or axis titles overlap one another or stick out of the chart.

Needs `apt-get install -y chromium` (never `playwright install`). Set NARROW_SCREENSHOTS=prefix to keep
full-page screenshots (prefix-explore.png, prefix-classroom-1.png ... -7.png, prefix-training.png).
"""

from __future__ import annotations

import os

import pytest
from conftest import wait_for_text
from page_layout import settle

pytestmark = pytest.mark.browser  # the `browser` fixture (conftest) skips when chromium is missing
WIDTH = 420
SHOTS = os.environ.get("NARROW_SCREENSHOTS")

# Every run of letters and digits in the visible text whose characters sit on more than one line (a word broken
# in the middle: a break at a space or a hyphen is between two runs, and allowed), or that is wider than the box
# that clips it (a box that can never show the whole word: a label squeezed to a sliver; a 1-px box is a
# screen reader's text, never seen); and every inline box with a border (a pill, a badge) broken across two lines.
BROKEN_WORDS_JS = """() => {
  const found = [];
  const where = (element) => {
    const named = element.closest('[class]');
    const id = element.closest('[id]:not([id^="html-"])')?.id ?? '';
    return `<${named?.tagName.toLowerCase()} class="${named?.className}"> (#${id})`;
  };
  const clip = (element) => {
    for (let up = element; up && up !== document.body; up = up.parentElement)
      if (getComputedStyle(up).overflowX !== 'visible') return up;
    return null;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!element || !element.checkVisibility({visibilityProperty: true})) continue;
    const box = clip(element);
    for (const match of node.nodeValue.matchAll(/[\\p{L}\\p{N}\\p{M}]{2,}/gu)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const rects = [...range.getClientRects()].filter(r => r.width > 0);
      const lines = new Set(rects.map(r => Math.round(r.bottom)));
      const word = `"${match[0]}"`, text = node.nodeValue.trim().slice(0, 50);
      if (lines.size > 1) found.push(`${word} broken over ${lines.size} lines in ${where(element)}: "${text}"`);
      else if (box && box.clientWidth > 1 && box.clientHeight > 1 && rects.length
               && rects[0].width > box.clientWidth + 1)
        found.push(`${word} (${Math.round(rects[0].width)} px) cannot fit its ${box.clientWidth}-px box `
                   + `in ${where(element)}`);
    }
  }
  for (const element of document.body.querySelectorAll('*')) {
    const s = getComputedStyle(element);
    if (s.display !== 'inline' || !(parseFloat(s.borderLeftWidth) || parseFloat(s.borderTopWidth))) continue;
    if (!element.checkVisibility({visibilityProperty: true})) continue;
    const lines = new Set([...element.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.bottom)));
    if (lines.size > 1)
      found.push(`the box "${element.innerText.trim().slice(0, 30)}" broken over ${lines.size} lines `
                 + `in ${where(element)}`);
  }
  return found;
}"""
# What sticks out past the right edge of the screen, beyond any box that scrolls or clips it.
OVERFLOW_JS = """(width) => {
  const out = [];
  for (const element of document.body.querySelectorAll('*')) {
    if (!element.checkVisibility({visibilityProperty: true})) continue;
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    let clipped = false;
    for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== 'visible' && up.getBoundingClientRect().right <= width + 1) {
        clipped = true;
        break;
      }
    }
    const name = element.className?.baseVal ?? element.className;
    if (!clipped) out.push(`<${element.tagName.toLowerCase()} id="${element.id}" class="${name}"> `
                           + `right edge at ${Math.round(box.right)}`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, out: out.slice(0, 10)};
}"""


# In every visible plotly chart: each pair of text boxes among its titles, annotations and axis titles that
# overlap (by more than a pixel each way), and each one that reaches beyond the chart's own box (where the
# chart's SVG cuts it off). Plotly draws them all as SVG <text>; an empty annotation (an arrow) has no box.
CHART_TEXT_JS = """() => {
  const found = [];
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    if (!plot.checkVisibility({visibilityProperty: true})) continue;
    const chart = plot.getBoundingClientRect();
    if (chart.width === 0 || chart.height === 0) continue;
    const id = plot.closest('[id]:not([id^="html-"])')?.id ?? '';
    const texts = [...plot.querySelectorAll('text.gtitle, text.annotation-text, .infolayer text[class$="title"]')]
      .map(t => ({text: t.textContent.trim(), box: t.getBoundingClientRect()}))
      .filter(t => t.text && t.box.width > 0 && t.box.height > 0);
    for (const [i, a] of texts.entries()) {
      const b = a.box;
      if (b.left < chart.left - 1 || b.right > chart.right + 1 || b.top < chart.top - 1 || b.bottom > chart.bottom + 1)
        found.push(`#${id}: "${a.text.slice(0, 50)}" (${Math.round(b.left - chart.left)}..`
                   + `${Math.round(b.right - chart.left)} px) sticks out of its ${Math.round(chart.width)}-px chart`);
      for (const c of texts.slice(i + 1)) {
        const d = c.box;
        if (Math.min(b.right, d.right) - Math.max(b.left, d.left) > 1
            && Math.min(b.bottom, d.bottom) - Math.max(b.top, d.top) > 1)
          found.push(`#${id}: "${a.text.slice(0, 40)}" overlaps "${c.text.slice(0, 40)}"`);
      }
    }
  }
  return found;
}"""


def check(page, view: str, problems: list[str], shot: str) -> None:
    """Add `view`'s broken words, overflow and crowded charts to `problems`; keep a screenshot when asked."""
    settle(page)  # plots and late widgets settle: no progress overlay, nothing on the page moving
    problems += [f"{view}: {s}" for s in page.evaluate(BROKEN_WORDS_JS)]
    problems += [f"{view}: {s}" for s in page.evaluate(CHART_TEXT_JS)]
    overflow = page.evaluate(OVERFLOW_JS, WIDTH)
    if overflow["scrollWidth"] > WIDTH:
        problems.append(f"{view}: the page is {overflow['scrollWidth']} px wide: {overflow['out']}")
    if SHOTS:
        page.screenshot(path=f"{SHOTS}-{shot}.png", full_page=True)


def test_every_view_fits_a_420px_screen_without_breaking_a_word(new_page, app_url):
    page = new_page(app_url)
    page.set_viewport_size({"width": WIDTH, "height": 900})
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=60_000)  # the first example, on load
    page.locator("#explore-text textarea").fill("The old sailor told a wonderful story about the sea and his ship.")
    page.locator("#explore-run").click()
    wait_for_text(page, "#explore-verdict", "sailor", timeout=30_000)
    page.locator("#explore-proposals .ee-guess-word").first.wait_for(timeout=30_000)
    problems: list[str] = []
    check(page, "Explore", problems, "explore")

    page.get_by_role("tab", name="Classroom").click()
    page.locator("#walk-step .ee-step").wait_for(timeout=30_000)
    names = [n.strip() for n in page.locator("#classroom-views button[role=tab]").all_inner_texts()]
    assert len(names) >= 7, names
    for number, name in enumerate(names, 1):
        page.get_by_role("tab", name=name, exact=True).click()
        check(page, f"Classroom {name}", problems, f"classroom-{number}")

    page.get_by_role("tab", name="Training", exact=True).click()
    page.locator("#race-verdict").wait_for(timeout=30_000)
    check(page, "Training", problems, "training")

    page.get_by_role("tab", name="Replay a race").click()
    wait_for_text(page, "#replay-status-line", "End of the recording", timeout=20_000)
    page.locator("#replay-payoff .js-plotly-plot").wait_for(timeout=20_000)
    check(page, "Training replay", problems, "training-replay")
    assert not problems, f"{len(problems)} problems at {WIDTH} px:\n" + "\n".join(problems[:40])
