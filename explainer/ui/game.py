"""The Classroom's game, "Can you beat ELECTRA?": thin wiring of explainer.lesson.game and its views.

A round lives in the page's gr.State (nothing on the server). A class code (the seed) and the level (the
generator that forges: ELECTRA's own, or the stronger one for the harder level) give everyone the same sentences
and corruptions; a link with ?game=CODE (&level=harder) fills them in.
"""

from __future__ import annotations

import random

import gradio as gr

from explainer.lesson import game
from explainer.render import game as view
from explainer.render import style
from explainer.core import generators
from explainer.ui import api, forgers, queues

RULES = """
### Can you beat ELECTRA?
**Round A — spot the fakes.** The app's generator rewrites a few words of each sentence, exactly as in ELECTRA's
pretraining. Tick the words you think are fakes; then see what really changed, and what ELECTRA's
discriminator flagged, on the same sentence. One point per fake caught, minus one per false alarm, for you and
for ELECTRA. {fakes} **Round B — fool the discriminator.** Change one word of a sentence so that it still sounds right,
and bet on whether ELECTRA will flag it. The same class code gives everyone the same round.
**A whole class at once?** Open the [live class page](class): students join from their phones with a code or a QR
code, the server keeps their answers, and the projector shows the class against ELECTRA.
""".format(fakes=game.FAKES_RULE)
PREDICTIONS = [("ELECTRA will flag my word", True), ("ELECTRA will be fooled", False)]
HARDER = "harder"  # a link's level for the stronger generator: ?game=CODE&level=harder


def _error(error: Exception) -> str:
    return style.message_html(getattr(error, "message", None) or str(error))


def start_round(code, n, model: str, generator=None):
    """A new round A: (state, sentence, word ticks, reveal, score, reveal button, next button)."""
    generator = forgers.chosen(generator)
    try:
        items = game.spot_round(api.load_pair(model), code, int(n or game.ROUND_SENTENCES), generator=generator)
    except (gr.Error, ValueError) as error:
        return (None, _error(error), gr.update(choices=[], value=[], visible=False), "", "",
                gr.update(interactive=False), gr.update(interactive=False))
    state = {"code": game.check_seed(code), "items": items, "index": 0, "results": [], "picks": [],
             "generator": generator}
    return (state, view.spot_sentence_html(items[0], 0, len(items)), _ticks(items[0]), "",
            view.round_html(*game.round_score([]), 0, len(items), state["code"], [], generator),
            gr.update(interactive=True), gr.update(interactive=False))


def _ticks(item):
    return gr.update(choices=[(w, i) for i, w in enumerate(item.words)], value=[], visible=True, interactive=True)


def reveal(state, picked):
    """Score this sentence: (state, reveal, score, word ticks, reveal button, next button)."""
    if not state or state["index"] >= len(state["items"]) or len(state["results"]) > state["index"]:
        return state, gr.skip(), gr.skip(), gr.skip(), gr.update(interactive=False), gr.skip()
    item = state["items"][state["index"]]
    try:
        result = game.score_spot(item, picked)
    except ValueError as error:
        return state, _error(error), gr.skip(), gr.skip(), gr.skip(), gr.skip()
    state = {**state, "results": [*state["results"], result], "picks": [*state["picks"], list(picked or [])]}
    total = len(state["items"])
    more = state["index"] + 1 < total
    return (state, view.spot_reveal_html(item, result, picked, scores=False),
            view.round_html(*game.round_score(state["results"]), len(state["results"]), total, state["code"],
                            state["results"], state.get("generator", generators.ELECTRA)),
            gr.update(interactive=False), gr.update(interactive=False), gr.update(interactive=more))


def next_sentence(state):
    """(state, sentence, word ticks, reveal, reveal button, next button)."""
    if not state or len(state["results"]) <= state["index"] or state["index"] + 1 >= len(state["items"]):
        return state, gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.update(interactive=False)
    state = {**state, "index": state["index"] + 1}
    item = state["items"][state["index"]]
    return (state, view.spot_sentence_html(item, state["index"], len(state["items"])), _ticks(item), "",
            gr.update(interactive=True), gr.update(interactive=False))


def class_link(code, generator=None, request: gr.Request | None = None) -> str:
    """The link that starts everyone on this class code, at this level."""
    try:
        code = game.check_seed(code)
    except ValueError as error:
        return _error(error)
    base = str(getattr(request, "url", "") or "").split("?")[0] if request is not None else ""
    link = f"{base}?game={code}" + (f"&level={HARDER}" if forgers.chosen(generator) == generators.STRONGER else "")
    return (f'<p style="{style.FONT}" id="game-link">Class link: <code>{style.esc(link)}</code> — or just tell the class '
            f"the code <b>{code}</b>.</p>")


def code_from_link(request: gr.Request):
    """?game=CODE in the page's address fills in the class code (a bad one: a message, the default kept), and
    &level=harder the stronger generator."""
    params = (getattr(request, "query_params", None) or {}) if request is not None else {}
    raw = params.get("game")
    if raw is None:
        return gr.skip(), "", gr.skip()
    level = generators.STRONGER if params.get("level") == HARDER else generators.ELECTRA
    try:
        code = game.check_seed(raw)
    except ValueError as error:
        return gr.skip(), _error(f"The link's class code was not used: {error}"), gr.skip()
    return code, (f'<p style="{style.FONT}">Class code <b>{code}</b> from your link: go to the Classroom\'s '
                  "“⑦ Can you beat ELECTRA?” and press <b>Start round</b>.</p>"), level


def fool_sentence(code, model: str):
    """A sentence for round B (the class code picks it) and its words to choose from."""
    try:
        pair = api.load_pair(model)
        sentence = random.Random(game.check_seed(code) + 1).choice(game.load_sentences())
    except (gr.Error, ValueError) as error:
        return gr.skip(), gr.skip(), _error(error)
    return sentence, _word_choices(sentence, pair), ""


def _word_choices(sentence: str, pair):
    return gr.update(choices=[(word, i) for i, word in enumerate(game.fool_words(pair, sentence or ""))], value=None)


def fool_words(sentence: str, model: str):
    try:
        return _word_choices(sentence, api.load_pair(model))
    except (gr.Error, ValueError):
        return gr.update(choices=[], value=None)


def fool_try(sentence, word_index, new_word, predicted, model: str, tally):
    """Round B: (result, tally)."""
    if word_index is None:
        return style.message_html("Choose the word to change."), tally
    try:
        result = game.fool(api.load_pair(model), sentence, int(word_index), new_word, bool(predicted))
    except (gr.Error, ValueError) as error:
        return _error(error), tally
    tries, fooled, right = tally or (0, 0, 0)
    tally = (tries + 1, fooled + result.fooled, right + result.student_right)
    return view.fool_html(result, *tally), tally


def build_game(demo: gr.Blocks, model: gr.State) -> None:
    """The game's components and events, inside the Classroom's tab."""
    gr.HTML(f"<style>{view.GAME_CSS}</style>")
    gr.Markdown(RULES)
    link_note = gr.HTML(elem_id="game-link-note")
    with gr.Row(equal_height=True):
        code = gr.Number(1, precision=0, minimum=0, maximum=game.MAX_SEED - 1, label="Class code (the same code, "
                         "the same round for everyone)", scale=2, min_width=160, elem_id="game-code")
        n = gr.Slider(3, game.MAX_SENTENCES, value=game.ROUND_SENTENCES, step=1, label="Sentences", scale=2,
                      min_width=160, elem_id="game-n")
        start = gr.Button("Start round", variant="primary", scale=1, min_width=140, elem_id="game-start")
        share = gr.Button("Class link", scale=1, min_width=120, elem_id="game-share")
    level = forgers.radio("Level (who forges the fakes; ELECTRA's discriminator judges them)", "game-level",
                          labels=game.LEVELS)
    gr.HTML(forgers.line_html())
    link = gr.HTML()
    state = gr.State(None)
    with gr.Group():
        sentence = gr.HTML(elem_id="game-sentence-box")
        ticks = gr.CheckboxGroup([], label="The words you think are fakes", visible=False, elem_id="game-ticks")
        with gr.Row():
            reveal_button = gr.Button("Reveal", variant="primary", interactive=False, elem_id="game-reveal-button")
            next_button = gr.Button("Next sentence →", interactive=False, elem_id="game-next")
        revealed = gr.HTML(elem_id="game-reveal-box")
        score = gr.HTML(elem_id="game-score-box")
    gr.Markdown("#### Round B — fool the discriminator")
    with gr.Row(equal_height=True):
        fool_text = gr.Textbox(label="Sentence", scale=4, elem_id="fool-text")
        pick_sentence = gr.Button("A sentence for this class code", scale=1, elem_id="fool-pick")
    with gr.Row(equal_height=True):
        word = gr.Dropdown([], label="Word to change", scale=2, elem_id="fool-word")
        new_word = gr.Textbox(label="Your word", scale=2, elem_id="fool-new")
        predicted = gr.Radio(PREDICTIONS, value=False, label="Your bet", scale=3, elem_id="fool-bet")
        test = gr.Button("Test it", variant="primary", scale=1, elem_id="fool-test")
    fooled = gr.HTML(elem_id="fool-result")
    tally = gr.State((0, 0, 0))

    private = dict(api_visibility="private")
    start.click(start_round, [code, n, model, level], [state, sentence, ticks, revealed, score, reveal_button, next_button],
                **private, **queues.EXPLAIN)
    reveal_button.click(reveal, [state, ticks], [state, revealed, score, ticks, reveal_button, next_button], **private)
    next_button.click(next_sentence, [state], [state, sentence, ticks, revealed, reveal_button, next_button], **private)
    share.click(class_link, [code, level], [link], **private)
    pick_sentence.click(fool_sentence, [code, model], [fool_text, word, fooled], **private, **queues.EXPLAIN)
    fool_text.change(fool_words, [fool_text, model], [word], trigger_mode="always_last", **private)
    test.click(fool_try, [fool_text, word, new_word, predicted, model, tally], [fooled, tally], **private,
               **queues.EXPLAIN)
    demo.load(code_from_link, None, [code, link_note, level], **private)
