"""The Classroom game on the tiny seeded pair: seeded rounds, scoring against the truth (a draw of the
original is original), round B's verdicts, the views (escaped, readable without colour) and the handlers."""

from __future__ import annotations

import dataclasses

import pytest

from explainer.lesson import beat_electra as game
from explainer.render import beat_electra as view

SENTENCES = ("The cat sat on the warm mat by the door.", "A small dog ran across the busy road today.",
             "We cooked rice and beans for the whole family.", "She read the letter twice before she answered.")


@pytest.fixture(scope="module")
def items(tiny_pair):
    return game.spot_round(tiny_pair, 5, 3, SENTENCES)


def test_the_same_code_gives_the_same_round_and_every_sentence_has_a_fake(tiny_pair, items):
    again = game.spot_round(tiny_pair, 5, 3, SENTENCES)
    assert [i.words for i in items] == [i.words for i in again]
    assert [i.replaced for i in items] == [i.replaced for i in again]
    other = game.spot_round(tiny_pair, 6, 3, SENTENCES)
    assert [i.words for i in other] != [i.words for i in items]
    for item in items:
        assert any(item.replaced) and len(item.words) == len(item.originals) == len(item.p_replaced)
        assert all(w != o for w, o, r in zip(item.words, item.originals, item.replaced) if r)
        assert not any(r and d for r, d in zip(item.replaced, item.drawn_back))


@pytest.mark.parametrize("code, message", [(-1, "from 0 to"), (2.5, "from 0 to"), ("x", "whole number"),
                                           (None, "whole number")])
def test_a_bad_seed_is_refused(tiny_pair, code, message):
    with pytest.raises(ValueError, match=message):
        game.spot_round(tiny_pair, code, 3, SENTENCES)
    assert game.check_seed("12") == 12


@pytest.mark.parametrize("code, text, seed", [
    (42, "42", 42), ("42", "42", 42), (" 007 ", "7", 7), (3.0, "3", 3), ("１２", "12", 12),  # a number is its own seed
    ("FFT-V8X", "FFT-V8X", 960026355), ("fft v8x", "fft v8x", 960026355), ("FFTV8X", "FFTV8X", 960026355),
    ("Mrs  Smith's class!", "Mrs Smith's class!", game.round_code("mrssmithsclass").seed),
])
def test_a_round_code_is_a_number_or_any_word(code, text, seed):
    """Numbers keep their old rounds; a word is hashed the same way on every server (the seed is pinned)."""
    assert game.round_code(code) == game.RoundCode(text, seed)


@pytest.mark.parametrize("code, message", [
    ("-5", "A round code that is a number is a whole number from 0 to 999,999,999, not '-5'."),
    (10**9, "from 0 to 999,999,999, not 1000000000."), (2.5, "not 2.5."),
    ("", "Type a round code: a number or a word, such as 7 or FFT-V8X."), (" -- ", "Type a round code"),
    ("x" * 41, "A round code has at most 40 characters, not 41."), ("x" * 10**6, "at most 40 characters"),
    (True, "A round code is a number or a word, not True."), (None, "not None."), ([1], "not [1]."),
])
def test_a_bad_round_code_says_what_a_code_is(code, message):
    with pytest.raises(ValueError) as caught:
        game.round_code(code)
    assert message in str(caught.value)


def test_scores_count_catches_misses_and_false_alarms_for_both_players(items):
    item = items[0]
    fakes = [i for i, r in enumerate(item.replaced) if r]
    originals = [i for i, r in enumerate(item.replaced) if not r]
    perfect = game.score_spot(item, fakes)
    assert perfect.student == game.Score(len(fakes), 0, 0) and perfect.fooled_student == ()
    everything = game.score_spot(item, range(len(item.words)))
    assert everything.student.points == len(fakes) - len(originals)
    assert everything.student.false_alarms == len(originals)
    nothing = game.score_spot(item, [])
    assert nothing.student == game.Score(0, len(fakes), 0)
    flagged = item.flagged
    assert nothing.electra == game.Score(sum(r and f for r, f in zip(item.replaced, flagged)),
                                         sum(r and not f for r, f in zip(item.replaced, flagged)),
                                         sum(f and not r for r, f in zip(item.replaced, flagged)))
    with pytest.raises(ValueError, match="points at no word"):
        game.score_spot(item, [len(item.words)])
    you, electra = game.round_score([perfect, nothing])
    assert you == game.Score(len(fakes), len(fakes), 0) and electra == perfect.electra + nothing.electra


def test_a_drawn_back_word_counts_as_original_for_everyone(items):
    item = items[0]
    back = dataclasses.replace(item, replaced=(False,) * len(item.words), drawn_back=(True,) + item.drawn_back[1:])
    result = game.score_spot(back, [0])
    assert result.student == game.Score(0, 0, 1)  # ticking it is a false alarm: nothing was there to catch
    html = view.spot_reveal_html(back, result, [0])
    assert "drawn back ↺" in html and "counts as <b>original</b> (label 0)" in html


def test_round_b_reports_the_verdict_on_the_edited_word(tiny_pair):
    result = game.fool(tiny_pair, SENTENCES[0], 1, "dog", True)
    assert result.edited == "The dog sat on the warm mat by the door." and result.original_word == "cat"
    assert result.explanation.settings.mode == "detect" and result.explanation.words[result.word_index].text == "dog"
    assert result.flagged == (result.p_edited > 0.5) and result.student_right == result.flagged
    assert result.fooled == (not result.flagged)
    for bad, message in (("", "one word"), ("two words", "one word"), ("cat", "already there")):
        with pytest.raises(ValueError, match=message):
            game.fool(tiny_pair, SENTENCES[0], 1, bad, True)
    with pytest.raises(ValueError, match="Choose the word"):
        game.fool(tiny_pair, SENTENCES[0], 99, "dog", True)


def test_the_views_escape_and_mark_without_colour(items, tiny_pair):
    item = dataclasses.replace(items[0], words=("<script>x</script>",) + items[0].words[1:])
    result = game.score_spot(item, [0])
    html = view.spot_reveal_html(item, result, [0])
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "☑" in html and "✗ fake" in html and "was “" in html  # symbols and words, not colour alone
    sentence = view.spot_sentence_html(item, 0, 3)
    assert "Sentence 1 of 3" in sentence and "&lt;script&gt;" in sentence
    you, electra = game.round_score([result])
    end = view.round_html(you, electra, 1, 1, 5, [result])
    assert "Round over" in end and "round code 5" in end
    assert "round code &lt;b&gt;" in view.round_html(you, electra, 1, 1, "<b>", [result])
    fool = game.fool(tiny_pair, SENTENCES[1], 2, "<b>big</b>", False)
    assert "&lt;b&gt;big&lt;/b&gt;" in view.fool_html(fool, 1, int(fool.fooled), int(fool.student_right))


def test_the_handlers_play_a_round_to_the_end(tiny_pair_dir, monkeypatch):
    from explainer.core import models
    from explainer.ui import beat_electra as ui

    monkeypatch.setattr(game, "load_sentences", lambda: SENTENCES)
    model = str(tiny_pair_dir)
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", model)
    models.clear_cache() if hasattr(models, "clear_cache") else None
    started = ui.start_round(3, 3, model)
    state = started["state"]
    assert state.code == "3" and "Sentence 1 of 3" in started["sentence"] and started["ticks"]["choices"]
    for index in range(3):
        shown = ui.reveal(state, [0])
        state = shown["state"]
        assert "the truth" in shown["revealed"] and shown["next_button"]["interactive"] == (index < 2)
        assert "revealed" not in ui.reveal(state, [0])  # a second reveal of one sentence scores nothing
        if index < 2:
            following = ui.next_sentence(state)
            state = following["state"]
            assert f"Sentence {index + 2} of 3" in following["sentence"] and state.index == index + 1
    assert "Round over" in shown["score"] and len(state.results) == 3 and state.picks == ((0,),) * 3
    assert ui.next_sentence(state) == {"next_button": ui.gr.update(interactive=False)}  # the round is over
    bad = ui.start_round(-4, 3, model)
    assert bad["state"] is None and "from 0 to" in bad["sentence"]
    assert "?game=3" in ui.class_link(3) and "Type a round code" in ui.class_link(" - ")
    worded = ui.start_round("fft-v8x", 3, model)["state"]  # a live class's code typed here: a round, not an error
    assert worded.code == "fft-v8x" and worded.items == ui.start_round("FFT V8X", 3, model)["state"].items


def test_round_b_keeps_its_tally_by_name(tiny_pair, monkeypatch):
    from explainer.ui import beat_electra as ui

    monkeypatch.setattr(ui.api, "load_pair", lambda name: tiny_pair)
    assert ui.fool_try(SENTENCES[0], None, "dog", True, "tiny", ui.Tally()) == {
        "fooled": ui.style.message_html("Choose the word to change.")}  # no try counted
    first = ui.fool_try(SENTENCES[0], 1, "dog", True, "tiny", ui.Tally())
    result = game.fool(tiny_pair, SENTENCES[0], 1, "dog", True)
    assert first["tally"] == ui.Tally(1, int(result.fooled), int(result.student_right))
    second = ui.fool_try(SENTENCES[0], 1, "dog", True, "tiny", first["tally"])
    assert second["tally"].tries == 2 and "Choose" not in second["fooled"]
    assert ui.fool_sentence("x", "tiny")["fool_text"] in game.load_sentences()  # any word is a round code
    refused = ui.fool_sentence("-1", "tiny")
    assert "whole number" in refused["fooled"] and "fool_text" not in refused  # the sentence box keeps its text


def test_a_handler_that_changes_nothing_skips_every_output():
    from types import SimpleNamespace

    from explainer.ui import beat_electra as ui
    from explainer.ui.named import named

    c = SimpleNamespace(revealed="revealed-box", score="score-box")
    assert named(lambda: {}, c)() == ui.gr.skip()  # gradio would read {} as one value
    assert named(lambda: {"score": "3"}, c)() == {"score-box": "3"}


def test_a_worded_round_code_goes_into_the_class_link_and_back():
    from types import SimpleNamespace
    from urllib.parse import parse_qs, urlsplit

    from explainer.ui import beat_electra as ui

    shown = ui.class_link("FFT V8X & co", "stronger", "http://127.0.0.1:7860/?tab=classroom")
    link = shown.split("<code>")[1].split("</code>")[0].replace("&amp;", "&")
    assert link == "http://127.0.0.1:7860/?game=FFT%20V8X%20%26%20co&level=harder"
    assert "round code <b>FFT V8X &amp; co</b>" in shown
    params = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}  # as the page reads its address
    opened = ui.code_from_link(SimpleNamespace(query_params=params))
    assert (opened["code"], opened["level"]) == ("FFT V8X & co", "stronger")
    assert "Round code <b>FFT V8X &amp; co</b> from your link" in opened["link_note"]
    assert "round code was not used: A round code that is a number" in ui.code_from_link(
        SimpleNamespace(query_params={"game": "-5"}))["link_note"]
