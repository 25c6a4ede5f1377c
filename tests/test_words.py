"""training.words: one alignment of characters, words and tokens; pieces and punctuation told apart; the bundled
pair's two cases that showed glued and "##" words (the fisherman at seed 9122, "##hini" at seed 488); the game's and
the class's fakes keep to the kind of the token they replace."""

from __future__ import annotations

import re

import pytest

from explainer.core.pipeline import Settings, explain, explain_many
from explainer.lesson import game
from training import words

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
def test_the_games_fakes_keep_the_kind_they_replace(tiny_pair, tiny_stronger_dir, monkeypatch):
    """200 class sentences x 3 seeds with each generator, as the game and the class draw them: no fake is a piece
    or punctuation standing for a word (nor a word for punctuation); Explore's own draw does put some there."""
    from explainer.core import generators
    from explainer.core.kinds import token_kinds

    monkeypatch.setenv(generators.FOLDER_ENV, str(tiny_stronger_dir))
    pool = game.load_sentences()
    sentences = [pool[i % len(pool)] for i in range(200)]
    kinds = token_kinds(tiny_pair.tokenizer)

    def mismatches(requests) -> int:
        return sum(kinds[m.sampled_id] != kinds[result.original_ids[m.position]]
                   for result in explain_many(tiny_pair, requests) for m in result.masked)

    for generator in (generators.ELECTRA, generators.STRONGER):
        played = [(s, game.fake_settings(seed * 1000 + i, generator)) for seed in range(3) for i, s in enumerate(sentences)]
        assert mismatches(played) == 0, generator
    # A tiny random generator draws any kind: the limit is what holds above.
    assert mismatches([(s, Settings(seed=i)) for i, s in enumerate(sentences)]) > 50


@pytest.mark.parametrize("shown, line", [
    (["The", "bakery", ",", "at", "six", "."], "The bakery, at six."),
    (['"', "Really", '?!"', "she", "said", "(", "softly", ")"], '"Really?!" she said (softly)'),
    (["It", "costs", "$", "3", "%", ".", "chef's", '"', "ok", '"'], 'It costs $3%. chef\'s "ok"'),
    ([], ""),
])
def test_a_rounds_words_read_as_a_line(shown, line):
    assert words.joined(shown) == line
