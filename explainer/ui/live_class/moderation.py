"""The teacher's hold on who is in a live class, on the teacher's page (/class?class=CODE&teach=1): a lock (nobody
new may join; the students in it play on) and removing a student (their answers go with them). Both take the
teacher key the page holds (`who`: {"code", "token"}), checked by the store (explainer/core/live_class/store.py).
The same moves are the API's /class_lock and /class_remove.
"""

from __future__ import annotations

import html
from types import SimpleNamespace

import gradio as gr

from explainer.lesson.live_class import session
from explainer.ui import queues
from explainer.ui.live_class.screens import error_html
from explainer.ui.named import named

LOCK_LABEL = "Lock the room: nobody new can join (the students in it play on)"


def set_lock(who: dict | None, locked: bool) -> dict:
    if not who or not who.get("token"):
        return {"lock": gr.update(value=False),
                "message": error_html("Open the class from the browser that started it.")}
    try:
        info = session.lock_class(who["code"], who["token"], bool(locked))
    except ValueError as error:
        return {"lock": gr.update(value=not locked), "message": error_html(error)}
    return {"lock": info.locked, "message": ""}


def roster(who: dict | None) -> dict:
    """The students to choose from (number: name), read with the teacher key."""
    if not who or not who.get("token"):
        return {"pick": gr.update(choices=[], value=None)}
    try:
        session.default_store().check_teacher(who["code"], who["token"])
        students = session.default_store().students(who["code"])
    except ValueError as error:
        return {"pick": gr.update(choices=[], value=None), "message": error_html(error)}
    return {"pick": gr.update(choices=[(f"{s.number}: {s.display_name}", s.number) for s in students])}


def remove(who: dict | None, number) -> dict:
    if not who or not who.get("token") or number is None:
        return {"message": error_html("Choose the student to remove.")}
    try:
        gone = session.remove_student(who["code"], who["token"], int(number))
    except (TypeError, ValueError) as error:
        return {"message": error_html(error)}
    left = roster(who)
    left["pick"] = gr.update(choices=left["pick"]["choices"], value=None)
    note = f"{gone.display_name} (student {gone.number}) was removed with their answers. Lock the room too, or " \
           "they can join again."
    return {**left, "message": f'<p role="status" style="margin:4px 0">{html.escape(note)}</p>'}


def build_moderation(who: gr.State, message: gr.HTML) -> SimpleNamespace:
    """The lock and the remove controls (inside the teacher's box), wired; `lock` is set by the teacher's page
    to the class's state when it opens."""
    with gr.Row(equal_height=True):
        lock = gr.Checkbox(False, label=LOCK_LABEL, scale=2, min_width=220, elem_id="class-lock")
        pick = gr.Dropdown([], label="Remove a student", scale=2, min_width=180, elem_id="class-remove-pick")
        go = gr.Button("Remove", variant="stop", scale=0, min_width=120, elem_id="class-remove")
    c = SimpleNamespace(lock=lock, pick=pick, message=message)
    private = dict(api_visibility="private", **queues.CLASS)
    lock.input(named(set_lock, c), [who, lock], {lock, message}, **private)
    pick.focus(named(roster, c), [who], {pick, message}, show_progress="hidden", **private)
    go.click(named(remove, c), [who, pick], {pick, message}, **private)
    return SimpleNamespace(lock=lock, pick=pick)
