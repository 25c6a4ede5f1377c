"""The /class page's handlers for the teacher and the projector: starting a class, the teacher's screen and buttons,
moving the class on, the board both refresh. Each returns {name: value}, the names being the page's components
(explainer/ui/live_class/page.py wires them with `named`); a component a handler does not name keeps what it shows.

`who` is the page's hold on the class: {"code", "token", "link", "full"}, the token being the teacher key (kept in
this browser's storage, never in the address) or the projector's view-only token. The handlers that build links take
the launched Blocks (`demo`) first: the students' address is judged by what the server really listens on.
"""

from __future__ import annotations

import gradio as gr

from explainer.core.live_class.phases import Stage, next_stages
from explainer.lesson import beat_electra as game
from explainer.lesson.live_class import session
from explainer.render.live_class import card as card_view
from explainer.ui import api, fair_queue, forgers
from explainer.ui.live_class import address as class_address
from explainer.ui.live_class.screens import error_html, move_label, remember, render_board, stage_key, write_results


def controls(data, key: str) -> dict:
    """The teacher's buttons for the class's stage: the usual next stage, round B from the reveal, the end; the
    downloads at the results."""
    if data is None:
        return {}
    stage = Stage(data.phase, data.reveal if data.phase == "reveal" else 0)
    ahead = next_stages(stage, data.n_sentences)
    usual = ahead[0] if ahead else None
    out = {"move_next": gr.update(value=move_label(usual, data.n_sentences) if usual else "The class has ended",
                                  interactive=usual is not None),
           "skip_b": gr.update(visible=stage.phase == "reveal" and usual != Stage("round_b")),
           "end": gr.update(visible=usual is not None and usual.phase != "ended"), "end_sure": gr.update(visible=False),
           "end_cancel": gr.update(visible=False), "end_timer": gr.Timer(active=False),
           "on_stage": stage_key(stage.phase, stage.sentence), "lock": data.locked}
    limit = session.default_store().max_students
    if data.teacher and data.joined >= limit:
        out["message"] = error_html(f"The class is full: {data.joined} of {limit} students have joined, "
                                    "this server's most; nobody else can join (ELECTRA_CLASS_MAX_STUDENTS).")
    if stage.phase in ("results", "ended"):
        csv_path, json_path = write_results(data.code, key)
        return out | {"csv_file": gr.update(value=csv_path, visible=True),
                      "json_file": gr.update(value=json_path, visible=True)}
    return out | {"csv_file": gr.update(visible=False), "json_file": gr.update(visible=False)}


def teacher_screen(demo: gr.Blocks, code: str, key: str, location: str, chosen: str | None = None) -> dict:
    """The teacher's page for class `code`: the links on an address phones can open (`chosen`: the teacher's pick
    among several), the board, the buttons."""
    try:
        links, choice, link = class_address.card(demo, code, key, location, chosen)
        state = {"code": code, "token": key, "link": link, "full": False}
        html, digest, data = render_board(state, "")
        more = controls(data, key)
    except (gr.Error, ValueError) as error:
        return {"message": error_html(error)}
    return {"who": state, "start_box": gr.Column(visible=False), "teacher_box": gr.Column(visible=True),
            "student_box": gr.Column(visible=False), "timer": gr.Timer(active=True), "board": html, "shown": digest,
            "card": links, "address": choice, "message": "", **more}


def choose_address(demo: gr.Blocks, who: dict | None, chosen: str | None, location: str) -> dict:
    """The teacher chose another of this computer's addresses: the card and the QR code on it, and the choice kept in
    this browser's storage (`address_pick`), so a reload, or the next class started here, opens on it. Only an
    address this computer offers is kept; one it no longer has is passed over on opening (`class_address.allowed`)."""
    if not who:
        return {}
    out = teacher_screen(demo, who["code"], who["token"], location, chosen)
    if chosen and isinstance(out.get("address"), dict) and out["address"].get("value") == chosen:
        out["address_pick"] = chosen
    return out


def projector_screen(demo: gr.Blocks, code: str, token: str, location: str) -> dict:
    """The projector: the class's stage over the whole window, from its view-only token."""
    state = {"code": code, "token": token, "link": class_address.students_link(demo, code, location), "full": True}
    html, digest, _ = render_board(state, "")
    return {"who": state, "start_box": gr.Column(visible=False), "timer": gr.Timer(active=True), "board": html,
            "shown": digest, "message": ""}


@fair_queue.one_per_visitor  # takes the visitor's share lock: one at a time, in the queue
def start_class(demo: gr.Blocks, n, forger, own, location, teaching, picked, request: gr.Request) -> dict:
    """"Start a class": the class made (within this visitor's share), its key kept in this browser's storage; its
    links on the address this browser's teacher chose before (`picked`), while this computer still has it."""
    try:
        chosen_n = int(n or game.ROUND_SENTENCES)
        pair = api.load_pair("")
        visitor = api.visitor(request)
        new = api.within_share("start", visitor, lambda: session.create_class(
            pair, chosen_n, sentences=(own or "").strip() or None, generator=forgers.chosen(forger),
            visitor=visitor))
    except (gr.Error, ValueError, TypeError) as error:
        return {"message": error_html(error)}
    out = teacher_screen(demo, new.code, new.teacher_key, location, picked)
    out["message"] = out.get("message") or card_view.plays_note_html(new.n_sentences, chosen_n)
    return {**out, "new_query": f"?class={new.code}&teach=1",
            "teaching": remember(teaching, new.code, new.teacher_key)}


def refresh(who: dict | None, shown: str) -> dict:
    """The timer: the stage again when it changed (and the teacher's buttons with it)."""
    html, digest, data = render_board(who, shown)
    out = {"board": html, "shown": digest}
    if data is not None and data.teacher and digest != shown:
        try:
            out |= controls(data, who["token"])
        except (gr.Error, ValueError) as error:
            out["message"] = error_html(error)
    return out


def move(who: dict | None, on_stage: str, to: str) -> dict:
    """The teacher's button: the class to the next stage after the one this page showed (so a click made twice, or
    after another tab moved the class, is refused by the store instead of skipping a stage). `to`: "next",
    "round_b" or "ended"."""
    if not who:
        return {"message": error_html("Open the class from the browser that started it.")}
    try:
        phase, _, sentence = (on_stage or "lobby:0").partition(":")
        info = session.default_store().get_class(who["code"])
        shown_stage = Stage(phase, int(sentence or 0))
        ahead = next_stages(shown_stage, info.n_sentences)
        target = {"next": ahead[0] if ahead else shown_stage, "round_b": Stage("round_b"), "ended": Stage("ended")}[to]
        session.move_class(who["code"], who["token"], target.phase, target.sentence)
        note = ""
    except (gr.Error, ValueError) as error:
        note = error_html(error)
    return refresh(who, "") | {"message": note}


def move_next(who: dict | None, on_stage: str) -> dict:
    return move(who, on_stage, "next")


def skip_to_round_b(who: dict | None, on_stage: str) -> dict:
    return move(who, on_stage, "round_b")


def end_class(who: dict | None, on_stage: str) -> dict:
    return move(who, on_stage, "ended")


def ask_to_end() -> dict:
    """"End the class…": the button that really ends it, in its place, and a Cancel; both go away by themselves after
    a few seconds (the page's `end_timer`), so an armed end is never left next to the other buttons."""
    return {"end_sure": gr.update(visible=True), "end_cancel": gr.update(visible=True),
            "end": gr.update(visible=False), "end_timer": gr.Timer(active=True)}


def keep_class(on_stage: str) -> dict:
    """"Cancel", or the few seconds gone by: "End the class…" again (where the stage this page shows offers it)."""
    phase = (on_stage or "lobby").partition(":")[0]
    return {"end_sure": gr.update(visible=False), "end_cancel": gr.update(visible=False),
            "end": gr.update(visible=phase not in ("results", "ended")), "end_timer": gr.Timer(active=False)}
