"""Classroom tab: a 10-minute lesson on ELECTRA from six views, no slides needed.

Walk-through (mask -> propose -> swap -> detect, Back/Next, presenter mode with arrow keys),
supervised positions (MLM vs RTD, position by position), generator difficulty (temperature sweep, and the
generator-strength study: the paper's Figure 3 on this pair),
efficiency (the paper's points, and the user's race), Hugging Face code, and a knowledge check.
Thin wiring only: the sentence runs through `explainer.ui.api.make_explanation`, exactly as in Explore
(same model, masking and seed, so both tabs show the same game), and everything else is
`explainer.lesson` (supervision, hf_snippet, walkthrough, difficulty, strength, quiz) and `training.paper`, rendered
by `explainer.render` (classroom_tab, walkthrough, difficulty, efficiency). The game: `explainer.ui.beat_electra`.
The lesson's links: `explainer.ui.classroom_links`.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from dataclasses import dataclass, replace
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import gradio as gr

from explainer.core import models
from explainer.core.bounds import MAX_TEXT
from explainer.core.pipeline import Settings
from explainer.lesson import difficulty, hf_snippet, quiz, strength, supervision
from explainer.lesson.walkthrough import walkthrough
from explainer.render import classroom_tab as view
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
from explainer.ui.beat_electra import build_game
from explainer.ui.named import named
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
PRESENT_HELP = ("Presenter mode: full screen, large type, for whichever view is open; ← / → (or a clicker's PageUp / "
                "PageDown) step the walk-through; Esc leaves.")
# Installed once per page: while presenter mode is on, arrow keys drive the walk-through's Back/Next when it is the
# view on screen, and Esc leaves presenter mode.
KEYS_JS = """
() => {
  if (window.__eeKeys) return;
  window.__eeKeys = true;
  document.addEventListener("keydown", (event) => {
    if (!document.body.classList.contains("ee-present")) return;
    if (["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName) && event.target.type !== "checkbox") return;
    const target = {ArrowRight: "#walk-next", PageDown: "#walk-next", ArrowLeft: "#walk-back",
                    PageUp: "#walk-back", Escape: "#classroom-present input"}[event.key];
    if (!target) return;
    if (target.startsWith("#walk") && !document.querySelector("#walk-panel")?.checkVisibility()) return;
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
    if text.strip() == supervision.TOY_TEXT:
        return dataclasses.replace(supervision.TOY_SETTINGS, seed=int(seed or 0))
    return Settings(seed=int(seed or 0))


def run_lesson(text: str, seed, model: str) -> dict:
    """The sentence through the Explore pipeline -> walk-through steps (at step 1) and supervised positions."""
    try:
        pair = api.load_pair(model)
        explanation = api.make_explanation(text, model, _settings(text, seed))
        vocab = len(pair.tokenizer)
        steps = walkthrough(explanation, vocab)
        table = view.supervised_html(supervision.supervised_positions(explanation, vocab))
    except (gr.Error, ValueError) as error:
        message = style.message_html(getattr(error, "message", None) or str(error))
        return {"notices": message, "steps": None, "step_index": 0, "step": message, "positions": message}
    return {"notices": render.notices_html(explanation.notices), "steps": steps, "step_index": 0,
            "step": walk_step_html(steps[0]), "positions": table}


def move(steps, index: int, delta: int) -> dict:
    """The walk-through `delta` steps on (Back: -1), within its steps."""
    if not steps:
        return {}
    index = min(max(index + delta, 0), len(steps) - 1)
    return {"step_index": index, "step": walk_step_html(steps[index])}


def run_sweep(model: str, progress=gr.Progress()) -> dict:
    with _sweep_lock:
        sweep = _sweeps.get(model)
        if sweep is None:
            progress(0, desc="corrupting held-out sentences at each temperature")
            try:
                sweep = difficulty.temperature_sweep(api.load_pair(model), difficulty.heldout_sentences())
            except (gr.Error, ValueError) as error:
                return {"sweep_plot": None,
                        "sweep_note": style.message_html(getattr(error, "message", None) or str(error))}
            _sweeps[model] = sweep
    return {"sweep_plot": sweep_figure(sweep), "sweep_note": sweep_summary_html(sweep)}


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


def run_strength(model: str) -> dict:
    """The generator-strength figure and its summary; the note says when the study is another model's."""
    with _strength_lock:
        study = _strength_study()
        if isinstance(study, ValueError):
            return {"strength_plot": None, "strength_note": style.message_html(models.public(str(study)))}
        if study is None:
            return {"strength_plot": None, "strength_note": strength_summary_html(None, False)}
        matches = _discriminator_sha256(model) == study.discriminator_sha256
    shipped = next((p.name for p in study.points if p.shipped), None)
    return {"strength_plot": strength_figure(study, shipped if matches else None),
            "strength_note": strength_summary_html(study, matches)}


# --- knowledge check -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Quiz:
    """The knowledge check in the page's gr.State: its questions (in this page's order), the one on screen, and
    the first try at each question answered (its id, whether it was right)."""
    questions: tuple
    index: int = 0
    results: tuple[tuple[str, bool], ...] = ()

    @property
    def question(self):
        return self.questions[self.index]

    def score_html(self) -> str:
        """The running score; on the last question, the ones still open; with all answered, the summary."""
        done = dict(self.results)
        open_ = tuple(i + 1 for i, q in enumerate(self.questions) if q.id not in done)
        last = self.index == len(self.questions) - 1 and self.question.id in done
        return view.quiz_score_html(sum(done.values()), len(done), len(self.questions),
                                    quiz.to_revisit(self.questions, self.results), open_ if last else ())


def _quiz_view(state: Quiz) -> dict:
    question = state.question
    choices = question.kind != "short"
    return {"question": view.question_html(question, state.index, len(state.questions)),
            "choices": gr.update(choices=list(question.choices), value=None, visible=choices),
            "typed": gr.update(value="", visible=not choices)}


def start_quiz(shuffle: bool, seed) -> dict:
    questions = quiz.shuffled(quiz.QUESTIONS, int(seed or 0)) if shuffle else quiz.QUESTIONS
    state = Quiz(tuple(questions))
    return {"state": state, **_quiz_view(state), "feedback": "", "score": state.score_html()}


def check_answer(state: Quiz, choice, typed: str) -> dict:
    question = state.question
    grade = quiz.grade(question, typed if question.kind == "short" else choice)
    if grade.answered and question.id not in dict(state.results):  # the first try counts
        state = replace(state, results=(*state.results, (question.id, grade.correct)))
    return {"state": state, "feedback": view.feedback_html(grade), "score": state.score_html()}


def next_question(state: Quiz, delta: int = 1) -> dict:
    state = replace(state, index=min(max(state.index + delta, 0), len(state.questions) - 1))
    return {"state": state, **_quiz_view(state), "feedback": ""}


# --- layout --------------------------------------------------------------------------------------

def _build_walk() -> SimpleNamespace:
    """① The walk-through's panel: the step and Back/Next."""
    with gr.Column(elem_id="walk-panel"):
        step = gr.HTML(elem_id="walk-step")
        with gr.Row():
            back = gr.Button("← Back", elem_id="walk-back", min_width=120, scale=0)
            forward = gr.Button("Next →", variant="primary", elem_id="walk-next", min_width=120, scale=0)
    return SimpleNamespace(step=step, back=back, forward=forward)


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
    gr.Code(hf_snippet.HF_SNIPPET, language="python", label="From this app's bundled model (offline)",
            interactive=False, elem_id="hf-code")
    gr.Markdown(f"**The same with Google's `{hf_snippet.HUB_DISCRIMINATOR}`** (downloaded once; the "
                f"hub's `-generator` is never needed either):\n\n```python\n{hf_snippet.hub_snippet()}\n```",
                elem_id="hf-code-hub")


def _build_quiz() -> SimpleNamespace:
    """⑥ The knowledge check, showing its first question."""
    first = start_quiz(False, 0)
    state = gr.State(first["state"])
    with gr.Row():
        shuffle = gr.Checkbox(False, label="Shuffle questions and choices", elem_id="quiz-shuffle")
        seed = gr.Number(0, precision=0, label="Shuffle seed (the same seed, the same order)", elem_id="quiz-seed")
        restart = gr.Button("Start over", elem_id="quiz-restart")
    question = gr.HTML(first["question"], elem_id="quiz-question")
    choices = gr.Radio(first["choices"]["choices"], label="Your answer", elem_id="quiz-choices",
                       visible=first["choices"]["visible"])
    typed = gr.Textbox(label="Your answer", elem_id="quiz-short", visible=first["typed"]["visible"])
    with gr.Row():
        previous = gr.Button("← Previous", elem_id="quiz-previous", scale=0, min_width=160)
        check = gr.Button("Check", variant="primary", elem_id="quiz-check", scale=0, min_width=160)
        following = gr.Button("Next question →", elem_id="quiz-next", scale=0, min_width=200)
    feedback = gr.HTML(elem_id="quiz-feedback")
    score = gr.HTML(first["score"], elem_id="quiz-score")
    return SimpleNamespace(state=state, shuffle=shuffle, seed=seed, restart=restart, question=question,
                           choices=choices, typed=typed, previous=previous, check=check, following=following,
                           feedback=feedback, score=score)


def _wire_quiz(q: SimpleNamespace) -> None:
    view_parts = [q.question, q.choices, q.typed, q.feedback]
    for trigger in (q.restart.click, q.shuffle.change):
        trigger(named(start_quiz, q), [q.shuffle, q.seed], [q.state, *view_parts, q.score], api_visibility="private")
    for trigger in (q.check.click, q.typed.submit):
        trigger(named(check_answer, q), [q.state, q.choices, q.typed], [q.state, q.feedback, q.score],
                api_visibility="private")
    q.following.click(named(next_question, q), [q.state], [q.state, *view_parts], api_visibility="private")
    q.previous.click(named(lambda s: next_question(s, -1), q), [q.state], [q.state, *view_parts],
                     api_visibility="private")


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


def _layout(demo: gr.Blocks) -> SimpleNamespace:
    """The tab's components, top to bottom, by their names here (the walk-through's and the quiz's in their own)."""
    gr.HTML(f"<style>{view.CLASSROOM_CSS}</style>", js_on_load=None)
    gr.Markdown(LESSON)
    c = SimpleNamespace(model=gr.State(models.default_model()), steps=gr.State(None), step_index=gr.State(0))
    with gr.Row(equal_height=True):
        c.text = gr.Textbox(value=EXAMPLES[0], label="The lesson's sentence (the same sentence and seed as in Explore "
                            "give the same masks and draws)", lines=1, max_lines=4, scale=5, max_length=MAX_TEXT,
                            elem_id="classroom-text")  # a huge paste: cut here, not refused by the server (413)
        c.seed = gr.Number(0, precision=0, label="Seed", scale=1, min_width=90, elem_id="classroom-seed")
        c.run = gr.Button("Use this sentence", variant="primary", scale=1, elem_id="classroom-run")
        c.toy = gr.Button(f"Toy: “{supervision.TOY_TEXT}”", scale=1, elem_id="classroom-toy")
    c.notices = gr.HTML()
    with gr.Row(equal_height=True):
        c.copy_link = gr.Button("Copy a link to this lesson (sentence, seed, view)", size="sm", scale=0, min_width=320,
                                elem_id="classroom-copy-link")
        c.link = gr.Textbox(label="Lesson link", interactive=False, buttons=["copy"], scale=3, visible=False,
                            elem_id="classroom-link")
    c.link_query_box, c.link_note = gr.Textbox(visible=False), gr.HTML(elem_id="classroom-link-note")
    c.view_id = gr.Textbox("walk", visible=False)  # set in the browser as a view opens: a copy never lags a click
    with gr.Column(elem_id="classroom-stage"):  # what presenter mode fills the screen with: the switch and the views
        c.present = gr.Checkbox(False, label=PRESENT_HELP, elem_id="classroom-present")
        c.views = _build_views(demo, c)
    return c


def _build_views(demo: gr.Blocks, c: SimpleNamespace) -> gr.Tabs:
    """The seven views, as sub-tabs; their components go into `c` by name."""
    with gr.Tabs(overflow_behavior="wrap", elem_id="classroom-views") as views:  # every view one tap away on a phone
        with gr.Tab("① Walk-through", id="walk", elem_id="classroom-walk-tab"):
            c.walk = _build_walk()
            c.step = c.walk.step
        with gr.Tab("② Supervised positions", id="positions", elem_id="classroom-positions-tab"):
            gr.Markdown("What each objective is trained on, position by position, for the lesson's sentence "
                        "(the same masking as the walk-through).")
            c.positions = gr.HTML(elem_id="classroom-positions")
        with gr.Tab("③ Generator difficulty", id="difficulty", elem_id="classroom-sweep-tab") as c.sweep_tab:
            c.sweep_plot, c.sweep_note, c.strength_plot, c.strength_note = _build_difficulty()
        with gr.Tab("④ Efficiency", id="efficiency", elem_id="classroom-efficiency-tab") as c.efficiency_tab:
            c.efficiency_plot = _build_efficiency()
        with gr.Tab("⑤ Use it in Hugging Face", id="hf", elem_id="classroom-hf-tab"):
            _build_hugging_face()
        with gr.Tab("⑥ Knowledge check", id="quiz", elem_id="classroom-quiz-tab"):
            c.quiz = _build_quiz()
        with gr.Tab("⑦ Can you beat ELECTRA?", id="game", elem_id="classroom-game-tab"):
            build_game(demo, c.model)
    return views


def build_classroom(demo: gr.Blocks, latest_race: Callable[[], dict | None] = lambda: None,
                    measured_gaps: Callable[[], list[dict]] = lambda: []) -> None:
    """The tab's components and events. `latest_race` returns the Training tab's last race (or None);
    `measured_gaps` the shipped races' ELECTRA − BERT-style gaps per budget (the Efficiency view). Every handler
    with more than one output returns by component name (`named`)."""
    c = _layout(demo)
    private = dict(api_visibility="private")
    for tab in c.views.children:  # the view a copied link opens
        tab.select(None, None, [c.view_id], js=f"() => {json.dumps(tab.id)}", show_progress="hidden", **private)
    c.copy_link.click(lambda *values: (lesson_link_query(*values), gr.update(visible=True)),
                      [c.text, c.seed, c.view_id], [c.link_query_box, c.link],
                      **private).then(None, [c.link_query_box], [c.link], js=COPY_LINK_JS)
    lesson, lesson_outputs = named(run_lesson, c), [c.notices, c.steps, c.step_index, c.step, c.positions]
    for trigger in (c.run.click, c.text.submit):
        trigger(lesson, [c.text, c.seed, c.model], lesson_outputs, **private, **queues.EXPLAIN)
    c.toy.click(lambda: supervision.TOY_TEXT, None, [c.text], **private).then(
        lesson, [c.text, c.seed, c.model], lesson_outputs, **private, **queues.EXPLAIN)
    c.walk.back.click(named(lambda s, i: move(s, i, -1), c), [c.steps, c.step_index], [c.step_index, c.step], **private)
    c.walk.forward.click(named(lambda s, i: move(s, i, 1), c), [c.steps, c.step_index], [c.step_index, c.step],
                         **private)
    c.present.change(None, [c.present], None, js=PRESENT_JS)
    sweep, power = named(run_sweep, c), named(run_strength, c)
    c.sweep_tab.select(sweep, [c.model], [c.sweep_plot, c.sweep_note], **private, **queues.SWEEP)
    c.sweep_tab.select(power, [c.model], [c.strength_plot, c.strength_note], **private)
    efficiency = lambda: efficiency_figure(latest_race(), measured_gaps())
    c.efficiency_tab.select(efficiency, None, [c.efficiency_plot], **private)
    _wire_quiz(c.quiz)

    demo.load(None, None, None, js=KEYS_JS)
    opened = demo.load(named(apply_lesson_link, c), None, [c.text, c.seed, c.views, c.view_id, c.link_note], **private)
    opened.then(lesson, [c.text, c.seed, c.model], lesson_outputs, **private, **queues.EXPLAIN)
    # A view opened by a link, not by a click, gets no select event: draw it here.
    opened.then(named(lambda view, m: run_sweep(m) if view == "difficulty" else {}, c), [c.view_id, c.model],
                [c.sweep_plot, c.sweep_note], **private, **queues.SWEEP)
    opened.then(named(lambda view, m: run_strength(m) if view == "difficulty" else {}, c), [c.view_id, c.model],
                [c.strength_plot, c.strength_note], **private)
    opened.then(lambda view: efficiency() if view == "efficiency" else gr.skip(), [c.view_id], [c.efficiency_plot],
                **private)
