"""The teacher's view of a live class: who joined and answered; per fake word, the share of students who caught
it beside ELECTRA's verdict; the fakes that fooled the most; the class's total against ELECTRA's on the same
answers (sums of the stored results); round B's edits that fooled ELECTRA most often.

A pure function of the class, its round and its stored answers: explainer/lesson/live_class/session.py checks
the key and reads the store (`teacher_view_data`), the projector draws the result
(explainer/render/live_class/projector.py).
Before the reveal nothing here names a fake: only how many answered.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from explainer.core.live_class.records import ClassInfo, Student, Submission
from explainer.lesson import beat_electra as game

TOP = 5  # fakes that fooled the most students, shown to the teacher
TOP_EDITS = 10


@dataclass(frozen=True)
class FakeStats:
    sentence_index: int
    word_index: int
    word: str  # the fake, as students read it
    original: str
    caught_by: int  # students who ticked it
    answered: int  # students who answered this sentence
    electra_flagged: bool
    electra_p: float

    @property
    def share(self) -> float | None:
        return self.caught_by / self.answered if self.answered else None


@dataclass(frozen=True)
class AlarmStats:
    """An original word of a revealed sentence that ELECTRA flagged or a student ticked: a false alarm, which costs
    whoever raised it a point (ELECTRA: on each answer it is compared with)."""

    word_index: int
    word: str
    ticked_by: int  # students who ticked it
    electra_flagged: bool
    electra_p: float


@dataclass(frozen=True)
class SentenceStats:
    index: int
    words: tuple[str, ...]
    answered: int
    fakes: tuple[FakeStats, ...]
    class_score: game.Score  # the sum of the stored results of the students who answered it
    electra: game.Score  # ELECTRA on this sentence, once
    alarms: tuple[AlarmStats, ...] = ()  # the original words ELECTRA flagged first, then those students ticked

    @property
    def electra_on_answers(self) -> int:
        """ELECTRA's points on this sentence counted once per answer, as the class's are: comparable to the class."""
        return self.electra.points * self.answered


@dataclass(frozen=True)
class RosterEntry:
    number: int
    name: str  # the nickname (plain text: escape it) or "Student N"
    answered_a: int
    answered_b: int
    points: int


@dataclass(frozen=True)
class EditStats:
    sentence_index: int
    original_word: str
    new_word: str
    tries: int
    fooled: int


@dataclass(frozen=True)
class TeacherView:
    """What the projector shows in the class's current phase; no teacher key, no student ids. Before the reveal
    `sentences`, `most_fooling`, the scores and the roster's points are empty or zero: only `progress` counts."""

    code: str
    n_sentences: int
    model: str
    expires: float
    phase: str  # explainer/core/live_class/phases.py
    reveal: int  # in the reveal, the sentence shown (from 0)
    teacher: bool  # read with the teacher key (False: the projector's view-only token)
    progress: tuple[int, ...]  # students who answered each sentence of round A
    roster: tuple[RosterEntry, ...]
    sentences: tuple[SentenceStats, ...]  # the revealed sentences only, with their fakes
    most_fooling: tuple[FakeStats, ...]  # of the revealed fakes, those the fewest students caught (answered ones)
    class_total: game.Score  # every stored round-A answer to a revealed sentence, summed
    electra_total: game.Score  # ELECTRA on the same answers (its score on each answered sentence, per answer)
    electra_round: game.Score  # ELECTRA on each revealed sentence once
    fool_tries: int
    fool_fooled: int  # edits ELECTRA did not flag
    fool_bets_right: int
    best_edits: tuple[EditStats, ...]  # the edits that fooled ELECTRA most often
    generator: str = "electra"  # who forged round A's fakes (explainer.core.generators)
    locked: bool = False  # the teacher has locked the class: nobody new joins

    @property
    def joined(self) -> int:
        return len(self.roster)

    @property
    def answered(self) -> int:
        """Students with at least one answer in round A."""
        return sum(1 for entry in self.roster if entry.answered_a)


def _total(scores) -> game.Score:
    return sum((game.Score(**score) for score in scores), game.Score(0, 0, 0))


def teacher_view(info: ClassInfo, teacher: bool, items: tuple[game.SpotItem, ...], answers: tuple[Submission, ...],
                 students: tuple[Student, ...]) -> TeacherView:
    """The class's aggregates as its phase lets them be shown: `answers` are all the class's stored answers,
    `students` everyone who joined; `teacher` says whether the teacher key (not the view token) asked."""
    shown = info.stage.revealed(info.n_sentences)
    progress = tuple(sum(1 for s in answers if s.round == "A" and s.sentence_index == i)
                     for i in range(info.n_sentences))
    spots = [s for s in answers if s.round == "A" and s.sentence_index < shown]  # the truth of the revealed ones only
    fools = [s for s in answers if s.round == "B"]  # none before round B: it opens after the reveal
    count_a = Counter(s.student_id for s in answers if s.round == "A")  # how many, not how well: safe before the reveal
    count_b = Counter(s.student_id for s in fools)
    points = Counter()
    for s in spots:
        points[s.student_id] += game.Score(**s.result["student"]).points
    roster = tuple(RosterEntry(st.number, st.display_name, count_a[st.student_id], count_b[st.student_id],
                               points[st.student_id]) for st in students)
    sentences = []
    for i, item in enumerate(items[:shown]):
        here = [s for s in spots if s.sentence_index == i]
        fakes = tuple(FakeStats(i, j, item.words[j], item.originals[j], sum(j in s.result["caught"] for s in here),
                                len(here), item.flagged[j], item.p_replaced[j])
                      for j, fake in enumerate(item.replaced) if fake)
        ticked = Counter(j for s in here for j in s.result["false_alarms"])
        alarms = sorted((AlarmStats(j, item.words[j], ticked[j], item.flagged[j], item.p_replaced[j])
                         for j, fake in enumerate(item.replaced) if not fake and (item.flagged[j] or ticked[j])),
                        key=lambda a: (not a.electra_flagged, -a.ticked_by, a.word_index))
        sentences.append(SentenceStats(i, item.words, len(here), fakes, _total(s.result["student"] for s in here),
                                       game.score_spot(item, ()).electra, tuple(alarms)))
    most_fooling = sorted((f for s in sentences for f in s.fakes if f.answered),
                          key=lambda f: (f.share, -f.answered, f.sentence_index, f.word_index))[:TOP]
    edits: dict[tuple[int, str, str], list] = {}
    for s in fools:
        key = (s.sentence_index, s.result["original_word"], s.result["new_word"].casefold())
        entry = edits.setdefault(key, [s.result["new_word"], 0, 0])
        entry[1] += 1
        entry[2] += bool(s.result["fooled"])
    best = sorted((EditStats(i, original, word, tries, fooled)
                   for (i, original, _), (word, tries, fooled) in edits.items() if fooled),
                  key=lambda e: (-e.fooled, -e.tries, e.sentence_index, e.new_word))[:TOP_EDITS]
    return TeacherView(info.code, info.n_sentences, info.model, info.expires, info.phase, info.stage.sentence, teacher,
                       progress, roster, tuple(sentences),
                       tuple(most_fooling), _total(s.result["student"] for s in spots),
                       _total(s.result["electra"] for s in spots),
                       sum((s.electra for s in sentences), game.Score(0, 0, 0)),
                       len(fools), sum(bool(s.result["fooled"]) for s in fools),
                       sum(bool(s.result["student_right"]) for s in fools), tuple(best),
                       info.generator, info.locked)
