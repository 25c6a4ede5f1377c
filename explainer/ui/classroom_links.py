"""Links into the Classroom: the lesson's sentence, seed and view as a link and back
(?tab=classroom&text=...&seed=...&view=...), a class code (?game=CODE) opening the game's view, and
the app's tab a link names (`page_from_link`, registered in app.py). Parsing and checking the
parameters is `explainer.core.links`'s job.
"""

from __future__ import annotations

import gradio as gr

from explainer.core import links
from explainer.render import explore as render
from explainer.ui.explore import EXAMPLES


def lesson_link_query(text, seed, view) -> str:
    if len(text or "") > links.MAX_TEXT:
        return f"The sentence is too long for a link (over {links.MAX_TEXT:,} characters)."
    try:
        return links.classroom_query(links.ClassroomLink(text, int(seed), view))
    except (TypeError, ValueError):
        return "The seed must be a whole number for a link."


def apply_lesson_link(request: gr.Request):
    """?tab=classroom&text=...&seed=...&view=... opens the lesson there (bad values: a message, the defaults)."""
    params = dict(getattr(request, "query_params", None) or {})
    link, problems = links.parse_classroom(params, links.ClassroomLink(EXAMPLES[0]))
    if link is None:
        game = "game" in params  # a class code: the game's view
        return gr.skip(), gr.skip(), gr.Tabs(selected="game") if game else gr.skip(), "game" if game else gr.skip(), ""
    note = render.notices_html(["Opened from a link: the lesson's sentence, seed and view are the link's.", *problems])
    return link.text, link.seed, gr.Tabs(selected=link.view), link.view, note


def page_from_link(request: gr.Request):
    """The app's tab a link names: ?tab=classroom (or training), or a class code (?game=CODE) -> Classroom."""
    params = dict(getattr(request, "query_params", None) or {})
    tab = params.get("tab") or ("classroom" if "game" in params else None)
    return gr.Tabs(selected=tab) if tab in ("explore", "classroom", "training") else gr.skip()
