"""The Explore pipeline on a tiny seeded pair: labels, proposals, modes, words, awkward input, CLI."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import sys

import pytest
import torch

from explainer.core.internals import unlisted_ids
from explainer.core.models import ModelPair
from explainer.core.pipeline import Settings, explain
from explainer.core.text import MAX_CHARS, InputError, is_invisible
from training.words import readable

SENTENCE = "The chef cooked a delicious meal for the guests at the restaurant."


def forcing_generator(pair: ModelPair, token: str) -> ModelPair:
    """A copy of `pair` whose generator always proposes `token` (its output bias dominates)."""
    generator = copy.deepcopy(pair.generator)
    token_id = pair.tokenizer.convert_tokens_to_ids(token)
    with torch.no_grad():
        generator.generator_lm_head.bias.fill_(-1e4)
        generator.generator_lm_head.bias[token_id] = 1e4
    return ModelPair(generator, pair.discriminator, pair.tokenizer, pair.name)


def word_index(explanation, text: str) -> int:
    return next(w.index for w in explanation.words if w.text == text)


def test_sample_equal_to_original_is_labelled_original(tiny_pair):
    pair = forcing_generator(tiny_pair, "the")
    probe = explain(pair, "the movie was good", Settings(mode="detect"))
    result = explain(pair, "the movie was good", Settings(mode="manual", mask_words=(word_index(probe, "the"),)))
    (masked,) = result.masked
    assert masked.sampled == masked.original == "the" and masked.replaced is False
    assert masked.proposals[0].is_original and masked.proposals[0].token == "the"
    token = result.tokens[masked.position]
    assert token.masked and token.replaced is False  # masked, but label 0 = original (paper)
    assert result.corrupted_ids == result.original_ids
    assert result.words[0].replaced is False and result.words[0].masked


def test_replaced_label_is_one_exactly_where_the_token_changed(tiny_pair):
    pair = forcing_generator(tiny_pair, "movie")
    probe = explain(pair, "the chef was good", Settings(mode="detect"))
    result = explain(pair, "the chef was good", Settings(mode="manual", mask_words=(word_index(probe, "was"),)))
    changed = [a != b for a, b in zip(result.original_ids, result.corrupted_ids)]
    assert sum(changed) == 1
    assert [bool(t.replaced) for t in result.tokens] == changed
    word = result.words[word_index(result, "was")]
    assert word.replaced and word.corrupted == "movie" and word.text == "was"
    for t in result.tokens:  # P(replaced) is the sigmoid of the discriminator's logit
        assert t.p_replaced == pytest.approx(1 / (1 + math.exp(-t.logit)), abs=1e-6)
    assert result.score()["replaced"] == 1


@pytest.mark.parametrize("top_k", [1, 5, 1000])
def test_proposals_are_a_sub_distribution_and_the_sample_is_a_vocabulary_token(tiny_pair, top_k):
    result = explain(tiny_pair, SENTENCE, Settings(mask_rate=0.3, seed=3, top_k=top_k))
    vocab = len(tiny_pair.tokenizer)
    listed = vocab - len(unlisted_ids(tiny_pair.tokenizer))  # the specials (and any offensive word) are never listed
    assert result.masked
    for m in result.masked:
        probabilities = [p.probability for p in m.proposals]
        assert len(probabilities) == min(top_k, listed)
        assert sum(probabilities) <= 1 + 1e-5 and probabilities == sorted(probabilities, reverse=True)
        if top_k >= vocab:
            assert sum(probabilities) == pytest.approx(1, abs=1e-4)
        assert 0 <= m.sampled_id < vocab
        assert m.sampled == readable(tiny_pair.tokenizer.convert_ids_to_tokens(m.sampled_id))  # "##ywood": "-ywood"
        assert 0 < m.sampled_probability <= 1
        assert result.corrupted_ids[m.position] == m.sampled_id
        assert m.replaced == (m.sampled_id != result.original_ids[m.position])


def test_automatic_masking_is_reproducible_and_follows_the_rate(tiny_pair):
    a = explain(tiny_pair, SENTENCE, Settings(seed=7))
    b = explain(tiny_pair, SENTENCE, Settings(seed=7))
    assert a == b
    n = sum(not t.special for t in a.tokens)
    assert len(a.masked) == round(0.15 * n)
    assert not any(a.tokens[m.position].special for m in a.masked)  # never [CLS]/[SEP]
    others = {tuple(m.position for m in explain(tiny_pair, SENTENCE, Settings(seed=s)).masked) for s in range(5)}
    assert len(others) > 1


def test_a_short_sentence_still_gets_one_mask(tiny_pair):
    result = explain(tiny_pair, "good film", Settings())
    assert len(result.masked) == 1 and any("rounds to none" in n for n in result.notices)


def test_temperature_sharpens_the_proposals(tiny_pair):
    cold = explain(tiny_pair, SENTENCE, Settings(seed=1, temperature=0.1))
    hot = explain(tiny_pair, SENTENCE, Settings(seed=1, temperature=3.0))
    assert cold.masked[0].proposals[0].probability > hot.masked[0].proposals[0].probability


def test_detect_only_judges_the_text_unchanged(tiny_pair):
    result = explain(tiny_pair, "the chef ate the car", Settings(mode="detect"))
    assert result.masked == () and result.corrupted_ids == result.original_ids
    assert all(t.replaced is None and not t.masked for t in result.tokens)
    assert all(0 <= t.p_replaced <= 1 for t in result.tokens)
    assert result.score() == {}
    assert result.tokens[result.most_suspicious].p_replaced == max(t.p_replaced for t in result.tokens if not t.special)


def test_detect_only_works_without_a_generator(tiny_pair):
    lone = ModelPair(None, tiny_pair.discriminator, tiny_pair.tokenizer, "lone")
    assert explain(lone, "the chef ate the car", Settings(mode="detect")).masked == ()
    with pytest.raises(ValueError, match="no generator"):
        explain(lone, "the chef ate the car", Settings())


def test_manual_masking_masks_every_token_of_the_chosen_words_and_nothing_else(tiny_pair):
    probe = explain(tiny_pair, SENTENCE, Settings(mode="detect"))
    multi = next(w for w in probe.words if len(w.tokens) > 1)  # a word split into pieces
    chosen = (0, multi.index)
    result = explain(tiny_pair, SENTENCE, Settings(mode="manual", mask_words=chosen))
    expected = {p for w in chosen for p in result.words[w].tokens}
    assert {m.position for m in result.masked} == expected
    assert all(m.shown_as_mask for m in result.masked)  # chosen by hand: all become [MASK]
    assert {t.position for t in result.tokens if t.masked} == expected
    untouched = [i for i in range(len(result.tokens)) if i not in expected]
    assert all(result.corrupted_ids[i] == result.original_ids[i] for i in untouched)


def test_manual_masking_reports_bad_word_numbers(tiny_pair):
    result = explain(tiny_pair, "good film", Settings(mode="manual", mask_words=(9,)))
    assert result.masked == () and any("outside" in n for n in result.notices)


WORD_TEXTS = [
    SENTENCE,
    "The chef's meal, naïve café!  Twice  spaced.\nNew line\tand tab.",
    "Ünïcode 😀 emoji 🍕🍕 and مرحبا بالعالم (RTL)",
    "zero\u200bwidth and\u200d joiner \u202eevil\u202c text",
    "  leading and trailing  ",
]


@pytest.mark.parametrize("text", WORD_TEXTS)
def test_words_map_back_to_the_original_text_exactly(tiny_pair, text):
    result = explain(tiny_pair, text, Settings(mode="detect"))
    previous_end = 0
    for word in result.words:
        assert text[word.start:word.end] == word.text
        between = text[previous_end:word.start]
        assert all(c.isspace() or is_invisible(c) for c in between), repr(between)
        previous_end = word.end
        assert word.tokens == tuple(t.position for t in result.tokens if t.word == word.index)
        assert word.corrupted == word.text  # detect-only: nothing replaced, the user's spelling kept
    assert all(c.isspace() or is_invisible(c) for c in text[previous_end:])
    assert "".join(w.text for w in result.words) == "".join(text.split()) or any(map(is_invisible, text))


@pytest.mark.parametrize("text, message", [("", "empty"), ("   \n\t ", "empty"), ("\u200b\u200d\ufeff", "invisible")])
def test_nothing_to_judge_gives_a_clear_message(tiny_pair, text, message):
    with pytest.raises(InputError, match=message):
        explain(tiny_pair, text)


def test_emoji_and_other_scripts_are_read_as_unknown_with_a_notice(tiny_pair):
    result = explain(tiny_pair, "I love pizza 🍕 and مرحبا", Settings(mode="detect"))
    assert any(t.original == "[UNK]" for t in result.tokens)
    assert any("unknown to this model's vocabulary" in n for n in result.notices)
    assert [w.text for w in result.words][-2:] == ["🍕", "and", "مرحبا"][-2:]


def test_zero_width_characters_are_ignored_with_a_notice(tiny_pair):
    result = explain(tiny_pair, "good\u200bfilm here", Settings(mode="detect"))
    assert any("Invisible characters" in n for n in result.notices)
    assert [w.text for w in result.words] == ["good\u200bfilm", "here"]  # one word: no whitespace inside


def test_text_longer_than_the_model_reads_is_truncated_with_a_notice(tiny_pair):
    text = " ".join([SENTENCE] * 40)  # ~500 tokens; the tiny model reads 128
    result = explain(tiny_pair, text)
    assert result.truncated and len(result.tokens) == tiny_pair.max_tokens
    assert result.tokens[-1].special and result.tokens[0].special
    assert any("longer than this model reads" in n for n in result.notices)
    assert result.words[-1].end < len(text)
    assert all(text[w.start:w.end] == w.text for w in result.words)


def test_huge_text_is_capped_before_tokenizing(tiny_pair):
    result = explain(tiny_pair, "word " * (MAX_CHARS // 2), Settings(mode="detect"))
    assert result.truncated and len(result.text) == MAX_CHARS
    assert any(f"{MAX_CHARS:,} characters" in n for n in result.notices)


@pytest.mark.parametrize("settings", [Settings(temperature=0), Settings(top_k=0), Settings(mask_rate=1.5),
                                      Settings(mode="nonsense")])
def test_bad_settings_are_refused(tiny_pair, settings):
    with pytest.raises(ValueError):
        explain(tiny_pair, SENTENCE, settings)


def test_explanation_exports_to_json(tiny_pair):
    result = explain(tiny_pair, SENTENCE, Settings(seed=2))
    data = json.loads(json.dumps(result.to_dict()))
    assert data["text"] == SENTENCE and data["most_suspicious"] == result.most_suspicious
    assert len(data["tokens"]) == len(result.tokens)
    assert data["settings"] == {**dataclasses.asdict(result.settings), "mask_words": []}
    assert data["masked"][0]["proposals"][0].keys() == {"token", "token_id", "probability", "is_original"}


def test_cli_prints_a_table_and_reports_user_errors(tiny_pair_dir, capsys):
    from explainer.__main__ import main

    assert main([SENTENCE, "--model", str(tiny_pair_dir), "--seed", "1", "--attribute", "--n-steps", "8"]) == 0
    table = capsys.readouterr().out
    assert "P(repl)" in table and "[CLS]" in table and "convergence delta" in table
    assert main(["   ", "--model", str(tiny_pair_dir)]) == 2
    assert "empty" in capsys.readouterr().err


def test_cli_runs_as_a_module_and_prints_json(tiny_pair_dir, capsys, monkeypatch):
    """`python -m explainer ...`: the module's own entry, run in this process (a second interpreter would
    spend ~10 s importing torch and transformers to check the same lines)."""
    import runpy

    monkeypatch.setattr(sys, "argv", ["explainer", SENTENCE, "--model", str(tiny_pair_dir), "--seed", "1", "--json"])
    monkeypatch.delitem(sys.modules, "explainer.__main__", raising=False)  # run it fresh, as `python -m` does
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module("explainer", run_name="__main__", alter_sys=True)
    assert exit_info.value.code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["settings"]["seed"] == 1 and data["tokens"][0]["original"] == "[CLS]"


def test_the_generator_never_proposes_or_draws_an_offensive_word(tiny_pair):
    from training.offensive import blocked_token_ids, is_offensive

    assert blocked_token_ids({"cat": 1, "shit": 2, "##fuck": 3, "class": 4}) == [2, 3]
    for seed in range(4):
        result = explain(tiny_pair, "The old fisherman repaired his boat before the storm arrived.",
                         Settings(seed=seed, mask_rate=0.5, top_k=10, temperature=3.0))
        shown = [p.token for m in result.masked for p in m.proposals] + [m.sampled for m in result.masked]
        assert shown and not any(is_offensive(token.removeprefix("##")) for token in shown)
