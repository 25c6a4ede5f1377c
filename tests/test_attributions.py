"""captum attributions on the discriminator: completeness, baselines, the batched all-tokens matrix."""

from __future__ import annotations

import pytest
import torch

from explainer.core.attributions import (
    AttributionSettings,
    attribute,
    attribution_matrix,
    attribution_matrix_naive,
    baseline_ids,
    matrix_targets,
)
from explainer.core.pipeline import Settings, explain

SENTENCE = "The chef cooked a delicious meal for the guests."


@pytest.fixture(scope="module")
def explanation(tiny_pair):
    return explain(tiny_pair, SENTENCE, Settings(seed=0))


@pytest.mark.parametrize("baseline", ["pad", "mask"])
def test_integrated_gradients_are_complete(tiny_pair, explanation, baseline):
    result = attribute(tiny_pair, explanation, settings=AttributionSettings(n_steps=50, baseline=baseline))
    gap = result.logit - result.baseline_logit
    assert abs(result.delta) < 1e-4 * max(1.0, abs(gap))
    assert sum(result.scores) == pytest.approx(gap + result.delta, abs=1e-6)
    assert result.target == explanation.most_suspicious  # the default target
    assert result.p_replaced == pytest.approx(explanation.tokens[result.target].p_replaced, abs=1e-5)
    assert len(result.scores) == len(explanation.tokens)
    assert any(abs(s) > 0 for s in result.scores)


def test_the_baseline_keeps_special_tokens_and_fills_the_rest(tiny_pair, explanation):
    ids = torch.tensor(explanation.corrupted_ids)
    special = torch.tensor([t.special for t in explanation.tokens])
    for kind, fill in (("pad", tiny_pair.tokenizer.pad_token_id), ("mask", tiny_pair.tokenizer.mask_token_id)):
        base = baseline_ids(ids, special, tiny_pair.tokenizer, kind)
        assert torch.equal(base[special], ids[special]) and (base[~special] == fill).all()


def test_gradient_x_input_explains_the_same_logit_without_a_baseline(tiny_pair, explanation):
    target = explanation.tokens[3].position
    result = attribute(tiny_pair, explanation, target, AttributionSettings(method="gradient_x_input"))
    assert result.target == target and result.delta is None and result.baseline_logit is None
    assert result.logit == pytest.approx(explanation.tokens[target].logit, abs=1e-5)


@pytest.mark.parametrize("target", [0, -1, 10_000])
def test_special_or_out_of_range_targets_are_refused(tiny_pair, explanation, target):
    target = len(explanation.tokens) - 1 if target == -1 else target  # [SEP]
    with pytest.raises(ValueError, match="non-special"):
        attribute(tiny_pair, explanation, target)


def test_an_unknown_method_is_refused(tiny_pair, explanation):
    with pytest.raises(ValueError, match="unknown method"):
        attribute(tiny_pair, explanation, settings=AttributionSettings(method="lime"))


@pytest.mark.parametrize("method", ["integrated_gradients", "gradient_x_input"])
@pytest.mark.parametrize("engine", ["shared", "captum"])
def test_batched_matrix_equals_one_captum_call_per_target(tiny_pair, explanation, method, engine):
    settings = AttributionSettings(method=method, n_steps=12, baseline="mask")
    batched = attribution_matrix(tiny_pair, explanation, settings, engine=engine)
    naive = attribution_matrix_naive(tiny_pair, explanation, settings)
    assert batched.targets == naive.targets == tuple(matrix_targets(explanation))
    got, want = torch.tensor(batched.scores), torch.tensor(naive.scores)
    assert got.shape == (len(batched.targets), len(explanation.tokens))
    assert torch.allclose(got, want, atol=1e-6 * want.abs().max().item() + 1e-9, rtol=1e-4)
    if method == "integrated_gradients":
        assert max(abs(d) for d in batched.deltas) < 1e-4 and len(batched.deltas) == len(batched.targets)
    else:
        assert batched.deltas is None


def test_a_matrix_row_is_the_single_target_attribution(tiny_pair, explanation):
    settings = AttributionSettings(n_steps=20)
    matrix = attribution_matrix(tiny_pair, explanation, settings)
    row = matrix.targets.index(explanation.most_suspicious)
    single = attribute(tiny_pair, explanation, settings=settings)
    assert torch.allclose(torch.tensor(matrix.scores[row]), torch.tensor(single.scores), atol=1e-7, rtol=1e-4)
    assert matrix.deltas[row] == pytest.approx(single.delta, abs=1e-6)


def test_more_steps_do_not_break_completeness(tiny_pair, explanation):
    coarse = attribute(tiny_pair, explanation, settings=AttributionSettings(n_steps=2))
    fine = attribute(tiny_pair, explanation, settings=AttributionSettings(n_steps=100))
    assert abs(fine.delta) <= abs(coarse.delta) + 1e-7


def test_completeness_holds_for_a_sharply_nonlinear_discriminator(tiny_pair, explanation):
    """Random tiny weights give logits near 0; larger weights make the path integral do real work."""
    import copy

    from explainer.core.models import ModelPair

    discriminator = copy.deepcopy(tiny_pair.discriminator)
    torch.manual_seed(0)
    with torch.no_grad():
        for name, p in discriminator.named_parameters():
            if p.dim() == 2 and "embeddings" not in name:
                p.normal_(0, 0.3)  # 15x the init scale: strongly nonlinear, not yet saturated
        discriminator.discriminator_predictions.dense_prediction.weight *= 20  # logits of a few units
    sharp = ModelPair(None, discriminator, tiny_pair.tokenizer, "sharp")
    result = attribute(sharp, explanation, 3, AttributionSettings(n_steps=64))
    gap = result.logit - result.baseline_logit
    assert abs(gap) > 0.1  # a real signal to split among the tokens
    assert abs(result.delta) < 0.01 * abs(gap)
    # captum sums the float32 attributions itself: agreement to float32 rounding of the row's scale
    scale = sum(abs(s) for s in result.scores)
    assert sum(result.scores) == pytest.approx(gap + result.delta, abs=1e-5 * scale + 1e-7)
