"""Classroom tab: a 10-minute lesson on ELECTRA from six views, no slides needed.

Walk-through (mask -> propose -> swap -> detect, Back/Next, presenter mode with arrow keys),
supervised positions (MLM vs RTD, position by position), generator difficulty (temperature sweep, and the
generator-strength study: the paper's Figure 3 on this pair),
efficiency (the paper's points, and the user's race), Hugging Face code, and a knowledge check.
Thin wiring only: the sentence runs through `explainer.ui.api.make_explanation`, exactly as in Explore
(same model, masking and seed, so both tabs show the same game), and everything else is
`explainer.lesson` (classroom, walkthrough, difficulty, strength, quiz) and `training.paper`, rendered by
`explainer.render` (classroom, walkthrough, difficulty, efficiency). The lesson's links: `explainer.ui.classroom_links`.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import gradio as gr

from explainer.core import models
from explainer.core.pipeline import Settings
from explainer.lesson import classroom, difficulty, quiz, strength
from explainer.lesson.walkthrough import walkthrough
from explainer.render import classroom as view
from explainer.render import explore as render
from explainer.render import style
from explainer.render.difficulty import (
    strength_figure,
    strength_summary_html,
    sweep_figure,
    sweep_summary_html,
)
from explainer.render.efficiency import efficiency_figure
from explainer.render.walkthrough import walk_step_html
from explainer.ui import api, queues
from explainer.ui.classroom_links import apply_lesson_link, lesson_link_query
from explainer.ui.explore import EXAMPLES
from explainer.ui.explore_share import COPY_LINK_JS
from explainer.ui.game import build_game
from training import paper

LESSON = """
## Classroom: ELECTRA in ten minutes
One idea to land: **BERT's MLM learns only from the ~15% of positions it masked; ELECTRA's replaced-token
detection (RTD) learns from every position.** Work through the views left to right:
**① Walk-through** (4 min: the four steps on one sentence) · **② Supervised positions** (2 min: where each
objective gets its loss) · **③ Generator difficulty** (1 min) · **④ Efficiency** (1 min: the paper's result) ·
**⑤ Use it in Hugging Face** (1 min) · **⑥ Knowledge check** · **⑦ Can you beat ELECTRA?** (the class against the
discriminator, the rest of the lesson).
"""
PRESENT_HELP = "Presenter mode: full screen, large type; ← / → (or a clicker's PageUp / PageDown) step, Esc leaves."
# Installed once per page: arrow keys drive Back/Next while presenter mode is on; Esc leaves it.
KEYS_JS = """
() => {
  if (window.__eeKeys) return;
  window.__eeKeys = true;
  document.addEventListener("keydown", (event) => {
    if (!document.body.classList.contains("ee-present")) return;
    if (["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName) && event.target.type !== "checkbox") return;
    const target = {ArrowRight: "#walk-next", PageDown: "#walk-next", ArrowLeft: "#walk-back",
                    PageUp: "#walk-back", Escape: "#walk-present input"}[event.key];
    if (!target) return;
    event.preventDefault();
    document.querySelector(target)?.click();
  });
}
"""
PRESENT_JS = "(on) => { document.body.classList.toggle('ee-present', on); }"

_sweeps: dict[str, difficulty.Sweep] = {}  # per model name: the sweep is the same every time
_sweep_lock = threading.Lock()
_study: list = []  # the generator-strength study, read once: [StrengthStudy | None | ValueError]
_discriminator_hashes: dict[str, str | None] = {}  # per model name: sha256 of its local discriminator weights
_strength_lock = threading.Lock()


def _settings(text: str, seed) -> Settings:
    """The toy sentence masks what the paper's Figure 2 masks; any other sentence, 15% at random (Explore's default)."""
    if text.strip() == classroom.TOY_TEXT:
        return dataclasses.replace(classroom.TOY_SETTINGS, seed=int(seed or 0))
    return Settings(seed=int(seed or 0))


def run_lesson(text: str, seed, model: str):
    """The sentence through the Explore pipeline -> walk-through steps (at step 1) and supervised positions."""
    try:
        pair = api.load_pair(model)
        explanation = api.make_explanation(text, model, _settings(text, seed))
        vocab = len(pair.tokenizer)
        steps = walkthrough(explanation, vocab)
        table = view.supervised_html(classroom.supervised_positions(explanation, vocab))
    except (gr.Error, ValueError) as error:
        message = style.message_html(getattr(error, "message", None) or str(error))
        return message, None, 0, message, message
    return render.notices_html(explanation.notices), steps, 0, walk_step_html(steps[0]), table


def move(steps, index: int, delta: int):
    if not steps:
        return index, gr.update()
    index = min(max(index + delta, 0), len(steps) - 1)
    return index, walk_step_html(steps[index])


def run_sweep(model: str, progress=gr.Progress()):
    with _sweep_lock:
        sweep = _sweeps.get(model)
        if sweep is None:
            progress(0, desc="corrupting held-out sentences at each temperature")
            try:
                sweep = difficulty.temperature_sweep(api.load_pair(model), difficulty.heldout_sentences())
            except (gr.Error, ValueError) as error:
                return None, style.message_html(getattr(error, "message", None) or str(error))
            _sweeps[model] = sweep
    return sweep_figure(sweep), sweep_summary_html(sweep)


def _strength_study():
    """The shipped study (None: not measured), read once; a malformed file stays its ValueError."""
    if not _study:
        try:
            _study.append(strength.load_study())
        except ValueError as error:
            _study.append(error)
    return _study[0]


def _discriminator_sha256(model: str) -> str | None:
    """sha256 of the model's discriminator weights when it is a local folder (bundled included); None otherwise."""
    if model not in _discriminator_hashes:
        try:
            source = models.resolve(model, models.allowed_roots())
            weights = Path(source.discriminator, "model.safetensors")
            found = strength.file_sha256(weights) if source.kind == "local" and weights.is_file() else None
        except (models.ModelLoadError, OSError):
            found = None
        _discriminator_hashes[model] = found
    return _discriminator_hashes[model]


def run_strength(model: str):
    """The generator-strength figure and its summary; the note says when the study is another model's."""
    with _strength_lock:
        study = _strength_study()
        if isinstance(study, ValueError):
            return None, style.message_html(models.public(str(study)))
        if study is None:
            return None, strength_summary_html(None, False)
        matches = _discriminator_sha256(model) == study.discriminator_sha256
    shipped = next((p.name for p in study.points if p.shipped), None)
    return strength_figure(study, shipped if matches else None), strength_summary_html(study, matches)


# --- knowledge check -----------------------------------------------------------------------------

def _quiz_view(state: dict):
    question = state["questions"][state["index"]]
    choices = question.kind != "short"
    return (
        view.question_html(question, state["index"], len(state["questions"])),
        gr.update(choices=list(question.choices), value=None, visible=choices),
        gr.update(value="", visible=not choices),
    )


def _score(state: dict) -> str:
    results = state["results"]
    return view.quiz_score_html(sum(results.values()), len(results), len(state["questions"]))


def start_quiz(shuffle: bool, seed):
    questions = quiz.shuffled(quiz.QUESTIONS, int(seed or 0)) if shuffle else quiz.QUESTIONS
    state = {"questions": questions, "index": 0, "results": {}}
    return state, *_quiz_view(state), "", _score(state)


def check_answer(state: dict, choice, typed: str):
    question = state["questions"][state["index"]]
    grade = quiz.grade(question, typed if question.kind == "short" else choice)
    if grade.answered and question.id not in state["results"]:
        state = {**state, "results": {**state["results"], question.id: grade.correct}}  # first try counts
    return state, view.feedback_html(grade), _score(state)


def next_question(state: dict, delta: int = 1):
    index = min(max(state["index"] + delta, 0), len(state["questions"]) - 1)
    state = {**state, "index": index}
    return state, *_quiz_view(state), ""


# --- layout --------------------------------------------------------------------------------------

def _build_walk() -> SimpleNamespace:
    """① The walk-through's panel: the step, Back/Next and the presenter-mode switch."""
    with gr.Column(elem_id="walk-panel"):
        step = gr.HTML(elem_id="walk-step")
        with gr.Row():
            back = gr.Button("← Back", elem_id="walk-back", min_width=120, scale=0)
            forward = gr.Button("Next →", variant="primary", elem_id="walk-next", min_width=120, scale=0)
            present = gr.Checkbox(False, label=PRESENT_HELP, elem_id="walk-present", scale=3)
    return SimpleNamespace(step=step, back=back, forward=forward, present=present)


def _build_efficiency() -> gr.Plot:
    """④ The paper's result beside this app's own races (the figure is drawn when the tab is opened)."""
    gr.Markdown(
        f"{paper.COMPARISON}\n\nSource: {paper.SOURCE}, <{paper.SOURCE_URL}>. **The lower chart:** this app's own "
        "races on this CPU (measured and shipped with the app): ELECTRA's encoder minus the BERT-style one, "
        "in points of accuracy on the built-in sentiment probe, at each budget, every seed a dot; a race you "
        "run in the Training tab appears as a ★. Minutes of CPU are 100,000 times less compute than the "
        "paper's smallest run: compare the two objectives with each other, not with the paper's numbers.")
    return gr.Plot(show_label=False, elem_id="classroom-efficiency")


def _build_hugging_face() -> None:
    """⑤ The discriminator in Hugging Face: the bundled model's code (the tests run it), and the hub's."""
    gr.Markdown(
        "After pretraining the **generator is thrown away**. The discriminator is an ordinary encoder: "
        "load it with `AutoModelForSequenceClassification` (which builds `ElectraForSequenceClassification`) "
        "and fine-tune it like BERT. This code runs as shown; the tests run exactly this text.")
    gr.Code(classroom.HF_SNIPPET, language="python", label="From this app's bundled model (offline)",
            interactive=False, elem_id="hf-code")
    gr.Markdown(f"**The same with Google's `{classroom.HUB_DISCRIMINATOR}`** (downloaded once; the "
                f"hub's `-generator` is never needed either):\n\n```python\n{classroom.hub_snippet()}\n```",
                elem_id="hf-code-hub")


def _build_quiz() -> SimpleNamespace:
    """⑥ The knowledge check, showing its first question."""
    first = start_quiz(False, 0)
    state = gr.State(first[0])
    with gr.Row():
        shuffle = gr.Checkbox(False, label="Shuffle questions and choices", elem_id="quiz-shuffle")
        seed = gr.Number(0, precision=0, label="Shuffle seed (the same seed, the same order)", elem_id="quiz-seed")
        restart = gr.Button("Start over", elem_id="quiz-restart")
    question = gr.HTML(first[1], elem_id="quiz-question")
    choices = gr.Radio(first[2]["choices"], label="Your answer", elem_id="quiz-choices", visible=first[2]["visible"])
    typed = gr.Textbox(label="Your answer", elem_id="quiz-short", visible=first[3]["visible"])
    with gr.Row():
        previous = gr.Button("← Previous", elem_id="quiz-previous", scale=0, min_width=160)
        check = gr.Button("Check", variant="primary", elem_id="quiz-check", scale=0, min_width=160)
        following = gr.Button("Next question →", elem_id="quiz-next", scale=0, min_width=200)
    feedback = gr.HTML(elem_id="quiz-feedback")
    score = gr.HTML(first[5], elem_id="quiz-score")
    return SimpleNamespace(state=state, shuffle=shuffle, seed=seed, restart=restart, question=question,
                           choices=choices, typed=typed, previous=previous, check=check, following=following,
                           feedback=feedback, score=score)


def _wire_quiz(q: SimpleNamespace) -> None:
    view_parts = [q.question, q.choices, q.typed, q.feedback]
    for trigger in (q.restart.click, q.shuffle.change):
        trigger(start_quiz, [q.shuffle, q.seed], [q.state, *view_parts, q.score], api_visibility="private")
    for trigger in (q.check.click, q.typed.submit):
        trigger(check_answer, [q.state, q.choices, q.typed], [q.state, q.feedback, q.score], api_visibility="private")
    q.following.click(next_question, [q.state], [q.state, *view_parts], api_visibility="private")
    q.previous.click(lambda s: next_question(s, -1), [q.state], [q.state, *view_parts], api_visibility="private")


def _build_difficulty() -> tuple:
    """The generator-difficulty view: the temperature sweep (plot, note), then generator strength (plot, note)."""
    gr.Markdown("The generator sets the discriminator's exam. Here it corrupts a fixed set of held-out "
                "sentences at several sampling temperatures (and a weaker copy of it, cut after its first layer): "
                "how many tokens end up really replaced, and how well the discriminator spots them.")
    sweep_plot = gr.Plot(show_label=False)
    sweep_note = gr.HTML(elem_id="classroom-sweep-note")
    gr.Markdown("#### Generator strength: the paper's Figure 3 on this pair\nSeveral generators, weaker and "
                "stronger, against one discriminator: the stronger the generator, the harder its fakes are "
                "to catch. Explore, the game and the live class let you choose between ELECTRA's own "
                "generator (★) and, where it is installed, a stronger one.")
    return (sweep_plot, sweep_note, gr.Plot(show_label=False, elem_id="classroom-strength"),
            gr.HTML(elem_id="classroom-strength-note"))


def build_classroom(demo: gr.Blocks, latest_race: Callable[[], dict | None] = lambda: None,
                    measured_gaps: Callable[[], list[dict]] = lambda: []) -> None:
    """The tab's components and events. `latest_race` returns the Training tab's last race (or None);
    `measured_gaps` the shipped races' ELECTRA − BERT-style gaps per budget (the Efficiency view)."""
    gr.HTML(f"<style>{view.CLASSROOM_CSS}</style>", js_on_load=None)
    gr.Markdown(LESSON)
    model = gr.State(models.default_model())
    steps, step_index = gr.State(None), gr.State(0)
    with gr.Row(equal_height=True):
        text = gr.Textbox(value=EXAMPLES[0], label="The lesson's sentence (the same sentence and seed as in Explore "
                          "give the same masks and draws)", lines=1, max_lines=4, scale=5, elem_id="classroom-text")
        seed = gr.Number(0, precision=0, label="Seed", scale=1, min_width=90, elem_id="classroom-seed")
        run = gr.Button("Use this sentence", variant="primary", scale=1, elem_id="classroom-run")
        toy = gr.Button(f"Toy: “{classroom.TOY_TEXT}”", scale=1, elem_id="classroom-toy")
    notices = gr.HTML()
    with gr.Row(equal_height=True):
        copy_link = gr.Button("Copy a link to this lesson (sentence, seed, view)", size="sm", scale=0, min_width=320,
                              elem_id="classroom-copy-link")
        link = gr.Textbox(label="Lesson link", interactive=False, buttons=["copy"], scale=3, visible=False,
                          elem_id="classroom-link")
    link_query_box = gr.Textbox(visible=False)
    link_note = gr.HTML(elem_id="classroom-link-note")
    view_id = gr.State("walk")
    with gr.Tabs(overflow_behavior="wrap", elem_id="classroom-views") as views:  # on a phone every view stays one tap away
        with gr.Tab("① Walk-through", id="walk", elem_id="classroom-walk-tab"):
            walk = _build_walk()
        with gr.Tab("② Supervised positions", id="positions", elem_id="classroom-positions-tab"):
            gr.Markdown("What each objective is trained on, position by position, for the lesson's sentence "
                        "(the same masking as the walk-through).")
            positions = gr.HTML(elem_id="classroom-positions")
        with gr.Tab("③ Generator difficulty", id="difficulty", elem_id="classroom-sweep-tab") as sweep_tab:
            sweep_plot, sweep_note, strength_plot, strength_note = _build_difficulty()
        with gr.Tab("④ Efficiency", id="efficiency", elem_id="classroom-efficiency-tab") as efficiency_tab:
            efficiency_plot = _build_efficiency()
        with gr.Tab("⑤ Use it in Hugging Face", id="hf", elem_id="classroom-hf-tab"):
            _build_hugging_face()
        with gr.Tab("⑥ Knowledge check", id="quiz", elem_id="classroom-quiz-tab"):
            quiz_parts = _build_quiz()
        with gr.Tab("⑦ Can you beat ELECTRA?", id="game", elem_id="classroom-game-tab"):
            build_game(demo, model)

    for tab in views.children:  # the view a copied link opens
        tab.select(lambda name=tab.id: name, None, [view_id], api_visibility="private", show_progress="hidden")
    copy_link.click(lambda *values: (lesson_link_query(*values), gr.update(visible=True)), [text, seed, view_id],
                    [link_query_box, link], api_visibility="private").then(
        None, [link_query_box], [link], js=COPY_LINK_JS)
    lesson_outputs = [notices, steps, step_index, walk.step, positions]
    for trigger in (run.click, text.submit):
        trigger(run_lesson, [text, seed, model], lesson_outputs, api_visibility="private", **queues.EXPLAIN)
    toy.click(lambda: classroom.TOY_TEXT, None, [text], api_visibility="private").then(
        run_lesson, [text, seed, model], lesson_outputs, api_visibility="private", **queues.EXPLAIN)
    walk.back.click(lambda s, i: move(s, i, -1), [steps, step_index], [step_index, walk.step], api_visibility="private")
    walk.forward.click(lambda s, i: move(s, i, 1), [steps, step_index], [step_index, walk.step],
                       api_visibility="private")
    walk.present.change(None, [walk.present], None, js=PRESENT_JS)
    sweep_tab.select(run_sweep, [model], [sweep_plot, sweep_note], api_visibility="private", **queues.SWEEP)
    sweep_tab.select(run_strength, [model], [strength_plot, strength_note], api_visibility="private")
    efficiency_tab.select(lambda: efficiency_figure(latest_race(), measured_gaps()), None, [efficiency_plot],
                          api_visibility="private")
    _wire_quiz(quiz_parts)

    demo.load(None, None, None, js=KEYS_JS)
    opened = demo.load(apply_lesson_link, None, [text, seed, views, view_id, link_note], api_visibility="private")
    opened.then(run_lesson, [text, seed, model], lesson_outputs, api_visibility="private", **queues.EXPLAIN)
    # A view opened by a link, not by a click, gets no select event: draw it here.
    opened.then(lambda view, m: run_sweep(m) if view == "difficulty" else (gr.skip(), gr.skip()), [view_id, model],
                [sweep_plot, sweep_note], api_visibility="private", **queues.SWEEP)
    opened.then(lambda view, m: run_strength(m) if view == "difficulty" else (gr.skip(), gr.skip()), [view_id, model],
                [strength_plot, strength_note], api_visibility="private")
    opened.then(lambda view: efficiency_figure(latest_race(), measured_gaps()) if view == "efficiency" else gr.skip(),
                [view_id], [efficiency_plot], api_visibility="private")
