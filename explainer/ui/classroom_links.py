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


def apply_lesson_link(request: gr.Request) -> dict:
    """?tab=classroom&text=...&seed=...&view=... opens the lesson there (bad values: a message, the defaults), by
    component name."""
    params = dict(getattr(request, "query_params", None) or {})
    link, problems = links.parse_classroom(params, links.ClassroomLink(EXAMPLES[0]))
    if link is None:  # a class code alone: the game's view
        return {"link_note": "", **({"views": gr.Tabs(selected="game"), "view_id": "game"} if "game" in params else {})}
    note = render.notices_html(["Opened from a link: the lesson's sentence, seed and view are the link's.", *problems])
    return {"text": link.text, "seed": link.seed, "views": gr.Tabs(selected=link.view), "view_id": link.view,
            "link_note": note}


def page_from_link(request: gr.Request):
    """The app's tab a link names: ?tab=classroom (or training), or a class code (?game=CODE) -> Classroom; and
    the Training tab's timer, awake when the page opens on that tab."""
    params = dict(getattr(request, "query_params", None) or {})
    tab = params.get("tab") or ("classroom" if "game" in params else None)
    if tab not in ("explore", "classroom", "training"):
        return gr.skip(), gr.skip()
    return gr.Tabs(selected=tab), gr.Timer(active=tab == "training")
