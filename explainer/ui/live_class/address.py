"""The students' address on the live class's pages: the teacher's card and the projector give phones an address
they can open (explainer/core/addresses.py decides which), and the teacher chooses among several.

The server's own binding is read from the launched Blocks (gradio keeps `server_name` and `server_port`), so
every way of serving the app (`python app.py`, `--classroom`, the desktop window, a Space, a test) is judged by
what it really listens on, not by the address the teacher's browser happened to open.
"""

from __future__ import annotations

import sys

import gradio as gr

from explainer.core import addresses
from explainer.lesson.live_class import session
from explainer.render.live_class.card import links_card_html
from explainer.ui.live_class.screens import page_link

LABEL = "Students join at (this computer has several addresses: choose the room's network)"


def reach_for(demo: gr.Blocks, location: str) -> addresses.Reach:
    """Where phones can reach the server `demo` runs, for a page opened at `location`."""
    host = getattr(demo, "server_name", None)
    port = getattr(demo, "server_port", None) or addresses.CLASSROOM_PORT
    try:
        configured = addresses.configured_base()
    except ValueError as error:
        return addresses.Reach((), True, str(error))
    return addresses.reach(host, port, location, addresses.machine_addresses(host),
                           addresses.restart_command(sys.argv), addresses.space_base(), configured)


def first_base(found: addresses.Reach) -> str | None:
    return found.bases[0][1] if found.bases else None


def chooser() -> gr.Dropdown:
    """The teacher's choice of address, shown only when there is more than one."""
    return gr.Dropdown([], label=LABEL, visible=False, interactive=True, elem_id="class-address")


def chooser_update(found: addresses.Reach, chosen: str | None = None):
    bases = [base for _, base in found.bases]
    value = chosen if chosen in bases else (bases[0] if bases else None)
    return gr.update(choices=[(label, base) for label, base in found.bases], value=value, visible=len(bases) > 1)


def allowed(found: addresses.Reach, chosen: str | None) -> str | None:
    """The teacher's choice when it is one of the offered addresses (a page cannot make the server link elsewhere),
    else the best one."""
    return chosen if chosen in {base for _, base in found.bases} else first_base(found)


def students_link(demo: gr.Blocks, code: str, location: str, chosen: str | None = None) -> str:
    """The link students open for class `code` (the projector's QR code), on the best address phones can open."""
    base = allowed(reach_for(demo, location), chosen)
    return addresses.with_base(page_link(location, **{"class": code}), base)


def card(demo: gr.Blocks, code: str, key: str, location: str, chosen: str | None = None):
    """(the teacher's card: the students' and the projector's links on an address phones can open, or the line
    saying why there is none; the teacher's choice of address; the students' link)."""
    found = reach_for(demo, location)
    base = allowed(found, chosen)
    student_link = addresses.with_base(page_link(location, **{"class": code}), base)
    view_link = addresses.with_base(
        page_link(location, **{"class": code, "view": session.default_store().view_token(code, key)}), base)
    return (links_card_html(code, student_link, view_link, found.note, found.command),
            chooser_update(found, base), student_link)
