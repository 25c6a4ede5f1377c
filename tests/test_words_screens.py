"""Words as people read them, on every screen (hypothesis): the bundled sentence sets and generated text
(punctuation, digits, capitals, contractions, hyphens, emoji, accents, runs of spaces, amounts, initialisms,
abbreviations, web and email addresses), x seed x every Explore mode
x both generators, on the tiny pair. Checked on every example:
- the chips, read in order, are the sentence's words, each fake in its original's place, none missing or doubled;
- no chip joins two words: an unchanged word shows as typed, a replaced one-token word shows its fake alone;
- "what the generator saw" holds exactly the sentence's words, with [MASK] at each masked word;
- no "##" reaches the page, the API's JSON or the exported card (unless the user typed it);
- the game and the class number a sentence's words as Explore does.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explainer.core import generators
from explainer.core.pipeline import Settings, explain
from explainer.core.text import visible
from explainer.lesson import beat_electra as game
from explainer.render import explore as render
from explainer.render.export import card_html
from explainer.render.guesses import guesses_html
from training.project import ASSETS
from training.words import PIECE_MARK

SETS = [s for name in ("game_sentences", "check_sentences")
        for s in json.loads((ASSETS / f"{name}.json").read_text(encoding="utf-8"))["sentences"]]
SETS += [row["sentence"] for row in json.loads((ASSETS / "everyday_sentences.json").read_text(encoding="utf-8"))]
PARTS = ["the", "The", "storm", "ARRIVED", "chef's", "don't", "well-known", "café", "cafe\u0301", "naïve", "3.5",
         "1,000", "42", "🍕", "👩\u200d🍳", "McDonald", "Ünïcode", "(film)", "\"quoted\"", "e-mail", "x", "[MASK]",
         "$3.50", "€5", "U.S.", "e.g.", "10%", "-3", ".5", "#tag", "@user", "ann@example.org", "R&D", "C++",
         "https://example.com/a?b=1", "www.example.com", "Dr.", "Mrs.", "etc.", "vs.", "Ph.D.", "No. 5", "Jan. 5",
         "et al."]
MARKS = [".", ",", "!", "?!", "...", ";", ":", "—", "-", "'", ")"]
GAPS = [" ", " ", " ", "  ", "   ", "\t", "", "\u00a0"]
GENERATED = st.lists(st.tuples(st.sampled_from(PARTS), st.sampled_from(["", *MARKS]), st.sampled_from(GAPS)),
                     min_size=1, max_size=14).map(lambda parts: "".join(w + m + g for w, m, g in parts))
TEXTS = st.one_of(st.sampled_from(SETS), GENERATED)
MODES = st.sampled_from(["auto", "manual", "detect"])


def _text(markup: str) -> str:
    return re.sub(r"<[^>]+>", "", markup).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">") \
        .replace("&quot;", '"').replace("&#x27;", "'")


def _seen(result, word, masked: set[int]) -> str:
    if set(word.tokens) <= masked:
        return "[MASK]"
    shown, cursor = "", word.start
    for p in word.tokens:
        token = result.tokens[p]
        shown += result.text[cursor:token.start] + "[MASK]" if p in masked else result.text[cursor:token.end]
        cursor = max(cursor, token.end)
    return visible(shown + result.text[cursor:word.end])  # shown without invisible marks


def _check(pair, text: str, result) -> None:
    words, tokens = result.words, result.tokens
    # The chips in order: one per word, each the word's own place, nothing missing or doubled.
    units = render.sentence_units(result, merged=True)
    assert [original for _, original, *_ in units] == [w.text for w in words]
    assert [w.index for w in words] == list(range(len(words)))
    assert [p for w in words for p in w.tokens] == [t.position for t in tokens if not t.special]
    for previous, word in zip(words, words[1:]):
        assert previous.end <= word.start and text[word.start:word.end] == word.text
    for word in words:
        changed = [p for p in word.tokens if tokens[p].corrupted != tokens[p].original]
        if not changed:
            assert word.corrupted == word.text  # unchanged: as typed, never glued to a neighbour's fake
        elif len(word.tokens) == 1 and not tokens[word.tokens[0]].blank:
            fake = tokens[word.tokens[0]].corrupted
            assert word.corrupted.lower() == fake.lower(), (word, fake)  # the fake alone, in its original's place
        if " " in word.corrupted:  # only where a whole word was drawn for a piece: what the discriminator read
            assert any(tokens[p].original.startswith(PIECE_MARK) and tokens[p].corrupted != tokens[p].original
                       for p in word.tokens), word
    # What the generator saw: the sentence's words, spaced as typed; one [MASK] for a word masked whole, and inside a
    # word masked in part its other pieces as typed, a [MASK] at each masked token.
    if result.masked:
        masked = {m.position for m in result.masked if m.shown_as_mask}
        expected = ""
        for n, word in enumerate(words):
            gap = text[words[n - 1].end:word.start] if n else ""
            expected += (" " if any(c.isspace() for c in gap) else "") + _seen(result, word, masked)
        saw = re.search(r'<div class="ee-masked"[^>]*>(.*?)</div>', render.generator_input_html(result, merged=True))
        assert _text(saw.group(1)) == expected
    # No "##" anywhere people read: the page, the API's JSON, the exported card.
    if "##" not in text:
        shown = (render.sentence_html(result, merged=True) + render.sentence_html(result, merged=False)
                 + guesses_html(result) + render.generator_input_html(result, merged=True) + card_html(result)
                 + json.dumps(result.to_dict(), ensure_ascii=False))
        assert "##" not in shown
    # The game and the class number the words as Explore does.
    assert game.fool_words(pair, text) == tuple(w.text for w in words)


@pytest.mark.slow  # hypothesis: 60 sentences through both models and every view, a few seconds
@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=TEXTS, seed=st.integers(0, 2**31), mode=MODES, stronger=st.booleans(),
       picks=st.lists(st.integers(0, 30), max_size=4))
def test_every_screen_shows_the_sentences_words(tiny_pair, tiny_stronger_dir, monkeypatch, text, seed, mode,
                                                stronger, picks):
    monkeypatch.setenv(generators.FOLDER_ENV, str(tiny_stronger_dir))
    words = len(explain(tiny_pair, text, Settings(mode="detect")).words)
    chosen = tuple(sorted({p % words for p in picks}))
    result = explain(tiny_pair, text, Settings(mode=mode, seed=seed, mask_words=chosen,
                                              generator=generators.STRONGER if stronger else generators.ELECTRA))
    _check(tiny_pair, result.text, result)
    if mode == "auto":  # round A's item, drawn as the game and the class draw it: the same words
        item = game._item(explain(tiny_pair, text, game.fake_settings(seed)))
        assert item.originals == tuple(w.text for w in result.words) and len(item.words) == len(item.originals)
