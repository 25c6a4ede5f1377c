"""Scores a teacher can explain, on the tiny seeded pair: every number on the projector says what it counts, a
false alarm that costs ELECTRA points is shown where it costs them, round B counts in the results (by a rule they
state), every verdict follows the one 50% line, a class of the teacher's own sentences says how many it plays, and
the game shows its score once."""

from __future__ import annotations

import dataclasses
import re

import pytest

from explainer.core.live_class.store import ClassStore
from explainer.lesson import beat_electra as game
from explainer.lesson.live_class import results as class_results
from explainer.lesson.live_class import session
from explainer.lesson.live_class.match import RULE_B, match
from explainer.render.live_class import card, projector
from explainer.render import beat_electra as game_view
from explainer.render.style import FLAG_STYLE, verdict_pct

SEED, N = 7, 3


@pytest.fixture
def revealed(tiny_pair, tmp_path):
    """A class of two students at the reveal of sentence 1: one ticked every word, one ticked nothing."""
    store = ClassStore(tmp_path)
    start = session.create_class(tiny_pair, N, SEED, store=store)
    students = [session.join_class(start.code, name, store=store) for name in ("Ana", "Bo")]
    session.move_class(start.code, start.teacher_key, "round_a", store=store)
    items = session.class_items(tiny_pair, start.code, store=store)
    for k, item in enumerate(items):
        session.submit_spot(tiny_pair, start.code, students[0].student_id, k, list(range(len(item.words))), store=store)
        session.submit_spot(tiny_pair, start.code, students[1].student_id, k, [], store=store)
    session.move_class(start.code, start.teacher_key, "reveal", 0, store=store)
    return store, start, students, items


def test_the_reveal_shows_every_false_alarm_where_it_costs_points(tiny_pair, revealed):
    store, start, _, items = revealed
    view = session.teacher_view_data(tiny_pair, start.code, start.view_token, store=store)
    item, s = items[0], view.sentences[0]
    flagged_originals = [j for j, fake in enumerate(item.replaced) if not fake and item.flagged[j]]
    originals = [j for j, fake in enumerate(item.replaced) if not fake]
    assert flagged_originals, "the tiny pair flags some original word of this sentence"
    # ELECTRA's flagged originals first, then those only Ana ticked (she ticked every word): each original once
    assert [a.word_index for a in s.alarms] == flagged_originals + [j for j in originals if j not in flagged_originals]
    assert all(a.ticked_by == 1 for a in s.alarms)
    assert s.electra.false_alarms == len(flagged_originals)
    assert s.electra_on_answers == s.electra.points * 2 == (s.electra.caught - len(flagged_originals)) * 2
    assert s.class_score.false_alarms == len(originals)

    html = projector.room_html(view, "http://10.0.0.5:7860/class?class=X", full=True)
    alarm_rows = re.findall(r'<tr class="ee-alarm"><td>(.*?)<sup>⚑</sup></td>.*?</tr>', html)
    assert alarm_rows == [item.words[j] for j in flagged_originals[:projector.ALARMS_SHOWN]]
    assert html.count("⚑ false alarm (") == len(alarm_rows)
    rest = len(flagged_originals) - projector.ALARMS_SHOWN
    assert (f"and {rest} more ⚑ false alarm{'s' if rest != 1 else ''}: " in html) == (rest > 0)
    sentence = re.search(r'id="class-revealed">(.*?)</p>', html).group(1)
    assert sentence.count("<sup>⚑</sup>") == len(flagged_originals)  # every false alarm marked where it is
    assert "This sentence" in html and "ELECTRA on the same answers" in html and "The class, 2 answers" in html
    e = s.electra
    alarms = ("no false alarm" if e.false_alarms == 0
              else f"−{e.false_alarms} false alarm{'' if e.false_alarms == 1 else 's'}")
    assert f"its +{e.caught} caught, {alarms}: {e.points:+d} × 2 answers" in html
    big = r'">.*?<span class="ee-big">'
    assert re.search(f'id="electra-sentence-points{big}{re.escape(f"{s.electra_on_answers:+d}")}</span>', html)
    assert re.search(f'id="class-sentence-points{big}{re.escape(f"{s.class_score.points:+d}")}</span>', html)
    assert (f"<b>The class so far</b> (sentence 1): {view.class_total.points:+d} against ELECTRA's "
            f"{view.electra_total.points:+d}") in html


def test_round_b_counts_in_the_results_and_the_results_say_how(tiny_pair, revealed):
    store, start, students, _ = revealed
    for stage in (("round_b", 0),):
        session.move_class(start.code, start.teacher_key, *stage, store=store)
    outcomes = [session.submit_fool(tiny_pair, start.code, st.student_id, 0, 1, word, False, store=store)
                for st, word in zip(students, ("dog", "table"))]
    session.move_class(start.code, start.teacher_key, "results", store=store)
    view = session.teacher_view_data(tiny_pair, start.code, start.view_token, store=store)
    fooled = sum(o.fooled for o in outcomes)
    assert all(o.fooled == (o.p_edited <= game.THRESHOLD) for o in outcomes)  # fooled: not above the 50% line
    m = match(view)
    assert (m.class_a, m.electra_a, m.class_b, m.electra_b) == (view.class_total.points, view.electra_total.points,
                                                                fooled, 2 - fooled)
    assert m.class_points == view.class_total.points + fooled
    html = projector.room_html(view, "x", full=True)
    assert f'id="class-total">{m.class_points:+d}<' in html and f'id="electra-total">{m.electra_points:+d}<' in html
    assert f"Round B: {fooled} of 2 edits fooled ELECTRA" in html and RULE_B in html
    record = class_results.class_results(tiny_pair, start.code, start.teacher_key, store=store)
    assert record["match"]["total"] == {"class": m.class_points, "electra": m.electra_points}
    assert "class_match" in class_results.results_csv(record)

    # A level round A and two edits that fooled ELECTRA: the class wins, as a teacher who watched round B expects
    level = dataclasses.replace(view, class_total=game.Score(1, 0, 0), electra_total=game.Score(1, 0, 0), fool_tries=2,
                                fool_fooled=2)
    assert (match(level).winner, match(level).class_points, match(level).electra_points) == ("class", 3, 1)
    assert "The class beat ELECTRA!" in projector.room_html(level, "x", full=True)
    flagged_both = dataclasses.replace(level, fool_fooled=0)
    assert match(flagged_both).winner == "electra"


def test_every_verdict_and_its_label_follow_the_one_50_percent_line(tiny_pair):
    assert [verdict_pct(p) for p in (0.5, 0.5004, 0.500001, 0.4996, 0.55)] == ["50%", "50.04%", "just over 50%",
                                                                               "50%", "55%"]
    result = game.fool(tiny_pair, "The river flooded the old town after three days of rain.", 1, "lake", True)
    html = game_view.fool_html(result, 1, int(result.fooled), int(result.student_right))
    chips = re.findall(r'<bdi style="([^"]*)">(.*?)</bdi>', html)
    assert [FLAG_STYLE in style for style, _ in chips] == [w.p_replaced > 0.5 for w in result.explanation.words]
    assert result.fooled == (not result.flagged) == (result.p_edited <= 0.5)


def test_a_class_of_fewer_own_sentences_says_how_many_it_plays(tiny_pair, tmp_path):
    own = ["The river flooded the old town after rain.", "She opened the door and walked into the room.",
           "We planted tomatoes in the garden last spring."]
    start = session.create_class(tiny_pair, 5, SEED, sentences=own, store=ClassStore(tmp_path))
    assert start.n_sentences == 3
    note = card.plays_note_html(start.n_sentences, 5)
    assert "this class plays 3 sentences per round (your 3), not the 5 chosen" in note
    assert card.plays_note_html(5, 5) == ""


def test_the_game_shows_its_score_once_after_a_reveal(tiny_pair_dir, tiny_pair, monkeypatch):
    from explainer.ui import beat_electra as game_ui

    monkeypatch.setattr(game_ui.api, "load_pair", lambda name: tiny_pair)
    state = game_ui.start_round(1, 3, str(tiny_pair_dir))["state"]
    shown = game_ui.reveal(state, [0])
    state, reveal_html, score_html = shown["state"], shown["revealed"], shown["score"]
    result = state.results[0]
    both = reveal_html + score_html
    assert both.count("false alarms") == 2  # "You: caught..." and "ELECTRA: caught...", once each
    assert "This sentence:" not in reveal_html
    assert (f"Sentence 1: <span style=\"color:#2166ac\">●</span> you <b>{result.student.points:+d}</b>"
            in score_html) and "The round so far" in score_html
    phone = game_view.spot_reveal_html(state.items[0], result, [0])  # a live class's phone: its one score line
    assert phone.count("false alarms") == 2 and "This sentence:" in phone
