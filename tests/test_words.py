"""training.words: one alignment of characters, words and tokens; pieces and punctuation told apart; the bundled
pair's two cases that showed glued and "##" words (the fisherman at seed 9122, "##hini" at seed 488); the game's and
the class's fakes keep to the kind of the token they replace, and stand for a whole word, never a piece of one."""

from __future__ import annotations

import re

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explainer.core.pipeline import Settings, explain, explain_many
from explainer.lesson import beat_electra as game
from training import words
from training.objectives import selected_count

FISHERMAN = "The old fisherman repaired his boat before the storm arrived."  # Explore's default sentence


@pytest.mark.parametrize("text, expected", [
    ("The storm arrived.", ["The", "storm", "arrived", "."]),
    ("The chef's well-known café", ["The", "chef's", "well-known", "café"]),
    ("It costs 3.50, or 1,000 at 9:30!", ["It", "costs", "3.50", ",", "or", "1,000", "at", "9:30", "!"]),
    ('"Really?!" she said', ['"', "Really", '?!"', "she", "said"]),
    ("'hello' (world)", ["'", "hello", "'", "(", "world", ")"]),
    ("Wait...   what", ["Wait", "...", "what"]),
    ("I 🍕 pizza", ["I", "🍕", "pizza"]),
    ("cafe\u0301 na\u00efve", ["cafe\u0301", "na\u00efve"]),
    ("don't stop", ["don't", "stop"]),
])
def test_words_are_cut_where_punctuation_meets_letters(wordpiece, text, expected):
    aligned = words.align(wordpiece, text, 128)
    assert [w.text for w in aligned.words] == expected
    assert all(text[w.start:w.end] == w.text for w in aligned.words)
    assert [w.punctuation for w in aligned.words] == [words.is_punctuation(t) for t in expected]
    # every token of the text is in exactly one word, in order
    assert [p for w in aligned.words for p in w.tokens] == [i for i, k in enumerate(aligned.kinds) if k != "special"]


@pytest.mark.parametrize("text, expected", [
    ("It costs $3.50, €5 or £1,000.", ["It", "costs", "$3.50", ",", "€5", "or", "£1,000", "."]),
    ("In the U.S., e.g. at 9 a.m.", ["In", "the", "U.S.", ",", "e.g.", "at", "9", "a.m."]),
    ("She lives in the U.S.", ["She", "lives", "in", "the", "U.S."]),  # the initialism keeps its last point
    ("Dr. Lee arrived.", ["Dr.", "Lee", "arrived", "."]),  # a listed abbreviation keeps its point
    ("Gen. Lee arrived.", ["Gen", ".", "Lee", "arrived", "."]),  # ... one not in the list does not
    ("Up 10% to -3 or .5 (-2)", ["Up", "10%", "to", "-3", "or", ".5", "(", "-2", ")"]),
    ("See https://example.com/a?b=1.", ["See", "https://example.com/a?b=1", "."]),
    ("Mail ann.lee@example.org, or www.example.com (example.com/page)!",
     ["Mail", "ann.lee@example.org", ",", "or", "www.example.com", "(", "example.com/page", ")!"]),
    ("#tag @user C++ C# R&D AT&T", ["#tag", "@user", "C++", "C#", "R&D", "AT&T"]),
    ("rock 'n' roll in the '90s", ["rock", "'n'", "roll", "in", "the", "'90s"]),
    ("9:30am, the 21st, 50/50 and 3-5", ["9:30am", ",", "the", "21st", ",", "50/50", "and", "3-5"]),
    ("U.S.-based (#tag) x-3 R & D", ["U.S.-based", "(", "#tag", ")", "x-3", "R", "&", "D"]),
    ("The U.S.'s 10%off U.S.$3.50 US$5", ["The", "U.S.'s", "10%", "off", "U.S.", "$3.50", "US", "$5"]),
    ("in the U.S.[MASK] at x.com/[MASK]", ["in", "the", "U.S.", "[MASK]", "at", "x.com/", "[MASK]"]),
])
def test_shapes_people_read_as_one_word(wordpiece, text, expected):
    aligned = words.align(wordpiece, text, 128)
    assert [w.text for w in aligned.words] == expected
    assert all(text[w.start:w.end] == w.text for w in aligned.words)
    assert [p for w in aligned.words for p in w.tokens] == [i for i, k in enumerate(aligned.kinds) if k != "special"]
    assert not any(w.punctuation for w in aligned.words if any(c.isalnum() for c in w.text))
    # the tokens keep their kinds: "$3.50" is still "$", "3", ".", "50" to the model
    money = next((w for w in aligned.words if w.text.startswith("$")), None)
    if money is not None:
        assert aligned.kinds[money.tokens[0]] == words.PUNCTUATION and len(money.tokens) > 1


@pytest.mark.parametrize("text, expected", [
    ("I met Dr. Smith.", ["I", "met", "Dr.", "Smith", "."]),  # the sentence's own point stays apart
    ("Eggs, milk, etc.", ["Eggs", ",", "milk", ",", "etc."]),  # ... or doubles as the abbreviation's at the end
    ("Her Ph.D. and M.Sc. from St. Andrews", ["Her", "Ph.D.", "and", "M.Sc.", "from", "St.", "Andrews"]),
    ("Room No. 5 on Jan. 5, not in Jan.", ["Room", "No.", "5", "on", "Jan.", "5", ",", "not", "in", "Jan", "."]),
    ("I said no. Then May. Then No.", ["I", "said", "no", ".", "Then", "May", ".", "Then", "No", "."]),
    ("Lee et al. (vs. Acme Inc.'s)", ["Lee", "et", "al.", "(", "vs.", "Acme", "Inc.'s", ")"]),
    ("Etc. Cf. DR. dr. al. Dr.Lee", ["Etc.", "Cf.", "DR", ".", "dr", ".", "al", ".", "Dr", ".", "Lee"]),
])
def test_common_abbreviations_are_one_word_with_their_point(wordpiece, text, expected):
    aligned = words.align(wordpiece, text, 128)
    assert [w.text for w in aligned.words] == expected
    assert [p for w in aligned.words for p in w.tokens] == [i for i, k in enumerate(aligned.kinds) if k != "special"]
    for word in aligned.words:  # the model still reads the point as a token of its own: "dr" "."
        if word.text.endswith(".") and len(word.text) > 1:
            assert aligned.kinds[word.tokens[0]] == words.WORD and aligned.kinds[word.tokens[-1]] == words.PUNCTUATION


def test_glued_spans_are_found_on_the_text():
    text = "Go to https://example.com/a?b=1. Ask ann@x.org about $3.50 in the U.S. (10%)."
    assert [text[a:b] for a, b in words.glued(text)] == [
        "https://example.com/a?b=1", "ann@x.org", "$3.50", "U.S.", "10%"]
    assert words.glued("The storm arrived. A.") == [] and words.glued("Wait... 3.5 x-3 [MASK]") == []
    assert words.glued("Dr. Lee, etc. No. 5 vs. No. Ph.D.") == [(0, 3), (9, 13), (14, 17), (20, 23), (28, 33)]


SHAPES = ["$3.50", "€5", "£1,000", "U.S.", "e.g.", "a.m.", "10%", "-3", ".5", "#tag", "@user", "ann@example.org",
          "https://example.com/a?b=1", "www.example.com", "example.com/page", "R&D", "AT&T", "C++", "'n'", "Dr.",
          "etc.", "vs.", "Ph.D.", "M.Sc."]
AROUND = st.lists(st.tuples(st.sampled_from([*SHAPES, "the", "storm", "3.5", "chef's", "[MASK]"]),
                            st.sampled_from(["", ".", ",", "!", ")", "...", "?!", "-"]),
                            st.sampled_from([" ", "  ", "", "\t"])), min_size=1, max_size=10)


@settings(max_examples=80, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(parts=AROUND)
def test_shapes_stand_as_words_whatever_is_around_them(wordpiece, parts):
    """Generated text of glued shapes, words and marks: every non-space character in exactly one word, tokens in
    order; a shape with space (or the text's edge) before it and a mark then space after it reads as the shape
    then the mark."""
    text, starts = "", []
    for shape, mark, gap in parts:
        starts.append(len(text))
        text += shape + mark + gap
    aligned = words.align(wordpiece, text, 512)
    assert [p for w in aligned.words for p in w.tokens] == [i for i, k in enumerate(aligned.kinds) if k != "special"]
    covered = [i for w in aligned.words for i in range(w.start, w.end)]
    assert covered == sorted(set(covered)) == [i for i, c in enumerate(text) if not c.isspace()]
    assert all(text[w.start:w.end] == w.text for w in aligned.words)
    by_start = {w.start: n for n, w in enumerate(aligned.words)}
    for n, ((shape, mark, gap), start) in enumerate(zip(parts, starts)):
        apart_before = n == 0 or parts[n - 1][2] != ""
        if apart_before and (gap or n == len(parts) - 1) and shape in SHAPES:
            found = aligned.words[by_start[start]]
            assert found.text == shape, (text, shape)
            if mark:
                assert aligned.words[found.index + 1].text == mark, (text, mark)


def test_kinds_readable_tokens_and_guesses(wordpiece):
    assert words.piece_prefix(wordpiece) == "##"
    assert [words.kind_of(t) for t in ("##s", "the", ".", "?!", "##", "3")] == [
        words.PIECE, words.WORD, words.PUNCTUATION, words.PUNCTUATION, words.PUNCTUATION, words.WORD]
    assert [words.readable(t) for t in ("##s", "the", "-", "[MASK]")] == ["-s", "the", "-", "[MASK]"]
    assert [words.as_guess(t) for t in ("-s", "-", "car")] == ["-s (an ending)", "-", "car"]
    kinds = words.vocabulary_kinds(wordpiece)
    vocabulary = wordpiece.get_vocab()
    assert kinds[vocabulary["[CLS]"]] == kinds[vocabulary["[MASK]"]] == words.SPECIAL
    assert kinds[vocabulary["."]] == words.PUNCTUATION and kinds[vocabulary["the"]] == words.WORD
    assert all(kinds[i] == words.PIECE for t, i in vocabulary.items() if t.startswith("##") and len(t) > 2)


def test_tokens_in_a_span_and_truncation(wordpiece):
    aligned = words.align(wordpiece, "the storm arrived.", 128)
    arrived = next(w for w in aligned.words if w.text == "arrived")
    assert aligned.tokens_in(arrived.start, arrived.end) == list(arrived.tokens)
    assert aligned.tokens_in(0, 0) == [] and not aligned.truncated
    assert words.align(wordpiece, "word " * 50, 8).truncated


@pytest.fixture(scope="module")
def bundled():
    from explainer.core import models

    return models.load(str(models.BUNDLED))


def _text(markup: str) -> str:
    return re.sub(r"<[^>]+>", "", markup)


def test_the_fisherman_at_seed_9122_keeps_arrived_and_shows_when_apart(bundled):
    from explainer.render import explore as render

    result = explain(bundled, FISHERMAN, Settings(seed=9122))
    assert [(m.original, m.sampled) for m in result.masked] == [("the", "his"), (".", "when")]  # ELECTRA's own draw
    assert [w.text for w in result.words][-3:] == ["storm", "arrived", "."]
    assert [w.corrupted for w in result.words] == ["His", "old", "fisherman", "repaired", "his", "boat", "before",
                                                   "the", "storm", "arrived", "when"]
    when = result.words[-1]
    assert when.replaced and when.p_replaced > 0.95 and result.words[-2].corrupted == "arrived"
    assert not result.words[-2].replaced and result.words[-2].p_replaced < 0.05
    saw = _text(render.generator_input_html(result, merged=True))
    assert saw == "[MASK] old fisherman repaired his boat before the storm arrived[MASK]"
    chips = _text(render.sentence_html(result, merged=True))
    assert "arrivedwhen" not in chips and "when" in chips


@pytest.mark.slow  # an attribution on the bundled pair: about 3 s
def test_a_piece_drawn_for_the_is_written_as_a_piece_everywhere(bundled):
    from explainer.core.attributions import attribute
    from explainer.core.attribution_types import AttributionSettings
    from explainer.render import explore as render
    from explainer.render.guesses import guesses_html

    result = explain(bundled, FISHERMAN, Settings(seed=488))
    first = result.masked[0]
    assert (first.position, first.original, first.sampled) == (1, "the", "-hini")
    assert result.words[0].corrupted == "-hini" and result.words[0].p_replaced > 0.99
    assert result.tokens[1].corrupted == "-hini"
    cards = _text(guesses_html(result))
    assert "drew “-hini (an ending)”" in cards and "##" not in cards
    attribution = attribute(bundled, result, 1, AttributionSettings(method="gradient_x_input"))
    why = _text(render.attribution_html(attribution, result, merged=True))
    assert why.startswith("Why is “-hini” (a piece of a word) (outlined) rated 100% replaced?")
    figure = render.attribution_figure(attribution, result, merged=True)
    assert figure.layout.xaxis.ticktext[0] == "-hini" and "“-hini”" in figure.layout.title.text
    assert "##" not in str(result.to_dict())


@pytest.mark.slow  # 1,400 sentences through the tiny models: 4-15 s on a shared 2-core machine
def test_the_games_fakes_are_whole_words_of_the_kind_they_replace(tiny_pair, tiny_stronger_dir, monkeypatch):
    """200 class sentences x 3 seeds with each generator, as the game and the class draw them: no fake is a piece
    or punctuation standing for a word (nor a word for punctuation), no masked position is a piece of a longer word,
    and as many are masked as Explore masks unless the sentence has fewer words of one token. Explore's own draw
    does put pieces and other kinds there."""
    from explainer.core import generators
    from explainer.core.kinds import token_kinds

    monkeypatch.setenv(generators.FOLDER_ENV, str(tiny_stronger_dir))
    pool = game.load_sentences()
    sentences = [pool[i % len(pool)] for i in range(200)]
    kinds = token_kinds(tiny_pair.tokenizer)

    def counts(requests, whole_words: bool) -> dict[str, int]:
        found = {"other kind": 0, "piece": 0, "inside a word": 0, "masked": 0, "fewer": 0}
        for result in explain_many(tiny_pair, requests):
            size = {t: len(w.tokens) for w in result.words for t in w.tokens}
            alone = sum(n == 1 and kinds[result.original_ids[t]] != words.PIECE for t, n in size.items())
            explore = int(selected_count(torch.tensor(len(size)), 0.15)) or 1  # 15% of the tokens, at least one
            assert len(result.masked) == (min(explore, alone) if whole_words else explore)
            found["fewer"] += len(result.masked) < explore
            for m in result.masked:
                found["masked"] += 1
                found["inside a word"] += size[m.position] > 1
                found["other kind"] += kinds[m.sampled_id] != kinds[result.original_ids[m.position]]
                found["piece"] += m.replaced and kinds[m.sampled_id] == words.PIECE
        return found

    for generator in (generators.ELECTRA, generators.STRONGER):
        played = [(s, game.fake_settings(seed * 1000 + i, generator))
                  for seed in range(3) for i, s in enumerate(sentences)]
        found = counts(played, whole_words=True)
        assert (found["other kind"], found["piece"], found["inside a word"]) == (0, 0, 0), (generator, found)
        assert found["masked"] > 1800 and found["fewer"] == 0, found  # every game sentence has enough whole words
    # A tiny random generator draws any kind, anywhere: the limits are what hold above.
    explore = counts([(s, Settings(seed=i)) for i, s in enumerate(sentences)], whole_words=False)
    assert explore["other kind"] > 50 and explore["piece"] > 20 and explore["inside a word"] > 100, explore


WINDOWSILL = "The cat sleeps on the warm windowsill all afternoon."  # a game sentence; "w ##ind ##ow ##s ##ill" here


def test_the_game_never_masks_a_piece_of_a_longer_word(tiny_pair):
    """The tiny pair reads "windowsill" as five pieces: over 40 seeds the game masks none of them (Explore masks
    them often), and masks as many tokens as Explore does with the same seed."""
    from explainer.core.kinds import standing_alone

    aligned = words.align(tiny_pair.tokenizer, WINDOWSILL, 128)
    sill = next(w for w in aligned.words if w.text == "windowsill")
    assert len(sill.tokens) == 5 and not standing_alone(aligned.kinds, aligned.words)[list(sill.tokens)].any()
    seeds = range(40)
    played = explain_many(tiny_pair, [(WINDOWSILL, game.fake_settings(seed)) for seed in seeds])
    explored = explain_many(tiny_pair, [(WINDOWSILL, Settings(seed=seed)) for seed in seeds])
    assert not any(m.position in sill.tokens for result in played for m in result.masked)
    assert sum(any(m.position in sill.tokens for m in result.masked) for result in explored) > 10
    assert [len(r.masked) for r in played] == [len(r.masked) for r in explored]
    assert all(not r.notices for r in played)
    shown = [game._item(r).words for r in played if any(m.replaced for m in r.masked)]
    assert shown and all(len(s) == len(aligned.words) and s[6] == "windowsill" for s in shown)


def test_a_sentence_with_too_few_whole_words_masks_fewer(tiny_pair):
    """Every word here is several pieces but the full stop: the game masks only the stop, says so, and a round on it
    still plays (nothing to find is not an error)."""
    text = "fisherman windowsill repaired."
    result = explain(tiny_pair, text, game.fake_settings(3))
    assert [m.original for m in result.masked] == ["."]
    assert result.notices == ("1 masked, not 2: too few words of one token here.",)
    assert len(explain(tiny_pair, text, Settings(seed=3)).masked) == 2
    item, = game.spot_round(tiny_pair, 3, 1, (text,), in_order=True)
    assert item.originals == ("fisherman", "windowsill", "repaired", ".") and sum(item.replaced) <= 1


def test_a_word_of_several_tokens_is_masked_whole_and_ticked_once(tiny_pair):
    """Explore's manual mode blanks every token of "U.S." (as of "fisherman"), the chips and the game's tick boxes
    hold one per word, and the game never masks a token inside "$3.50" or "U.S."."""
    from explainer.render import explore as render

    text = "She paid $3.50 in the U.S. today."
    assert game.fool_words(tiny_pair, text) == ("She", "paid", "$3.50", "in", "the", "U.S.", "today", ".")
    result = explain(tiny_pair, text, Settings(mode="manual", mask_words=(5,)))
    us, money = result.words[5], result.words[2]
    assert len(us.tokens) == 4 and sorted(m.position for m in result.masked) == list(us.tokens)
    assert _text(render.generator_input_html(result, merged=True)) == "She paid $3.50 in the [MASK] today."
    assert [original for _, original, *_ in render.sentence_units(result, merged=True)] == list(
        game.fool_words(tiny_pair, text))
    played = explain_many(tiny_pair, [(text, game.fake_settings(seed)) for seed in range(8)])
    inside = set(us.tokens) | set(money.tokens)
    assert all(r.masked for r in played) and not any(m.position in inside for r in played for m in r.masked)
    assert all(game._item(r).originals == game.fool_words(tiny_pair, text) for r in played)  # one tick box a word


def test_an_abbreviation_is_one_tick_box_and_the_game_never_masks_it(tiny_pair):
    """"Dr." is one word: one chip and one tick box, ticking it blanks both its tokens, and the game never masks it
    (a fake there would read glued to its point)."""
    from explainer.render import explore as render

    text = "Dr. Lee met Mrs. Smith, etc."
    assert game.fool_words(tiny_pair, text) == ("Dr.", "Lee", "met", "Mrs.", "Smith", ",", "etc.")
    result = explain(tiny_pair, text, Settings(mode="manual", mask_words=(0,)))
    dr = result.words[0]
    assert len(dr.tokens) == 2 and sorted(m.position for m in result.masked) == list(dr.tokens)
    assert _text(render.generator_input_html(result, merged=True)) == "[MASK] Lee met Mrs. Smith, etc."
    inside = {p for w in result.words if w.text.endswith(".") for p in w.tokens}
    played = explain_many(tiny_pair, [(text, game.fake_settings(seed)) for seed in range(8)])
    assert all(r.masked for r in played) and not any(m.position in inside for r in played for m in r.masked)


@pytest.mark.parametrize("shown, line", [
    (["The", "bakery", ",", "at", "six", "."], "The bakery, at six."),
    (['"', "Really", '?!"', "she", "said", "(", "softly", ")"], '"Really?!" she said (softly)'),
    (["It", "costs", "$", "3", "%", ".", "chef's", '"', "ok", '"'], 'It costs $3%. chef\'s "ok"'),
    ([], ""),
])
def test_a_rounds_words_read_as_a_line(shown, line):
    assert words.joined(shown) == line
