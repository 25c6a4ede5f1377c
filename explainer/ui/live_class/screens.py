"""The /class page's pieces that hold no component: its links, the classes a browser remembers, the board a
teacher or the projector sees, the results files, a student's screens and joining (with their share of joins).
explainer/ui/live_class/page.py lays out the page; its handlers (teacher.py, student.py) call these.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import gradio as gr

from explainer.core.live_class.phases import Stage
from explainer.lesson.live_class import results as class_results
from explainer.lesson.live_class import session
from explainer.render.live_class import phone, projector
from explainer.render import beat_electra as game_view
from explainer.render import style
from explainer.ui import api

MAX_URL = 2000
REMEMBERED = 10  # classes a browser keeps its student id or teacher key for, the latest
_DOWNLOADS: list[Path] = []  # this process's own folder for the results files (made once, private: mkdtemp)
MOVE_LABELS = {"round_a": "Open round A", "round_b": "Open round B", "results": "Show the results",
               "ended": "End the class"}


def error_html(error: Exception | str) -> str:
    return style.message_html(getattr(error, "message", None) or str(error))


def page_link(location: str, **params: str) -> str:
    """This page's address (from the browser: what students can reach) with `params` as its query."""
    parts = urlsplit(location if isinstance(location, str) and len(location) <= MAX_URL else "")
    query = urlencode(params)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"class?{query}"  # a relative link: still right on this server
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def query_params(request: gr.Request | None) -> dict:
    return dict(getattr(request, "query_params", None) or {}) if request is not None else {}


# --- the teacher and the projector ---------------------------------------------------------------------------

def move_label(target: Stage, n: int) -> str:
    if target.phase == "reveal":
        return "Reveal the answers" if target.sentence == 0 else f"Next sentence ({target.sentence + 1} of {n})"
    return MOVE_LABELS[target.phase]


def render_board(who, shown: str):
    """(the stage's HTML, its digest, the class's view); (gr.skip(), digest, view) when nothing changed since
    `shown`. `who`: {"code", "token", "link", "full"}: the token is the teacher key or the projector's view-only
    token, the link the students' (its QR code), `full` true on the projector (the stage over the whole window)."""
    if not who:
        return gr.skip(), shown, None
    data = None
    try:
        pair = api.class_pair(who["code"])
        data = session.teacher_view_data(pair, who["code"], who["token"])
        html = projector.room_html(data, who.get("link") or f"class?class={data.code}", full=bool(who.get("full")))
    except (gr.Error, ValueError) as error:
        html = error_html(error)
    digest = hashlib.sha256(html.encode()).hexdigest()
    return (gr.skip() if digest == shown else html), digest, data


def write_results(code: str, key: str) -> tuple[str, str]:
    """The class's results as two files (CSV, JSON) for the download buttons; ValueError before the results."""
    results = class_results.class_results(api.class_pair(code), code, key)
    if not _DOWNLOADS:  # a fresh folder only this user can open: no fixed name another local user could plant first
        _DOWNLOADS.append(Path(tempfile.mkdtemp(prefix="electra-explainer-classes-")))
    paths = (_DOWNLOADS[0] / f"class-{code}-results.csv", _DOWNLOADS[0] / f"class-{code}-results.json")
    paths[0].write_text(class_results.results_csv(results), encoding="utf-8")
    paths[1].write_text(class_results.results_json(results), encoding="utf-8")
    return str(paths[0]), str(paths[1])


# --- the student -------------------------------------------------------------------------------------------

def round_for(code, student_id):
    pair = api.class_pair(code)
    return pair, session.student_round(pair, code, student_id)


def next_unanswered(mine) -> int | None:
    return next((i for i in range(len(mine.sentences)) if i not in mine.answered_a), None)


def b_choices(mine) -> list[tuple[str, int]]:
    return [(f"{i + 1}. {text}", i) for i, text in enumerate(mine.fool_sentences) if i not in mine.answered_b]


def sentence_html(mine, index: int) -> str:
    return game_view.words_prompt_html(mine.sentences[index], index, len(mine.sentences), "Submit", "Round A, sentence")


def wait_html(mine) -> str:
    """The phone's screen between answers; in the reveal, with the student's own answer to the sentence shown."""
    html = phone.student_wait_html(mine)
    shown = next((r for r in mine.revealed if r.sentence_index == mine.reveal), None)
    if mine.phase == "reveal" and shown is not None:
        html += game_view.spot_reveal_html(shown.item, shown.result, shown.picks)
    return html


def stage_key(phase: str, sentence: int) -> str:
    return f"{phase}:{sentence if phase == 'reveal' else 0}"


def remember(kept: dict | None, code: str, value: str) -> dict:
    """A browser's classes (code -> student id, or teacher key): this one last, at most REMEMBERED in all."""
    others = {k: v for k, v in dict(kept or {}).items() if k != code}
    return dict(list(others.items())[-(REMEMBERED - 1):]) | {code: value}


def join_student(code, nickname, remembered: dict, client: str | None = None) -> tuple[dict, dict]:
    """(student, remembered): this browser's student in the class when it has one the class knows, else a new
    one (nickname optional; a new one counts against `client`'s share of joins); ValueError or gr.Error says
    why not."""
    key = session.ClassStore.normalise_code(code)
    known = remembered.get(key)
    if known:
        try:
            session.default_store().get_student(key, known)
            return {"code": key, "id": known}, remembered
        except ValueError:
            pass  # the class forgot it (a new class with an old code cannot happen: codes are not reused while live)
    api.class_pair(key)  # the class's model loads, or the message says why not, before anyone is added
    new = api.within_share(api.join_shares(client, key), client,
                           lambda: session.join_class(key, (nickname or "").strip() or None))
    return {"code": key, "id": new.student_id}, remember(remembered, key, new.student_id)
