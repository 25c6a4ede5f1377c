"""The difficulty sweep on the tiny seeded pair: held-out sentences, the weaker generator, the figure."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from explainer.lesson import difficulty
from explainer.render import difficulty as sweep_view
from training.objectives import ELECTRA_MASKING, mask_tokens, masked_lm_logits


def test_sweep_replaces_more_when_hotter_and_reports_sane_metrics(tiny_pair):
    sentences = difficulty.heldout_sentences(8)
    assert len(sentences) == 8 and all(8 <= len(s.split()) <= 30 for s in sentences)
    assert difficulty.heldout_sentences(8) == sentences  # fixed
    sweep = difficulty.temperature_sweep(tiny_pair, sentences, temperatures=(0.05, 1.0, 5.0))
    assert {p.generator for p in sweep.points} == {"full", difficulty.WEAKER}  # the tiny generator has 2 layers
    assert len(sweep.points) == 6 and sweep.sentences == 8
    assert 0 < sweep.masked < sweep.tokens
    for p in sweep.points:
        assert 0 <= p.replaced_fraction <= sweep.masked / sweep.tokens + 1e-9  # only masked tokens can change
        assert 0 <= p.accuracy <= 1 and 0 <= p.generator_top1 <= 1
    full = [p.replaced_fraction for p in sweep.points if p.generator == "full"]
    assert full[0] <= full[-1]  # random weights: a hot softmax almost never redraws the original
    again = difficulty.temperature_sweep(tiny_pair, sentences, temperatures=(0.05, 1.0, 5.0))
    assert again == sweep  # seeded: the chart is the same every time


def test_weaker_generator_reads_the_first_layer(tiny_pair):
    """The weaker generator is the LM head on hidden_states[1]; on hidden_states[-1] it is the full one."""
    generator = tiny_pair.generator
    ids = tiny_pair.tokenizer("the film was long", return_tensors="pt")["input_ids"]
    attention = torch.ones_like(ids)
    is_masked = torch.zeros_like(ids, dtype=torch.bool)
    is_masked[0, 2] = True
    with torch.no_grad():
        full, _ = masked_lm_logits(generator, ids, attention, is_masked)
        hidden = generator.electra(ids, attention_mask=attention, output_hidden_states=True).hidden_states
        assert len(hidden) == generator.config.num_hidden_layers + 1
        torch.testing.assert_close(
            generator.generator_lm_head(generator.generator_predictions(hidden[-1][is_masked])), full)


def test_the_sweeps_weaker_generator_is_the_first_layer_with_the_same_mask(tiny_pair):
    sentences = difficulty.heldout_sentences(6)
    sweep = difficulty.temperature_sweep(tiny_pair, sentences, temperatures=(1.0,), seed=4)
    tokenizer, generator = tiny_pair.tokenizer, tiny_pair.generator
    enc = tokenizer(list(sentences), padding=True, truncation=True, max_length=64, return_special_tokens_mask=True,
                    return_tensors="pt")
    special = enc["special_tokens_mask"].bool() | ~enc["attention_mask"].bool()
    batch = mask_tokens(enc["input_ids"], special.long(), enc["attention_mask"], tokenizer.mask_token_id,
                        len(tokenizer), ELECTRA_MASKING, torch.Generator().manual_seed(4))
    with torch.no_grad():
        hidden = generator.electra(batch.masked, attention_mask=enc["attention_mask"], output_hidden_states=True)
        first = generator.generator_lm_head(generator.generator_predictions(hidden.hidden_states[1][batch.is_masked]))
    shown = batch.masked[batch.is_masked] == tokenizer.mask_token_id  # counted where it saw [MASK] only
    assert 0 < shown.sum() < len(shown) or len(shown) < 8  # ELECTRA keeps ~15% of the selected as they were
    top1 = (first.argmax(-1) == enc["input_ids"][batch.is_masked])[shown].float().mean().item()
    (weak,) = [p for p in sweep.points if p.generator == difficulty.WEAKER]
    assert weak.generator_top1 == pytest.approx(top1) and sweep.masked == int(batch.is_masked.sum())


def test_heldout_sentences_never_come_from_training_text():
    from training.data import load_imdb

    train = load_imdb().train
    sentences = difficulty.heldout_sentences(5)
    assert not any(s in doc for s in sentences for doc in train[:2000])


def test_sweep_figure_draws_both_generators(tiny_pair):
    sweep = difficulty.temperature_sweep(tiny_pair, difficulty.heldout_sentences(4), temperatures=(0.5, 2.0))
    figure = sweep_view.sweep_figure(sweep)
    assert len(figure.data) == 6  # replaced, AUC, accuracy for each generator
    # Stacked for a 420-px phone: replaced fractions on top, the discriminator below, both full width.
    assert [t.yaxis for t in figure.data] == ["y", "y2", "y2"] * 2
    assert figure.layout.xaxis.domain == figure.layout.xaxis2.domain == (0.0, 1.0)
    assert figure.layout.yaxis2.domain[1] < figure.layout.yaxis.domain[0] and figure.layout.height == 880
    assert "AUC" in sweep_view.sweep_summary_html(sweep)
    assert dataclasses.asdict(sweep)["points"][0]["temperature"] == 0.5
