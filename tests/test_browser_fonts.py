"""Every letter the page draws comes from a font that has it, in Debian's Chromium: for each web font face the
page loaded (document.fonts, status "loaded", its file read with fontTools), no visible text that the face is
chosen for holds a character missing from the face's cmap. (gradio 6.31.0 ships a SourceSansPro-SemiBold.woff2
of ~55 glyphs: semibold text fell back letter by letter to another font, "ELECTRᴀ Explainer".)

The face chosen for a text is worked out as the browser does: the first family of the element's font-family
that has @font-face rules, the face of that family nearest the element's weight and style (CSS Fonts 4's
matching); a character that face lacks falls back (a failure here) to the next family. Letters, digits and
punctuation must all come from that face; a symbol (①, ↺, ✓) may come from a symbol font, unless another face
of the same family has it. System fonts are the system's business and not checked. Looked at on the Explore
tab (the title), the Classroom's intro and the game.

Needs `apt-get install -y chromium` (never `playwright install`). Set FONTS_SCREENSHOTS=prefix to keep
screenshots (prefix-title.png, prefix-classroom.png, prefix-game.png).
"""

from __future__ import annotations

import io
import json
import os
import unicodedata

import pytest
from conftest import wait_for_text

pytestmark = pytest.mark.browser  # the `browser` fixture (conftest) skips when chromium is missing
SHOTS = os.environ.get("FONTS_SCREENSHOTS")
SYMBOLS = {"Sm", "Sc", "Sk", "So", "No"}  # arrows, ticks, circled digits: not letters of the text

# The @font-face rules of every stylesheet (with their files' addresses), the faces document.fonts holds, and
# the visible text by (font-family, weight, style): each character with the first text it was seen in.
PAGE_FONTS_JS = """async () => {
  await document.fonts.ready;
  const name = (s) => s.trim().replace(/^['"]|['"]$/g, '').toLowerCase();
  const rules = [];
  const walk = (list, base) => {
    for (const rule of list) {
      if (rule instanceof CSSFontFaceRule) {
        const src = rule.style.getPropertyValue('src');
        rules.push({family: name(rule.style.getPropertyValue('font-family')),
                    weight: rule.style.getPropertyValue('font-weight') || 'normal',
                    style: rule.style.getPropertyValue('font-style') || 'normal',
                    range: rule.style.getPropertyValue('unicode-range') || '',
                    urls: [...src.matchAll(/url\\(\\s*['"]?([^'")]+)['"]?\\s*\\)/g)]
                            .map(m => new URL(m[1], base).href)});
      } else if (rule instanceof CSSImportRule) {
        if (rule.styleSheet) walk(rule.styleSheet.cssRules, rule.styleSheet.href || base);
      } else if (rule.cssRules) walk(rule.cssRules, base);
    }
  };
  for (const sheet of document.styleSheets) {
    try { walk(sheet.cssRules, sheet.href || document.baseURI); } catch (e) { /* another origin's sheet */ }
  }
  const faces = [...document.fonts].map(f => ({family: name(f.family), weight: f.weight, style: f.style,
                                                status: f.status}));
  const texts = {};
  const add = (text, element) => {
    if (!text || !text.trim() || !element.checkVisibility({visibilityProperty: true})) return;
    const s = getComputedStyle(element);
    const shown = s.textTransform === 'uppercase' ? text.toUpperCase() : s.textTransform === 'lowercase'
      ? text.toLowerCase() : s.textTransform === 'capitalize' ? text + text.toUpperCase() : text;
    const key = JSON.stringify([s.fontFamily, s.fontWeight, s.fontStyle]);
    const seen = texts[key] ??= {};
    for (const c of shown) if (!(c in seen)) seen[c] = `${element.tagName.toLowerCase()}: ${text.trim().slice(0, 60)}`;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode())
    if (node.parentElement) add(node.nodeValue, node.parentElement);
  for (const e of document.querySelectorAll('input:not([type=hidden]), textarea')) {
    add(e.value, e);
    add(e.placeholder, e);
  }
  return {rules, faces, texts};
}"""


def _weight(value: str) -> tuple[float, float]:
    """A face's font-weight descriptor ("600", "normal", "100 900") as a (low, high) range."""
    words = [{"normal": "400", "bold": "700"}.get(w, w) for w in str(value).split()]
    low, high = float(words[0]), float(words[-1])
    return low, high


def _in_range(char: str, ranges: str) -> bool:
    if not ranges:
        return True
    for part in ranges.replace(" ", "").upper().split(","):
        part = part.removeprefix("U+")
        if "-" in part:
            low, high = part.split("-")
        elif "?" in part:
            low, high = part.replace("?", "0"), part.replace("?", "F")
        else:
            low = high = part
        if int(low, 16) <= ord(char) <= int(high, 16):
            return True
    return False


def choose_face(faces: list[dict], weight: float, style: str) -> dict | None:
    """The face CSS font matching picks from one family's `faces` for `weight` and `style` (CSS Fonts 4, 5.2)."""
    if not faces:
        return None
    order = {"italic": ["italic", "oblique", "normal"], "oblique": ["oblique", "italic", "normal"]}.get(
        style, ["normal", "oblique", "italic"])
    styles = [s for s in order if any(f["style"].split()[0] == s for f in faces)]
    faces = [f for f in faces if f["style"].split()[0] == styles[0]] if styles else faces

    def distance(face: dict) -> tuple:
        low, high = _weight(face["weight"])
        if low <= weight <= high:
            return (0, 0)
        nearest = low if low > weight else high
        if 400 <= weight <= 500:  # up to 500 first, then down, then above 500
            return (1, nearest - weight) if weight < nearest <= 500 else (2, weight - nearest) if nearest < weight \
                else (3, nearest - weight)
        if weight < 400:  # down first, then up
            return (1, weight - nearest) if nearest < weight else (2, nearest - weight)
        return (1, nearest - weight) if nearest > weight else (2, weight - nearest)  # above 500: up first, then down

    best = min(distance(f) for f in faces)
    return [f for f in faces if distance(f) == best][-1]  # the last rule wins among equals


def families(value: str) -> list[str]:
    return [f.strip().strip("'\"").lower() for f in value.split(",") if f.strip()]


def missing_glyphs(page, seen: dict) -> tuple[list[str], list[str]]:
    """(the loaded faces as "family weight style: file", the characters drawn in a face that lacks them)."""
    from fontTools.ttLib import TTFont

    rules, faces, texts = seen["rules"], seen["faces"], seen["texts"]
    loaded = {(f["family"], str(_weight(f["weight"])), f["style"]) for f in faces if f["status"] == "loaded"}
    failed = [f for f in faces if f["status"] == "error"]
    assert not failed, f"font faces that failed to load: {failed}"
    cmaps: dict[str, set[int]] = {}

    def cmap(rule: dict) -> set[int]:
        url = rule["urls"][0]
        if url not in cmaps:
            response = page.request.get(url)
            assert response.ok, f"{url}: {response.status}"
            cmaps[url] = set(TTFont(io.BytesIO(response.body())).getBestCmap())
        return cmaps[url]

    web = {}
    for rule in rules:
        if rule["urls"]:
            web.setdefault(rule["family"], []).append(rule)
    problems = []
    used = set()
    for key, chars in texts.items():
        family_list, weight, style = json.loads(key)
        for char, where in chars.items():
            if unicodedata.category(char)[0] in "CZ":  # spaces and controls: nothing drawn
                continue
            for family in families(family_list):
                if family not in web:
                    break  # a system font or a generic family: the system's own fallback
                rule = choose_face([r for r in web[family] if _in_range(char, r["range"])], float(weight), style)
                if rule is None:
                    continue
                face = (rule["family"], str(_weight(rule["weight"])), rule["style"].split()[0])
                assert face in loaded, f"{face} is chosen for visible text but not loaded"
                used.add(f"{rule['family']} {rule['weight']} {rule['style']}: {rule['urls'][0].rsplit('/', 1)[-1]}")
                if ord(char) in cmap(rule):
                    break
                symbol = unicodedata.category(char) in SYMBOLS
                if symbol and not any(ord(char) in cmap(other) for other in web[family]):
                    continue  # a symbol the whole family lacks (①, ↺): a symbol font draws it, as it should
                problems.append(f"{char!r} (U+{ord(char):04X}) at weight {weight} is missing from "
                                f"{rule['urls'][0].rsplit('/', 1)[-1]}, seen in {where!r}")
    return sorted(used), problems


def shot(locator, name: str) -> None:
    if SHOTS:
        locator.screenshot(path=f"{SHOTS}-{name}.png")


def test_every_character_is_drawn_by_a_face_that_has_it(new_page, app_url):
    page = new_page(app_url)
    page.locator("#explore-verdict .ee-chip").first.wait_for(timeout=60_000)  # the first example, on load
    seen = [("Explore", page.evaluate(PAGE_FONTS_JS))]
    shot(page.locator("h1").first, "title")

    page.get_by_role("tab", name="Classroom").click()
    page.locator("#walk-step .ee-step").wait_for(timeout=30_000)
    seen.append(("Classroom intro", page.evaluate(PAGE_FONTS_JS)))
    shot(page.get_by_text("One idea to land").locator("xpath=ancestor::*[contains(@class, 'prose')][1]"), "classroom")

    page.get_by_role("tab", name="⑦ Can you beat ELECTRA?").click()
    page.locator("#game-start").click()
    wait_for_text(page, "#game-sentence-box", "Sentence 1 of", timeout=30_000)
    seen.append(("the game", page.evaluate(PAGE_FONTS_JS)))
    if SHOTS:
        page.screenshot(path=f"{SHOTS}-game.png", full_page=True)

    report, used_faces = [], set()
    for view, found in seen:
        used, problems = missing_glyphs(page, found)
        used_faces |= set(used)
        report += [f"{view}: {p}" for p in problems]
    assert used_faces, "no web font face is used: the check saw nothing"
    assert not report, f"{len(report)} characters fall back to another font:\n" + "\n".join(report[:40])
