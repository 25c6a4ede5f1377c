"""The /class page's handlers for a student's phone: joining, following the phase the teacher sets, round A's
answers and round B's edits. Each returns {name: value}, the names being the page's components
(explainer/ui/live_class/page.py wires them with `named`); a component a handler does not name keeps what it shows.

`me` is the phone's hold on the class: {"code", "id"}, the id being the student's (a bearer token, kept in this
browser's storage). The server scores every answer; the phone sends picks and words, never a score.
"""

from __future__ import annotations

import gradio as gr

from explainer.lesson.live_class import session
from explainer.render.live_class import card, phone
from explainer.ui import api, fair_queue
from explainer.ui.live_class.screens import (
    b_choices, error_html, join_student, next_unanswered, round_for, sentence_html, stage_key, wait_html,
)


def play_screen(me: dict, remembered: dict | None = None, note: str = "") -> dict:
    """The phone's whole screen for the class's phase: round A's next sentence, round B's choices, or the waiting
    screen (with the student's own answer in the reveal)."""
    _, mine = round_for(me["code"], me["id"])
    index = next_unanswered(mine) if mine.phase == "round_a" else None
    choices = b_choices(mine) if mine.phase == "round_b" else []
    answering_a, answering_b = index is not None, bool(choices)
    out = {"student": me, "a_index": index, "status": phone.student_status_html(mine),
           "on_stage": stage_key(mine.phase, mine.reveal),
           "wait": "" if answering_a or answering_b else wait_html(mine),
           "a_box": gr.Column(visible=answering_a), "b_box": gr.Column(visible=answering_b),
           "sentence": sentence_html(mine, index) if answering_a else "", "saved": "",
           "ticks": gr.update(choices=[(w, i) for i, w in enumerate(mine.sentences[index])] if answering_a else [],
                              value=[], interactive=True),
           "submit": gr.update(interactive=answering_a), "next_button": gr.update(interactive=False),
           "b_sentence": gr.update(choices=choices, value=choices[0][1] if choices else None),
           "start_box": gr.Column(visible=False), "teacher_box": gr.Column(visible=False),
           "student_box": gr.Column(visible=True), "join_box": gr.Column(visible=False),
           "play_box": gr.Column(visible=True),
           "code_box": card.pretty_code(me["code"]), "message": note, "follow": gr.Timer(active=True)}
    out |= {"b_form": gr.Column(visible=True), "b_done": gr.Column(visible=False), "b_result": ""}
    if remembered is not None:
        out["remembered"] = remembered
    return out


@fair_queue.one_per_visitor  # takes the visitor's share lock: one at a time, in the queue
def join(code, nickname, remembered, request: gr.Request) -> dict:
    """"Join": this browser's student in the class (a new one counts against this visitor's share of joins)."""
    try:
        me, remembered_new = join_student(code, nickname, dict(remembered or {}), api.visitor(request))
        return play_screen(me, remembered_new)
    except (gr.Error, ValueError, TypeError) as error:
        return {"message": error_html(error)}


def follow_phase(me: dict | None, on_stage: str) -> dict:
    """A phone's check: the whole screen again only when the teacher has moved the class."""
    if not me:
        return {"follow": gr.Timer(active=False)}
    try:
        info = session.default_store().get_class(me["code"])
        if stage_key(info.phase, info.reveal) == on_stage:
            return {"on_stage": gr.skip()}  # nothing moved: the phone's screen stays as it is
        return play_screen(me)
    except (gr.Error, ValueError) as error:
        return {"message": error_html(error)}


def submit_a(me: dict | None, index, picks) -> dict:
    """Round A's answer to one sentence: the words the student ticked, scored on the server."""
    if not me or index is None:
        return {"message": error_html("Join the class first.") if not me else "",
                "submit": gr.update(interactive=False)}
    try:
        pair = api.class_pair(me["code"])
        out = session.submit_spot(pair, me["code"], me["id"], int(index), list(picks or []))
        _, mine = round_for(me["code"], me["id"])
    except (gr.Error, ValueError, TypeError) as error:
        return {"message": error_html(error)}
    note = ("Saved ✓ The answers come when your teacher reveals them." if out.new else
            "You had already answered this sentence: your first answer counts.")
    return {"saved": f'<p style="margin:4px 0">{note}</p>', "status": phone.student_status_html(mine),
            "submit": gr.update(interactive=False), "next_button": gr.update(interactive=True),
            "ticks": gr.update(interactive=False), "message": ""}


def next_sentence(me: dict | None) -> dict:
    """"Next sentence →" (round A's, or round B's under a verdict): the next one not answered yet, or the waiting
    screen."""
    if not me:
        return {"message": error_html("Join the class first.")}
    try:
        return play_screen(me)
    except (gr.Error, ValueError) as error:
        return {"message": error_html(error)}


def b_words(me: dict | None, index) -> dict:
    """Another sentence in round B: its words to choose from, the sentence in full, "Your word" emptied and no bet
    chosen (the student makes each one)."""
    empty = {"b_word": gr.update(choices=[], value=None), "b_text": "", "b_new": "", "b_bet": None}
    if not me or index is None:
        return empty
    try:
        _, mine = round_for(me["code"], me["id"])
        words = mine.fool_words[int(index)]
        text = phone.fool_sentence_html(mine.fool_sentences[int(index)], int(index), len(mine.fool_sentences))
    except (gr.Error, ValueError, TypeError, IndexError):
        return empty
    return {"b_word": gr.update(choices=[(w, i) for i, w in enumerate(words)], value=None), "b_text": text,
            "b_new": "", "b_bet": None}


def submit_b(me: dict | None, index, word, new_word, bet) -> dict:
    """Round B's try: one word changed and a bet on ELECTRA's verdict; the discriminator judges it on the server.
    The verdict takes the form's place, in view, with "Next sentence →" under it (the form, already on the next
    sentence not tried, comes back on that tap), so the payoff is not pushed below a new sentence."""
    if not me:
        return {"message": error_html("Join the class first.")}
    if index is None:
        return {"message": error_html("Choose a sentence (you have tried every one already if the list is empty).")}
    if word is None:
        return {"message": error_html("Choose the word to change.")}
    if bet is None:
        return {"message": error_html(session.NO_BET)}
    try:
        pair = api.class_pair(me["code"])
        out = session.submit_fool(pair, me["code"], me["id"], int(index), int(word), new_word, bet)
        _, mine = round_for(me["code"], me["id"])
    except (gr.Error, ValueError, TypeError) as error:
        return {"message": error_html(error)}
    choices = b_choices(mine)
    return {"b_result": phone.class_fool_html(out), "status": phone.student_status_html(mine), "message": "",
            "b_sentence": gr.update(choices=choices, value=choices[0][1] if choices else None),
            "b_form": gr.Column(visible=False), "b_done": gr.Column(visible=True),
            "b_next": gr.update(value="Next sentence →" if choices else "Finish round B")}
