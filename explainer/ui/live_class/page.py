"""The live class page (/class): thin wiring of explainer.lesson.live_class.session and its views.

One page, four ways in, by its address:
- /class: a teacher starts a class (or a student types a code to join one);
- /class?class=CODE: a student joins (an optional nickname); their phone then follows the phase the teacher
  sets (a waiting screen in the lobby, round A, "the teacher is showing the answers", round B, the results),
  checking every few seconds. Their browser remembers them in that class (gr.BrowserState, encrypted with the
  data folder's key), so a reload or a restarted server keeps them the same student;
- /class?class=CODE&view=TOKEN: the projector: the class's stage for its phase over the whole window, refreshed
  every 2 seconds (only when it changed). The token shows the class and moves nothing;
- /class?class=CODE&teach=1: the teacher's own page: the links, the phase controls, a preview of the
  projector and (at the results) the downloads. The key that moves the phases is in no address and no page:
  "Start a class" keeps it in this browser's storage (gr.BrowserState, encrypted), which this address reads.
  A link carrying the key (&teacher=KEY, as /class_start's caller may build) is moved into storage and taken
  out of the address at once.
"""

from __future__ import annotations

import gradio as gr

from explainer.core.live_class.phases import Stage, next_stages
from explainer.core.private_files import browser_secret
from explainer.lesson.live_class import own_sentences
from explainer.lesson.live_class import session
from explainer.lesson import beat_electra as game
from explainer.render.live_class import projector
from explainer.render.live_class import card as card_view
from explainer.render.live_class import phone
from explainer.render import beat_electra as game_view
from explainer.ui import api, forgers, queues
from explainer.ui.live_class import address as class_address
from explainer.ui.live_class.moderation import build_moderation
from explainer.ui.live_class.screens import (
    b_choices, error_html, join_student, move_label, next_unanswered, query_params, remember,
    render_board, round_for, sentence_html, stage_key, wait_html, write_results,
)

INTRO = """
### A live class: everyone against ELECTRA
Start a class on your own laptop or phone, open its view-only link on the projector, and let students join
from their phones with the QR code or the code. You move the class on: the lobby, **round A** (they tick the
words the generator faked), the reveal of each sentence, **round B** (they change one word and bet whether
ELECTRA's discriminator will flag it), the results. The server scores every answer and keeps it.
""" + game.FAKES_RULE + "\n"
BETS = [("ELECTRA will flag my word", True), ("ELECTRA will be fooled", False)]
REFRESH_S = 2.0
FOLLOW_S = 3.0  # a phone checks the phase this often: 40 phones, 13 cheap reads a second
LOCATION_JS = "(x, remembered, teaching) => [window.location.href, remembered, teaching]"  # the address students reach
OWN_SENTENCES = (f"Your own sentences (optional): one a line, up to {game.MAX_SENTENCES}, at least "
                 f"{own_sentences.MIN_WORDS} words each. Empty: sentences drawn from the bundled set.")


# --- the page ----------------------------------------------------------------------------------------------

def build_class_page(demo: gr.Blocks) -> None:
    """The /class page's components and events (app.py calls it inside `demo.route`)."""
    gr.Navbar(visible="hidden")  # gradio's "Home" link means nothing to a student
    gr.HTML(f"<style>{card_view.CLASS_CSS}{projector.ROOM_CSS}{game_view.GAME_CSS}</style>")
    location = gr.Textbox(visible=False)
    remembered = gr.BrowserState({}, storage_key="electra-explainer-classes", secret=browser_secret())
    teaching = gr.BrowserState({}, storage_key="electra-explainer-teaching", secret=browser_secret())
    who, student, shown, a_index, on_stage = gr.State(None), gr.State(None), gr.State(""), gr.State(None), gr.State("")
    new_query = gr.Textbox(visible=False)
    message = gr.HTML(elem_id="class-message")
    with gr.Column(visible=True) as start_box:
        gr.Markdown(INTRO)
        with gr.Row(equal_height=True):
            n = gr.Slider(3, game.MAX_SENTENCES, value=game.ROUND_SENTENCES, step=1, label="Sentences per round",
                          scale=2, min_width=200, elem_id="class-n")
            start = gr.Button("Start a class", variant="primary", scale=1, min_width=160, elem_id="class-start")
        forger = forgers.radio("Who forges round A's fakes (the projector says which)", "class-generator",
                               labels=game.LEVELS)
        gr.HTML(forgers.line_html())
        own = gr.Textbox(label=OWN_SENTENCES, lines=3, max_lines=10, max_length=own_sentences.MAX_PASTED,
                         placeholder="The river flooded the old town after three days of rain.", elem_id="class-own")
        gr.Markdown("**A student?** Open the link your teacher shows, scan the QR code, or type the class code here.")
        with gr.Row(equal_height=True):
            typed_code = gr.Textbox(label="Class code", max_length=20, scale=2, min_width=160,
                                    elem_id="class-typed-code")
            go = gr.Button("Go to the class", scale=1, min_width=120, elem_id="class-go")
    with gr.Column(visible=False) as teacher_box:
        card = gr.HTML(elem_id="class-card")
        address = class_address.chooser()
        with gr.Row(equal_height=True):
            move_next = gr.Button("Open round A", variant="primary", min_width=200, elem_id="class-move")
            skip_b = gr.Button("Open round B", visible=False, min_width=160, elem_id="class-skip-b")
            end = gr.Button("End the class…", variant="stop", min_width=160, elem_id="class-end")
            end_sure = gr.Button("Yes, end the class", variant="stop", visible=False, min_width=160,
                                 elem_id="class-end-sure")
            csv_file = gr.DownloadButton("Results (CSV)", visible=False, elem_id="class-csv")
            json_file = gr.DownloadButton("Results (JSON)", visible=False, elem_id="class-json")
        held = build_moderation(who, message)  # the room's lock, removing a student
        gr.Markdown("**What the projector shows now:**")
    board = gr.HTML(elem_id="class-board")  # the teacher's preview, or the projector's whole window
    timer = gr.Timer(REFRESH_S, active=False)
    with gr.Column(visible=False) as student_box:
        with gr.Column() as join_box:
            gr.Markdown("### Join the class\nNo account and no name needed: a nickname is optional (your teacher "
                        "sees it on the projector).")
            with gr.Row(equal_height=True):
                code_box = gr.Textbox(label="Class code", max_length=20, scale=1, min_width=140,
                                      elem_id="class-code-box")
                nickname = gr.Textbox(label="Nickname (optional)", max_length=24, scale=2, min_width=160,
                                      elem_id="class-nickname")
                join_button = gr.Button("Join", variant="primary", scale=1, min_width=120, elem_id="class-join")
        with gr.Column(visible=False) as play_box:
            status = gr.HTML(elem_id="class-status")
            wait = gr.HTML(elem_id="class-wait-box")
            with gr.Column(visible=False) as a_box:
                gr.Markdown("#### Round A — spot the fakes")
                with gr.Group():
                    sentence = gr.HTML(elem_id="class-sentence")
                    ticks = gr.CheckboxGroup([], label="The words you think are fakes", elem_id="class-ticks")
                    with gr.Row():
                        submit = gr.Button("Submit", variant="primary", elem_id="class-submit")
                        next_button = gr.Button("Next sentence →", interactive=False, elem_id="class-next")
                    saved = gr.HTML(elem_id="class-saved")
            with gr.Column(visible=False) as b_box:
                gr.Markdown("#### Round B — fool the discriminator\nChange one word of a sentence so that it still "
                            "sounds right, and bet on ELECTRA's verdict. One try per sentence.")
                b_sentence = gr.Dropdown([], label="Sentence", elem_id="class-b-sentence")
                b_text = gr.HTML(elem_id="class-b-text")  # the chosen sentence in full (the dropdown cuts it)
                with gr.Row(equal_height=True):
                    b_word = gr.Dropdown([], label="Word to change", scale=2, min_width=140, elem_id="class-b-word")
                    b_new = gr.Textbox(label="Your word", max_length=40, scale=2, min_width=140, elem_id="class-b-new")
                    b_bet = gr.Radio(BETS, value=False, label="Your bet", scale=3, min_width=200, elem_id="class-b-bet")
                    b_test = gr.Button("Test it", variant="primary", scale=1, min_width=120, elem_id="class-b-test")
            b_result = gr.HTML(elem_id="class-b-result")
        follow = gr.Timer(FOLLOW_S, active=False)

    def controls(data, key: str) -> dict:
        """The teacher's buttons for the class's stage: the usual next stage, round B from the reveal, the end."""
        if data is None:
            return {}
        stage = Stage(data.phase, data.reveal if data.phase == "reveal" else 0)
        ahead = next_stages(stage, data.n_sentences)
        usual = ahead[0] if ahead else None
        out = {move_next: gr.update(value=move_label(usual, data.n_sentences) if usual else "The class has ended",
                                    interactive=usual is not None),
               skip_b: gr.update(visible=stage.phase == "reveal" and usual != Stage("round_b")),
               end: gr.update(visible=usual is not None and usual.phase != "ended"), end_sure: gr.update(visible=False),
               on_stage: stage_key(stage.phase, stage.sentence), held.lock: data.locked}
        limit = session.default_store().max_students
        if data.teacher and data.joined >= limit:
            out[message] = error_html(f"The class is full: {data.joined} of {limit} students have joined, "
                                      "this server's most; nobody else can join (ELECTRA_CLASS_MAX_STUDENTS).")
        at_results = stage.phase in ("results", "ended")
        if at_results:
            csv_path, json_path = write_results(data.code, key)
            out |= {csv_file: gr.update(value=csv_path, visible=True),
                    json_file: gr.update(value=json_path, visible=True)}
        else:
            out |= {csv_file: gr.update(visible=False), json_file: gr.update(visible=False)}
        return out

    def teacher_screen(code: str, key: str, location_now: str, chosen: str | None = None) -> dict:
        try:  # the links on an address phones can open (`chosen`: the teacher's pick among several)
            links, choice, link = class_address.card(demo, code, key, location_now, chosen)
            state = {"code": code, "token": key, "link": link, "full": False}
            html, digest, data = render_board(state, "")
            more = controls(data, key)
        except (gr.Error, ValueError) as error:
            return {message: error_html(error)}
        return {who: state, start_box: gr.Column(visible=False), teacher_box: gr.Column(visible=True),
                student_box: gr.Column(visible=False), timer: gr.Timer(active=True), board: html, shown: digest,
                card: links, address: choice, message: "", **more}

    def projector_screen(code: str, token: str, location_now: str) -> dict:
        state = {"code": code, "token": token, "link": class_address.students_link(demo, code, location_now),
                 "full": True}
        html, digest, _ = render_board(state, "")
        return {who: state, start_box: gr.Column(visible=False), timer: gr.Timer(active=True), board: html,
                shown: digest, message: ""}

    def play_screen(me: dict, remembered_now: dict | None = None, note: str = "") -> dict:
        _, mine = round_for(me["code"], me["id"])
        index = next_unanswered(mine) if mine.phase == "round_a" else None
        choices = b_choices(mine) if mine.phase == "round_b" else []
        answering_a, answering_b = index is not None, bool(choices)
        out = {student: me, a_index: index, status: phone.student_status_html(mine),
               on_stage: stage_key(mine.phase, mine.reveal),
               wait: "" if answering_a or answering_b else wait_html(mine),
               a_box: gr.Column(visible=answering_a), b_box: gr.Column(visible=answering_b),
               sentence: sentence_html(mine, index) if answering_a else "", saved: "",
               ticks: gr.update(choices=[(w, i) for i, w in enumerate(mine.sentences[index])] if answering_a else [],
                                value=[], interactive=True),
               submit: gr.update(interactive=answering_a), next_button: gr.update(interactive=False),
               b_sentence: gr.update(choices=choices, value=choices[0][1] if choices else None),
               start_box: gr.Column(visible=False), teacher_box: gr.Column(visible=False),
               student_box: gr.Column(visible=True), join_box: gr.Column(visible=False),
               play_box: gr.Column(visible=True),
               code_box: card_view.pretty_code(me["code"]), message: note, follow: gr.Timer(active=True)}
        if mine.phase != "round_b":
            out[b_result] = ""
        if remembered_now is not None:
            out[remembered] = remembered_now
        return out

    def open_page(location_now, remembered_now, teaching_now, request: gr.Request):
        """What the address asks for: the projector, the teacher's page, a student's game (or the join form), or
        the start."""
        params = query_params(request)
        code = params.get("class")
        if code is None:
            return {start_box: gr.Column(visible=True)}
        store = session.default_store()
        if "view" in params:
            try:
                info, teacher = store.check_viewer(code, params["view"])
                if teacher:
                    raise ValueError("This is not a view link: open the class's view link on the projector.")
            except ValueError as error:
                return {message: error_html(f"This link does not open a class's view: {error}")}
            return projector_screen(info.code, params["view"], location_now)
        if "teacher" in params or "teach" in params:
            try:
                normal = session.ClassStore.normalise_code(code)
                key = params.get("teacher") or dict(teaching_now or {}).get(normal)
                if not key:
                    raise ValueError("This browser does not hold this class's teacher key. Open the class from the "
                                     "browser that started it; the projector opens its view link.")
                info = store.check_teacher(normal, key)
            except ValueError as error:
                return {message: error_html(error), new_query: f"?class={code}&teach=1" if "teacher" in params else ""}
            return {**teacher_screen(info.code, key, location_now), new_query: f"?class={info.code}&teach=1",
                    teaching: remember(teaching_now, info.code, key)}
        join_form = {start_box: gr.Column(visible=False), student_box: gr.Column(visible=True),
                     join_box: gr.Column(visible=True), play_box: gr.Column(visible=False)}
        try:
            normal = session.ClassStore.normalise_code(code)
            store.get_class(normal)
        except ValueError as error:
            return {**join_form, code_box: str(code)[:20], message: error_html(error)}
        known = dict(remembered_now or {}).get(normal)
        if known:
            try:
                store.get_student(normal, known)
                return play_screen({"code": normal, "id": known})
            except (gr.Error, ValueError):
                pass  # this browser's student is gone from the class: join again
        return {**join_form, code_box: card_view.pretty_code(normal), message: ""}

    def start_class(n_now, forger_now, own_now, location_now, teaching_now, request: gr.Request):
        try:
            pair = api.load_pair("")
            who = api.visitor(request)
            new = api.within_share("start", who, lambda: session.create_class(
                pair, int(n_now or game.ROUND_SENTENCES), sentences=(own_now or "").strip() or None,
                generator=forgers.chosen(forger_now), visitor=who))
        except (gr.Error, ValueError, TypeError) as error:
            return {message: error_html(error)}
        out = teacher_screen(new.code, new.teacher_key, location_now)
        out[message] = out.get(message) or card_view.plays_note_html(new.n_sentences,
                                                                     int(n_now or game.ROUND_SENTENCES))
        return {**out, new_query: f"?class={new.code}&teach=1",
                teaching: remember(teaching_now, new.code, new.teacher_key)}

    def refresh(who_state, shown_now):
        """The timer: the stage again when it changed (and the teacher's buttons with it)."""
        html, digest, data = render_board(who_state, shown_now)
        out = {board: html, shown: digest}
        if data is not None and data.teacher and digest != shown_now:
            try:
                out |= controls(data, who_state["token"])
            except (gr.Error, ValueError) as error:
                out[message] = error_html(error)
        return out

    def move(who_state, on_stage_now, to: str):
        """The teacher's button: the class to the next stage after the one this page showed (so a click made
        twice, or after another tab moved the class, is refused by the store instead of skipping a stage)."""
        if not who_state:
            return {message: error_html("Open the class from the browser that started it.")}
        try:
            phase, _, sentence = (on_stage_now or "lobby:0").partition(":")
            info = session.default_store().get_class(who_state["code"])
            shown_stage = Stage(phase, int(sentence or 0))
            ahead = next_stages(shown_stage, info.n_sentences)
            target = {"next": ahead[0] if ahead else shown_stage, "round_b": Stage("round_b"),
                      "ended": Stage("ended")}[to]
            session.move_class(who_state["code"], who_state["token"], target.phase, target.sentence)
            note = ""
        except (gr.Error, ValueError) as error:
            note = error_html(error)
        out = refresh(who_state, "")
        out[message] = note
        return out

    def join(code_now, nickname_now, remembered_now, request: gr.Request):
        try:
            me, remembered_new = join_student(code_now, nickname_now, dict(remembered_now or {}), api.visitor(request))
            return play_screen(me, remembered_new)
        except (gr.Error, ValueError, TypeError) as error:
            return {message: error_html(error)}

    def follow_phase(me, on_stage_now):
        """A phone's check: the whole screen again only when the teacher has moved the class."""
        if not me:
            return {follow: gr.Timer(active=False)}
        try:
            info = session.default_store().get_class(me["code"])
            if stage_key(info.phase, info.reveal) == on_stage_now:
                return {on_stage: gr.skip()}  # nothing moved: the phone's screen stays as it is
            return play_screen(me)
        except (gr.Error, ValueError) as error:
            return {message: error_html(error)}

    def submit_a(me, index, picks):
        if not me or index is None:
            return {message: error_html("Join the class first.") if not me else "",
                    submit: gr.update(interactive=False)}
        try:
            pair = api.class_pair(me["code"])
            out = session.submit_spot(pair, me["code"], me["id"], int(index), list(picks or []))
            _, mine = round_for(me["code"], me["id"])
        except (gr.Error, ValueError, TypeError) as error:
            return {message: error_html(error)}
        note = ("Saved ✓ The answers come when your teacher reveals them." if out.new else
                "You had already answered this sentence: your first answer counts.")
        return {saved: f'<p style="margin:4px 0">{note}</p>', status: phone.student_status_html(mine),
                submit: gr.update(interactive=False), next_button: gr.update(interactive=True),
                ticks: gr.update(interactive=False), message: ""}

    def next_a(me):
        if not me:
            return {message: error_html("Join the class first.")}
        try:
            return play_screen(me)
        except (gr.Error, ValueError) as error:
            return {message: error_html(error)}

    def b_words(me, index):
        """Another sentence: its words to choose from, the sentence in full, and "Your word" emptied."""
        empty = (gr.update(choices=[], value=None), "", "")
        if not me or index is None:
            return empty
        try:
            _, mine = round_for(me["code"], me["id"])
            words = mine.fool_words[int(index)]
            text = phone.fool_sentence_html(mine.fool_sentences[int(index)], int(index), len(mine.fool_sentences))
        except (gr.Error, ValueError, TypeError, IndexError):
            return empty
        return gr.update(choices=[(w, i) for i, w in enumerate(words)], value=None), text, ""

    def submit_b(me, index, word, new_word, bet):
        if not me:
            return {message: error_html("Join the class first.")}
        if index is None:
            return {message: error_html("Choose a sentence (you have tried every one already if the list is empty).")}
        if word is None:
            return {message: error_html("Choose the word to change.")}
        try:
            pair = api.class_pair(me["code"])
            out = session.submit_fool(pair, me["code"], me["id"], int(index), int(word), new_word, bool(bet))
            _, mine = round_for(me["code"], me["id"])
        except (gr.Error, ValueError, TypeError) as error:
            return {message: error_html(error)}
        choices = b_choices(mine)
        return {b_result: phone.class_fool_html(out), status: phone.student_status_html(mine), message: "",
                b_sentence: gr.update(choices=choices, value=choices[0][1] if choices else None),
                b_box: gr.Column(visible=bool(choices)), wait: "" if choices else wait_html(mine)}

    buttons = {move_next, skip_b, end, end_sure, csv_file, json_file, on_stage, held.lock}
    screens = {who, student, remembered, teaching, a_index, shown, start_box, teacher_box, student_box, join_box,
               play_box, code_box, card, address, board, timer, follow, message, status, wait, a_box, b_box, sentence,
               ticks, saved, submit, next_button, b_sentence, b_result} | buttons
    private = dict(api_visibility="private")
    strip = ("(q) => { if (q) { const u = new URL(window.location.href); u.search = q; "
             "window.history.replaceState(null, '', u.toString()); } }")  # the key never stays in the address
    demo.load(open_page, [location, remembered, teaching], screens | {new_query}, js=LOCATION_JS,
              show_progress="hidden", **private, **queues.CLASS).then(None, [new_query], None, js=strip)
    start.click(start_class, [n, forger, own, location, teaching], screens | {new_query},
                js="(n, g, o, x, t) => [n, g, o, window.location.href, t]", **private, **queues.CLASS_MODEL).then(
        None, [new_query], None, js=strip)
    address.input(lambda w, a, x: teacher_screen(w["code"], w["token"], x, a) if w else {}, [who, address, location],
                  screens, js="(w, a, x) => [w, a, window.location.href]", **private, **queues.CLASS)
    go.click(None, [typed_code], None, js="(c) => { if ((c || '').trim()) window.location.search = "
                                          "'?class=' + encodeURIComponent(c.trim()); }")
    timer.tick(refresh, [who, shown], {board, shown, message} | buttons, trigger_mode="always_last",
               show_progress="hidden", **private, **queues.CLASS)
    for button, to in ((move_next, "next"), (skip_b, "round_b"), (end_sure, "ended")):
        button.click(lambda w, s, to=to: move(w, s, to), [who, on_stage],
                     {board, shown, message} | buttons, **private, **queues.CLASS)
    end.click(lambda: {end_sure: gr.update(visible=True), end: gr.update(visible=False)}, None, {end, end_sure},
              **private, **queues.CLASS)
    follow.tick(follow_phase, [student, on_stage], screens, trigger_mode="always_last", show_progress="hidden",
                **private, **queues.CLASS)
    join_button.click(join, [code_box, nickname, remembered], screens, **private, **queues.CLASS)
    submit.click(submit_a, [student, a_index, ticks], {saved, status, submit, next_button, ticks, message}, **private,
                 **queues.CLASS)
    next_button.click(next_a, [student], screens, **private, **queues.CLASS)
    b_sentence.change(b_words, [student, b_sentence], [b_word, b_text, b_new], trigger_mode="always_last", **private,
                      **queues.CLASS)
    b_test.click(submit_b, [student, b_sentence, b_word, b_new, b_bet], {b_result, status, b_sentence, message, b_box,
                                                                         wait}, **private, **queues.CLASS_MODEL)
