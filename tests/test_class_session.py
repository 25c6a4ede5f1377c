"""A live class session on the tiny seeded pair (explainer/lesson/live_class/session.py): the class plays the
seeded game's round, the server scores the picks, replays change nothing, the teacher key stays with the
teacher, the teacher's aggregates are the sums of the students' stored results, and nothing anyone is sent
names a fake before the reveal."""

from __future__ import annotations

import types

import pytest

from explainer.core.live_class.store import ClassStore
from explainer.lesson.live_class import session
from explainer.lesson import beat_electra as game

SEED, N = 7, 3


@pytest.fixture
def store(tmp_path):
    return ClassStore(tmp_path)


@pytest.fixture
def started(tiny_pair, store):
    return session.create_class(tiny_pair, N, SEED, store=store)


def move(store, started, *stages) -> None:
    """The teacher moves the class through `stages`: "round_a", "reveal:1", ..."""
    for stage in stages:
        phase, _, sentence = stage.partition(":")
        session.move_class(started.code, started.teacher_key, phase, int(sentence or 0), store=store)


def fakes_and_originals(item: game.SpotItem) -> tuple[list[int], list[int]]:
    return [i for i, r in enumerate(item.replaced) if r], [i for i, r in enumerate(item.replaced) if not r]


def test_a_class_plays_the_seeded_round_and_students_see_no_truth_and_no_key(tiny_pair, store, started):
    assert (started.seed, started.n_sentences, started.model) == (SEED, N, tiny_pair.name)
    assert started.student_params == {"class": started.code}
    assert started.view_params == {"class": started.code, "view": started.view_token}
    assert started.teacher_key not in repr(started.view_params)
    student = session.join_class(started.code.lower(), "Ana", store=store)
    lobby = session.student_round(tiny_pair, started.code, student.student_id, store=store)
    assert lobby.phase == "lobby" and lobby.sentences == () and lobby.fool_sentences == ()  # nothing to read ahead
    move(store, started, "round_a")
    view = session.student_round(tiny_pair, started.code, student.student_id, store=store)
    expected = game.spot_round(tiny_pair, SEED, N)
    assert view.sentences == tuple(item.words for item in expected) and view.display_name == "Ana"
    assert view.fool_sentences == ()  # round B's sentences are round A's as written: they would show the fakes
    assert view.answered_a == view.answered_b == () and view.revealed == ()
    move(store, started, "reveal:0", "round_b")
    assert session.student_round(tiny_pair, started.code, student.student_id, store=store).fool_sentences == tuple(
        item.explanation.text for item in expected)
    for public in (student, view, store.get_class(started.code)):
        assert started.teacher_key not in repr(public)
    assert "replaced" not in repr(view) and "p_replaced" not in repr(view)
    assert session.class_items(tiny_pair, started.code, store=store) is session.class_items(tiny_pair, started.code,
                                                                                          store=store)  # cached
    other = session.create_class(tiny_pair, N, store=store)
    assert 0 <= other.seed < game.MAX_SEED and other.code != started.code and other.teacher_key != started.teacher_key
    with pytest.raises(ValueError, match="plays with the model"):
        session.class_items(types.SimpleNamespace(name="another/model"), started.code, store=store)
    for n in (0, game.MAX_SENTENCES + 1, "3", True):
        with pytest.raises(ValueError, match="A round has 1 to"):
            session.create_class(tiny_pair, n, store=store)
    with pytest.raises(ValueError, match="whole number"):
        session.create_class(tiny_pair, N, -1, store=store)


def test_round_a_is_scored_on_the_server_once(tiny_pair, store, started):
    items = session.class_items(tiny_pair, started.code, store=store)
    student = session.join_class(started.code, store=store).student_id
    fakes, originals = fakes_and_originals(items[0])
    picks = [fakes[0], *originals[:1], fakes[0]]  # one catch, one false alarm, a repeat
    with pytest.raises(ValueError, match="has not started yet"):
        session.submit_spot(tiny_pair, started.code, student, 0, picks, store=store)
    move(store, started, "round_a")
    outcome = session.submit_spot(tiny_pair, started.code, student, 0, picks, store=store)
    assert outcome.new and outcome.picks == tuple(sorted({fakes[0], *originals[:1]}))
    assert set(vars(outcome)) == {"code", "sentence_index", "picks", "new"}  # stored; nothing of the truth yet
    stored = store.find(started.code, student, "A", 0)
    assert game.SpotResult(**{k: v if k in ("student", "electra") else tuple(v) for k, v in {
        "student": game.Score(**stored.result["student"]), "electra": game.Score(**stored.result["electra"]),
        "fooled_student": stored.result["fooled_student"], "fooled_electra": stored.result["fooled_electra"]}.items()}
    ) == game.score_spot(items[0], picks)
    assert game.Score(**stored.result["student"]) == game.Score(1, len(fakes) - 1, 1)
    assert stored.result["caught"] == [fakes[0]] and stored.result["false_alarms"] == originals[:1]
    assert stored.result["missed"] == fakes[1:]
    replay = session.submit_spot(tiny_pair, started.code, student, 0, fakes, store=store)  # a better answer, too late
    assert not replay.new and replay.picks == outcome.picks
    assert len(store.submissions(started.code)) == 1
    assert session.student_round(tiny_pair, started.code, student, store=store).answered_a == (0,)
    n_words = len(items[1].words)
    for picks, message in (("1,2", "must be a list"), ({1: 2}, "must be a list"), ([True], "word's number"),
                           ([1.0], "word's number"), ([n_words], "points at no word"), ([-1], "points at no word"),
                           (list(range(10_000)), "Too many picks")):
        with pytest.raises(ValueError, match=message) as error:
            session.submit_spot(tiny_pair, started.code, student, 1, picks, store=store)
        assert len(str(error.value)) < 120
    for index in (N, -1, "0"):
        with pytest.raises(ValueError, match=f"numbered 0 to {N - 1}"):
            session.submit_spot(tiny_pair, started.code, student, index, [], store=store)
    with pytest.raises(ValueError, match="No class has the code") as error:
        session.submit_spot(tiny_pair, "Z" * 10_000, student, 0, [], store=store)
    assert len(str(error.value)) < 160
    assert len(store.submissions(started.code)) == 1


def test_round_b_stores_the_edit_and_the_verdict_once(tiny_pair, store, started):
    student = session.join_class(started.code, store=store).student_id
    sentence = session.fool_sentences(session.class_items(tiny_pair, started.code, store=store))[0]
    move(store, started, "round_a")
    with pytest.raises(ValueError, match="Round B is not open yet"):
        session.submit_fool(tiny_pair, started.code, student, 0, 1, "blue", True, store=store)
    move(store, started, "reveal:0", "round_b")
    expected = game.fool(tiny_pair, sentence, 1, "blue", True)
    outcome = session.submit_fool(tiny_pair, started.code, student, 0, 1, " blue ", True, store=store)
    assert outcome.new and outcome.explanation is not None and outcome.sentence == sentence
    assert (outcome.edited, outcome.original_word, outcome.new_word, outcome.flagged, outcome.fooled,
            outcome.student_right) == (expected.edited, expected.original_word, "blue", expected.flagged,
                                       expected.fooled, expected.student_right)
    assert outcome.p_edited == pytest.approx(expected.p_edited)
    replay = session.submit_fool(tiny_pair, started.code, student, 0, 2, "green", False, store=store)
    assert not replay.new and replay.explanation is None and replay.new_word == "blue" and replay.bet is True
    assert store.find(started.code, student, "B", 0).answer == {"word_index": 1, "new_word": "blue", "bet": True}
    for args, message in (((None, "dog", True), "Choose the word"), ((1, "dog", "yes"), "Your bet"),
                          ((1, "shit", True), "another word"), ((1, "two words", True), "one word"),
                          ((1, "x" * 10_000, True), "at most 40"), ((99, "dog", True), "Choose the word"),
                          ((1, "<img/src=x>", True), "one word"), ((1, "", True), "one word")):
        with pytest.raises(ValueError, match=message) as error:
            session.submit_fool(tiny_pair, started.code, student, 1, *args, store=store)
        assert len(str(error.value)) < 120
    assert len(store.submissions(started.code, "B")) == 1


def test_the_teacher_sees_aggregates_that_are_the_sums_of_the_stored_results(tiny_pair, store, started):
    items = session.class_items(tiny_pair, started.code, store=store)
    ana, bo, cy, late = (session.join_class(started.code, name, store=store) for name in ("Ana", "Bo", None, "Di"))
    plays = {ana: [fakes_and_originals(item)[0] for item in items],  # every fake, every sentence
             bo: [fakes_and_originals(items[0])[0][:1], list(range(len(items[1].words)))],  # two sentences
             cy: [[]]}  # ticked nothing
    move(store, started, "round_a")
    for student, picks in plays.items():
        for i, p in enumerate(picks):
            session.submit_spot(tiny_pair, started.code, student.student_id, i, p, store=store)
    move(store, started, *(f"reveal:{i}" for i in range(N)), "round_b")
    edits = [(ana, 0, 1, "blue"), (bo, 0, 1, "Blue"), (cy, 0, 1, "dog"), (ana, 1, 2, "cat")]
    fools = [session.submit_fool(tiny_pair, started.code, s.student_id, i, w, word, False, store=store)
             for s, i, w, word in edits]
    view = session.teacher_view_data(tiny_pair, started.code, started.teacher_key, store=store)

    stored = store.submissions(started.code, "A")
    own = [game.Score(**s.result["student"]) for s in stored]
    assert view.class_total == sum(own, game.Score(0, 0, 0))
    assert view.class_total == sum((game.score_spot(items[i], p).student for ps in plays.values()
                                    for i, p in enumerate(ps)), game.Score(0, 0, 0))
    assert view.electra_total == sum((game.Score(**s.result["electra"]) for s in stored), game.Score(0, 0, 0))
    electra = [game.score_spot(item, []).electra for item in items]
    assert view.electra_total == electra[0] + electra[0] + electra[0] + electra[1] + electra[1] + electra[2]
    assert view.electra_round == electra[0] + electra[1] + electra[2]
    assert [s.class_score for s in view.sentences] == [
        sum((game.Score(**s.result["student"]) for s in stored if s.sentence_index == i), game.Score(0, 0, 0))
        for i in range(N)]

    assert (view.joined, view.answered) == (4, 3) and view.code == started.code and view.n_sentences == N
    assert [(r.number, r.name, r.answered_a, r.answered_b) for r in view.roster] == [
        (1, "Ana", 3, 2), (2, "Bo", 2, 1), (3, "Student 3", 1, 1), (4, "Di", 0, 0)]
    assert [r.points for r in view.roster] == [
        sum(game.score_spot(items[i], p).student.points for i, p in enumerate(plays[s])) if s in plays else 0
        for s in (ana, bo, cy, late)]
    first = view.sentences[0]
    fakes0 = fakes_and_originals(items[0])[0]
    assert first.answered == 3 and [f.word_index for f in first.fakes] == fakes0
    assert [f.caught_by for f in first.fakes] == [2] + [1] * (len(fakes0) - 1)  # Ana all, Bo the first, Cy none
    assert all(f.share == f.caught_by / 3 and f.electra_flagged == items[0].flagged[f.word_index] for f in first.fakes)
    assert [f.word for f in first.fakes] == [items[0].words[j] for j in fakes0]
    assert view.sentences[2].answered == 1 and all(f.share == 1.0 for f in view.sentences[2].fakes)
    shares = [f.share for f in view.most_fooling]
    assert shares == sorted(shares)
    assert len(view.most_fooling) == min(session.TOP, sum(len(s.fakes) for s in view.sentences))
    assert view.most_fooling[0].share == min(f.share for s in view.sentences for f in s.fakes)

    assert (view.fool_tries, view.fool_fooled, view.fool_bets_right) == (
        4, sum(f.fooled for f in fools), sum(f.student_right for f in fools))
    expected = {}
    for f in fools:
        key = (f.sentence_index, f.original_word, f.new_word.casefold())
        tries, fooled = expected.get(key, (0, 0))
        expected[key] = (tries + 1, fooled + f.fooled)
    assert {(e.sentence_index, e.original_word, e.new_word.casefold()): (e.tries, e.fooled)
            for e in view.best_edits} == {k: v for k, v in expected.items() if v[1]}
    assert [e.fooled for e in view.best_edits] == sorted((e.fooled for e in view.best_edits), reverse=True)
    if fools[0].fooled == fools[1].fooled:  # "blue" and "Blue" are one edit
        assert (0, fools[0].original_word, "blue") in expected and expected[(0, fools[0].original_word, "blue")][0] == 2

    shown = repr(view)
    assert started.teacher_key not in shown and not any(s.student_id in shown for s in (ana, bo, cy, late))
    for wrong in ("", "nope", None, "x" * 10_000):
        with pytest.raises(ValueError, match="^Wrong key for this class's view.$"):
            session.teacher_view_data(tiny_pair, started.code, wrong, store=store)


def test_classes_do_not_mix(tiny_pair, store, started):
    other = session.create_class(tiny_pair, N, SEED, store=store)  # the same round, another class
    move(store, started, "round_a")
    move(store, other, "round_a")
    ana = session.join_class(started.code, "Ana", store=store).student_id
    session.submit_spot(tiny_pair, started.code, ana, 0, [0], store=store)
    with pytest.raises(ValueError, match="does not know you"):
        session.submit_spot(tiny_pair, other.code, ana, 0, [0], store=store)
    with pytest.raises(ValueError, match="Wrong key for this class's view"):
        session.teacher_view_data(tiny_pair, other.code, started.teacher_key, store=store)
    view = session.teacher_view_data(tiny_pair, other.code, other.teacher_key, store=store)
    assert view.roster == () and view.class_total == game.Score(0, 0, 0) and view.fool_tries == 0
    assert view.electra_total == game.Score(0, 0, 0) and view.most_fooling == () and view.best_edits == ()


def test_nothing_anyone_reads_names_a_fake_before_the_reveal_and_each_sentence_after_it(tiny_pair, store, started):
    items = session.class_items(tiny_pair, started.code, store=store)
    ana, bo = (session.join_class(started.code, name, store=store) for name in ("Ana", "Bo"))

    def everything() -> tuple[session.StudentRound, session.TeacherView, session.TeacherView]:
        return (session.student_round(tiny_pair, started.code, ana.student_id, store=store),
                session.teacher_view_data(tiny_pair, started.code, started.view_token, store=store),
                session.teacher_view_data(tiny_pair, started.code, started.teacher_key, store=store))

    def truth_in(value) -> bool:  # a fake's original word, ELECTRA's P, or a verdict field, anywhere in it
        text = repr(value)
        shown = {word for item in items for word in item.words}  # a "." that stands in a sentence names no fake
        return (any(f"'{item.originals[j]}'" in text for item in items for j, r in enumerate(item.replaced)
                    if r and item.originals[j] not in shown)
                or "FakeStats" in text or "SpotItem" in text or "p_replaced" in text)

    for stage in ("lobby", "round_a"):
        if stage == "round_a":
            move(store, started, "round_a")
            for k, item in enumerate(items):
                session.submit_spot(tiny_pair, started.code, ana.student_id, k, fakes_and_originals(item)[0],
                                    store=store)
            session.submit_spot(tiny_pair, started.code, bo.student_id, 0, [0], store=store)
        mine, projector, teacher = everything()
        assert not truth_in(mine) and not truth_in(projector) and not truth_in(teacher)
        assert projector.class_total == teacher.electra_total == game.Score(0, 0, 0) and projector.sentences == ()
        assert {r.points for r in projector.roster} == {0} and mine.points == 0 and not projector.teacher
    assert projector.progress == (2, 1, 1) and [r.answered_a for r in projector.roster] == [N, 1]
    for k in range(N):
        move(store, started, f"reveal:{k}")
        mine, projector, teacher = everything()
        assert [s.index for s in projector.sentences] == list(range(k + 1)) and teacher.sentences == projector.sentences
        assert [r.sentence_index for r in mine.revealed] == list(range(k + 1)) and mine.fool_sentences == ()
        assert mine.points == sum(len(fakes_and_originals(item)[0]) for item in items[:k + 1])  # every fake caught
    with pytest.raises(ValueError, match="Round A is not open"):
        session.submit_spot(tiny_pair, started.code, bo.student_id, 1, [], store=store)
    with pytest.raises(ValueError, match="Wrong key for this class's view"):
        session.teacher_view_data(tiny_pair, started.code, ana.student_id, store=store)
    with pytest.raises(ValueError, match="Wrong teacher key"):
        session.move_class(started.code, started.view_token, "round_b", store=store)
    with pytest.raises(ValueError, match="The reveal shows a sentence numbered from 0 to 2"):
        session.move_class(started.code, started.teacher_key, "reveal", N, store=store)


def test_the_round_tables_stay_bounded_when_rounds_fail_and_when_many_classes_play(tiny_pair, store, monkeypatch):
    """A server up for a week: a round whose computation fails leaves no lock behind, and the cache of rounds
    holds at most CACHED_ROUNDS however many classes have played (counts of entries, not memory)."""
    monkeypatch.setattr(session, "_rounds", type(session._rounds)())
    monkeypatch.setattr(session, "_computing", {})
    monkeypatch.setattr(session, "CACHED_ROUNDS", 3)
    monkeypatch.setattr(game, "spot_round", lambda pair, seed, *args, **kwargs: (seed,))
    codes = [session.create_class(tiny_pair, 1, seed, store=store).code for seed in range(8)]

    def broken(*args, **kwargs):
        raise RuntimeError("the models are gone")

    session._rounds.clear()
    with monkeypatch.context() as m:
        m.setattr(game, "spot_round", broken)
        for code in codes:
            with pytest.raises(RuntimeError, match="the models are gone"):
                session.class_items(tiny_pair, code, store=store)
    assert session._computing == {} and len(session._rounds) == 0
    assert [session.class_items(tiny_pair, code, store=store) for code in codes] == [(seed,) for seed in range(8)]
    assert session._computing == {} and list(session._rounds) == [
        (tiny_pair.name, seed, 1, (), "electra") for seed in (5, 6, 7)]
