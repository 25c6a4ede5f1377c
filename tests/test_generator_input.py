"""Step ② shows exactly what the generator read: a word masked whole is one [MASK], and inside a word only some of
whose tokens were masked ("U.S.", an address, "$3.50") the unmasked pieces stay as typed. A piece drawn first in such
a word is written as drawn ("-ution.S.", never "-UTION.S.")."""

from __future__ import annotations

import dataclasses
import re

from explainer.core.pipeline import Settings, explain
from explainer.core.text import as_read
from explainer.render import explore as render
from training import words

TEXT = "Dr. Smith paid $3.50 in the U.S."


def _text(markup: str) -> str:
    return re.sub(r"<[^>]+>", "", markup)


def _only(explanation, keep):
    """`explanation` as if only the masked positions `keep` picks had been masked (the rest read as typed)."""
    return dataclasses.replace(explanation, masked=tuple(m for m in explanation.masked if keep(m)))


def test_a_partly_masked_word_shows_its_unmasked_pieces(tiny_pair):
    whole = explain(tiny_pair, TEXT, Settings(mode="manual", mask_words=(3, 6)))  # "$3.50" and "U.S."
    money, us = whole.words[3], whole.words[6]
    assert (money.text, us.text) == ("$3.50", "U.S.") and len(us.tokens) == 4
    assert _text(render.generator_input_html(whole)) == "Dr. Smith paid [MASK] in the [MASK]"  # ticked whole
    first_of_us = _only(whole, lambda m: m.position == us.tokens[0])
    assert _text(render.generator_input_html(first_of_us)) == "Dr. Smith paid $3.50 in the [MASK].S."
    inside = _only(whole, lambda m: m.position in (money.tokens[1], us.tokens[2]))  # the "3" and the "s"
    assert _text(render.generator_input_html(inside)) == "Dr. Smith paid $[MASK].50 in the U.[MASK]."
    tokens = "dr . sm -ith p -a -id $ [MASK] . 5 -0 in the u . [MASK] ."  # the tiny vocabulary's pieces
    assert _text(render.generator_input_html(inside, merged=False)) == tokens


def test_a_token_chosen_but_left_visible_is_underlined_alone(tiny_pair):
    whole = explain(tiny_pair, TEXT, Settings(mode="manual", mask_words=(6,)))
    us = whole.words[6]
    cards = {m.position: m for m in whole.masked}
    left = dataclasses.replace(cards[us.tokens[2]], shown_as_mask=False)  # the "s": chosen, left as it was
    partly = dataclasses.replace(whole, masked=(cards[us.tokens[0]], left))
    markup = render.generator_input_html(partly)
    assert _text(markup).startswith("Dr. Smith paid $3.50 in the [MASK].S.")
    assert re.search(r'border-bottom: 2px dotted #333"><bdi>S</bdi></span>', markup)  # only the "S" underlined
    assert "Dotted underline: chosen, but left visible" in markup


def test_a_piece_drawn_first_into_a_capital_word_is_written_as_drawn(tiny_pair):
    explanation = explain(tiny_pair, TEXT, Settings(mode="detect"))
    us = explanation.words[6]
    u = us.tokens[0]
    tokens = list(explanation.tokens)
    tokens[u] = dataclasses.replace(tokens[u], corrupted="-ution")
    kinds = [words.WORD] * len(tokens)
    kinds[u] = words.PIECE
    word = words.Word(us.index, us.start, us.end, us.text, us.tokens)
    assert as_read(word, [tokens[p] for p in us.tokens], TEXT, kinds) == "-ution.S."
    tokens[u] = dataclasses.replace(tokens[u], corrupted="cat")  # a whole word there still takes the capitals
    kinds[u] = words.WORD
    assert as_read(word, [tokens[p] for p in us.tokens], TEXT, kinds) == "CAT.S."
