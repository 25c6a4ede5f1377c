"""Explore tab: type a sentence, watch the generator corrupt it and the discriminator judge every word.

Thin wiring only: each handler calls `explainer.ui.api` / `explainer.core.pipeline` / `explainer.core.attributions`
and hands the frozen results to `explainer.render.explore`. The last explanation is kept in a `gr.State`
so attributions explain exactly the sentence on screen. Each handler returns its values by the names of the
components they go to (`named` hands them to gradio by component). Handlers here are private to the page;
the scriptable endpoints are `/explain` and `/attribute` (explainer.ui.api, registered in app.py).
The copied link and the download buttons' files are `explainer.ui.explore_share`'s.
"""

from __future__ import annotations

import secrets
import time
from types import SimpleNamespace
from typing import NamedTuple

import gradio as gr

from explainer.core import links, models
from explainer.core.bounds import MAX_TEXT
from explainer.core.attributions import TOLERANCE, AttributionSettings, attribute, iter_matrix, matrix_targets
from explainer.core.pipeline import Explanation, Settings, sentence_words
from explainer.core.text import InputError, follow_words, visible
from explainer.render import completeness, style
from explainer.render import explore as render
from explainer.render.guesses import guesses_html
from explainer.ui import api, forgers, queues
from explainer.ui.explore_controls import BUSY_STOP, IDLE_STOP, LARGE_JS, LARGE_LABEL, RUN_LABEL, run_label
from explainer.ui import explore_share as share
from explainer.ui.explore_share import COPY_LINK_JS, link_query
from explainer.ui.named import named

INTRO = """
## Watch ELECTRA's game on your own sentence
A small **generator** hides a few words behind `[MASK]` and guesses what could go there; one guess is
drawn at random and put back. Then the **discriminator** reads the result and rates *every* word:
was it **replaced** by the generator, or is it **original**? That judgement on every word, not just
the hidden ones, is how ELECTRA learns more from each sentence than BERT does.
Type `[MASK]` in your sentence for a blank of your own: the generator fills it, in every mode but “Detect only”.
"""

# Everyday sentences first; the first example is also the Classroom tab's lesson sentence.
EXAMPLES = [
    "The old fisherman repaired his boat before the storm arrived.",
    "The chef cooked a delicious meal for the guests at the restaurant.",
    "She opened the door and saw her old friend standing in the rain.",
    "The movie was long, but the acting was wonderful and the music was great.",
]
# For "Detect only": the first example with one word swapped by hand. The bundled pair flags "banana" (78%) and
# nothing else (tests/test_explore_examples.py checks every example against the bundled pair).
DETECT_EXAMPLE = "The old fisherman repaired his banana before the storm arrived."
EXAMPLES_LABEL = "Examples (the last has a wrong word in it: try it with “Detect only”, and see it flagged)"
MODELS = ["bundled", *models.HUB_PAIRS]
MODES = [("Automatic: mask 15% at random", "auto"), ("I choose the words to mask", "manual"),
         ("Detect only: judge my sentence as it is", "detect")]


# Scrolls the page just enough to show the verdict (or, when a message took its place, the message): nothing moves
# when it is already in view. Gradio 6's own `scroll_to_output=True` is sent to the page but not acted on (6.31's
# frontend never hands it to a component's status tracker), and it is switched off on Spaces.
SHOW_RESULT_JS = """
() => {
  const verdict = document.getElementById("explore-verdict");
  const shown = verdict && verdict.innerText.trim() ? verdict : document.getElementById("explore-notices");
  shown?.scrollIntoView({block: "nearest", behavior: "smooth"});
}
"""


def _settings(mode, mask_rate, seed, temperature, top_k, mask_words, generator=None) -> Settings:
    return api.settings_from(mode, mask_rate, seed, temperature, top_k, mask_words, generator)  # bounded, as /explain


def model_status(model: str, progress=gr.Progress(track_tqdm=True)):
    """Load (or find in the cache) the named model; say what it is or why it cannot load."""
    try:
        pair = models.load(model, roots=models.allowed_roots())
    except models.ModelLoadError as error:
        return style.message_html(str(error)), gr.update()
    config = pair.discriminator.config
    return render.model_html(models.shown_name(pair.name), config.num_hidden_layers, config.hidden_size,
                             len(pair.tokenizer), pair.max_tokens, pair.generator is not None), model


def word_choices(text: str, model: str, mode: str, current=None, shown=None, link_ticks=None) -> dict:
    """The words of the text, for the manual-masking picker (same splitting as the results), and those words
    (what the ticks point at). The ticks follow their words: a tick on "coffee" stays on "coffee" when the
    sentence changes, and goes when the word is gone. Without the words they were ticked on (a link's mask
    words arrive with its text), the ticks that still name a word are kept as they are. A link's ticks
    (`link_ticks`, kept on the server until the user ticks a box) stand for the picker's value while that is
    empty on the link's text: the page reads the picker before the link's ticks reach it. By component name."""
    current = _with_link_ticks(current, text, link_ticks)
    if mode != "manual":
        return {"mask_words": gr.update(visible=False)}
    try:
        _, found = sentence_words(models.load(model, roots=models.allowed_roots()), text)
    except (models.ModelLoadError, InputError):
        return {"mask_words": gr.update(choices=[], value=[], visible=True), "ticked_on": []}
    words = [visible(w.text) for w in found]
    if shown:
        kept = follow_words(shown, current, words)
    else:
        kept = [w for w in (current or []) if isinstance(w, int) and 0 <= w < len(words)]
    return {"mask_words": gr.update(choices=[(w, i) for i, w in enumerate(words)], value=kept, visible=True),
            "ticked_on": words}


def _with_link_ticks(ticks, text: str, link_ticks) -> list:
    """The picker's ticks, or, while it is empty on the text a link opened, that link's ticks."""
    if not ticks and link_ticks and link_ticks[0] == text:
        return list(link_ticks[1])
    return list(ticks or [])


def press_seed(seed, explanation: Explanation | None) -> int:
    """The seed for a press of the button: a new draw every time (shown in Settings, and in the link), unless
    the user typed another seed there since the last draw: then theirs, so a seed gives its result back."""
    try:
        typed = int(seed)
    except (TypeError, ValueError, OverflowError):
        typed = 0
    if explanation is None or typed != explanation.settings.seed:
        return typed
    while (drawn := secrets.randbelow(9999) + 1) == typed:
        pass
    return drawn


def apply_link(request: gr.Request):
    """A link's settings into the controls at page load (bad values: a message and the defaults)."""
    params = dict(getattr(request, "query_params", None) or {})
    link, problems = links.parse_explore(params, links.ExploreLink(EXAMPLES[0], models.default_model()))
    if link is None:
        return {"link_note": ""}
    ticks, told = share.link_ticks(link)
    picked = word_choices(link.text, link.model, link.mode, ticks)
    picked["link_ticks"] = (link.text, tuple(ticks)) if ticks else None  # valid word indices, manual mode only
    problems += told
    note = render.notices_html(["Opened from a link: the sentence and settings below are the link's.", *problems])
    return {"text": link.text, "model": link.model, "mode": link.mode, "mask_rate": link.mask_rate, "seed": link.seed,
            "temperature": link.temperature, "top_k": link.top_k, "link_note": note, "generator": link.generator,
            **picked}


def run_explain(text, model, mode, mask_rate, seed, temperature, top_k, mask_words, merged,
                palette=style.DEFAULT_PALETTE, generator=None, link_ticks=None, progress=gr.Progress(track_tqdm=True)):
    mask_words = _with_link_ticks(mask_words, text, link_ticks)
    try:
        explanation = api.make_explanation(text, model, _settings(mode, mask_rate, seed, temperature, top_k, mask_words,
                                                                  generator))
    except gr.Error as error:
        explanation, targets = None, []
        top = {"notices": style.message_html(error.message), "generator_input": "", "proposals": "", "verdict": "",
               "target": gr.update(choices=[], value=None)}
    else:
        targets = [(_target_label(explanation, t), t.position) for t in explanation.tokens if not t.special]
        top = {"notices": render.notices_html(explanation.notices),
               "generator_input": render.generator_input_html(explanation, merged),
               "proposals": guesses_html(explanation),
               "verdict": render.score_html(explanation) + render.sentence_html(explanation, merged, palette),
               "target": gr.update(choices=targets, value=explanation.most_suspicious)}
    # A new sentence (or a failed one) clears the previous attributions.
    return {**top, "explanation": explanation, "attribution_text": "",
            "attribution_plot": gr.update(value=None, visible=False), "attribution": None,
            "matrix_plot": gr.update(value=None, visible=False), **share.shown(explanation, None)}


def _target_label(explanation: Explanation, token) -> str:
    """'wonderbest' for a one-piece word; 'wonderbest, its piece -best' for a piece of a longer word."""
    word = explanation.words[token.word]
    name = (visible(word.corrupted) if len(word.tokens) == 1
            else f"{visible(word.corrupted)}, its piece {token.corrupted}")
    return f"{name}  ({token.p_replaced:.0%} replaced)"


def rerender(explanation: Explanation | None, attribution, merged: bool, palette: str = style.DEFAULT_PALETTE):
    """Words <-> subword tokens, or another palette, without running the models again."""
    if explanation is None:
        return {}
    views = {"generator_input": render.generator_input_html(explanation, merged),
             "verdict": render.score_html(explanation) + render.sentence_html(explanation, merged, palette)}
    if attribution is None:
        return views
    return {**views, "attribution_text": _attribution_view(attribution, explanation, merged, palette),
            "attribution_plot": render.attribution_figure(attribution, explanation, merged, palette)}


def _attribution_view(attribution, explanation: Explanation, merged: bool, palette: str) -> str:
    return (render.attribution_html(attribution, explanation, merged, palette)
            + completeness.attribution_note_html(attribution))


def _attribution_settings(method, n_steps, baseline, adaptive) -> AttributionSettings:
    v = api.checked(method=method, n_steps=n_steps, baseline=baseline)  # bounded, as /attribute
    return AttributionSettings(v["method"], v["n_steps"], v["baseline"], tolerance=TOLERANCE if adaptive else 0.0)


def run_attribute(explanation: Explanation | None, target, method, n_steps, baseline, adaptive, merged,
                  palette=style.DEFAULT_PALETTE):
    # On a message the download buttons stay as they were.
    if explanation is None:
        message = style.message_html("Run the generator and discriminator first (the button above).")
        return {"attribution_text": message, "attribution_plot": gr.update(visible=False), "attribution": None}
    settings = _attribution_settings(method, n_steps, baseline, adaptive)
    pair = api.load_pair(explanation.model)
    try:
        result = attribute(pair, explanation, None if target is None else int(target), settings)
    except ValueError as error:  # a bad target, or a request over the server's compute budget
        return {"attribution_text": style.message_html(str(error)), "attribution_plot": gr.update(visible=False),
                "attribution": None}
    return {"attribution_text": _attribution_view(result, explanation, merged, palette),
            "attribution_plot": gr.update(value=render.attribution_figure(result, explanation, merged, palette),
                                          visible=True),
            "attribution": result, **share.shown(explanation, result)}


MATRIX_REDRAW_S = 0.5  # the heatmap is redrawn at most this often while its rows arrive


def run_matrix(explanation: Explanation | None, method, n_steps, baseline, adaptive, palette=style.DEFAULT_PALETTE):
    """Rows appear as they are computed (a generator: a cancelled or closed page stops the work)."""
    if explanation is None:
        yield {"matrix_plot": gr.update(visible=False),
               "matrix_note": style.message_html("Run the generator and discriminator first (the button above).")}
        return
    pair = api.load_pair(explanation.model)
    settings = _attribution_settings(method, n_steps, baseline, adaptive)
    words = sum(not t.special for t in explanation.tokens)
    total = len(matrix_targets(explanation))
    start, drawn = time.perf_counter(), 0.0
    try:
        for matrix in iter_matrix(pair, explanation, settings):
            now = time.perf_counter()
            if not matrix.done and drawn and now - drawn < MATRIX_REDRAW_S:
                continue
            drawn = now
            note = completeness.matrix_note_html(matrix, total, now - start)
            if matrix.done and total < words:
                note += render.notices_html([f"Only the first {total} tokens are explained in this view."])
            yield {"matrix_plot": gr.update(value=render.matrix_figure(matrix, explanation, palette), visible=True),
                   "matrix_note": note}
    except ValueError as error:  # over the server's compute budget even reduced
        yield {"matrix_plot": gr.update(visible=False), "matrix_note": style.message_html(str(error))}


class ModelControls(NamedTuple):
    """The Explore tab's model dropdown, its status line and the active model: another tab opens a model here."""

    model: gr.Dropdown
    status: gr.HTML
    active_model: gr.State


def _layout() -> SimpleNamespace:
    """The tab's components, top to bottom, by their names here."""
    gr.Markdown(INTRO)
    active_model = gr.State(models.default_model())
    explanation = gr.State(None)
    with gr.Row(equal_height=True):
        text = gr.Textbox(value=EXAMPLES[0], label="① Your sentence", lines=2, max_lines=8, scale=5,
                          max_length=MAX_TEXT, elem_id="explore-text")  # a huge paste: cut here, not refused (413)
        run = gr.Button(RUN_LABEL, variant="primary", scale=1, elem_id="explore-run")
    gr.Examples([[e] for e in EXAMPLES + [DETECT_EXAMPLE]], [text], label=EXAMPLES_LABEL)
    with gr.Row():
        mode = gr.Radio(MODES, value="auto", label="What gets corrupted", scale=3)
        merged = gr.Checkbox(value=True, label="Show whole words (untick to see subword tokens)", scale=1)
        palette = gr.Radio(list(style.PALETTES), value=style.DEFAULT_PALETTE, label="Colours", scale=1,
                           elem_id="explore-palette")
        large = gr.Checkbox(False, label=LARGE_LABEL, scale=1, elem_id="explore-large")
    mask_words = gr.CheckboxGroup([], label="Words to mask (tick them, then press the button)", visible=False,
                                  elem_id="explore-mask-words")
    ticked_on = gr.State(None)  # the words the ticks point at (they follow their words when the sentence changes)
    link_ticks = gr.State(None)  # (text, ticks) of the link the page opened, until the user ticks a box
    generator = forgers.radio("Who forges the fakes (one discriminator judges both)", "explore-generator")
    gr.HTML(forgers.line_html(), elem_id="explore-forger-line")
    with gr.Accordion("Settings: model, mask rate, seed, temperature", open=False):
        with gr.Row():
            model = gr.Dropdown(list(dict.fromkeys([models.default_model(), *MODELS])), value=models.default_model(),
                                allow_custom_value=True, scale=2, elem_id="explore-model",
                                label="Model (bundled, a hub pair, or a folder with generator/ and discriminator/)")
            mask_rate = gr.Slider(0.05, 0.5, value=0.15, step=0.01, label="Mask rate (automatic mode)")
            seed = gr.Number(0, precision=0, label="Seed (same seed, same result)", elem_id="explore-seed")
        with gr.Row():
            temperature = gr.Slider(0.1, 3.0, value=1.0, step=0.1,
                                    label="Generator temperature (higher = wilder guesses)")
            top_k = gr.Slider(1, 10, value=5, step=1, label="Guesses shown per masked word")
    link_note = gr.HTML(elem_id="explore-link-note")
    status = gr.HTML(elem_id="explore-model-status")
    notices = gr.HTML(elem_id="explore-notices")
    gr.Markdown("### ② What the generator saw", elem_classes="ee-results-head")
    generator_input = gr.HTML(elem_id="explore-generator-input")
    gr.Markdown("### ③ The generator's guesses, and the one it drew", elem_classes="ee-results-head")
    proposals = gr.HTML(elem_id="explore-proposals")
    gr.Markdown("### ④ The discriminator's verdict on every word", elem_classes="ee-results-head")
    verdict = gr.HTML(elem_id="explore-verdict")
    with gr.Row(equal_height=True):
        download = gr.Button("Download the results (JSON)", size="sm", scale=0, min_width=240, elem_id="explore-json")
        copy_link = gr.Button("Copy a link to this result", size="sm", scale=0, min_width=240,
                              elem_id="explore-copy-link")
        link = gr.Textbox(label="Link (opens this sentence with these settings: the same corruption and verdict)",
                          interactive=False, buttons=["copy"], scale=3, elem_id="explore-link", visible=False)
    link_query_box = gr.Textbox(visible=False)
    with gr.Row():
        verdict_svg = gr.Button("The verdict as a picture (SVG)", size="sm", scale=0, min_width=240,
                                        visible=False, elem_id="explore-verdict-svg")
        card = gr.Button("A card to share (HTML, works offline)", size="sm", scale=0, min_width=240,
                                 visible=False, elem_id="explore-card")

    gr.Markdown("### ⑤ Why? Ask the discriminator to explain one word\nIntegrated gradients (captum) trace the "
                "word's score back to every word it read.")
    with gr.Row():
        target = gr.Dropdown([], label="Word to explain (P(replaced) in brackets)", scale=2)
        method = gr.Radio([("Integrated gradients", "integrated_gradients"),
                           ("Gradient × input (faster)", "gradient_x_input")],
                          value="integrated_gradients", label="Method", scale=2)
        baseline = gr.Radio([("[PAD]", "pad"), ("[MASK]", "mask")], value="pad", label="Baseline", scale=1)
        n_steps = gr.Slider(4, 200, value=128, step=1, label="Integration points (the most, if adaptive)", scale=1)
    adaptive = gr.Checkbox(value=True, elem_id="explore-adaptive",
                           label="Adaptive: as few points as keep each word's completeness error "
                                 f"under {TOLERANCE:.0%}")
    with gr.Row():
        why = gr.Button("Explain this word", variant="primary", elem_id="explore-why")
        why_all = gr.Button("Explain every word (heatmap, rows appear as they are computed)", elem_id="explore-why-all")
        stop = gr.Button("Stop", **IDLE_STOP, scale=0, min_width=80, elem_id="explore-stop")
    attribution = gr.State(None)
    attribution_text = gr.HTML(elem_id="explore-attribution")
    attribution_plot = gr.Plot(show_label=False, visible=False)
    attribution_svg = gr.Button("This explanation as a picture (SVG)", size="sm", visible=False,
                                        elem_id="explore-attribution-svg")
    matrix_note = gr.HTML()
    matrix_plot = gr.Plot(show_label=False, visible=False)

    return SimpleNamespace(**{name: value for name, value in locals().items() if isinstance(value, gr.blocks.Block)})


def build_explore(demo: gr.Blocks) -> ModelControls:
    """The tab's components and events; `demo.load` shows the model and a first example at once (or a link's)."""
    gr.HTML(f"<style>{render.LARGE_CSS}</style>")  # the large-type switch's
    c = _layout()
    inputs = [c.text, c.active_model, c.mode, c.mask_rate, c.seed, c.temperature, c.top_k, c.mask_words, c.merged,
              c.palette, c.generator, c.link_ticks]
    pictures = [c.verdict_svg, c.card, c.attribution_svg]
    results = [c.notices, c.generator_input, c.proposals, c.verdict, c.explanation, c.target, c.attribution_text,
               c.attribution_plot, c.attribution, c.matrix_plot, *pictures]
    private = {"api_visibility": "private"}
    # A load that fails leaves the last good model active and puts the dropdown back to it.
    c.model.input(model_status, [c.model], [c.status, c.active_model], **private, **queues.MODEL).then(
        lambda m: m, [c.active_model], [c.model], **private)
    gr.on([c.mode.change, c.text.change, c.active_model.change], named(word_choices, c),
          [c.text, c.active_model, c.mode, c.mask_words, c.ticked_on, c.link_ticks], [c.mask_words, c.ticked_on],
          trigger_mode="always_last", show_progress="hidden", **private)
    c.mask_words.input(lambda: None, None, [c.link_ticks], show_progress="hidden", **private)  # the user's ticks rule
    c.mode.change(run_label, [c.mode], [c.run], show_progress="hidden", **private)  # a link's mode too
    c.large.change(None, [c.large], None, js=LARGE_JS, **private)
    c.copy_link.click(lambda *values: (link_query(*values), gr.update(visible=True)),
                      [c.text, c.active_model, c.mode, c.mask_rate, c.seed, c.temperature, c.top_k, c.mask_words,
                       c.generator], [c.link_query_box, c.link], **private).then(
        None, [c.link_query_box], [c.link], js=COPY_LINK_JS)
    gr.on([c.merged.change, c.palette.change], named(rerender, c), [c.explanation, c.attribution, c.merged, c.palette],
          [c.generator_input, c.verdict, c.attribution_text, c.attribution_plot], **private)
    quiet = {"show_progress": "hidden", "queue": False, **private}
    single = c.why.click(lambda: gr.update(**BUSY_STOP), None, [c.stop], **quiet).then(
        named(run_attribute, c), [c.explanation, c.target, c.method, c.n_steps, c.baseline, c.adaptive, c.merged,
                                  c.palette], [c.attribution_text, c.attribution_plot, c.attribution, *pictures],
        **private, **queues.ATTRIBUTE)
    every = c.why_all.click(lambda: gr.update(**BUSY_STOP), None, [c.stop], **quiet).then(
        named(run_matrix, c), [c.explanation, c.method, c.n_steps, c.baseline, c.adaptive, c.palette],
        [c.matrix_plot, c.matrix_note], **private, **queues.ATTRIBUTE)
    for running in (single, every):
        running.then(lambda: gr.update(**IDLE_STOP), None, [c.stop], **quiet)
    c.stop.click(lambda: gr.update(**IDLE_STOP), None, [c.stop], cancels=[single, every], **quiet)
    share.wire_downloads(dict(zip(share.DOWNLOADS, [c.download, *pictures])),
                         [c.explanation, c.attribution, c.merged, c.palette])
    controls = [c.text, c.model, c.mode, c.mask_rate, c.seed, c.temperature, c.top_k, c.mask_words, c.link_note,
                c.ticked_on, c.generator, c.link_ticks]
    first = demo.load(named(apply_link, c), None, controls, **private).then(
        model_status, [c.model], [c.status, c.active_model], **private, **queues.MODEL).then(
        lambda m: m, [c.active_model], [c.model], **private).then(
        named(run_explain, c), inputs, results, **private, **queues.EXPLAIN)
    # The user's own sentence wins: a run they start cancels the first example's if that is still going.
    # Every press is a new draw (press_seed): the seed box shows it, and the copied link carries it. Then the
    # page brings the verdict into view (SHOW_RESULT_JS), else a press above the fold would seem to do nothing.
    # Another forger redraws the same masking with the same seed: the result on screen is always the chosen
    # forger's (a user's choice only: a link's forger arrives with the first run). A press then wins over it.
    switched = c.generator.input(named(run_explain, c), inputs, results, cancels=[first], **private,
                                 **queues.EXPLAIN)
    for trigger in (c.run.click, c.text.submit):
        trigger(press_seed, [c.seed, c.explanation], [c.seed], cancels=[first, switched], show_progress="hidden",
                **private).then(named(run_explain, c), inputs, results, **private, **queues.EXPLAIN).then(
            None, js=SHOW_RESULT_JS, **private)
    return ModelControls(c.model, c.status, c.active_model)
