"""A live class session of "Can you beat ELECTRA?": a teacher starts a class, students join with its code and
play the seeded game's rounds (explainer/lesson/beat_electra.py), the server keeps their answers, the teacher sees
the class's aggregates. Storage: explainer/core/live_class/store.py.

- `create_class`: a random (or given) seed, n sentences, the model played with and the generator that forges
  round A's fakes (ELECTRA's own, or the stronger one: explainer.core.generators); the teacher gets the code, the
  teacher key (`ClassStart`, the only time the key is handed out) and the projector's view-only token.
  `join_class`: the student's id. `move_class`: the teacher moves the class through its phases
  (explainer/core/live_class/phases.py), one stage at a time.
- Round A: `class_items` = `game.spot_round(pair, seed, n)` (or the teacher's own sentences, in their order:
  explainer/lesson/live_class/own_sentences.py), computed once per (model, seed, n, sentences, generator) and
  kept in memory;
  `submit_spot` scores the picks *on the server* (`game.score_spot`): a client never sends a score.
- Round B: sentence i is round A's sentence i as written (`fool_sentences`); `submit_fool` runs `game.fool`
  and stores the edit and the verdict. One answer per student, round and sentence: a replay returns it.
- What a phase shows is decided here, for every caller alike (the projector is public): before the reveal no
  value returned to anyone names a fake, what it replaced, ELECTRA's verdict or a score (a score would tell a
  student which of their picks were fakes); in the reveal, the sentences up to the one shown; then everything.
- `teacher_view_data` (teacher key or view token): who joined and answered; per fake word, the share of students
  who caught it beside ELECTRA's verdict; the fakes that fooled the most; the class's total against ELECTRA's on
  the same answers (sums of the stored results); round B's edits that fooled ELECTRA most often.

No gradio, no plotly: the pages, the QR code and the projector view (drawing `TeacherView`) are elsewhere.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass

from explainer.core import generators
from explainer.core.batching import in_model_thread
from explainer.core.live_class.phases import answer_refusal
from explainer.core.live_class.phases import stage as parse_stage
from explainer.core.live_class.store import ClassInfo, ClassStore, Student
from explainer.core.user_text import clean_text, quote
from explainer.core.pipeline import Explanation
from explainer.lesson import beat_electra as game
from explainer.lesson.live_class.own_sentences import check_sentences
from explainer.lesson.live_class.teacher_view import (  # noqa: F401 (the teacher's view, re-exported for its callers)
    TOP,
    TOP_EDITS,
    EditStats,
    FakeStats,
    RosterEntry,
    SentenceStats,
    TeacherView,
    teacher_view,
)
from training.offensive import hides_offensive

MAX_NEW_WORD = 40  # characters of a round-B word
CACHED_ROUNDS = 32  # rounds kept in memory (model, seed, n)
FOOL_FIELDS = ("edited", "word_index", "original_word", "new_word", "p_edited", "flagged", "student_right", "fooled")

_store: ClassStore | None = None
_store_lock = threading.Lock()
_rounds: OrderedDict[tuple[str, int, int, tuple[str, ...], str], tuple[game.SpotItem, ...]] = OrderedDict()
_rounds_lock = threading.Lock()
_computing: dict[tuple, threading.Lock] = {}  # a lock per round being computed


def default_store() -> ClassStore:
    """The server's store, in $ELECTRA_CLASS_DIR, opened on first use."""
    global _store
    with _store_lock:
        if _store is None:
            _store = ClassStore()
        return _store


def _items(pair, info: ClassInfo) -> tuple[game.SpotItem, ...]:
    if info.model and pair.name != info.model:
        raise ValueError(f"This class plays with the model {quote(info.model, 60)}, not {quote(pair.name, 60)}.")
    key = (info.model or pair.name, info.seed, info.n_sentences, info.sentences, info.generator)
    with _rounds_lock:
        if key in _rounds:
            _rounds.move_to_end(key)
            return _rounds[key]
        computing = _computing.setdefault(key, threading.Lock())
    # One computation per round at a time (a class joining at once waits for one, not thirty); another class's
    # calls never wait for it: the cache's own lock is held for lookups only.
    with computing:
        with _rounds_lock:
            if key in _rounds:
                return _rounds[key]
        try:
            items = in_model_thread(game.spot_round, pair, info.seed, info.n_sentences, info.sentences or None,
                                    in_order=bool(info.sentences), generator=info.generator)
            with _rounds_lock:
                _rounds[key] = items
                if len(_rounds) > CACHED_ROUNDS:
                    _rounds.popitem(last=False)
        finally:  # a round that failed leaves no lock behind either: the table holds rounds being computed only
            with _rounds_lock:
                _computing.pop(key, None)
        return items


@dataclass(frozen=True)
class ClassStart:
    """For the teacher only: `teacher_key` must never reach a student or the projector (the teacher's page keeps it
    in its browser's storage, not in an address)."""

    code: str
    teacher_key: str
    seed: int
    n_sentences: int
    model: str
    expires: float  # seconds since the epoch
    view_token: str  # the projector's: shows the class, moves nothing
    student_params: dict  # the query of the link students open: {"class": code}
    view_params: dict  # the projector's link: {"class": code, "view": view_token}
    generator: str = generators.ELECTRA  # who forges round A's fakes


def create_class(pair, n: int = game.ROUND_SENTENCES, seed: int | None = None, *, sentences=None,
                 store: ClassStore | None = None, generator: str = generators.ELECTRA,
                 visitor: str | None = None) -> ClassStart:
    """A new class playing `n` sentences with `pair` (or, given `sentences`, the teacher's own: a list of texts
    or the pasted box, checked by own_sentences.py; then n is their number), its fakes forged by `generator`; its
    round is computed now, so students need not wait (and a generator that cannot forge for `pair` is refused
    before the class exists). `visitor`: who starts it, for their share of live classes (None: the local user)."""
    own = check_sentences(pair, sentences) if sentences else ()
    n = len(own) if own else n
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= game.MAX_SENTENCES:
        raise ValueError(f"A round has 1 to {game.MAX_SENTENCES} sentences, not {quote(n)}.")
    generator = generators.check(generator)
    seed = secrets.randbelow(game.MAX_SEED) if seed is None else game.check_seed(seed)
    _items(pair, ClassInfo("", seed, n, pair.name, 0.0, 0.0, sentences=own, generator=generator))
    store = store or default_store()
    new = store.create_class(seed, n, pair.name, own, generator, visitor)
    code = new.info.code
    token = store.view_token(code, new.teacher_key)
    return ClassStart(code, new.teacher_key, seed, n, pair.name, new.info.expires, token, {"class": code},
                      {"class": code, "view": token}, generator)


def move_class(code, teacher_key, phase, sentence=0, *, store: ClassStore | None = None) -> ClassInfo:
    """The teacher moves the class to `phase` (and, in the reveal, to `sentence`): only with the teacher key, only
    to the next stage (phases.next_stages); anything else is a ValueError with a short message."""
    store = store or default_store()
    info = store.get_class(code)
    return store.move(info.code, teacher_key, parse_stage(phase, sentence, info.n_sentences))


def _open_for(info: ClassInfo, round_: str) -> None:
    """Refuse early (before any model runs) an answer its round does not take now; the store checks again as
    it writes, so nothing slips in while the teacher moves the class."""
    refusal = answer_refusal(info.stage, round_)
    if refusal:
        raise ValueError(refusal)


def join_class(code, nickname=None, *, store: ClassStore | None = None) -> Student:
    """A student joins (nickname optional, at most 24 characters, filtered); keep `student_id` for the answers."""
    return (store or default_store()).join(code, nickname)


def lock_class(code, teacher_key, locked: bool, *, store: ClassStore | None = None) -> ClassInfo:
    """The teacher locks the class (nobody new joins; those in it play on) or opens it again."""
    if not isinstance(locked, bool):
        raise ValueError(f"locked is true or false, not {quote(locked)}.")
    return (store or default_store()).set_locked(code, teacher_key, locked)


def remove_student(code, teacher_key, number, *, store: ClassStore | None = None) -> Student:
    """The teacher removes student `number` (as the roster numbers them) and their answers."""
    return (store or default_store()).remove_student(code, teacher_key, number)


def class_items(pair, code, *, store: ClassStore | None = None) -> tuple[game.SpotItem, ...]:
    """The class's round A, truth included: for the server (reveals, aggregates), never sent before an answer."""
    return _items(pair, (store or default_store()).get_class(code))


def fool_sentences(items: tuple[game.SpotItem, ...]) -> tuple[str, ...]:
    """Round B's sentences: round A's, as written before the generator's swaps."""
    return tuple(item.explanation.text for item in items)


@dataclass(frozen=True)
class RevealedSpot:
    """A student's own round-A answer to a sentence the teacher has revealed, with the truth."""

    sentence_index: int
    item: game.SpotItem
    picks: tuple[int, ...]
    result: game.SpotResult


@dataclass(frozen=True)
class StudentRound:
    """What a student may see now: the words of round A once it opens (never the truth before the reveal),
    round B's sentences once it opens (they are round A's as written: they would show the fakes), their own
    answers to the revealed sentences, and the points those earned."""

    code: str
    display_name: str
    phase: str  # explainer/core/live_class/phases.py
    reveal: int  # in the reveal, the sentence shown (from 0)
    n_sentences: int
    sentences: tuple[tuple[str, ...], ...]  # () in the lobby
    fool_sentences: tuple[str, ...]  # () before round B
    fool_words: tuple[tuple[str, ...], ...]  # round B's words per sentence, numbered as `submit_fool` takes them
    answered_a: tuple[int, ...]
    answered_b: tuple[int, ...]
    revealed: tuple[RevealedSpot, ...]  # () before the reveal
    points: int  # the student's round-A points on the revealed sentences (0 before the reveal)


def student_round(pair, code, student_id, *, store: ClassStore | None = None) -> StudentRound:
    store = store or default_store()
    student = store.get_student(code, student_id)
    info = store.get_class(student.code)
    stage = info.stage
    mine = store.submissions(student.code, student_id=student.student_id)
    items = _items(pair, info) if stage.phase != "lobby" else ()
    shown = stage.revealed(info.n_sentences)
    texts = fool_sentences(items) if stage.phase in ("round_b", "results", "ended") else ()
    revealed = tuple(RevealedSpot(s.sentence_index, items[s.sentence_index], tuple(s.answer), _spot_result(s.result))
                     for s in sorted(mine, key=lambda s: s.sentence_index)
                     if s.round == "A" and s.sentence_index < shown)
    return StudentRound(student.code, student.display_name, stage.phase, stage.sentence, info.n_sentences,
                        tuple(item.words for item in items), texts,
                        tuple(game.fool_words(pair, text) for text in texts),
                        tuple(sorted(s.sentence_index for s in mine if s.round == "A")),
                        tuple(sorted(s.sentence_index for s in mine if s.round == "B")), revealed,
                        sum(r.result.student.points for r in revealed))


def _spot_result(r: dict) -> game.SpotResult:
    return game.SpotResult(game.Score(**r["student"]), game.Score(**r["electra"]), tuple(r["fooled_student"]),
                           tuple(r["fooled_electra"]))


def check_picks(picks, n_words: int) -> tuple[int, ...]:
    """The word indices a student ticked, sorted, each once; ValueError for anything else."""
    if picks is None:
        return ()
    if not isinstance(picks, (list, tuple)):
        raise ValueError(f"Your picks must be a list of word numbers, not {quote(picks)}.")
    if len(picks) > n_words:
        raise ValueError(f"Too many picks: this sentence has {n_words} words.")
    for pick in picks:
        if isinstance(pick, bool) or not isinstance(pick, int):
            raise ValueError(f"A pick is a word's number, not {quote(pick)}.")
        if not 0 <= pick < n_words:
            raise ValueError(f"A pick points at no word of this sentence: {quote(pick)} (0 to {n_words - 1}).")
    return tuple(sorted(set(picks)))


@dataclass(frozen=True)
class SpotOutcome:
    """What a student gets back for a round-A answer: that it is stored, and nothing of the truth (round A is
    open, so the reveal has not come: the score would tell which picks were fakes)."""

    code: str
    sentence_index: int
    picks: tuple[int, ...]  # as stored
    new: bool  # False: this sentence was answered before; the first answer stands


def submit_spot(pair, code, student_id, sentence_index, picks, *, store: ClassStore | None = None) -> SpotOutcome:
    """Score a student's picks for round A's sentence `sentence_index` and store them, once (round A open only)."""
    store = store or default_store()
    info = store.get_class(code)
    items = _items(pair, info)
    stored = store.find(info.code, student_id, "A", sentence_index)
    if stored is None:
        _open_for(info, "A")
        item = items[sentence_index]
        chosen = check_picks(picks, len(item.words))
        result = game.score_spot(item, chosen)
        record = {"student": asdict(result.student), "electra": asdict(result.electra),
                  "caught": [i for i in chosen if item.replaced[i]],
                  "missed": [i for i, fake in enumerate(item.replaced) if fake and i not in chosen],
                  "false_alarms": [i for i in chosen if not item.replaced[i]],
                  "fooled_student": list(result.fooled_student), "fooled_electra": list(result.fooled_electra)}
        stored = store.submit(info.code, student_id, "A", sentence_index, list(chosen), record)
    return SpotOutcome(info.code, stored.sentence_index, tuple(stored.answer), stored.new)


NO_BET = "Place your bet first: will ELECTRA flag your word, or will it be fooled?"


@dataclass(frozen=True)
class FoolOutcome:
    code: str
    sentence_index: int
    sentence: str
    edited: str
    word_index: int  # in the edited sentence
    original_word: str
    new_word: str
    p_edited: float
    flagged: bool
    bet: bool  # the student's bet: ELECTRA will flag the edit
    student_right: bool
    fooled: bool
    new: bool  # False: answered before; the first answer stands
    explanation: Explanation | None  # the discriminator on the edit; None for a replay (not stored)


def submit_fool(pair, code, student_id, sentence_index, word_index, new_word, bet, *,
                store: ClassStore | None = None) -> FoolOutcome:
    """Round B: put `new_word` at word `word_index` of the class's sentence, judge it, store edit and verdict, once."""
    store = store or default_store()
    info = store.get_class(code)
    sentences = fool_sentences(_items(pair, info))
    stored = store.find(info.code, student_id, "B", sentence_index)
    explanation = None
    if stored is None:
        _open_for(info, "B")
        if isinstance(word_index, bool) or not isinstance(word_index, int):
            raise ValueError("Choose the word to change.")
        if bet is None:  # no bet is not a bet on "fooled": the student says which
            raise ValueError(NO_BET)
        if not isinstance(bet, bool):
            raise ValueError(f"Your bet is true (ELECTRA will flag it) or false, not {quote(bet)}.")
        word = clean_text(new_word, MAX_NEW_WORD, "new word")
        if not re.fullmatch(r"[\w'’.,!?-]+", word):  # what the projector will show: a word, no markup
            raise ValueError("Type one word: letters and digits, with an apostrophe or a hyphen if need be.")
        if hides_offensive(word) or hides_offensive(str(new_word)):  # as shown, and as typed
            raise ValueError("Please choose another word.")
        result = in_model_thread(game.fool, pair, sentences[sentence_index], word_index, word, bet)
        record = {**{field: getattr(result, field) for field in FOOL_FIELDS}, "p_edited": float(result.p_edited)}
        answer = {"word_index": word_index, "new_word": word, "bet": bet}
        stored = store.submit(info.code, student_id, "B", sentence_index, answer, record)
        explanation = result.explanation if stored.new else None
    return FoolOutcome(info.code, stored.sentence_index, sentences[stored.sentence_index],
                       bet=stored.answer.get("bet", stored.answer.get("predicted_flag")),  # older files: predicted_flag
                       new=stored.new, explanation=explanation,
                       **{field: stored.result[field] for field in FOOL_FIELDS})


# --- the teacher's view (explainer/lesson/live_class/teacher_view.py) ------------------------------------------------

def teacher_view_data(pair, code, token, *, store: ClassStore | None = None) -> TeacherView:
    """The class's aggregates as its phase lets them be shown, for the holder of its teacher key or of its
    view-only token (ValueError otherwise)."""
    store = store or default_store()
    info, teacher = store.check_viewer(code, token)
    return teacher_view(info, teacher, _items(pair, info), store.submissions(info.code), store.students(info.code))
