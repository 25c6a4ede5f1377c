"""A [MASK] the user types is a blank the generator fills, in every Explore mode (explainer/core/pipeline.py): on
the tiny seeded pair, through the pipeline, the page's handler, `/explain` and the command line. A sentence
without a blank draws exactly what training's own functions draw."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch

from explainer.core.pipeline import BLANK_IN_DETECT, Settings, explain
from explainer.core.text import blocked_ids, encode, typed_blanks
from explainer.render import explore as render
from explainer.render.guesses import guesses_html
from training.objectives import ELECTRA_MASKING, corrupt, mask_tokens, masked_lm_logits

SENTENCE = "I drank a cup of [MASK] before work."
BLANK = 5  # the word index of [MASK] in SENTENCE


def _blank(explanation):
    (word,) = [w for w in explanation.words if w.blank]
    return word


@pytest.mark.parametrize("typed", ["[MASK]", "[mask]", "[ Mask ]", "[MaSk]"])
def test_a_typed_blank_in_any_case_is_the_mask_token_and_a_word_of_its_own(tiny_pair, typed):
    text = f"I drank a cup of {typed} before work."
    encoded = encode(tiny_pair.tokenizer, text, tiny_pair.max_tokens)
    assert encoded.text == SENTENCE
    assert encoded.input_ids.count(tiny_pair.tokenizer.mask_token_id) == 1
    assert bool(encoded.notices) == (typed != "[MASK]")  # the text was rewritten: said so


def test_a_blank_touching_letters_is_kept_apart_and_punctuation_stays():
    assert typed_blanks("a cup of[mask]before work", "[MASK]") == ("a cup of [MASK] before work", True)
    assert typed_blanks("a cup of [MASK].", "[MASK]") == ("a cup of [MASK].", False)
    assert typed_blanks("no blank [mas k] here", "[MASK]") == ("no blank [mas k] here", False)
    assert typed_blanks("[mask]", None) == ("[mask]", False)  # a vocabulary without a mask token


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_automatic_mode_fills_the_blank_and_counts_it_as_replaced_never_as_a_false_alarm(tiny_pair, seed):
    tokenizer = tiny_pair.tokenizer
    explanation = explain(tiny_pair, SENTENCE, Settings(seed=seed))
    word = _blank(explanation)
    assert word.index == BLANK and word.masked and word.replaced is True and word.text == "[MASK]"
    (position,) = word.tokens
    (card,) = [m for m in explanation.masked if m.position == position]
    assert card.typed and card.shown_as_mask and card.replaced and card.original == tokenizer.mask_token
    assert card.sampled_id not in tokenizer.all_special_ids  # a blank is filled with a word
    assert all(p.token_id not in tokenizer.all_special_ids and not p.is_original for p in card.proposals)
    assert word.corrupted == card.sampled.removeprefix("##")
    token = explanation.tokens[position]
    assert token.blank and token.replaced is True and token.corrupted == card.sampled
    score = explanation.score()
    flagged_originals = sum(t.p_replaced > 0.5 and not t.replaced for t in explanation.tokens if not t.special)
    assert score["false_alarms"] == flagged_originals  # the blank is not among them: it is replaced
    assert score["replaced"] == sum(bool(t.replaced) for t in explanation.tokens) >= 1
    # the automatic draw is over the other tokens: 15% of those that are not the blank, rounded, plus the blank
    others = sum(not t.special and not t.blank for t in explanation.tokens)
    assert len(explanation.masked) == round(others * 0.15) + 1


def test_manual_mode_fills_the_blank_beside_the_chosen_words(tiny_pair):
    explanation = explain(tiny_pair, SENTENCE, Settings(mode="manual", mask_words=(2,)))
    masked_words = [w.index for w in explanation.words if w.masked]
    assert masked_words == [2, BLANK]
    assert _blank(explanation).replaced is True and explanation.notices == ()
    alone = explain(tiny_pair, SENTENCE, Settings(mode="manual"))  # no word ticked: the blank still gets filled
    assert [w.index for w in alone.words if w.masked] == [BLANK]
    assert not any("No word chosen" in n for n in alone.notices)


def test_detect_only_explains_the_blank_and_does_not_judge_it(tiny_pair):
    explanation = explain(tiny_pair, SENTENCE, Settings(mode="detect"))
    word = _blank(explanation)
    assert word.corrupted == "[MASK]" and not word.masked and word.replaced is None
    assert BLANK_IN_DETECT in explanation.notices and explanation.score() == {}
    assert explanation.tokens[explanation.most_suspicious].word != BLANK
    chips = render.sentence_chips(explanation)
    assert "blank · not judged" in chips and "a blank you typed: not judged" in chips
    assert "A blank you typed is not judged" in render.score_html(explanation)
    only_blank = explain(tiny_pair, "[MASK]", Settings(mode="detect"))  # nothing else to rate: still an answer
    assert only_blank.tokens[only_blank.most_suspicious].blank


def test_a_sentence_of_blanks_only_fills_each_of_them(tiny_pair):
    explanation = explain(tiny_pair, "[MASK] [mask]", Settings())
    assert [w.replaced for w in explanation.words] == [True, True]
    assert all(m.typed for m in explanation.masked) and len(explanation.masked) == 2


@pytest.mark.parametrize("seed", [0, 5, 11])
def test_without_a_blank_the_draw_is_trainings_own(tiny_pair, seed):
    """The default choice draws what training.objectives draws for the same seed: the masks, then the samples."""
    text = "The old fisherman repaired his boat before the storm arrived."
    explanation = explain(tiny_pair, text, Settings(seed=seed))
    assert explanation == explain(tiny_pair, text, Settings(seed=seed, generator="electra"))
    tokenizer = tiny_pair.tokenizer
    encoded = encode(tokenizer, text, tiny_pair.max_tokens)
    ids, special = torch.tensor(encoded.input_ids), torch.tensor(encoded.special)
    ones = torch.ones_like(ids)[None]
    rng = torch.Generator().manual_seed(seed)
    config = dataclasses.replace(ELECTRA_MASKING, rate=0.15)
    batch = mask_tokens(ids[None], special[None].long(), ones, tokenizer.mask_token_id, len(tokenizer), config, rng)
    with torch.no_grad():
        logits, _ = masked_lm_logits(tiny_pair.generator, batch.masked, ones, batch.is_masked)
    logits[:, blocked_ids(tokenizer)] = float("-inf")
    fake = corrupt(ids[None], batch.is_masked, logits, 1.0, rng)
    assert explanation.corrupted_ids == tuple(fake.ids[0].tolist())
    assert [m.position for m in explanation.masked] == batch.is_masked[0].nonzero().squeeze(-1).tolist()


def test_the_page_shows_the_blank_card_and_the_filled_word(tiny_pair_dir, monkeypatch):
    from explainer.ui import explore

    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tiny_pair_dir))
    for mode in ("auto", "manual"):
        out = explore.run_explain(SENTENCE, str(tiny_pair_dir), mode, 0.15, 0, 1.0, 5, [], True)
        explanation = out["explanation"]
        word = _blank(explanation)
        assert "your blank: drew" in out["proposals"] and "filled your blank" in out["verdict"]
        assert f">{word.corrupted}</bdi>" in out["verdict"]
        assert "false alarm" in out["verdict"] and word.replaced
    out = explore.run_explain(SENTENCE, str(tiny_pair_dir), "detect", 0.15, 0, 1.0, 5, [], True)
    assert ("cannot be judged" in out["notices"] and "blank · not judged" in out["verdict"]
            and "Nothing was masked" in out["proposals"])


def test_explain_api_fills_the_blank_in_every_mode_but_detect(tiny_pair_dir, monkeypatch):
    from explainer.ui import api

    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tiny_pair_dir))
    model = str(tiny_pair_dir)
    auto = api.explain("I drank a cup of [mask] before work.", model)
    assert auto["text"] == SENTENCE and auto["words"][BLANK]["blank"] and auto["words"][BLANK]["replaced"]
    (card,) = [m for m in auto["masked"] if m["typed"]]
    assert card["original"] == "[MASK]" and card["replaced"] and card["sampled"] != "[MASK]"
    manual = api.explain(SENTENCE, model, mode="manual", mask_words=[0])
    assert [w["index"] for w in manual["words"] if w["masked"]] == [0, BLANK]
    detect = api.explain(SENTENCE, model, mode="detect")
    assert not detect["masked"] and detect["score"] == {} and BLANK_IN_DETECT in detect["notices"]
    assert detect["tokens"][detect["most_suspicious"]]["blank"] is False
    json.dumps(auto)  # JSON-able, as gradio sends it


def test_the_command_line_fills_a_typed_blank(tiny_pair_dir, capsys):
    from explainer.__main__ import main

    assert main([SENTENCE, "--model", str(tiny_pair_dir), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["words"][BLANK]["blank"] and out["words"][BLANK]["replaced"]
    assert main([SENTENCE, "--model", str(tiny_pair_dir), "--detect"]) == 0
    table = capsys.readouterr().out
    assert "blank" in table and "cannot be judged" in table


def test_a_blank_is_no_word_for_round_b(tiny_pair):
    from explainer.core.text import InputError
    from explainer.lesson import beat_electra as game

    with pytest.raises(InputError, match="not a blank"):
        game.fool(tiny_pair, "The chef cooked a meal.", 1, "[mask]", True)


def test_guesses_for_a_blank_without_a_second_generator_show_one_set(tiny_pair, monkeypatch, tmp_path):
    from explainer.core import generators

    monkeypatch.setenv(generators.FOLDER_ENV, str(tmp_path / "absent"))
    explanation = explain(tiny_pair, SENTENCE, Settings(mode="manual"))
    (card,) = explanation.masked
    assert card.typed and card.others == () and card.others_generator == ""
    html = guesses_html(explanation)
    assert "your blank: drew" in html and "ee-blank-card" not in html
