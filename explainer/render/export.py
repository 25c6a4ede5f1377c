"""Exports of an Explore result, drawn here with no browser and no server: an SVG image and one
self-contained HTML card. No gradio, no torch.

- `sentence_svg`: the chips row as an image: every word a rounded rectangle coloured like its chip
  (its P(replaced) on the chosen palette), the number under it, wrapped onto lines; a title line, the
  score line, a legend line and the model/settings line. Flagged words are bold and underlined here
  too, so the image reads in greyscale. Widths come from real fonts' metrics (export_text: the widest of
  the sans-serif fonts the viewer's system may pick); a word longer than
  `MAX_SHOWN` (export_text) characters is cut with "…" (the whole word stays in the rectangle's <title> tooltip).
- `attribution_svg`: the same for the attribution chips (shares, ▲/▼, the explained word outlined).
- `card_html`: one .html string, inline CSS only (a Content-Security-Policy that forbids anything
  else), no script, no external URL: the chips row with its legend, the score line, optionally the
  attribution chips, and a footer naming the model and the settings.

Every string from the user or a vocabulary goes through `xml_text` (the app's `visible`: no invisible
or direction-changing characters; then the characters XML 1.0 forbids removed; then escaped), so the
SVG always parses as XML and shows hostile text as text. Only the rectangles of words are <rect>
elements (one per word or token); every other shape is a <path>. The cleaning, the widths,
shortening and wrapping are `explainer.render.export_text`'s.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from explainer.core.generators import label
from explainer.render import explore
from explainer.render.export_text import clean, fit, shorten, text_width, wrap, xml_text
from training.words import is_piece
from explainer.render.style import (
    DEFAULT_PALETTE,
    FLAG_THRESHOLD,
    Palette,
    get_palette,
    p_colour,
    pct,
    share_colour,
    text_colour,
    word_label,
)

if TYPE_CHECKING:  # types only: the exports never run a model
    from explainer.core.attributions import Attribution
    from explainer.core.pipeline import Explanation

WIDTH = 880  # the image's width in px; lines wrap inside it
MARGIN = 18
WORD_SIZE, NOTE_SIZE, TITLE_SIZE, SMALL_SIZE = 18, 12, 17, 12
CHIP_HEIGHT = 32
ROW_HEIGHT = CHIP_HEIGHT + 30  # chip, its note, the gap
GAP = 6  # between chips
SVG_FONT = "ui-sans-serif, system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif"
INK, NOTE_INK = "#111", "#444"  # 18.9:1 and 9.7:1 on the white background


# --- what the lines say ----------------------------------------------------------------------------------

def score_text(explanation: Explanation) -> str:
    """The score line as plain text (`explore.score_html` in words)."""
    score = explanation.score()
    if not score:
        return "Detect-only: nobody knows which words are replaced; the colours are the discriminator's guess alone."
    return (f"The generator replaced {score['replaced']} of {score['tokens']} tokens; the discriminator flagged "
            f"{score['caught']} of them (P > 50%) and raised {score['false_alarms']} false alarm(s).")


def settings_text(explanation: Explanation, attribution: Attribution | None = None,
                  palette: str | Palette = DEFAULT_PALETTE) -> str:
    """The model and the settings, plain text: "Model: … · masking: … · palette: …"."""
    s = explanation.settings
    if s.mode == "detect":
        masking = "detect only (nothing masked)"
    elif s.mode == "manual":
        masking = f"manual: words {', '.join(str(i + 1) for i in s.mask_words) or 'none'}"
    else:
        masking = f"{s.mask_rate:.0%} of tokens chosen"
    if s.mode != "detect":
        masking += f", seed {s.seed}, temperature {s.temperature:g}"
    parts = [f"Model: {explanation.model}", f"masking: {masking}"]
    if s.mode != "detect" and s.generator != "electra":
        parts.append(f"fakes forged by {label(s.generator, in_sentence=True)}")
    if attribution is not None:
        a = attribution.settings
        method = a.method.replace("_", " ")
        parts.append(f"attribution: {method}"
                     + (f", {a.baseline.upper()} baseline, {attribution.points or a.n_steps} points"
                        if attribution.delta is not None else ""))
    parts.append(f"palette: {get_palette(palette).name}")
    if explanation.truncated:
        parts.append("text cut to the model's length")
    return " · ".join(parts)


def _target_name(attribution: Attribution, explanation: Explanation, merged: bool) -> str:
    target = explanation.tokens[attribution.target]
    word = explanation.words[target.word] if target.word is not None else None
    if merged and word is not None and len(word.tokens) > 1:
        return f"“{shorten(clean(word.corrupted))}” (its piece “{shorten(clean(target.corrupted))}”)"
    return f"“{shorten(clean(target.corrupted))}”" + (" (a piece of a word)" if is_piece(target.corrupted) else "")


# --- SVG -------------------------------------------------------------------------------------------------

class _Canvas:
    """Elements appended top to bottom; `y` is the next free line."""

    def __init__(self, width: int):
        self.width, self.y, self.parts = width, MARGIN, []

    def line(self, text: str, size: float = SMALL_SIZE, bold: bool = False, ink: str = INK) -> None:
        for piece in wrap(clean(text), size * (1.12 if bold else 1.0), self.width - 2 * MARGIN):
            self.y += size * 1.35
            weight = ' font-weight="700"' if bold else ""
            self.parts.append(f'<text x="{MARGIN}" y="{self.y:.1f}" font-size="{size}" fill="{ink}"{weight}>'
                              f"{html.escape(piece, quote=True)}</text>")
        self.y += size * 0.35

    def chips(self, chips: list[dict]) -> None:
        """Rounded rectangles, wrapped onto rows: one <g> (tooltip, <rect>, word, note) per chip."""
        self.y += 6
        x, top, right = MARGIN, self.y, self.width - MARGIN
        for c in chips:
            room = right - MARGIN
            word = fit(shorten(c["word"]), WORD_SIZE, room - 16, c["flagged"])
            note = fit(c["note"], NOTE_SIZE, room - 4)
            word_w = text_width(word, WORD_SIZE, c["flagged"])
            w = min(room, max(word_w + 16, text_width(note, NOTE_SIZE) + 6, 28.0))
            if x + w > right and x > MARGIN:
                x, top = MARGIN, top + ROW_HEIGHT
            centre, ink = x + w / 2, text_colour(c["fill"])
            dash = ' stroke-dasharray="5 3"' if c["dashed"] else ""
            weight = ' font-weight="700"' if c["flagged"] else ""
            underline = ""
            if c["flagged"]:  # a drawn line: renderers disagree on SVG text-decoration
                half = min(word_w, w - 10) / 2
                underline = (f'<path d="M{centre - half:.1f} {top + 25.5:.1f}H{centre + half:.1f}" stroke="{ink}" '
                             f'stroke-width="2"/>')
            self.parts.append(
                f'<g><title>{c["label"]}</title>'
                f'<rect x="{x:.1f}" y="{top:.1f}" width="{w:.1f}" height="{CHIP_HEIGHT}" rx="6" fill="{c["fill"]}" '
                f'stroke="{c["stroke"]}" stroke-width="{c["stroke_width"]}"{dash}/>'
                f'<text x="{centre:.1f}" y="{top + 22:.1f}" font-size="{WORD_SIZE}" fill="{ink}" '
                f'text-anchor="middle"{weight}>{html.escape(word, quote=True)}</text>{underline}'
                f'<text x="{centre:.1f}" y="{top + CHIP_HEIGHT + 15:.1f}" font-size="{NOTE_SIZE}" fill="{NOTE_INK}" '
                f'text-anchor="middle">{html.escape(note, quote=True)}</text></g>')
            x += w + GAP
        self.y = top + ROW_HEIGHT

    def scale(self, colours: list[str], left: str, right: str) -> None:
        """A colour bar made of paths, named at both ends."""
        self.y += 4
        bar_x = MARGIN + text_width(left, SMALL_SIZE) + 8
        step = 8
        for i, colour in enumerate(colours):
            self.parts.append(f'<path d="M{bar_x + i * step:.1f} {self.y:.1f}h{step}v12h-{step}Z" fill="{colour}"/>')
        end = bar_x + len(colours) * step
        self.parts.append(f'<path d="M{bar_x:.1f} {self.y:.1f}H{end:.1f}V{self.y + 12:.1f}H{bar_x:.1f}Z" '
                          f'fill="none" stroke="#999"/>')
        baseline = self.y + 10.5
        self.parts.append(f'<text x="{MARGIN}" y="{baseline:.1f}" font-size="{SMALL_SIZE}" fill="{INK}">'
                          f"{html.escape(left)}</text>"
                          f'<text x="{end + 8:.1f}" y="{baseline:.1f}" font-size="{SMALL_SIZE}" fill="{INK}">'
                          f"{html.escape(right)}</text>")
        self.y += 16

    def svg(self, title: str, description: str) -> str:
        height = round(self.y + MARGIN)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{height}" '
                f'viewBox="0 0 {self.width} {height}" role="img" aria-labelledby="ee-title ee-desc" '
                f'font-family="{SVG_FONT}">'
                f'<title id="ee-title">{xml_text(title)}</title>'
                f'<desc id="ee-desc">{xml_text(description)}</desc>'
                f'<path d="M0 0H{self.width}V{height}H0Z" fill="#fff"/>{"".join(self.parts)}</svg>')


def _sentence_chips(explanation: Explanation, merged: bool, palette: Palette) -> list[dict]:
    chips = []
    for shown, original, p, masked, replaced in explore.sentence_units(explanation, merged):
        shown, original = clean(shown), clean(original)
        note, stroke, stroke_width, dashed = f"{p:.0%}", "#bbb", 1, False
        if replaced:
            note += f" · was {shorten(original, 20)}"
            stroke, stroke_width = INK, 3
        elif masked:
            note += " · original"
            stroke, stroke_width, dashed = "#555", 2, True
        chips.append(dict(word=shown, note=note, fill=p_colour(p, palette), stroke=stroke, stroke_width=stroke_width,
                          dashed=dashed, flagged=p > FLAG_THRESHOLD,
                          label=word_label(shown, p, replaced, masked, original)))
    return chips


def sentence_svg(explanation: Explanation, merged: bool = True, palette: str | Palette = DEFAULT_PALETTE,
                 width: int = WIDTH) -> str:
    """The chips row as a standalone SVG image (a string): title, score, chips, legend, model and settings."""
    chosen = get_palette(palette)
    canvas = _Canvas(width)
    title = "How likely each word was replaced, as ELECTRA's discriminator judged it"
    canvas.line(title, TITLE_SIZE, bold=True)
    canvas.line(score_text(explanation))
    canvas.chips(_sentence_chips(explanation, merged, chosen))
    canvas.scale([p_colour(i / 19, chosen) for i in range(20)], "looks original", "looks replaced")
    canvas.line("The number under a word: the discriminator's P(replaced). Bold and underlined: flagged "
                f"(P > {FLAG_THRESHOLD:.0%}). Thick outline: the generator really replaced it. Dashed outline: "
                "masked, but the generator drew the original back.", ink=NOTE_INK)
    settings = settings_text(explanation, palette=chosen)
    canvas.line(settings, ink=NOTE_INK)
    return canvas.svg(title, f"{clean(explanation.text)} — {score_text(explanation)} {settings}")


def attribution_svg(attribution: Attribution, explanation: Explanation, merged: bool = True,
                    palette: str | Palette = DEFAULT_PALETTE, width: int = WIDTH) -> str:
    """The attribution chips as a standalone SVG image: each word's share of the target's replaced-logit."""
    chosen = get_palette(palette)
    units = explore.attribution_units(attribution, explanation, merged)
    peak = max((abs(share) for _, share, _ in units), default=0) or 1.0
    chips = [dict(word=clean(text), note=f"{explore.sign_mark(share)} {share:+.3f}",
                  fill=share_colour(share / peak, chosen), stroke=INK if is_target else "#bbb",
                  stroke_width=3 if is_target else 1, dashed=False, flagged=False,
                  label=explore.share_label(clean(text), share, is_target))
             for text, share, is_target in units]
    canvas = _Canvas(width)
    title = f"Why is {_target_name(attribution, explanation, merged)} rated {pct(attribution.p_replaced)} replaced?"
    canvas.line(title, TITLE_SIZE, bold=True)
    canvas.line(f"{chosen.replaced_word.capitalize()} words (▲) push it towards replaced, {chosen.original_word} "
                f"words (▼) towards original; the number is each word's share of the score (its logit). "
                "Outlined: the word being explained.")
    canvas.chips(chips)
    canvas.scale([share_colour(-1 + 2 * i / 20, chosen) for i in range(21)], "▼ towards original",
                 "towards replaced ▲")
    if attribution.delta is not None:
        canvas.line(f"Integrated gradients: the shares add up to logit(sentence) − logit(baseline) = "
                    f"{attribution.logit - attribution.baseline_logit:+.3f} within {abs(attribution.delta):.1e}.",
                    ink=NOTE_INK)
    settings = settings_text(explanation, attribution, chosen)
    canvas.line(settings, ink=NOTE_INK)
    return canvas.svg(title, f"{clean(explanation.text)} — {settings}")


# --- the HTML card ---------------------------------------------------------------------------------------

CARD_CSS = (
    "body { margin: 0; padding: 24px; background: #fff; color: #111; "
    "font-family: ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; }"
    " main { max-width: 60rem; margin: 0 auto; }"
    " h1 { font-size: 1.3rem; margin: 0 0 0.6rem; }"
    " .ee-text { color: #444; margin: 0 0 0.8rem; overflow-wrap: anywhere; }"
    " .ee-sentence, .ee-attribution { overflow-wrap: anywhere; }"
    " footer { margin-top: 1.2rem; padding-top: 0.6rem; border-top: 1px solid #ccc; color: #444; font-size: 0.85rem; }"
    " @media print { body { padding: 0; } }"
)
CSP = "default-src 'none'; style-src 'unsafe-inline'"  # nothing loads, nothing runs


def card_html(explanation: Explanation, attribution: Attribution | None = None, merged: bool = True,
              palette: str | Palette = DEFAULT_PALETTE) -> str:
    """One self-contained .html page: the chips and legend, the score, the attribution if given, a footer."""
    chosen = get_palette(palette)
    text = clean(explanation.text)
    why = ""
    if attribution is not None:
        why = (f'<section aria-label="why"><h2 style="font-size: 1.1rem">Why this rating</h2>'
               f"{explore.attribution_html(attribution, explanation, merged, chosen)}</section>")
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>ELECTRA Explainer: {html.escape(shorten(text, 60), quote=True)}</title>"
        f"<style>{CARD_CSS}</style></head><body><main>"
        "<h1>How likely each word was replaced, as ELECTRA's discriminator judged it</h1>"
        f'<p class="ee-text">Text: {html.escape(text, quote=True)}</p>'
        f"{explore.notices_html(explanation.notices)}"
        f"{explore.score_html(explanation)}"
        f"{explore.sentence_html(explanation, merged, chosen)}"
        f"{why}"
        f"<footer>{xml_text(settings_text(explanation, attribution, chosen))}. Made with ELECTRA Explainer.</footer>"
        "</main></body></html>"
    )
    return page.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate (from JSON input) becomes "?"
