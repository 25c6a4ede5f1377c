"""The Classroom's game, "Can you beat ELECTRA?": thin wiring of explainer.lesson.beat_electra and its views.

A round lives in the page's gr.State as a `Round` (nothing on the server); every handler returns its values
by the names of the components they go to (`named`). A round code (a number, or any word: its seed,
`explainer.lesson.beat_electra.round_code`) and the level (the generator that forges: ELECTRA's own, or the stronger
one for the harder level) give everyone the same sentences and corruptions; a link with ?game=CODE (&level=harder)
fills them in.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from types import SimpleNamespace
from urllib.parse import quote, urlencode

import gradio as gr

from explainer.lesson import beat_electra as game
from explainer.render import beat_electra as view
from explainer.render import style
from explainer.core import generators
from explainer.ui import api, forgers, queues
from explainer.ui.named import named

RULES = """
### Can you beat ELECTRA?
**Round A — spot the fakes.** The app's generator rewrites a few words of each sentence, exactly as in ELECTRA's
pretraining. Tick the words you think are fakes; then see what really changed, and what ELECTRA's
discriminator flagged, on the same sentence. One point per fake caught, minus one per false alarm, for you and
for ELECTRA. {fakes} **Round B — fool the discriminator.** Change one word of a sentence so that it still sounds right,
and bet on whether ELECTRA will flag it. **The round code** is any number or word the class agrees on (7, FFT-V8X,
"Tuesday"): everyone who types the same code gets the same sentences and the same fakes.
**A whole class at once?** Open the [live class page](class): students join from their phones with a code or a QR
code, the server keeps their answers, and the projector shows the class against ELECTRA. (A live class deals its own
sentences: its code typed here gives a round of this page, not the live class's.)
""".format(fakes=game.FAKES_RULE)
PREDICTIONS = [("ELECTRA will flag my word", True), ("ELECTRA will be fooled", False)]
HARDER = "harder"  # a link's level for the stronger generator: ?game=CODE&level=harder


@dataclass(frozen=True)
class Round:
    """A round A in the page's gr.State: its round code (as typed), sentences and level, and how far the player
    is."""
    code: str
    items: tuple[game.SpotItem, ...]
    generator: str = generators.ELECTRA
    index: int = 0  # the sentence on screen
    results: tuple[game.SpotResult, ...] = ()  # one per revealed sentence
    picks: tuple[tuple[int, ...], ...] = ()  # the words ticked on each

    @property
    def revealed(self) -> bool:
        """Whether the sentence on screen has been scored."""
        return len(self.results) > self.index

    @property
    def last(self) -> bool:
        return self.index + 1 >= len(self.items)

    def score_html(self) -> str:
        return view.round_html(*game.round_score(list(self.results)), len(self.results), len(self.items), self.code,
                               list(self.results), self.generator)


def _error(error: Exception) -> str:
    return style.message_html(getattr(error, "message", None) or str(error))


def _ticks(item):
    return gr.update(choices=[(w, i) for i, w in enumerate(item.words)], value=[], visible=True, interactive=True)


def start_round(code, n, model: str, generator=None) -> dict:
    """A new round A, by component name: its state, first sentence, word ticks, score and buttons."""
    generator = forgers.chosen(generator)
    try:
        code = game.round_code(code)
        items = game.spot_round(api.load_pair(model), code.seed, int(n or game.ROUND_SENTENCES), generator=generator)
    except (gr.Error, ValueError) as error:
        return {"state": None, "sentence": _error(error), "ticks": gr.update(choices=[], value=[], visible=False),
                "revealed": "", "score": "", "reveal_button": gr.update(interactive=False),
                "next_button": gr.update(interactive=False)}
    state = Round(code.text, tuple(items), generator)
    return {"state": state, "sentence": view.spot_sentence_html(items[0], 0, len(items)), "ticks": _ticks(items[0]),
            "revealed": "", "score": state.score_html(), "reveal_button": gr.update(interactive=True),
            "next_button": gr.update(interactive=False)}


def reveal(state: Round | None, picked) -> dict:
    """Score the sentence on screen: the truth, the round's score, the buttons; nothing twice for one sentence."""
    if state is None or state.index >= len(state.items) or state.revealed:
        return {"reveal_button": gr.update(interactive=False)}
    item = state.items[state.index]
    try:
        result = game.score_spot(item, picked)
    except ValueError as error:
        return {"revealed": _error(error)}
    state = replace(state, results=(*state.results, result), picks=(*state.picks, tuple(picked or ())))
    return {"state": state, "revealed": view.spot_reveal_html(item, result, picked, scores=False),
            "score": state.score_html(), "ticks": gr.update(interactive=False),
            "reveal_button": gr.update(interactive=False), "next_button": gr.update(interactive=not state.last)}


def next_sentence(state: Round | None) -> dict:
    """The round's next sentence, once the one on screen is revealed."""
    if state is None or not state.revealed or state.last:
        return {"next_button": gr.update(interactive=False)}
    state = replace(state, index=state.index + 1)
    item = state.items[state.index]
    return {"state": state, "sentence": view.spot_sentence_html(item, state.index, len(state.items)),
            "ticks": _ticks(item), "revealed": "", "reveal_button": gr.update(interactive=True),
            "next_button": gr.update(interactive=False)}


# The page's own address, read in the browser: the server sees only its queue's (…/gradio_api/queue/join).
PAGE_ADDRESS_JS = "(code, level, page) => [code, level, window.location.origin + window.location.pathname]"


def class_link(code, generator=None, page: str = "") -> str:
    """The link that starts everyone on this round code, at this level, on the page at `page`."""
    try:
        code = game.round_code(code)
    except ValueError as error:
        return _error(error)
    base = (page or "").split("?")[0].split("#")[0]
    query = {"game": code.text, **({"level": HARDER} if forgers.chosen(generator) == generators.STRONGER else {})}
    link = f"{base}?{urlencode(query, quote_via=quote)}"
    return (f'<p style="{style.FONT}" id="game-link">Class link: <code>{style.esc(link)}</code> — '
            f"or just tell the class the round code <b>{style.esc(code.text)}</b>.</p>")


def code_from_link(request: gr.Request) -> dict:
    """?game=CODE in the page's address fills in the round code (a bad one: a message, the default kept), and
    &level=harder the stronger generator."""
    params = (getattr(request, "query_params", None) or {}) if request is not None else {}
    raw = params.get("game")
    if raw is None:
        return {"link_note": ""}
    level = generators.STRONGER if params.get("level") == HARDER else generators.ELECTRA
    try:
        code = game.round_code(raw)
    except ValueError as error:
        return {"link_note": _error(f"The link's round code was not used: {error}")}
    return {"code": code.text, "level": level,
            "link_note": (f'<p style="{style.FONT}">Round code <b>{style.esc(code.text)}</b> from your link: go to the '
                          "Classroom's “⑦ Can you beat ELECTRA?” and press <b>Start round</b>.</p>")}


def fool_sentence(code, model: str) -> dict:
    """A sentence for round B (the round code picks it) and its words to choose from."""
    try:
        pair = api.load_pair(model)
        sentence = random.Random(game.round_code(code).seed + 1).choice(game.load_sentences())
    except (gr.Error, ValueError) as error:
        return {"fooled": _error(error)}
    return {"fool_text": sentence, "word": _word_choices(sentence, pair), "fooled": ""}


def _word_choices(sentence: str, pair):
    return gr.update(choices=[(word, i) for i, word in enumerate(game.fool_words(pair, sentence or ""))], value=None)


def fool_words(sentence: str, model: str):
    try:
        return _word_choices(sentence, api.load_pair(model))
    except (gr.Error, ValueError):
        return gr.update(choices=[], value=None)


@dataclass(frozen=True)
class Tally:
    """Round B so far, in the page's gr.State."""
    tries: int = 0
    fooled: int = 0  # words that got past the discriminator
    right: int = 0  # bets the player won


def fool_try(sentence, word_index, new_word, predicted, model: str, tally: Tally | None) -> dict:
    """Round B: the result of one changed word, and the tally."""
    if word_index is None:
        return {"fooled": style.message_html("Choose the word to change.")}
    try:
        result = game.fool(api.load_pair(model), sentence, int(word_index), new_word, bool(predicted))
    except (gr.Error, ValueError) as error:
        return {"fooled": _error(error)}
    tally = tally or Tally()
    tally = Tally(tally.tries + 1, tally.fooled + result.fooled, tally.right + result.student_right)
    return {"fooled": view.fool_html(result, tally.tries, tally.fooled, tally.right), "tally": tally}


def _layout() -> SimpleNamespace:
    """The game's components, top to bottom, by their names here."""
    gr.HTML(f"<style>{view.GAME_CSS}</style>")
    gr.Markdown(RULES)
    c = SimpleNamespace(link_note=gr.HTML(elem_id="game-link-note"))
    with gr.Row(equal_height=True):
        c.code = gr.Textbox("1", label="Round code: a number or a word (the same code, the same sentences for "
                            "everyone)", max_lines=1, max_length=game.MAX_CODE, scale=2, min_width=160,
                            elem_id="game-code")
        c.n = gr.Slider(3, game.MAX_SENTENCES, value=game.ROUND_SENTENCES, step=1, label="Sentences", scale=2,
                        min_width=160, elem_id="game-n")
        c.start = gr.Button("Start round", variant="primary", scale=1, min_width=140, elem_id="game-start")
        c.share = gr.Button("Class link", scale=1, min_width=120, elem_id="game-share")
    c.level = forgers.radio("Level (who forges the fakes; ELECTRA's discriminator judges them)", "game-level",
                            labels=game.LEVELS)
    gr.HTML(forgers.line_html())
    c.link, c.state, c.page = gr.HTML(), gr.State(None), gr.Textbox(visible=False)
    with gr.Group():
        c.sentence = gr.HTML(elem_id="game-sentence-box")
        c.ticks = gr.CheckboxGroup([], label="The words you think are fakes", visible=False, elem_id="game-ticks")
        with gr.Row():
            c.reveal_button = gr.Button("Reveal", variant="primary", interactive=False, elem_id="game-reveal-button")
            c.next_button = gr.Button("Next sentence →", interactive=False, elem_id="game-next")
        c.revealed = gr.HTML(elem_id="game-reveal-box")
        c.score = gr.HTML(elem_id="game-score-box")
    gr.Markdown("#### Round B — fool the discriminator")
    with gr.Row(equal_height=True):
        c.fool_text = gr.Textbox(label="Sentence", scale=4, elem_id="fool-text")
        c.pick_sentence = gr.Button("A sentence for this round code", scale=1, elem_id="fool-pick")
    with gr.Row(equal_height=True):
        c.word = gr.Dropdown([], label="Word to change", scale=2, elem_id="fool-word")
        c.new_word = gr.Textbox(label="Your word", scale=2, elem_id="fool-new")
        c.predicted = gr.Radio(PREDICTIONS, value=False, label="Your bet", scale=3, elem_id="fool-bet")
        c.test = gr.Button("Test it", variant="primary", scale=1, elem_id="fool-test")
    c.fooled, c.tally = gr.HTML(elem_id="fool-result"), gr.State(Tally())
    return c


def build_game(demo: gr.Blocks, model: gr.State) -> None:
    """The game's components and events, inside the Classroom's tab."""
    c = _layout()
    private = dict(api_visibility="private")
    spot = [c.state, c.sentence, c.ticks, c.revealed, c.score, c.reveal_button, c.next_button]
    c.start.click(named(start_round, c), [c.code, c.n, model, c.level], spot, **private, **queues.EXPLAIN)
    c.reveal_button.click(named(reveal, c), [c.state, c.ticks], spot, **private)
    c.next_button.click(named(next_sentence, c), [c.state], spot, **private)
    c.share.click(class_link, [c.code, c.level, c.page], [c.link], js=PAGE_ADDRESS_JS, **private)
    c.pick_sentence.click(named(fool_sentence, c), [c.code, model], [c.fool_text, c.word, c.fooled], **private,
                          **queues.EXPLAIN)
    c.fool_text.change(fool_words, [c.fool_text, model], [c.word], trigger_mode="always_last", **private)
    c.test.click(named(fool_try, c), [c.fool_text, c.word, c.new_word, c.predicted, model, c.tally],
                 [c.fooled, c.tally], **private, **queues.EXPLAIN)
    demo.load(named(code_from_link, c), None, [c.code, c.link_note, c.level], **private)
