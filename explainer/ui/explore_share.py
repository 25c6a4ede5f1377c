"""The Explore tab's sharing: the link that restores a result, and the files its download buttons
offer (the results as JSON, the verdict and the attribution as SVG pictures, the HTML card).

Export files go to one folder in the system's temporary directory; files older than
EXPORT_MAX_AGE_S are deleted whenever a new one is written.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import tempfile
import time
from pathlib import Path

import gradio as gr

from explainer.core import link_words, links, models
from explainer.core.pipeline import Explanation, sentence_words
from explainer.core.text import MAX_CHARS, InputError, read_places
from explainer.render import export

EXPORT_DIR = Path(tempfile.gettempdir()) / "electra-explainer-exports"
EXPORT_MAX_AGE_S = 3600  # older exports are deleted (gradio serves its own copy; a host's /tmp must not fill up)


def write_file(content: str, suffix: str) -> str:
    """One export file for a download button (files older than an hour are deleted on the way)."""
    EXPORT_DIR.mkdir(exist_ok=True)
    now = time.time()
    for old in EXPORT_DIR.glob("electra-*"):
        try:
            if now - old.stat().st_mtime > EXPORT_MAX_AGE_S:
                old.unlink()
        except OSError:  # another request removed it first
            pass
    with tempfile.NamedTemporaryFile("w", suffix=suffix, prefix="electra-", dir=EXPORT_DIR, delete=False,
                                     encoding="utf-8") as f:
        f.write(content)
    return f.name


def export_json(explanation: Explanation | None, extra: dict | None = None) -> str | None:
    """Write the results to a JSON file for the download button; None when there is nothing."""
    if explanation is None:
        return None
    return write_file(json.dumps({"explanation": explanation.to_dict(), **(extra or {})}, indent=1, ensure_ascii=False),
                  ".json")


def attribution_extra(result) -> dict:
    """The attribution's part of the JSON download."""
    return {"attribution": {**dataclasses.asdict(result), "p_replaced": result.p_replaced, "error": result.error}}


DOWNLOADS = ("json", "verdict", "card", "why")  # the results, the verdict picture, the card, the attribution picture


def make_file(kind: str, explanation: Explanation | None, attribution, merged: bool, palette: str) -> str | None:
    """Write one download when its button is pressed (most results are never downloaded, so nothing is
    written while people explore). With the settings on screen now: whole words or tokens, the palette."""
    if explanation is None or (kind == "why" and attribution is None):
        gr.Warning("Nothing to download yet: run the generator and discriminator first.")
        return None
    # A file leaves the server: a local pair is named from its allowed root ("races/race-…/rtd"), never by the
    # server's own path (a race opened from the Training tab is a folder under the server's cache).
    explanation = dataclasses.replace(explanation, model=models.shown_name(explanation.model))
    if kind == "json":
        return export_json(explanation, None if attribution is None else attribution_extra(attribution))
    if kind == "verdict":
        return write_file(export.sentence_svg(explanation, merged, palette), ".svg")
    if kind == "card":
        return write_file(export.card_html(explanation, attribution, merged, palette), ".html")
    return write_file(export.attribution_svg(attribution, explanation, merged, palette), ".svg")


def shown(explanation: Explanation | None, attribution) -> dict:
    """Which download buttons a result offers, by name: the verdict picture and the card, and the attribution
    picture once there is an attribution."""
    return {"verdict_svg": gr.update(visible=explanation is not None),
            "card": gr.update(visible=explanation is not None),
            "attribution_svg": gr.update(visible=attribution is not None)}


FILE_ID = "explore-file"
# The page presses the hidden download button once the server has written the file into it.
DOWNLOAD_JS = f"(file) => {{ if (file) setTimeout(() => document.getElementById('{FILE_ID}')?.click(), 0); }}"


def wire_downloads(buttons: dict, inputs: list) -> None:
    """Each button writes its file on demand, into one hidden download button, which the page then presses."""
    file = gr.DownloadButton(visible="hidden", elem_id=FILE_ID)
    for kind, button in buttons.items():
        button.click(functools.partial(make_file, kind), inputs, [file], api_visibility="private").then(
            None, [file], None, js=DOWNLOAD_JS)


def _read(text: str, model: str):
    """(the text's words as the page shows them, explainer.core.text.read_places of the text), for a link's words."""
    pair = models.load(model, roots=models.allowed_roots())
    encoded, words = sentence_words(pair, text)
    return encoded, words, read_places(text[:MAX_CHARS], pair.tokenizer.mask_token)


def link_query(text, model, mode, mask_rate, seed, temperature, top_k, mask_words, generator="electra") -> str:
    """The query string of a link that restores these settings (the page adds its own address). The ticked words
    (indices into the text's words) travel as the characters where they start (`mask_at`)."""
    if len(text or "") > links.MAX_TEXT:
        return f"The text is too long for a link (over {links.MAX_TEXT:,} characters): use the JSON download."
    starts = ()
    if mode == "manual" and mask_words:
        try:
            _, words, places = _read(text, model)
        except (models.ModelLoadError, InputError) as error:
            return f"No link: the words to mask could not be read ({error})."
        starts = link_words.word_starts(words, places, (int(w) for w in mask_words))
    return links.explore_query(links.ExploreLink(text, model, mode, float(mask_rate), int(seed), float(temperature),
                                                 int(top_k), starts, generator or "electra"))


def link_ticks(link: links.ExploreLink) -> tuple[list[int], list[str]]:
    """(the words a link masks, as indices into its text's words; what to tell about them): `mask_at` by where each
    word starts, an old link's `mask` by the word numbers before 0.4.0. None outside manual mode."""
    if link.mode != "manual" or not (link.mask_at or link.legacy_mask):
        return [], []
    try:
        encoded, words, places = _read(link.text, link.model)
    except (models.ModelLoadError, InputError) as error:
        return [], [f"The link's words to mask could not be read: {error}"]
    found, problems = link_words.words_at(words, places, link.mask_at, link.text)
    if link.legacy_mask:
        spans = link_words.legacy_spans(encoded.text, encoded.offsets, encoded.special)
        old, told = link_words.legacy_words(words, spans, link.legacy_mask, encoded.text)
        found, problems = tuple(sorted({*found, *old})), problems + told
    return list(found), problems


# The page's own address + the query, put in the address bar and on the clipboard (where the browser allows).
COPY_LINK_JS = """
(query) => {
  if (!query.startsWith("?")) return query;
  const url = window.location.origin + window.location.pathname + query;
  window.history.replaceState(null, "", url);
  navigator.clipboard?.writeText(url).catch(() => {});
  return url;
}
"""
