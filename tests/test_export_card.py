"""Exports drawn by our own code: the chips and the attributions as SVG, the self-contained HTML card.
Hostile words stay text; the SVG parses as XML; the card loads nothing and runs nothing."""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from explainer.core.attributions import AttributionSettings, attribute
from explainer.core.pipeline import Settings, explain
from explainer.render import export, style
from tests.test_render import HOSTILE, hostile

SVG = "{http://www.w3.org/2000/svg}"
SVG_TAGS = {"svg", "title", "desc", "path", "rect", "text", "g"}
PALETTES = list(style.PALETTES)
ODD = [
    "\u202eevil\u202c",  # right-to-left override
    "ze\u200bro\u200dwidth\ufeff",  # zero-width space, joiner, BOM
    "tab\tvt\x0bff\x0cfs\x1cnul\x00bell\x07",  # characters XML 1.0 forbids
    "lone\ud800surrogate",
    "שלום עולם",  # right-to-left script, kept
    "👩\u200d🔬🙂🇫🇷",  # emoji, a ZWJ sequence, a flag
    "cafe\u0301",  # a combining accent
    "x" * 500,  # a very long word
    "]]><!-- --><?xml?><!DOCTYPE x [<!ENTITY e 'boom'>]>&e;",
]


@pytest.fixture(scope="module")
def explanation(tiny_pair):
    return explain(tiny_pair, "The chef cooked a delicious meal for the guests.", Settings(seed=0, mask_rate=0.3))


@pytest.fixture(scope="module")
def attribution(tiny_pair, explanation):
    return attribute(tiny_pair, explanation, settings=AttributionSettings(n_steps=4))


def with_words(explanation, texts):
    """`explanation` with its words and tokens renamed, in turn, to `texts`."""
    def pick(i):
        return texts[i % len(texts)]

    words = tuple(dataclasses.replace(w, text=pick(i), corrupted=pick(i + 1)) for i, w in enumerate(explanation.words))
    tokens = tuple(dataclasses.replace(t, original=pick(i), corrupted=pick(i + 2))
                   for i, t in enumerate(explanation.tokens))
    return dataclasses.replace(explanation, words=words, tokens=tokens, text=" ".join(texts), model=pick(3))


def parse_svg(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # raises on anything that is not well-formed XML
    assert root.tag == f"{SVG}svg"
    for element in root.iter():
        assert element.tag.removeprefix(SVG) in SVG_TAGS, element.tag
        assert not any(name.lower().startswith("on") or "href" in name for name in element.attrib), element.attrib
    return root


def rects(root: ET.Element) -> list[ET.Element]:
    return list(root.iter(f"{SVG}rect"))


def texts(root: ET.Element) -> list[str]:
    return [element.text or "" for element in root.iter(f"{SVG}text")]


# --- the chips as SVG -------------------------------------------------------------------------------------

@pytest.mark.parametrize("palette", PALETTES)
@pytest.mark.parametrize("merged", [True, False])
def test_sentence_svg_draws_one_coloured_rect_per_word(explanation, merged, palette):
    root = parse_svg(export.sentence_svg(explanation, merged=merged, palette=palette))
    units = list(export.explore.sentence_units(explanation, merged))
    drawn = rects(root)
    assert len(drawn) == len(units) == (len(explanation.words) if merged else len(explanation.tokens))
    for (shown, original, p, masked, replaced), rect in zip(units, drawn):
        assert rect.get("fill") == style.p_colour(p, palette)
        assert rect.get("stroke-width") == ("3" if replaced else "2" if masked else "1")
    groups = list(root.iter(f"{SVG}g"))
    labels = [g.find(f"{SVG}title").text for g in groups]
    assert labels == [style.word_label(u[0], u[2], u[4], u[3], u[1]).replace("&#x27;", "'") for u in units]
    bold = [g for g in groups if any(t.get("font-weight") == "700" for t in g.iter(f"{SVG}text"))]
    assert len(bold) == sum(p > style.FLAG_THRESHOLD for _, _, p, _, _ in units)
    assert all(len(list(g.iter(f"{SVG}path"))) == 1 for g in bold)  # the underline, drawn
    lines = " ".join(texts(root))
    assert f"{units[1][2]:.0%}" in lines and "looks original" in lines and "Bold and underlined: flagged" in lines
    assert f"Model: {explanation.model}" in lines and f"palette: {palette}" in lines
    assert "30% of tokens chosen, seed 0" in lines
    assert root.find(f"{SVG}title").text and "The chef cooked" in root.find(f"{SVG}desc").text


def test_sentence_svg_wraps_inside_its_width(tiny_pair):
    result = explain(tiny_pair, " ".join(["wonderful", "adventures", "everywhere"] * 15), Settings(mode="detect"))
    root = parse_svg(export.sentence_svg(result, width=600))
    drawn = rects(root)
    rows = sorted({float(r.get("y")) for r in drawn})
    assert len(drawn) == len(result.words) and len(rows) > 3
    for rect in drawn:
        assert float(rect.get("x")) >= export.MARGIN and float(rect.get("x")) + float(rect.get("width")) <= 600
    assert float(root.get("height")) > rows[-1] + export.ROW_HEIGHT
    assert "Detect-only" in " ".join(texts(root)) and "detect only (nothing masked)" in " ".join(texts(root))


def test_text_width_reads_real_fonts_and_falls_back_by_character_class():
    assert export.text_width("m", 10) == pytest.approx(10 * 1995 / 2048, abs=1e-3)  # DejaVu Sans, the wider font
    assert export.text_width("i", 10) < export.text_width("m", 10) / 3
    assert export.text_width("mi", 10) == pytest.approx(export.text_width("m", 10) + export.text_width("i", 10))
    assert export.text_width("ж", 10) == export.text_width("m", 10)  # outside the table: a lowercase letter's widest
    assert export.text_width("漢", 10) == export.text_width("🙂", 10) == 10
    assert export.text_width("e\u0301", 10) == export.text_width("e", 10)
    assert export.text_width("word", 10, bold=True) > export.text_width("word", 10)
    assert export.shorten("x" * 50) == "x" * 29 + "…" and export.shorten("short") == "short"
    assert export.wrap("one two three", 10, 10 * 0.64 * 7) == ["one two", "three"]


@pytest.mark.parametrize("attack", [HOSTILE, ODD])
def test_hostile_words_stay_text_in_the_svg(explanation, attribution, attack):
    evil = with_words(hostile(explanation) if attack is HOSTILE else explanation, attack)
    for svg in (export.sentence_svg(evil), export.sentence_svg(evil, merged=False),
                export.attribution_svg(attribution, evil)):
        root = parse_svg(svg)
        assert len(rects(root)) in (len(evil.words), len(evil.tokens))
        for bad in ("\u202e", "\u200b", "\u200d", "\ufeff", "\x00", "\x0b", "\x0c", "\x1c", "\x07", "\ud800"):
            assert bad not in svg
        assert "<script" not in svg and "<!ENTITY" not in svg and "<!DOCTYPE" not in svg
        for rect in rects(root):
            assert float(rect.get("width")) <= export.WIDTH - 2 * export.MARGIN
    shown = " ".join(texts(parse_svg(export.sentence_svg(evil))))
    if attack is HOSTILE:
        assert '<script>alert("x")</script>' in shown  # the attack, as text
    else:
        assert "x" * 29 + "…" in shown and "x" * 31 not in shown  # a long word cut...
        titles = [t.text for t in parse_svg(export.sentence_svg(evil)).iter(f"{SVG}title")]
        assert any("x" * 500 in t for t in titles)  # ...whole in its tooltip
        assert "שלום עולם" in shown and "cafe\u0301" in shown and "]]><!-- -->" in shown


def test_xml_text_removes_what_xml_forbids():
    assert export.clean("a\x00b\x0bc\ud800d\ufffee\U0001f642") == "ab cde\U0001f642"
    assert export.xml_text("<a href='x'>&</a>") == "&lt;a href=&#x27;x&#x27;&gt;&amp;&lt;/a&gt;"


# --- the attributions as SVG ------------------------------------------------------------------------------

@pytest.mark.parametrize("palette", PALETTES)
def test_attribution_svg_colours_shares_and_marks_their_sign(attribution, explanation, palette):
    root = parse_svg(export.attribution_svg(attribution, explanation, palette=palette))
    units = export.explore.attribution_units(attribution, explanation, True)
    drawn = rects(root)
    assert len(drawn) == len(units) == len(explanation.words)
    peak = max(abs(share) for _, share, _ in units)
    for (_, share, is_target), rect in zip(units, drawn):
        assert rect.get("fill") == style.share_colour(share / peak, palette)
        assert rect.get("stroke-width") == ("3" if is_target else "1")
    notes = texts(root)
    assert sum(n.startswith("▲ +") for n in notes) == sum(s > 0 for _, s, _ in units)
    assert sum(n.startswith("▼ -") for n in notes) == sum(s < 0 for _, s, _ in units)
    lines = " ".join(notes)
    assert lines.startswith("Why is “") and "towards replaced ▲" in lines and "▼ towards original" in lines
    assert "integrated gradients, PAD baseline, 4 points" in lines and "within" in lines


# --- the HTML card ----------------------------------------------------------------------------------------

VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "embed", "source", "track", "wbr"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attributes, self.stack, self.text, self.unbalanced = [], [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes.extend(attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.unbalanced.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def parse_card(markup: str, attacked: bool = False) -> Page:
    page = Page()
    page.feed(markup)
    page.close()
    assert not page.stack and not page.unbalanced, (page.stack, page.unbalanced)  # every element closed, in order
    assert not set(page.tags) & {"script", "iframe", "object", "embed", "link", "img", "base", "form", "svg"}
    for name, value in page.attributes:
        assert not name.startswith("on") and name not in ("src", "href", "srcset", "action", "poster", "data"), name
        if name not in ("title", "aria-label"):  # text for people; hostile words may say anything there
            assert not re.search(r"https?:|//|javascript:", value or "", re.I), (name, value)
    assert "url(" not in markup.lower() and "@import" not in markup
    assert not re.search(r"https?://", "".join(page.text) + "".join(v or "" for _, v in page.attributes)) or attacked
    assert markup.startswith("<!DOCTYPE html>") and '<html lang="en">' in markup
    return page


@pytest.mark.parametrize("palette", PALETTES)
def test_card_holds_chips_score_and_attribution(explanation, attribution, palette):
    card = export.card_html(explanation, attribution, palette=palette)
    page = parse_card(card)
    assert card.count('class="ee-chip"') == 2 * len(explanation.words)  # the sentence and the attributions
    assert 'class="ee-score"' in card and 'class="ee-legend"' in card and 'class="ee-attribution"' in card
    assert "Content-Security-Policy" in card and "default-src 'none'" in card
    text = "".join(page.text)
    footer = text[text.rindex("Model:"):]
    assert f"Model: {explanation.model}" in footer and f"palette: {palette}" in footer
    assert "integrated gradients" in footer and "Made with ELECTRA Explainer" in footer
    assert style.p_colour(explanation.words[0].p_replaced, palette) in card


def test_card_without_attribution(explanation):
    card = export.card_html(explanation, merged=False)
    parse_card(card)
    assert 'class="ee-attribution"' not in card and "attribution:" not in card
    assert card.count('class="ee-chip"') == len(explanation.tokens)


@pytest.mark.parametrize("attack", [HOSTILE, ODD])
def test_hostile_words_stay_text_in_the_card(explanation, attribution, attack):
    evil = with_words(hostile(explanation) if attack is HOSTILE else explanation, attack)
    card = export.card_html(evil, attribution)
    page = parse_card(card, attacked=True)
    assert set(page.tags) <= {"html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "p", "div", "span",
                              "bdi", "b", "i", "ul", "li", "section", "footer"}
    for bad in ("\u202e", "\u200b", "\ufeff", "\x00", "\ud800"):
        assert bad not in card
    card.encode("utf-8")  # writable as a file: no lone surrogate left
    text = "".join(page.text)
    if attack is HOSTILE:
        assert '<script>alert("x")</script>' in text  # shown, as text
    else:
        assert "x" * 500 in text and "שלום עולם" in text
