"""The app's scriptable API: `/explain` and `/attribute`, plain typed functions returning JSON-able dicts.

app.py registers them with `gr.api`, which reads the type hints below to describe the endpoints,
so this module keeps real annotations (no `from __future__ import annotations`). Errors meant
for the user are raised as `gradio.Error` (a `gradio_client` caller sees the message).

    from gradio_client import Client
    client = Client("http://127.0.0.1:7860/")
    result = client.predict("the chef ate the meal", api_name="/explain")
    blank = client.predict("I drank a cup of [MASK] before work.", generator="stronger", api_name="/explain")
    why = client.predict("the chef ate the meal", target=-1, api_name="/attribute")
"""

import dataclasses
import time
from typing import Optional

import gradio as gr

from explainer.core import bounds, budget, models, quotas, visitors
from explainer.core.attributions import AttributionSettings, attribution_matrix
from explainer.core.attributions import attribute as attribute_one
from explainer.core import batching
from explainer.core.pipeline import Explanation, Settings
from explainer.core.text import InputError
from explainer.core.user_text import quote
from explainer.lesson.live_class import results
from explainer.lesson.live_class import session as class_session
from explainer.lesson import beat_electra as lesson
from explainer.ui import fair_queue


def load_pair(model: str) -> models.ModelPair:
    try:
        return models.load(model, roots=models.allowed_roots())
    except models.ModelLoadError as error:
        raise gr.Error(str(error), print_exception=False) from error


def checked(**raw) -> dict:
    """The raw values a caller sent, checked where the request enters (explainer.core.bounds): the right types,
    or a message in the app's words."""
    try:
        return bounds.check(**raw)
    except bounds.BoundError as error:
        raise gr.Error(str(error), print_exception=False) from error


def settings_from(mode, mask_rate, seed, temperature, top_k, mask_words, generator="electra") -> Settings:
    """Settings from a script's raw values; a value of the wrong kind or out of bounds is a message, not a
    server error."""
    v = checked(mode=mode, mask_rate=mask_rate, seed=seed, temperature=temperature, top_k=top_k,
                mask_words=mask_words, generator=generator or "electra")
    return Settings(v["mode"], v["mask_rate"], v["seed"], v["temperature"], v["top_k"], v["mask_words"],
                    v["generator"])


def bounded(data: dict) -> dict:
    """A reply, once it is strict JSON of at most bounds.MAX_REPLY_BYTES; a message otherwise."""
    try:
        return bounds.reply(data)
    except bounds.BoundError as error:
        raise gr.Error(str(error), print_exception=False) from error


def make_explanation(text: str, model: str, settings: Settings) -> Explanation:
    v = checked(text=text, model=model)
    text, model = v["text"], v["model"]
    pair = load_pair(model)
    try:
        return batching.explain(pair, text, settings)
    except (InputError, ValueError) as error:
        raise gr.Error(str(error), print_exception=False) from error


def explain(
    text: str,
    model: str = "",
    mode: str = "auto",
    mask_rate: float = 0.15,
    seed: int = 0,
    temperature: float = 1.0,
    top_k: int = 5,
    mask_words: Optional[list[int]] = None,
    generator: str = "electra",
) -> dict:
    """Mask (mode auto: mask_rate + seed; manual: the word indices in mask_words; detect: none),
    let the generator propose and sample replacements, and return every token's P(replaced)
    from the discriminator, with the truth, the proposals and the words (see docs/api.md).
    mask_words: 0-based indices into the result's "words": punctuation is a word of its own ("arrived." is
    "arrived" and "."), "chef's", "well-known" and "3.5" are one each; a [MASK] typed in the text is one.
    A [MASK] typed in the text is a blank the generator fills, in every mode but detect.
    model: "" = the app's default (bundled), "bundled", "google/electra-small", or a folder.
    generator: "electra" (the pair's own, the default) or "stronger" (the stronger generator, where installed
    and the vocabulary matches); one discriminator judges both."""
    settings = settings_from(mode, mask_rate, seed, temperature, top_k, mask_words, generator)
    return bounded(make_explanation(text, model, settings).to_dict())


def attribute(
    text: str,
    target: int = -1,
    method: str = "integrated_gradients",
    n_steps: int = 50,
    baseline: str = "pad",
    all_tokens: bool = False,
    model: str = "",
    mode: str = "auto",
    mask_rate: float = 0.15,
    seed: int = 0,
    temperature: float = 1.0,
    top_k: int = 5,
    mask_words: Optional[list[int]] = None,
    tolerance: float = 0.0,
    generator: str = "electra",
) -> dict:
    """Run /explain with the same arguments, then attribute token `target`'s replaced-logit
    (a token position; -1 = the token judged most likely replaced) to every input token with
    captum (method integrated_gradients or gradient_x_input; baseline pad or mask). With
    all_tokens, return the target x input matrix for every token instead. tolerance > 0: as few
    integration points (up to n_steps) as keep each row's completeness error within tolerance x
    its sum |scores| ("points" and "errors" say what was reached). A request over the server's
    compute budget is reduced ("notices" says how) or refused with a message."""
    settings = settings_from(mode, mask_rate, seed, temperature, top_k, mask_words, generator)
    v = checked(target=target, method=method, n_steps=n_steps, baseline=baseline, all_tokens=all_tokens,
                tolerance=tolerance)
    start = time.perf_counter()
    explanation = make_explanation(text, model, settings)
    pair = load_pair(model)
    # The server's limit holds for the whole call: the explanation's seconds come off the attribution's.
    whole = budget.limit_seconds(pair)
    limit = budget.Left(max(whole - (time.perf_counter() - start), 0.01), whole)
    try:
        options = AttributionSettings(v["method"], v["n_steps"], v["baseline"], tolerance=v["tolerance"])
        if v["all_tokens"]:
            matrix = attribution_matrix(pair, explanation, options, limit=limit)
            return bounded({"tokens": [t.corrupted for t in explanation.tokens], **dataclasses.asdict(matrix),
                            "errors": matrix.errors})
        result = attribute_one(pair, explanation, None if v["target"] < 0 else v["target"], options, limit=limit)
    except (TypeError, ValueError) as error:
        raise gr.Error(str(error), print_exception=False) from error
    return bounded({**dataclasses.asdict(result), "p_replaced": result.p_replaced, "error": result.error})


def game(code: int | str = 1, sentences: int = 5, picks: Optional[list] = None, model: str = "",
         generator: str = "electra") -> dict:
    """The Classroom game's round A for a round code: the sentences as students see them (words), and, when
    `picks` (one list of word indices per sentence) is given, the truth, ELECTRA's verdicts and both scores.
    The same code (and generator) gives the same round to everyone; nothing is stored. code: what the page's
    "Round code" takes, a whole number or a word ("FFT-V8X" and "fft v8x" are one round). generator: "electra"
    (ELECTRA's own, the default) or "stronger" (the harder level)."""
    v = checked(model=model, generator=generator or "electra")
    try:  # every value in words before any model runs: a bool, Infinity or 5,000 digits is no code, count or pick
        round_code = lesson.round_code(code)
        code = round_code.seed
        n = bounds.Whole(1, lesson.MAX_SENTENCES, "sentences in the round")("sentences", sentences)
        if picks is not None and (not isinstance(picks, list) or len(picks) != n):
            raise ValueError(f"picks must be one list of word numbers per sentence ({n} lists), not {quote(picks)}.")
        word_numbers = bounds.WholeList(0, bounds.MAX_MASK_WORDS - 1, bounds.MAX_MASK_WORDS,
                                        "a sentence's word numbers")
        rows = [word_numbers("picks", p) for p in picks] if picks is not None else None
    except ValueError as error:
        raise gr.Error(str(error), print_exception=False) from error
    pair = load_pair(v["model"])
    try:
        items = batching.in_model_thread(lesson.spot_round, pair, code, n, generator=v["generator"])
        if rows is not None:
            scores = [lesson.score_spot(item, class_session.check_picks(list(p), len(item.words)))
                      for item, p in zip(items, rows)]
    except (TypeError, ValueError) as error:
        raise gr.Error(str(error), print_exception=False) from error
    shown = round_code.seed if round_code.text == str(round_code.seed) else round_code.text  # a number stays one
    round_ = {"code": shown, "model": pair.name, "generator": v["generator"],
              "sentences": [{"words": list(item.words)} for item in items]}
    if rows is None:
        return round_

    for entry, item, result in zip(round_["sentences"], items, scores):
        entry.update(_truth(item, result))
    you, electra = lesson.round_score(scores)
    return {**round_, "you": you.as_dict(), "electra": electra.as_dict()}



# --- a live class (explainer.lesson.live_class.session): the teacher starts it, students join and answer --------

def _class_call(call):
    """Run a class-session call; a ValueError (bad code, key, pick, bound reached) is a message for the caller."""
    try:
        return call()
    except (TypeError, ValueError) as error:
        raise gr.Error(str(error), print_exception=False) from error


def class_pair(code):
    """The pair a class plays with: the model its teacher started it on."""
    info = _class_call(lambda: class_session.default_store().get_class(code))
    return load_pair(info.model)


def visitor(request: gr.Request | None) -> str | None:
    """Who is asking, for their share of the class (explainer.core.quotas): the network of the request's client
    address (explainer.core.visitors), which the web server takes from X-Forwarded-For only behind a proxy listed
    in ELECTRA_TRUSTED_PROXIES. None for a call from Python itself (no request: the local user, not a visitor)."""
    client = getattr(request, "client", None) if request is not None else None
    return visitors.visitor(getattr(client, "host", None)) if request is not None else None


def within_share(kind: str | dict[str, str], client: str | None, call):
    """`call()` when `client` has some of their share of `kind` ("start", "join") left, counted once it has
    succeeded (a refused start or a full class costs nothing); a message otherwise. `kind` may be several shares
    at once, {kind: key}, each checked before and counted after."""
    if client is None:
        return _class_call(call)
    shares = kind if isinstance(kind, dict) else {kind: client}
    with quotas.one_at_a_time(shares.values()):
        for name, key in shares.items():
            _class_call(lambda: quotas.quota(name).check(key))
        out = _class_call(call)
        for name, key in shares.items():
            quotas.quota(name).take(key)
    return out


def join_shares(client: str | None, code: object) -> dict[str, str]:
    """A join's shares: the visitor's joins to every class, and to this one."""
    key = _class_call(lambda: class_session.ClassStore.normalise_code(code))
    return {"join": str(client), "join_class": f"{client} {key}"}


@fair_queue.one_per_visitor  # takes the visitor's share lock: one at a time, in the queue
def class_start(sentences: int = 5, seed: Optional[int] = None, model: str = "",
                own_sentences: Optional[list[str]] = None, generator: str = "electra",
                request: gr.Request = None) -> dict:
    """Start a live class of `sentences` sentences (a random round unless `seed` is given) on `model`, in its
    lobby; or, with `own_sentences` (1 to 10 texts, each checked as typed text is), a class on those, in that
    order. Its fakes are forged by `generator` ("electra", ELECTRA's own, the default; or "stronger"). Returns
    the class code, the teacher key (only here, only once: it moves the phases; keep it out of
    any address or page a room can see), the projector's view-only token and the query strings of the
    students' page and the projector's (page /class). A visitor may start ELECTRA_CLASS_START_RATE classes."""
    v = checked(model=model, generator=generator or "electra")
    pair = load_pair(v["model"])
    who = visitor(request)
    start = within_share("start", who, lambda: class_session.create_class(
        pair, sentences, seed, sentences=own_sentences, generator=v["generator"], visitor=who))
    return {"code": start.code, "teacher_key": start.teacher_key, "view_token": start.view_token, "seed": start.seed,
            "sentences": start.n_sentences, "model": start.model, "generator": start.generator,
            "expires": start.expires, "phase": "lobby",
            "student_query": f"?class={start.code}", "view_query": f"?class={start.code}&view={start.view_token}"}


def class_phase(code: str, teacher_key: str, phase: str, sentence: int = 0) -> dict:
    """Move the class to `phase` (lobby, round_a, reveal, round_b, results, ended; in the reveal, to sentence
    `sentence`, from 0), with the teacher key. Only the next stage is taken (from the reveal also round B, from
    anywhere also ended); a wrong key, a replayed or an out-of-order change is refused with a message."""
    info = _class_call(lambda: class_session.move_class(code, teacher_key, phase, sentence))
    return {"code": info.code, "phase": info.phase, "sentence": info.stage.sentence}


@fair_queue.one_per_visitor
def class_join(code: str, nickname: str = "", request: gr.Request = None) -> dict:
    """Join a class by its code, with an optional nickname (24 characters at most). Keep `student`: every
    answer is sent with it, and nobody else sees it. ELECTRA_CLASS_JOIN_RATE students may join per network, and
    ELECTRA_CLASS_JOIN_CLASS_RATE into one class; a class its teacher locked takes nobody new."""
    who = visitor(request)
    student = within_share(join_shares(who, code), who, lambda: class_session.join_class(code, nickname or None))
    return {"code": student.code, "student": student.student_id, "name": student.display_name, "number": student.number}


def class_lock(code: str, teacher_key: str, locked: bool = True) -> dict:
    """Lock the class (`locked` true: nobody new may join, those in it play on) or open it again, with the
    teacher key."""
    info = _class_call(lambda: class_session.lock_class(code, teacher_key, locked))
    return {"code": info.code, "locked": info.locked}


def class_remove(code: str, teacher_key: str, number: int) -> dict:
    """Remove student `number` (as the projector's roster numbers them) and their answers, with the teacher key.
    Lock the class too, or they may join again."""
    gone = _class_call(lambda: class_session.remove_student(code, teacher_key, number))
    return {"code": gone.code, "removed": gone.number, "name": gone.display_name}


def class_round(code: str, student: str) -> dict:
    """A student's view of the class now: its phase; round A's sentences as words once it opens (never the
    truth before the reveal); round B's sentences and their words once it opens; which sentences the student
    answered; in and after the reveal, their own answers to the revealed sentences with the truth, and the
    points those earned. A phone polls this to follow the teacher."""
    pair = class_pair(code)
    mine = _class_call(lambda: class_session.student_round(pair, code, student))
    return {"code": mine.code, "name": mine.display_name, "phase": mine.phase, "sentence": mine.reveal,
            "sentences": [{"words": list(w)} for w in mine.sentences],
            "fool_sentences": [{"text": t, "words": list(w)} for t, w in zip(mine.fool_sentences, mine.fool_words)],
            "answered_a": list(mine.answered_a), "answered_b": list(mine.answered_b),
            "revealed": [_revealed(r) for r in mine.revealed], "points": mine.points}


def _truth(item, result) -> dict:
    """A round-A sentence's truth and both scores: what /game returns with picks, and a live class's reveal."""
    return {"originals": list(item.originals), "replaced": list(item.replaced), "drawn_back": list(item.drawn_back),
            "electra_p_replaced": list(item.p_replaced), "electra_flagged": list(item.flagged),
            "you": result.student.as_dict(), "electra": result.electra.as_dict()}


def _revealed(r) -> dict:
    return {"sentence": r.sentence_index, "picks": list(r.picks), "words": list(r.item.words),
            **_truth(r.item, r.result)}


def class_spot(code: str, student: str, sentence: int, picks: Optional[list] = None) -> dict:
    """Round A (while the teacher has it open): the word indices a student thinks are fakes in sentence
    `sentence` (from 0). The server scores them and stores them once; a second answer to the same sentence
    returns the first (`new` false). Returns only that the answer is stored: the truth and the score come
    with the reveal (class_round's `revealed`)."""
    pair = class_pair(code)
    out = _class_call(lambda: class_session.submit_spot(pair, code, student, sentence, picks))
    return {"code": out.code, "sentence": out.sentence_index, "new": out.new, "picks": list(out.picks)}


def class_fool(code: str, student: str, sentence: int, word: int, new_word: str, bet: bool) -> dict:
    """Round B (while the teacher has it open): put `new_word` in place of word `word` (numbered as class_round's
    fool_sentences words) of sentence `sentence`, and bet whether ELECTRA will flag it (`bet` true) or be
    fooled. Stored once."""
    pair = class_pair(code)
    out = _class_call(lambda: class_session.submit_fool(pair, code, student, sentence, word, new_word, bet))
    return {"code": out.code, "sentence": out.sentence_index, "new": out.new, "edited": out.edited,
            "word": out.word_index, "original_word": out.original_word, "new_word": out.new_word,
            "p_replaced": out.p_edited, "flagged": out.flagged, "bet": out.bet,
            "bet_right": out.student_right, "fooled": out.fooled}


def class_view(code: str, teacher_key: str) -> dict:
    """The class as its projector shows it now, for the holder of its teacher key or of its view-only token
    (the argument takes either): the phase; who joined and how many answered each sentence; from the reveal
    on, each revealed fake's share of students who caught it beside ELECTRA's verdict and the totals; round
    B's edits. Nothing names a fake before the reveal. `build_ms`: the server's time to build it."""
    pair = class_pair(code)
    started = time.perf_counter()
    view = _class_call(lambda: class_session.teacher_view_data(pair, code, teacher_key))
    data = dataclasses.asdict(view)
    data.update(joined=view.joined, answered=view.answered,
                build_ms=round((time.perf_counter() - started) * 1000, 2))
    for name in ("class_total", "electra_total", "electra_round"):
        data[name] = getattr(view, name).as_dict()
    return data


def class_results(code: str, teacher_key: str) -> dict:
    """The class's results, for its teacher once it is at its results (or has ended): per sentence and per fake
    the class's catches beside ELECTRA's, each student's totals by nickname, round B's edits (the page offers
    them as CSV and JSON). Nicknames and typed words are escaped against spreadsheet formulas."""
    pair = class_pair(code)
    return _class_call(lambda: results.class_results(pair, code, teacher_key))
