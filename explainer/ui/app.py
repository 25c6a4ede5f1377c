"""The app: the Gradio Blocks, built at import (module-level `demo`), and what `launch()` is given (`LAUNCH`).

Tabs: Explore, Classroom, Training; and a second page, /class, for a live class (a teacher's projector
view, students on their phones). The scriptable endpoints `/explain`, `/attribute`, `/game` and the live
class's `/class_*` (explainer.ui.api) are registered here with `gr.api`. Served by `python app.py` (a
Hugging Face Space's entry, at the repository root), `electra-explainer` (explainer/launch.py) and the
desktop window (explainer/desktop.py); nothing here launches it.

Hosting: gradio itself reads GRADIO_SERVER_NAME and GRADIO_SERVER_PORT in `launch()`; queue concurrency is
set per event (explainer/ui/queues.py); uploads are capped at ELECTRA_MAX_UPLOAD_MB (50) by gradio's upload
route as well as by the Training tab; gradio's cached uploads and downloads are deleted after an hour and at
restart. Nothing is downloaded unless a user names a hub model; analytics and hub telemetry are off.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

from explainer.core.quotas import forwarded_allow_ips

# The web server (uvicorn) believes X-Forwarded-For only from ELECTRA_TRUSTED_PROXIES (its own default trusts
# 127.0.0.1, so any local program could name itself anyone): a request's client address is then the visitor.
os.environ["FORWARDED_ALLOW_IPS"] = forwarded_allow_ips()

import gradio as gr

from explainer.ui import api, fair_queue, queues
from explainer.ui.live_class.page import build_class_page
from explainer.ui.classroom_tab import build_classroom
from explainer.ui.classroom_links import page_from_link
from explainer.ui.explore import build_explore
from explainer.ui.http_guard import middleware
from explainer.ui.races import MANAGER
from explainer.ui.training_tab import build_training, latest_race, measured_gaps

CACHE_MAX_AGE_S = 3600  # gradio's copies of uploads and downloads: checked and deleted hourly
# gradio's default theme with WCAG AA contrast (4.5:1) where its defaults fall short: primary buttons and
# the selected tab in orange-700 (5.2:1 with white; the default orange-500 is 2.8:1), stop buttons in
# red-700 (6.5:1; red-500 is 3.8:1), subdued text (slider ends, hints, the footer) in gray-500 (4.8:1).
# Its fonts as gradio bundles them, less the broken weights: gradio 6.31.0's SourceSansPro-SemiBold.woff2 and
# IBMPlexMono-SemiBold.woff2 hold ~55-75 glyphs (no C, D, E...), and the default theme draws weights 600 and
# 700 with them, so every heading, button and bold word fell back letter by letter to another font
# ("ELECTRᴀ Explainer"). With the complete Regular and Bold faces only, CSS font matching draws 600 and 700 with
# the Bold face, 500 and below with the Regular one; both are gradio's own files, nothing is fetched from
# elsewhere (tests/test_browser_fonts.py, tests/test_browser_offline.py).
FONTS = dict(
    font=(gr.themes.LocalFont("Source Sans Pro", weights=(400, 700)), "ui-sans-serif", "system-ui", "sans-serif"),
    font_mono=(gr.themes.LocalFont("IBM Plex Mono", weights=(400, 700)), "ui-monospace", "Consolas", "monospace"),
)
THEME = gr.themes.Default(**FONTS).set(
    button_primary_background_fill="#c2410c", button_primary_background_fill_hover="#9a3412",
    button_primary_background_fill_dark="#c2410c", button_primary_background_fill_hover_dark="#9a3412",
    button_cancel_background_fill="#b91c1c", button_cancel_background_fill_hover="#991b1b",
    button_cancel_background_fill_dark="#b91c1c", button_cancel_background_fill_hover_dark="#991b1b",
    body_text_color_subdued="#6b7280", color_accent="#c2410c",
)

with gr.Blocks(title="ELECTRA Explainer", delete_cache=(CACHE_MAX_AGE_S, CACHE_MAX_AGE_S)) as demo:
    gr.Navbar(visible="hidden")  # gradio's page links ("Home"): the tabs are the app's navigation
    gr.Markdown("# ELECTRA Explainer")
    with gr.Tabs() as tabs:
        with gr.Tab("Explore", id="explore") as explore_tab:
            explore_model = build_explore(demo)
        with gr.Tab("Classroom", id="classroom") as classroom_tab:
            build_classroom(demo, latest_race=latest_race, measured_gaps=measured_gaps)
        with gr.Tab("Training", id="training") as training_tab:
            race_timer = build_training(demo, explore_model=explore_model)
    for tab in (explore_tab, classroom_tab, training_tab):  # the live race is redrawn while its tab is open
        tab.select(lambda on=tab is training_tab: gr.Timer(active=on), None, [race_timer], show_progress="hidden",
                   api_visibility="private")
    demo.load(page_from_link, None, [tabs, race_timer], api_visibility="private")  # ?tab=classroom, ?game=CODE
    gr.api(api.explain, api_name="explain", **queues.EXPLAIN)
    gr.api(api.attribute, api_name="attribute", **queues.ATTRIBUTE)
    gr.api(api.game, api_name="game", **queues.EXPLAIN)
    for call in (api.class_join, api.class_round, api.class_spot, api.class_view, api.class_phase, api.class_results,
                 api.class_lock, api.class_remove):
        gr.api(call, api_name=call.__name__, **queues.CLASS)
    for call in (api.class_start, api.class_fool):  # these run the models, in the class's own lane
        gr.api(call, api_name=call.__name__, **queues.CLASS_MODEL)
with demo.route("Live class", "class", show_in_navbar=False):  # /class: ?class=CODE (students), &view=TOKEN
    build_class_page(demo)
demo.queue(max_size=queues.MAX_QUEUED, default_concurrency_limit=queues.DEFAULT)
fair_queue.install(demo)  # each lane its own room, each visitor a share of it

# Headings' line height: the complete faces' text is 1.42 em tall (ascent + descent; the broken SemiBold's was
# 1.26), taller than gradio's 1.3 for headings, so a Markdown block ending in a heading (the title, "Round B")
# overflowed its scrolling box by a pixel: a scrollable region no keyboard can reach (axe, serious).
# On a phone (tests/test_browser_narrow.py): gradio 6.31.0 lets a checkbox in a row of form fields shrink to
# nothing (min-width 0), so Explore's "Show whole words" was a 34-px sliver with its label cut off; like the
# other fields, it keeps 160 px and wraps to a line of its own when the row is too narrow.
# An HTML block with nothing to show yet (a message, a notice, a style sheet) takes no room: each was a 20-px box
# with a 16-px gap either side, a tall blank band above Explore's results and on top of the class pages.
CSS = """
.gradio-container .prose.prose :is(h1, h2, h3, h4, h5, h6) { line-height: 1.45; }
.block:has(> .html-container > .prose:empty), .block:has(> .html-container > .prose > style:only-child) {
  display: none !important; }
.form > .block:has(> label.checkbox-container) { min-width: min(160px, 100%) !important; }
"""
# What every launch passes (explainer/launch.py, explainer/desktop.py); an address too long for gradio, or a body
# too large, is refused first (explainer/ui/http_guard.py; an upload may be one file of max_file_size).
# gradio keeps each browser session's state (~0.65 MB here: a copy of every component's settings) for its 10,000
# most recent sessions by default; 1,000 bound that to ~650 MB (a session in use stays: the oldest unused goes).
SESSIONS = 1000
# gradio 6.31's English strings lack the line its status tracker announces to screen readers after each call, so
# they read out the key, "common.complete"; gr.I18n adds the words (a browser in another language falls back to them).
TRANSLATIONS = gr.I18n(en={"common.complete": "Done", "common.error": "Error"})
LAUNCH = dict(max_file_size=MANAGER.max_upload_bytes, theme=THEME, css=CSS, state_session_capacity=SESSIONS,
              i18n=TRANSLATIONS, app_kwargs={"middleware": middleware(MANAGER.max_upload_bytes)})
