"""What the browser tests that look at a whole page share: every text box that overlaps another, a page wider
than its screen, a chart with nothing drawn in it, gradio's own navigation link, and a phone's page that scrolls
sideways or opens on a blank band; and the wait for a page to stop moving before it is looked at."""

from __future__ import annotations

SIZES = ((1400, 900), (1280, 720), (420, 900))

# Every pair of visible text boxes that overlap: HTML text (one box per line of a text node) and SVG text (the
# charts' tick labels, titles, annotations). Two copies of the same text drawn at the same place (gradio's tabs)
# and text meant for screen readers or gradio's own progress overlay are left out.
OVERLAP_JS = """() => {
  const SKIP = 'svg, style, script, textarea, .visually-hidden, .sr-only, [data-testid=status-tracker], .toast-wrap';
  const seen = (el) => el.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const boxes = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.nodeValue.trim() || !el || el.closest(SKIP) || !seen(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const b of range.getClientRects())
      if (b.width > 1 && b.height > 1) boxes.push({b, el, text: node.nodeValue.trim().slice(0, 30)});
  }
  for (const el of document.querySelectorAll('svg text')) {
    if (!el.textContent.trim() || !seen(el)) continue;
    const b = el.getBoundingClientRect();
    if (b.width > 1 && b.height > 1) boxes.push({b, el, text: el.textContent.trim().slice(0, 30)});
  }
  const found = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], c = boxes[j];
    if (a.el === c.el || a.el.contains(c.el) || c.el.contains(a.el)) continue;
    if (a.text === c.text && ['left', 'top', 'width'].every(k => Math.abs(a.b[k] - c.b[k]) < 1)) continue;
    const x = Math.min(a.b.right, c.b.right) - Math.max(a.b.left, c.b.left);
    const y = Math.min(a.b.bottom, c.b.bottom) - Math.max(a.b.top, c.b.top);
    if (x > 2 && y > 0.3 * Math.min(a.b.height, c.b.height))
      found.push(`"${a.text}" overlaps "${c.text}" (${Math.round(x)} x ${Math.round(y)} px)`);
  }
  return found;
}"""
# Every visible chart with no drawn title or message (plotly draws no annotation on a panel without a trace).
SILENT_CHARTS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .filter(p => p.checkVisibility() && ![...p.querySelectorAll('.gtitle, .annotation-text, .g-xtitle')]
    .some(t => t.textContent.trim()))
  .map(p => p.closest('[id]')?.id ?? '?')"""
SIDEWAYS_JS = "() => document.documentElement.scrollWidth - window.innerWidth"
NAV_JS = "() => [...document.querySelectorAll('nav a')].filter(a => a.checkVisibility()).map(a => a.innerText)"

SCROLLING_BOXES_JS = """() => [...document.querySelectorAll('body *')].filter(e => e.checkVisibility()
  && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1)
  .map(e => `${e.tagName.toLowerCase()}.${e.className} scrolls ${e.scrollWidth - e.clientWidth} px sideways`)"""

# Resolves once the page has stopped moving: no gradio progress overlay or faded output, no transition or finite
# animation running (a faded output fading back in reads as low contrast), and the page's size and every chart's
# drawn size and number of texts the same at `quiet` looks in a row, 60 ms apart (plotly redraws a chart about
# 100 ms after a resize). Five seconds at most: what is checked then is what stays.
SETTLED_JS = """async (quiet) => {
  const moving = () => document.getAnimations().some(a => a.playState === 'running'
    && a.effect?.getComputedTiming().iterations !== Infinity);
  const shape = () => {
    if (document.querySelector('.pending, .progress-text, .eta-bar') || moving()) return Math.random();
    const d = document.documentElement;
    return JSON.stringify([d.scrollWidth, d.scrollHeight, ...[...document.querySelectorAll('.js-plotly-plot')]
      .map(p => { const b = p.getBoundingClientRect(); return [b.left, b.top, b.width, b.height,
                                                               p.querySelectorAll('svg text').length]; })]);
  };
  const deadline = performance.now() + 5000;
  let last = shape(), still = 0;
  while (still < quiet && performance.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 60));
    const now = shape();
    still = now === last ? still + 1 : 0;
    last = now;
  }
}"""


def settle(page, resized: bool = True) -> None:
    """Wait until gradio and plotly have laid the page out (after a resize: long enough for plotly's redraw)."""
    page.evaluate(SETTLED_JS, 4 if resized else 2)


def look(page, where: str, problems: list[str], sizes=SIZES) -> None:
    """At each size: no text over other text, nothing wider than the screen, no silent chart, no gradio nav."""
    for width, height in sizes:
        resized = page.viewport_size != {"width": width, "height": height}
        if resized:
            page.set_viewport_size({"width": width, "height": height})
        settle(page, resized)  # gradio and plotly re-lay out
        here = f"{where} at {width}x{height}"
        found = page.evaluate(OVERLAP_JS)
        if found:  # a chart still being redrawn after a resize overlaps for a moment: only what stays counts
            page.wait_for_timeout(2000)
            found = [o for o in page.evaluate(OVERLAP_JS) if o in found]
        problems += [f"{here}: {o}" for o in found]
        if (extra := page.evaluate(SIDEWAYS_JS)) > 1:
            problems.append(f"{here}: the page scrolls sideways by {extra} px")
        problems += [f"{here}: the chart {c} has no title and no message" for c in page.evaluate(SILENT_CHARTS_JS)]
        problems += [f"{here}: gradio's navigation link {n!r}" for n in page.evaluate(NAV_JS)]


def phones_fit(phones, phase: str, problems: list[str]) -> None:
    """Nothing on a student's phone scrolls sideways: not the page, and no box inside it (the reveal's table once
    showed its first column only)."""
    for k, phone in enumerate(phones):
        look(phone, f"phone {k + 1} in {phase}", problems, sizes=((420, 900),))
        problems += [f"phone {k + 1} in {phase}: {b}" for b in phone.evaluate(SCROLLING_BOXES_JS)]
        top = phone.evaluate("() => { const b = [...document.querySelectorAll('#class-status, #class-message')]"
                             ".filter(e => e.checkVisibility() && e.innerText.trim()); "
                             "return b.length ? Math.min(...b.map(e => e.getBoundingClientRect().top)) : 0; }")
        if top > 120:
            problems.append(f"phone {k + 1} in {phase}: a {round(top)}-px blank band above the first words")
