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

The layout is here (`_layout`), and the wiring (`_wire`); the handlers are at module level and return their values by
the names of the components they go to (`named`): the teacher's and the projector's in explainer/ui/live_class/
teacher.py, a student's in explainer/ui/live_class/student.py, the address's own (`open_page`) here.
"""

from __future__ import annotations

import functools
import inspect
from types import SimpleNamespace

import gradio as gr

from explainer.core import quotas
from explainer.core.private_files import browser_secret
from explainer.lesson import beat_electra as game
from explainer.lesson.live_class import own_sentences, session
from explainer.render import beat_electra as game_view
from explainer.render.live_class import card, projector
from explainer.ui import forgers, queues
from explainer.ui.live_class import address, student, teacher
from explainer.ui.live_class.moderation import build_moderation
from explainer.ui.live_class.screens import error_html, query_params, remember
from explainer.ui.named import named

TITLE = "### A live class: everyone against ELECTRA"
STUDENT = ("#### I'm a student\nOpen the link your teacher shows or scan the QR code, or type the class code "
           "from the projector here.")
INTRO = """#### I'm the teacher
Start a class on your own laptop or phone, open its view-only link on the projector, and let students join
from their phones with the QR code or the code. You move the class on: the lobby, **round A** (they tick the
words the generator faked), the reveal of each sentence, **round B** (they change one word and bet whether
ELECTRA's discriminator will flag it), the results. The server scores every answer and keeps it.
""" + game.FAKES_RULE + "\n"
BETS = [("ELECTRA will flag my word", True), ("ELECTRA will be fooled", False)]
# How often the teacher's page and the projector redraw the stage, and a phone checks the phase (40 phones at 3 s:
# 13 cheap reads a second). A big room on a small server may want them slower; the tests run them faster.
REFRESH_S = quotas.setting("ELECTRA_CLASS_REFRESH_S", 2.0, float, "a number of seconds above 0")
END_ARMED_S = 8.0  # how long "Yes, end the class" stays before it disarms by itself
FOLLOW_S = quotas.setting("ELECTRA_CLASS_FOLLOW_S", 3.0, float, "a number of seconds above 0")
LOCATION_JS = "(x, r, t, a) => [window.location.href, r, t, a]"  # the page's address, then the browser's storage
OWN_SENTENCES = (f"Your own sentences (optional): one a line, up to {game.MAX_SENTENCES}, at least "
                 f"{own_sentences.MIN_WORDS} words each. Empty: sentences drawn from the bundled set.")
STRIP_KEY_JS = ("(q) => { if (q) { const u = new URL(window.location.href); u.search = q; "
                "window.history.replaceState(null, '', u.toString()); } }")  # the key never stays in the address
# the verdict of round B in view (the form it replaces was taller: the page may have been scrolled past it)
IN_VIEW_JS = ("() => setTimeout(() => { const e = document.querySelector('#class-b-done'); "
              "if (e && e.offsetParent) e.scrollIntoView({block: 'nearest'}); }, 50)")
GO_JS = "(c) => { if ((c || '').trim()) window.location.search = '?class=' + encodeURIComponent(c.trim()); }"


# --- what the address asks for ---------------------------------------------------------------------------------

def open_page(demo: gr.Blocks, location, remembered, teaching, picked, request: gr.Request) -> dict:
    """What the address asks for: the projector, the teacher's page (on the students' address this browser's teacher
    chose, `picked`, while this computer still has it), a student's game (or the join form), or the start."""
    params = query_params(request)
    code = params.get("class")
    if code is None:
        return {"start_box": gr.Column(visible=True)}
    if "view" in params:
        return _open_projector(demo, code, params["view"], location)
    if "teacher" in params or "teach" in params:
        return _open_teacher(demo, code, params, location, teaching, picked)
    return _open_student(code, remembered)


def _open_projector(demo: gr.Blocks, code: str, token: str, location: str) -> dict:
    try:
        info, is_teacher = session.default_store().check_viewer(code, token)
        if is_teacher:
            raise ValueError("This is not a view link: open the class's view link on the projector.")
    except ValueError as error:
        return {"message": error_html(f"This link does not open a class's view: {error}")}
    return teacher.projector_screen(demo, info.code, token, location)


def _open_teacher(demo: gr.Blocks, code: str, params: dict, location: str, teaching, picked=None) -> dict:
    """The teacher's page, with the key from this browser's storage (or from a link carrying it, which then moves
    into storage and out of the address)."""
    try:
        normal = session.ClassStore.normalise_code(code)
        key = params.get("teacher") or dict(teaching or {}).get(normal)
        if not key:
            raise ValueError("This browser does not hold this class's teacher key. Open the class from the "
                             "browser that started it; the projector opens its view link.")
        info = session.default_store().check_teacher(normal, key)
    except ValueError as error:
        return {"message": error_html(error), "new_query": f"?class={code}&teach=1" if "teacher" in params else ""}
    return {**teacher.teacher_screen(demo, info.code, key, location, picked),
            "new_query": f"?class={info.code}&teach=1", "teaching": remember(teaching, info.code, key)}


def _open_student(code: str, remembered) -> dict:
    """A student's game when this browser is already in the class, else the join form."""
    join_form = {"start_box": gr.Column(visible=False), "student_box": gr.Column(visible=True),
                 "join_box": gr.Column(visible=True), "play_box": gr.Column(visible=False)}
    store = session.default_store()
    try:
        normal = session.ClassStore.normalise_code(code)
        store.get_class(normal)
    except ValueError as error:
        return {**join_form, "code_box": str(code)[:20], "message": error_html(error)}
    known = dict(remembered or {}).get(normal)
    if known:
        try:
            store.get_student(normal, known)
            return student.play_screen({"code": normal, "id": known})
        except (gr.Error, ValueError):
            pass  # this browser's student is gone from the class: join again
    return {**join_form, "code_box": card.pretty_code(normal), "message": ""}


# --- the page ------------------------------------------------------------------------------------------------

def _start_box(c: SimpleNamespace) -> None:
    """The address without a class: the student's code box first (a student who types the address meets it, not
    the teacher's controls), the teacher's start beside it on a wide screen, under it on a phone."""
    with gr.Column(visible=True) as c.start_box:
        gr.Markdown(TITLE)
        with gr.Row(equal_height=False):
            with gr.Column(variant="panel", scale=2, min_width=300, elem_id="class-student-card"):
                gr.Markdown(STUDENT)
                c.typed_code = gr.Textbox(label="Class code", max_length=20, placeholder="ABC-DEF",
                                          elem_id="class-typed-code")
                c.go = gr.Button("Go to the class", variant="primary", elem_id="class-go")
            with gr.Column(variant="panel", scale=3, min_width=300, elem_id="class-teacher-card"):
                gr.Markdown(INTRO)
                with gr.Row(equal_height=True):
                    c.n = gr.Slider(3, game.MAX_SENTENCES, value=game.ROUND_SENTENCES, step=1,
                                    label="Sentences per round", scale=2, min_width=200, elem_id="class-n")
                    c.start = gr.Button("Start a class", variant="primary", scale=1, min_width=160,
                                        elem_id="class-start")
                c.forger = forgers.radio("Who forges round A's fakes (the projector says which)", "class-generator",
                                         labels=game.LEVELS)
                gr.HTML(forgers.line_html())
                c.own = gr.Textbox(label=OWN_SENTENCES, lines=3, max_lines=10, max_length=own_sentences.MAX_PASTED,
                                   placeholder="The river flooded the old town after three days of rain.",
                                   elem_id="class-own")


def _teacher_box(c: SimpleNamespace) -> None:
    with gr.Column(visible=False) as c.teacher_box:
        c.card = gr.HTML(elem_id="class-card")
        c.address = address.chooser()
        with gr.Row(equal_height=True):
            c.move_next = gr.Button("Open round A", variant="primary", min_width=200, elem_id="class-move")
            c.skip_b = gr.Button("Open round B", visible=False, min_width=160, elem_id="class-skip-b")
            c.end = gr.Button("End the class…", variant="stop", min_width=160, elem_id="class-end")
            c.end_sure = gr.Button("Yes, end the class", variant="stop", visible=False, min_width=160,
                                   elem_id="class-end-sure")
            c.end_cancel = gr.Button("Cancel", visible=False, min_width=100, elem_id="class-end-cancel")
            c.csv_file = gr.DownloadButton("Results (CSV)", visible=False, elem_id="class-csv")
            c.json_file = gr.DownloadButton("Results (JSON)", visible=False, elem_id="class-json")
        c.end_timer = gr.Timer(END_ARMED_S, active=False)  # "Yes, end the class" goes back to "End the class…"
        c.lock = build_moderation(c.who, c.message).lock  # the room's lock, removing a student
        gr.Markdown("**What the projector shows now:**")


def _round_a(c: SimpleNamespace) -> None:
    with gr.Column(visible=False) as c.a_box:
        gr.Markdown("#### Round A — spot the fakes")
        with gr.Group():
            c.sentence = gr.HTML(elem_id="class-sentence")
            c.ticks = gr.CheckboxGroup([], label="The words you think are fakes", elem_id="class-ticks")
            with gr.Row():
                c.submit = gr.Button("Submit", variant="primary", elem_id="class-submit")
                c.next_button = gr.Button("Next sentence →", interactive=False, elem_id="class-next")
            c.saved = gr.HTML(elem_id="class-saved")


def _round_b(c: SimpleNamespace) -> None:
    with gr.Column(visible=False) as c.b_box:
        gr.Markdown("#### Round B — fool the discriminator\nChange one word of a sentence so that it still "
                    "sounds right, and bet on ELECTRA's verdict. One try per sentence.")
        with gr.Column() as c.b_form:
            c.b_sentence = gr.Dropdown([], label="Sentence", elem_id="class-b-sentence")
            c.b_text = gr.HTML(elem_id="class-b-text")  # the chosen sentence in full (the dropdown cuts it)
            with gr.Row(equal_height=True):
                c.b_word = gr.Dropdown([], label="Word to change", scale=2, min_width=140, elem_id="class-b-word")
                c.b_new = gr.Textbox(label="Your word", max_length=40, scale=2, min_width=140, elem_id="class-b-new")
                c.b_bet = gr.Radio(BETS, value=None, label="Your bet", scale=3, min_width=200, elem_id="class-b-bet")
                c.b_test = gr.Button("Test it", variant="primary", scale=1, min_width=120, elem_id="class-b-test")
        with gr.Column(visible=False, elem_id="class-b-done") as c.b_done:  # the verdict in the form's place
            c.b_result = gr.HTML(elem_id="class-b-result")
            c.b_next = gr.Button("Next sentence →", variant="primary", elem_id="class-b-next")


def _student_box(c: SimpleNamespace) -> None:
    with gr.Column(visible=False) as c.student_box:
        with gr.Column() as c.join_box:
            gr.Markdown("### Join the class\nNo account and no name needed: a nickname is optional (your teacher "
                        "sees it on the projector).")
            with gr.Row(equal_height=True):
                c.code_box = gr.Textbox(label="Class code", max_length=20, scale=1, min_width=140,
                                        elem_id="class-code-box")
                c.nickname = gr.Textbox(label="Nickname (optional)", max_length=24, scale=2, min_width=160,
                                        elem_id="class-nickname")
                c.join_button = gr.Button("Join", variant="primary", scale=1, min_width=120, elem_id="class-join")
        with gr.Column(visible=False) as c.play_box:
            c.status = gr.HTML(elem_id="class-status")
            c.wait = gr.HTML(elem_id="class-wait-box")
            _round_a(c)
            _round_b(c)
        c.follow = gr.Timer(FOLLOW_S, active=False)


def _layout() -> SimpleNamespace:
    """Every component of the page, by name: the start, the teacher's box, the board, the student's box."""
    gr.Navbar(visible="hidden")  # gradio's "Home" link means nothing to a student
    gr.HTML(f"<style>{card.CLASS_CSS}{projector.ROOM_CSS}{game_view.GAME_CSS}</style>")
    c = SimpleNamespace(location=gr.Textbox(visible=False))
    c.remembered = gr.BrowserState({}, storage_key="electra-explainer-classes", secret=browser_secret())
    c.teaching = gr.BrowserState({}, storage_key="electra-explainer-teaching", secret=browser_secret())
    # the teacher's choice among this computer's addresses (teacher.choose_address): a reload keeps it
    c.address_pick = gr.BrowserState("", storage_key="electra-explainer-class-address", secret=browser_secret())
    c.who, c.student, c.a_index = gr.State(None), gr.State(None), gr.State(None)  # the page's hold on the class
    c.shown, c.on_stage = gr.State(""), gr.State("")  # the board's digest, the stage this page shows
    c.new_query = gr.Textbox(visible=False)
    c.message = gr.HTML(elem_id="class-message")
    _start_box(c)
    _teacher_box(c)
    c.board = gr.HTML(elem_id="class-board")  # the teacher's preview, or the projector's whole window
    c.timer = gr.Timer(REFRESH_S, active=False)
    _student_box(c)
    return c


def _with_demo(handler, demo: gr.Blocks):
    """`handler(demo, ...)` as an event's function: called with the event's inputs, its signature (which gradio reads
    for the request) without `demo`."""
    @functools.wraps(handler)
    def call(*args, **kwargs):
        return handler(demo, *args, **kwargs)

    signature = inspect.signature(handler)
    call.__signature__ = signature.replace(parameters=list(signature.parameters.values())[1:])
    return call


def _wire(demo: gr.Blocks, c: SimpleNamespace) -> None:
    """Every event of the page, each handler's {name: value} going to the components of those names."""
    buttons = {c.move_next, c.skip_b, c.end, c.end_sure, c.end_cancel, c.end_timer, c.csv_file, c.json_file,
               c.on_stage, c.lock}
    screens = {c.who, c.student, c.remembered, c.teaching, c.a_index, c.shown, c.start_box, c.teacher_box,
               c.student_box, c.join_box, c.play_box, c.code_box, c.card, c.address, c.board, c.timer, c.follow,
               c.message, c.status, c.wait, c.a_box, c.b_box, c.sentence, c.ticks, c.saved, c.submit, c.next_button,
               c.b_sentence, c.b_form, c.b_done, c.b_result} | buttons
    board = {c.board, c.shown, c.message} | buttons
    private = dict(api_visibility="private", **queues.CLASS)
    demo.load(named(_with_demo(open_page, demo), c), [c.location, c.remembered, c.teaching, c.address_pick],
              screens | {c.new_query},
              js=LOCATION_JS, show_progress="hidden", **private).then(None, [c.new_query], None, js=STRIP_KEY_JS)
    c.start.click(named(_with_demo(teacher.start_class, demo), c),
                  [c.n, c.forger, c.own, c.location, c.teaching, c.address_pick], screens | {c.new_query},
                  js="(n, g, o, x, t, a) => [n, g, o, window.location.href, t, a]",
                  api_visibility="private", **queues.CLASS_MODEL).then(None, [c.new_query], None, js=STRIP_KEY_JS)
    c.address.input(named(_with_demo(teacher.choose_address, demo), c), [c.who, c.address, c.location],
                    screens | {c.address_pick},
                    js="(w, a, x) => [w, a, window.location.href]", **private)
    c.go.click(None, [c.typed_code], None, js=GO_JS)
    c.timer.tick(named(teacher.refresh, c), [c.who, c.shown], board, trigger_mode="always_last",
                 show_progress="hidden", **private)
    for button, handler in ((c.move_next, teacher.move_next), (c.skip_b, teacher.skip_to_round_b),
                            (c.end_sure, teacher.end_class)):
        button.click(named(handler, c), [c.who, c.on_stage], board, **private)
    c.end.click(named(teacher.ask_to_end, c), None, {c.end, c.end_sure, c.end_cancel, c.end_timer}, **private)
    c.end_cancel.click(named(teacher.keep_class, c), [c.on_stage], {c.end, c.end_sure, c.end_cancel, c.end_timer},
                       **private)
    c.end_timer.tick(named(teacher.keep_class, c), [c.on_stage], {c.end, c.end_sure, c.end_cancel, c.end_timer},
                     **private)
    c.typed_code.submit(None, [c.typed_code], None, js=GO_JS)
    c.follow.tick(named(student.follow_phase, c), [c.student, c.on_stage], screens, trigger_mode="always_last",
                  show_progress="hidden", **private)
    c.join_button.click(named(student.join, c), [c.code_box, c.nickname, c.remembered], screens, **private)
    c.submit.click(named(student.submit_a, c), [c.student, c.a_index, c.ticks],
                   {c.saved, c.status, c.submit, c.next_button, c.ticks, c.message}, **private)
    for button in (c.next_button, c.b_next):
        button.click(named(student.next_sentence, c), [c.student], screens, **private)
    c.b_sentence.change(named(student.b_words, c), [c.student, c.b_sentence], [c.b_word, c.b_text, c.b_new, c.b_bet],
                        trigger_mode="always_last", **private)
    c.b_test.click(named(student.submit_b, c), [c.student, c.b_sentence, c.b_word, c.b_new, c.b_bet],
                   {c.b_result, c.status, c.b_sentence, c.message, c.b_form, c.b_done, c.b_next},
                   api_visibility="private", **queues.CLASS_MODEL).then(None, None, None, js=IN_VIEW_JS)


def build_class_page(demo: gr.Blocks) -> None:
    """The /class page's components and events (app.py calls it inside `demo.route`)."""
    _wire(demo, _layout())
