"""Can you beat ELECTRA? Students do the discriminator's job, on the same sentences, and compare scores.

- Round A, *spot the fakes* (`spot_round`, `score_spot`, `round_score`): the bundled generator corrupts
  a sentence the models never saw (assets/game_sentences.json) as Explore does (15% of the
  tokens masked, one draw each from the generator's softmax); the student ticks the words they think
  were replaced; the reveal shows the truth beside the discriminator's verdict (P(replaced) > 50%),
  and scores both the same way: caught, missed, false alarms. A position where the generator drew the
  original word back is *original* (label 0), as in ELECTRA's training: nothing there to catch.
- Round B, *fool the discriminator* (`fool`): the student changes one word of a sentence and predicts
  whether the discriminator will flag it; the discriminator reads the edited sentence as it is
  (detect-only mode) and gives every word its P(replaced).

Every fake is a whole word in place of a whole word, one a student can judge: only tokens that are a word by
themselves or a punctuation mark are masked (never a piece of a longer word, which a fake would be glued to), and the
generator draws from its own softmax renormalised over the fair fakes for the original (`fake_settings`,
explainer.core.kinds): an English word for a word (training.lexicon: never "st", "tv", "b" or "bbc"), a number for a
number, punctuation for punctuation. Explore masks any token and draws from the whole vocabulary as ELECTRA does.
The harder level: a stronger generator forges round A's fakes (`spot_round(..., generator="stronger")`,
explainer.core.generators); the same discriminator judges them.

Everything is seeded: the same seed (and generator) gives the same sentences and the same corruptions, so a whole
class plays the same round. Nothing is stored: a round is a value the page keeps. No gradio here.
"""

from __future__ import annotations

import hashlib
import random
import re
import unicodedata
from dataclasses import dataclass

from explainer.core import generators
from explainer.core.user_text import quote
from explainer.core.pipeline import Explanation, Settings, explain, sentence_words
from explainer.core.text import TYPED_BLANK, InputError
from training.project import ASSETS
from training.sentences import read_sentences

SENTENCES_FILE = ASSETS / "game_sentences.json"
THRESHOLD = 0.5  # the discriminator "flags" a word when P(replaced) > 50%
ROUND_SENTENCES = 5
MAX_SENTENCES = 10
MAX_SEED = 10**9  # a seed (a live class's, or a game's round code): a whole number people can read out


def load_sentences(path=SENTENCES_FILE) -> tuple[str, ...]:
    return tuple(read_sentences(path))


def check_seed(seed) -> int:
    """A seed as an int, or ValueError with a message for people (a live class's seed; a round code's number)."""
    try:
        value = int(seed)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"The class code must be a whole number, not {quote(seed)}.") from None
    if not 0 <= value < MAX_SEED or value != seed and not isinstance(seed, str):
        raise ValueError(f"The class code must be a whole number from 0 to {MAX_SEED - 1}.")
    return value


MAX_CODE = 40  # characters of a round code
_NUMBER = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True)
class RoundCode:
    """What a class types to share one round of the single-browser game, and the seed it stands for."""

    text: str  # as people read it: "42", "FFT-V8X"
    seed: int  # the round's seed: the number itself, or the text's hash


def round_code(code) -> RoundCode:
    """A round code -> its seed, or ValueError with a message for people. A whole number from 0 to MAX_SEED - 1 is
    its own seed, as it always was (old links and numbers give the same sentences); any other text (a word, a live
    class's code such as FFT-V8X) is hashed (sha256, so every server and Python agrees), after NFKC, case folding and
    dropping all but letters and digits: "fft-v8x", "FFT V8X" and "FFTV8X" are one round."""
    if isinstance(code, bool) or not isinstance(code, (int, float, str)):
        raise ValueError(f"A round code is a number or a word, not {quote(code)}.")
    # NFKC: a full-width "１２" is 12; a long text is cut first, then refused by its length below
    text = " ".join(unicodedata.normalize("NFKC", code[:MAX_CODE * 4]).split()) if isinstance(code, str) else code
    if not isinstance(text, str) or _NUMBER.fullmatch(text):
        try:
            seed = check_seed(text)
        except ValueError:
            raise ValueError(f"A round code that is a number is a whole number from 0 to {MAX_SEED - 1:,}, not "
                             f"{quote(code)}.") from None
        return RoundCode(str(seed), seed)
    if len(text) > MAX_CODE:
        raise ValueError(f"A round code has at most {MAX_CODE} characters, not {len(text):,}.")
    key = "".join(c for c in text.casefold() if c.isalnum())
    if not key:
        raise ValueError("Type a round code: a number or a word, such as 7 or FFT-V8X.")
    digest = hashlib.sha256(f"electra-round:{key}".encode()).digest()
    return RoundCode(text, int.from_bytes(digest[:8], "big") % MAX_SEED)


@dataclass(frozen=True)
class SpotItem:
    """One sentence of round A: what the student sees, and what the reveal shows."""

    explanation: Explanation
    words: tuple[str, ...]  # as the discriminator (and the student) read them
    originals: tuple[str, ...]  # the words before the generator's swap
    replaced: tuple[bool, ...]  # the truth per word: the generator changed it
    drawn_back: tuple[bool, ...]  # masked, but the generator drew the original back (label 0)
    p_replaced: tuple[float, ...]  # the discriminator's P(replaced) per word (its most suspicious piece)

    @property
    def flagged(self) -> tuple[bool, ...]:
        return tuple(p > THRESHOLD for p in self.p_replaced)


def _item(explanation: Explanation) -> SpotItem:
    words = explanation.words
    return SpotItem(explanation, tuple(w.corrupted for w in words), tuple(w.text for w in words),
                    tuple(bool(w.replaced) for w in words), tuple(w.masked and not w.replaced for w in words),
                    tuple(w.p_replaced for w in words))


FAKES_RULE = ("Every fake is a whole word in place of a whole word: an English word for a word, a number for a number, "
              "punctuation for punctuation, drawn from the generator's own probabilities for those alone (rescaled to "
              "add up to 100%).")


def fake_settings(seed: int, generator: str = generators.ELECTRA) -> Settings:
    """How round A corrupts a sentence: as many tokens as Explore's automatic 15%, chosen among those that are a whole
    word by themselves or a punctuation mark (fewer if a sentence has too few), each fake a real sample from the
    generator's softmax renormalised over the fakes a student can judge in its place (an English word for a word, a
    number for a number, punctuation for punctuation; explainer.core.kinds) or the original drawn back."""
    return Settings(seed=seed, generator=generator, same_kind=True, whole_words=True)


LEVELS = {generators.ELECTRA: "Normal: ELECTRA's generator forges the fakes",
          generators.STRONGER: "Harder: a stronger generator forges the fakes"}


def spot_round(pair, seed: int, n: int = ROUND_SENTENCES, sentences: tuple[str, ...] | None = None,
               in_order: bool = False, *, generator: str = generators.ELECTRA) -> tuple[SpotItem, ...]:
    """`n` sentences, each corrupted by `generator` (`pair`'s own by default); the same seed, the same round. A
    corruption that changed no word is drawn again (seeded), so every sentence has something to find. `in_order`:
    the first n of `sentences` as given (a teacher's own), not a seeded draw from them."""
    generator = generators.check(generator)
    seed = check_seed(seed)
    if not 1 <= int(n) <= MAX_SENTENCES:
        raise ValueError(f"A round has 1 to {MAX_SENTENCES} sentences.")
    pool = sentences or load_sentences()
    chosen = list(pool[:int(n)]) if in_order and sentences else random.Random(seed).sample(pool, min(int(n), len(pool)))
    items = []
    for i, sentence in enumerate(chosen):
        for attempt in range(20):
            explanation = explain(pair, sentence, fake_settings(seed * 1000 + i * 37 + attempt, generator))
            if any(w.replaced for w in explanation.words):
                break
        items.append(_item(explanation))
    return tuple(items)


@dataclass(frozen=True)
class Score:
    caught: int  # replaced words flagged
    missed: int  # replaced words not flagged
    false_alarms: int  # original words flagged

    @property
    def points(self) -> int:
        """One point per catch, minus one per false alarm: ticking every word costs more than it earns."""
        return self.caught - self.false_alarms

    def as_dict(self) -> dict[str, int]:
        """The counts and the points, as the API and the results files give them."""
        return {"caught": self.caught, "missed": self.missed, "false_alarms": self.false_alarms, "points": self.points}

    def __add__(self, other: Score) -> Score:
        return Score(self.caught + other.caught, self.missed + other.missed, self.false_alarms + other.false_alarms)


def _score(truth: tuple[bool, ...], flagged) -> Score:
    return Score(sum(t and f for t, f in zip(truth, flagged)), sum(t and not f for t, f in zip(truth, flagged)),
                 sum(f and not t for t, f in zip(truth, flagged)))


@dataclass(frozen=True)
class SpotResult:
    student: Score
    electra: Score
    fooled_student: tuple[str, ...]  # replaced words the student missed
    fooled_electra: tuple[str, ...]  # replaced words the discriminator missed


def score_spot(item: SpotItem, picked) -> SpotResult:
    """The student's picks (word indices) and the discriminator's flags, scored against the truth."""
    picked = {int(i) for i in (picked or ())}
    if any(not 0 <= i < len(item.words) for i in picked):
        raise ValueError("A pick points at no word of this sentence.")
    mine = tuple(i in picked for i in range(len(item.words)))
    return SpotResult(
        _score(item.replaced, mine), _score(item.replaced, item.flagged),
        tuple(item.words[i] for i, r in enumerate(item.replaced) if r and not mine[i]),
        tuple(item.words[i] for i, r in enumerate(item.replaced) if r and not item.flagged[i]))


def round_score(results: list[SpotResult]) -> tuple[Score, Score]:
    """(the student's, the discriminator's) totals over the sentences scored so far."""
    student, electra = Score(0, 0, 0), Score(0, 0, 0)
    for result in results:
        student, electra = student + result.student, electra + result.electra
    return student, electra


@dataclass(frozen=True)
class FoolResult:
    explanation: Explanation  # the discriminator on the edited sentence, detect-only
    edited: str
    word_index: int
    original_word: str
    new_word: str
    p_edited: float  # P(replaced) of the edited word
    flagged: bool
    bet: bool
    student_right: bool
    fooled: bool  # the discriminator did not flag the student's word


def fool_words(pair, sentence: str) -> tuple[str, ...]:
    """The words of `sentence` as round B numbers them (`fool`'s `word_index`)."""
    _, words = sentence_words(pair, sentence)
    return tuple(w.text for w in words)


def fool(pair, sentence: str, word_index: int, new_word: str, bet: bool) -> FoolResult:
    """Replace word `word_index` of `sentence` by `new_word` and let the discriminator judge the result."""
    new_word = (new_word or "").strip()
    if not new_word or len(new_word.split()) != 1:
        raise InputError("Type one word to put in.")
    if TYPED_BLANK.search(new_word):
        raise InputError("Type a word, not a blank: the discriminator judges words someone wrote.")
    encoded, words = sentence_words(pair, sentence)
    if not 0 <= int(word_index) < len(words):
        raise InputError("Choose the word to change.")
    word = words[int(word_index)]
    original = word.text
    if new_word.lower() == original.lower():
        raise InputError(f"“{new_word}” is the word already there: type a different one.")
    edited = encoded.text[:word.start] + new_word + encoded.text[word.end:]
    explanation = explain(pair, edited, Settings(mode="detect"))
    start = word.start
    target = next((w for w in explanation.words if w.start == start), None)
    if target is None:  # the new word split differently: the word that starts where it was put
        target = min(explanation.words, key=lambda w: abs(w.start - start))
    p = target.p_replaced
    flagged = p > THRESHOLD
    return FoolResult(explanation, edited, target.index, original, new_word, p, flagged, bool(bet),
                      bool(bet) == flagged, not flagged)
