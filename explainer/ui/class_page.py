"""The live class page (/class): thin wiring of explainer.lesson.class_session and its views.

One page, three ways in, by its address:
- /class: a teacher starts a class (or a student types a code to join one);
- /class?class=CODE: a student joins (an optional nickname) and plays round A, then round B; their browser
  remembers them in that class (gr.BrowserState, encrypted with the data folder's key), so a reload or a
  restarted server keeps them the same student;
- /class?class=CODE&teacher=KEY: the teacher's projector view, refreshed every 2 seconds (only when it
  changed). Only that link carries the key; a student's page never gets it, and a wrong or missing key
  shows a message, never the view.
After "Start a class" the teacher's address bar holds the teacher link, so a reload keeps the view.
"""

from __future__ import annotations

import hashlib
from urllib.parse import urlencode, urlsplit, urlunsplit

import gradio as gr

from explainer.core.class_store import browser_secret
from explainer.lesson import class_session as session
from explainer.lesson import game
from explainer.render import class_view as view
from explainer.render import game as game_view
from explainer.render import style
from explainer.ui import api, queues

INTRO = """
### A live class: everyone against ELECTRA
Start a class, project this page, and let students join from their phones or laptops with the QR code or
the code. Everyone plays the same sentences: in **round A** they tick the words the generator faked; in
**round B** they change one word of a sentence and bet whether ELECTRA's discriminator will flag it. The server
scores every answer and keeps it; this page shows the class's results, live, beside ELECTRA's.
"""
BETS = [("ELECTRA will flag my word", True), ("ELECTRA will be fooled", False)]
REFRESH_S = 2.0
LOCATION_JS = "(x, remembered) => [window.location.href, remembered]"  # the address students can reach
MAX_URL = 2000


def _error(error: Exception | str) -> str:
    return style.message_html(getattr(error, "message", None) or str(error))


def page_link(location: str, **params: str) -> str:
    """This page's address (from the browser: what students can reach) with `params` as its query."""
    parts = urlsplit(location if isinstance(location, str) and len(location) <= MAX_URL else "")
    query = urlencode(params)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"class?{query}"  # a relative link: still right on this server
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def _params(request: gr.Request | None) -> dict:
    return dict(getattr(request, "query_params", None) or {}) if request is not None else {}


# --- the teacher -------------------------------------------------------------------------------------------

def render_view(teacher, shown: str):
    """The projector view's HTML and its digest; (gr.skip(), digest) when nothing changed since `shown`."""
    if not teacher:
        return gr.skip(), shown
    try:
        pair = api.class_pair(teacher["code"])
        html = view.teacher_view_html(session.teacher_view_data(pair, teacher["code"], teacher["secret"]))
    except (gr.Error, ValueError) as error:
        html = _error(error)
    digest = hashlib.sha256(html.encode()).hexdigest()
    return (gr.skip() if digest == shown else html), digest


# --- the student -------------------------------------------------------------------------------------------

def _round(code, student_id):
    pair = api.class_pair(code)
    return pair, session.student_round(pair, code, student_id)


def next_unanswered(mine) -> int | None:
    return next((i for i in range(len(mine.sentences)) if i not in mine.answered_a), None)


def b_choices(mine) -> list[tuple[str, int]]:
    return [(f"{i + 1}. {text}", i) for i, text in enumerate(mine.fool_sentences) if i not in mine.answered_b]


def sentence_html(mine, index: int | None) -> str:
    if index is None:
        return game_view.round_done_html(mine.points)
    return game_view.words_prompt_html(mine.sentences[index], index, len(mine.sentences), "Submit", "Round A, sentence")


def join_student(code, nickname, remembered: dict) -> tuple[dict, dict]:
    """(student, remembered): this browser's student in the class when it has one the class knows, else a new
    one (nickname optional); ValueError or gr.Error says why not."""
    key = session.ClassStore.normalise_code(code)
    known = remembered.get(key)
    if known:
        try:
            session.default_store().get_student(key, known)
            return {"code": key, "id": known}, remembered
        except ValueError:
            pass  # the class forgot it (a new class with an old code cannot happen: codes are not reused while live)
    api.class_pair(key)  # the class's model loads, or the message says why not, before anyone is added
    new = session.join_class(key, (nickname or "").strip() or None)
    kept = {k: v for k, v in remembered.items() if k != key}
    return {"code": key, "id": new.student_id}, dict(list(kept.items())[-9:]) | {key: new.student_id}


# --- the page ----------------------------------------------------------------------------------------------

def build_class_page(demo: gr.Blocks) -> None:
    """The /class page's components and events (app.py calls it inside `demo.route`)."""
    gr.HTML(f"<style>{view.CLASS_CSS}{game_view.GAME_CSS}</style>")
    location = gr.Textbox(visible=False)
    remembered = gr.BrowserState({}, storage_key="electra-explainer-classes", secret=browser_secret())
    teacher, student, shown, a_index = gr.State(None), gr.State(None), gr.State(""), gr.State(None)
    teacher_query = gr.Textbox(visible=False)
    message = gr.HTML(elem_id="class-message")
    with gr.Column(visible=True) as start_box:
        gr.Markdown(INTRO)
        with gr.Row(equal_height=True):
            n = gr.Slider(3, game.MAX_SENTENCES, value=game.ROUND_SENTENCES, step=1, label="Sentences per round",
                          scale=2, min_width=200, elem_id="class-n")
            start = gr.Button("Start a class", variant="primary", scale=1, min_width=160, elem_id="class-start")
        gr.Markdown("**A student?** Open the link your teacher shows, scan the QR code, or type the class code here.")
        with gr.Row(equal_height=True):
            typed_code = gr.Textbox(label="Class code", max_length=20, scale=2, min_width=160, elem_id="class-typed-code")
            go = gr.Button("Go to the class", scale=1, min_width=120, elem_id="class-go")
    with gr.Column(visible=False) as teacher_box:
        card = gr.HTML(elem_id="class-card")
        board = gr.HTML(elem_id="class-board")
        timer = gr.Timer(REFRESH_S, active=False)
    with gr.Column(visible=False) as student_box:
        with gr.Column() as join_box:
            gr.Markdown("### Join the class\nNo account and no name needed: a nickname is optional (your teacher "
                        "sees it on the projector).")
            with gr.Row(equal_height=True):
                code_box = gr.Textbox(label="Class code", max_length=20, scale=1, min_width=140, elem_id="class-code-box")
                nickname = gr.Textbox(label="Nickname (optional)", max_length=24, scale=2, min_width=160,
                                      elem_id="class-nickname")
                join_button = gr.Button("Join", variant="primary", scale=1, min_width=120, elem_id="class-join")
        with gr.Column(visible=False) as play_box:
            status = gr.HTML(elem_id="class-status")
            gr.Markdown("#### Round A — spot the fakes")
            with gr.Group():
                sentence = gr.HTML(elem_id="class-sentence")
                ticks = gr.CheckboxGroup([], label="The words you think are fakes", visible=False, elem_id="class-ticks")
                with gr.Row():
                    submit = gr.Button("Submit", variant="primary", interactive=False, elem_id="class-submit")
                    next_button = gr.Button("Next sentence →", interactive=False, elem_id="class-next")
                reveal = gr.HTML(elem_id="class-reveal")
            gr.Markdown("#### Round B — fool the discriminator\nChange one word of a sentence so that it still sounds "
                        "right, and bet on ELECTRA's verdict. One try per sentence.")
            b_sentence = gr.Dropdown([], label="Sentence", elem_id="class-b-sentence")
            with gr.Row(equal_height=True):
                b_word = gr.Dropdown([], label="Word to change", scale=2, min_width=140, elem_id="class-b-word")
                b_new = gr.Textbox(label="Your word", max_length=40, scale=2, min_width=140, elem_id="class-b-new")
                b_bet = gr.Radio(BETS, value=False, label="Your bet", scale=3, min_width=200, elem_id="class-b-bet")
                b_test = gr.Button("Test it", variant="primary", scale=1, min_width=120, elem_id="class-b-test")
            b_result = gr.HTML(elem_id="class-b-result")

    def teacher_screen(info_code: str, secret: str, location: str, expires: float) -> dict:
        state = {"code": info_code, "secret": secret}
        html, digest = render_view(state, "")
        return {teacher: state, start_box: gr.Column(visible=False), teacher_box: gr.Column(visible=True),
                student_box: gr.Column(visible=False), timer: gr.Timer(active=True), board: html, shown: digest,
                card: view.join_card_html(info_code, page_link(location, **{"class": info_code}), expires,
                                          teacher_link=page_link(location, **{"class": info_code, "teacher": secret})),
                message: ""}

    def play_screen(me: dict, remembered_now: dict | None = None, note: str = "") -> dict:
        _, mine = _round(me["code"], me["id"])
        index = next_unanswered(mine)
        choices = b_choices(mine)
        out = {student: me, a_index: index, status: view.student_status_html(mine), sentence: sentence_html(mine, index),
               ticks: (gr.update(choices=[], value=[], visible=False) if index is None else
                       gr.update(choices=[(w, i) for i, w in enumerate(mine.sentences[index])], value=[], visible=True,
                                 interactive=True)),
               reveal: "", submit: gr.update(interactive=index is not None, visible=index is not None),
               next_button: gr.update(interactive=False, visible=index is not None),
               b_sentence: gr.update(choices=choices, value=choices[0][1] if choices else None),
               start_box: gr.Column(visible=False), teacher_box: gr.Column(visible=False),
               student_box: gr.Column(visible=True), join_box: gr.Column(visible=False), play_box: gr.Column(visible=True),
               code_box: view.pretty_code(me["code"]), message: note}
        if remembered_now is not None:
            out[remembered] = remembered_now
        return out

    def open_page(location_now, remembered_now, request: gr.Request):
        """What the address asks for: a teacher's view, a student's game (or the join form), or the start."""
        params = _params(request)
        code, key = params.get("class"), params.get("teacher")
        if code is None:
            return {start_box: gr.Column(visible=True)}
        if key is not None:  # the teacher's link
            try:
                info = session.default_store().check_teacher(code, key)
            except ValueError as error:
                return {message: _error(f"This link does not open a class's view: {error}")}
            return teacher_screen(info.code, key, location_now, info.expires)
        join_form = {start_box: gr.Column(visible=False), student_box: gr.Column(visible=True),
                     join_box: gr.Column(visible=True), play_box: gr.Column(visible=False)}
        try:
            normal = session.ClassStore.normalise_code(code)
            session.default_store().get_class(normal)
        except ValueError as error:
            return {**join_form, code_box: str(code)[:20], message: _error(error)}
        known = dict(remembered_now or {}).get(normal)
        if known:
            try:
                session.default_store().get_student(normal, known)
                return play_screen({"code": normal, "id": known})
            except (gr.Error, ValueError):
                pass  # this browser's student is gone from the class: join again
        return {**join_form, code_box: view.pretty_code(normal), message: ""}

    def start_class(n_now, location_now):
        try:
            pair = api.load_pair("")
            start = session.create_class(pair, int(n_now or game.ROUND_SENTENCES))
        except (gr.Error, ValueError, TypeError) as error:
            return {message: _error(error)}
        return {**teacher_screen(start.code, start.secret, location_now, start.expires),
                teacher_query: f"?class={start.code}&teacher={start.secret}"}

    def join(code_now, nickname_now, remembered_now):
        try:
            me, remembered_new = join_student(code_now, nickname_now, dict(remembered_now or {}))
            return play_screen(me, remembered_new)
        except (gr.Error, ValueError, TypeError) as error:
            return {message: _error(error)}

    def submit_a(me, index, picks):
        if not me or index is None:
            return {message: _error("Join the class first.") if not me else "", submit: gr.update(interactive=False)}
        try:
            pair = api.class_pair(me["code"])
            out = session.submit_spot(pair, me["code"], me["id"], int(index), list(picks or []))
            _, mine = _round(me["code"], me["id"])
        except (gr.Error, ValueError, TypeError) as error:
            return {message: _error(error)}
        note = ("" if out.new else
                '<p style="color:#555">You had already answered this sentence: your first answer counts.</p>')
        return {reveal: game_view.spot_reveal_html(out.item, out.result, out.picks) + note,
                status: view.student_status_html(mine), submit: gr.update(interactive=False),
                next_button: gr.update(interactive=True), ticks: gr.update(interactive=False), message: ""}

    def next_a(me):
        if not me:
            return {message: _error("Join the class first.")}
        try:
            return play_screen(me)
        except (gr.Error, ValueError) as error:
            return {message: _error(error)}

    def b_words(me, index):
        if not me or index is None:
            return gr.update(choices=[], value=None)
        try:
            _, mine = _round(me["code"], me["id"])
            words = mine.fool_words[int(index)]
        except (gr.Error, ValueError, TypeError, IndexError):
            return gr.update(choices=[], value=None)
        return gr.update(choices=[(w, i) for i, w in enumerate(words)], value=None)

    def submit_b(me, index, word, new_word, bet):
        if not me:
            return {message: _error("Join the class first.")}
        if index is None:
            return {message: _error("Choose a sentence (you have tried every one already if the list is empty).")}
        if word is None:
            return {message: _error("Choose the word to change.")}
        try:
            pair = api.class_pair(me["code"])
            out = session.submit_fool(pair, me["code"], me["id"], int(index), int(word), new_word, bool(bet))
            _, mine = _round(me["code"], me["id"])
        except (gr.Error, ValueError, TypeError) as error:
            return {message: _error(error)}
        choices = b_choices(mine)
        return {b_result: view.class_fool_html(out), status: view.student_status_html(mine), message: "",
                b_sentence: gr.update(choices=choices, value=choices[0][1] if choices else None)}

    screens = {teacher, student, remembered, a_index, shown, start_box, teacher_box, student_box, join_box, play_box,
               code_box, card, board, timer, message, status, sentence, ticks, reveal, submit, next_button, b_sentence}
    private = dict(api_visibility="private")
    demo.load(open_page, [location, remembered], screens, js=LOCATION_JS, show_progress="hidden", **private, **queues.CLASS)
    start.click(start_class, [n, location], screens | {teacher_query}, js="(n, x) => [n, window.location.href]",
                **private, **queues.EXPLAIN).then(
        None, [teacher_query], None, js="(q) => { if (q) { const u = new URL(window.location.href); u.search = q; "
           "window.history.replaceState(null, '', u.toString()); } }")
    go.click(None, [typed_code], None, js="(c) => { if ((c || '').trim()) window.location.search = "
                                          "'?class=' + encodeURIComponent(c.trim()); }")
    timer.tick(render_view, [teacher, shown], [board, shown], trigger_mode="always_last", **private, **queues.CLASS)
    join_button.click(join, [code_box, nickname, remembered], screens, **private, **queues.CLASS)
    submit.click(submit_a, [student, a_index, ticks], {reveal, status, submit, next_button, ticks, message}, **private,
                 **queues.CLASS)
    next_button.click(next_a, [student], screens, **private, **queues.CLASS)
    b_sentence.change(b_words, [student, b_sentence], [b_word], trigger_mode="always_last", **private, **queues.CLASS)
    b_test.click(submit_b, [student, b_sentence, b_word, b_new, b_bet], {b_result, status, b_sentence, message},
                 **private, **queues.EXPLAIN)
