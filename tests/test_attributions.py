"""captum attributions on the discriminator: completeness, baselines, the batched all-tokens matrix."""

from __future__ import annotations

import pytest
import torch

from explainer.core import budget
from explainer.core.attributions import (
    TOLERANCE,
    AttributionSettings,
    attribute,
    attribution_matrix,
    attribution_matrix_naive,
    baseline_ids,
    iter_matrix,
    matrix_targets,
    relative_error,
)
from explainer.core.pipeline import Settings, explain
from explainer.render.completeness import attribution_note_html, matrix_note_html

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
    rng = torch.Generator().manual_seed(0)  # its own: a race thread of another test may draw from torch's global one
    with torch.no_grad():
        for name, p in discriminator.named_parameters():
            if p.dim() == 2 and "embeddings" not in name:
                p.normal_(0, 0.3, generator=rng)  # 15x the init scale: strongly nonlinear, not yet saturated
        discriminator.discriminator_predictions.dense_prediction.weight *= 20  # logits of a few units
    sharp = ModelPair(None, discriminator, tiny_pair.tokenizer, "sharp")
    ids = torch.tensor(explanation.corrupted_ids)[None]
    special = torch.tensor([t.special for t in explanation.tokens])[None]
    with torch.no_grad():  # the word whose logit moves most between the baseline and the sentence
        gaps = (discriminator(input_ids=ids).logits - discriminator(
            input_ids=baseline_ids(ids, special, tiny_pair.tokenizer, "pad")).logits)[0].abs()
    target = max(matrix_targets(explanation), key=lambda t: float(gaps[t]))
    result = attribute(sharp, explanation, target, AttributionSettings(n_steps=64))
    gap = result.logit - result.baseline_logit
    assert abs(gap) > 0.1  # a real signal to split among the tokens
    assert abs(result.delta) < 0.01 * abs(gap)
    # captum sums the float32 attributions itself: agreement to float32 rounding of the row's scale
    scale = sum(abs(s) for s in result.scores)
    assert sum(result.scores) == pytest.approx(gap + result.delta, abs=1e-5 * scale + 1e-7)


# The adaptive engine, the compute budget -----------------------------------------------------------


UNLIMITED = float("inf")


@pytest.mark.parametrize("sentence", [SENTENCE, "My sister rode her new bicycle to work every single morning."])
def test_the_adaptive_matrix_matches_300_points_within_its_tolerance(tiny_pair, sentence):
    explanation = explain(tiny_pair, sentence, Settings(seed=2))
    adaptive = attribution_matrix(tiny_pair, explanation, AttributionSettings(n_steps=128, tolerance=TOLERANCE),
                                  limit=UNLIMITED)
    reference = attribution_matrix(tiny_pair, explanation, AttributionSettings(n_steps=300), limit=UNLIMITED)
    assert adaptive.targets == reference.targets and adaptive.done
    for row, truth, error, points in zip(adaptive.scores, reference.scores, adaptive.errors, adaptive.points):
        scale = sum(abs(v) for v in truth)
        assert error <= TOLERANCE and points in (16, 32, 64, 128)
        assert max(abs(a - b) for a, b in zip(row, truth)) <= TOLERANCE * scale


def test_a_row_that_misses_the_tolerance_gets_more_points(tiny_pair, explanation):
    """A tolerance (almost) no 16-point row meets forces the rows up the levels, to the cap."""
    strict = attribution_matrix(tiny_pair, explanation, AttributionSettings(n_steps=48, tolerance=1e-12),
                                limit=UNLIMITED)
    assert strict.points.count(48) >= len(strict.points) // 2
    assert all(points == 48 or error <= 1e-12 for points, error in zip(strict.points, strict.errors))
    loose = attribution_matrix(tiny_pair, explanation, AttributionSettings(n_steps=48, tolerance=0.5), limit=UNLIMITED)
    assert set(loose.points) == {16}


def test_the_error_shown_is_the_error_computed(tiny_pair, explanation):
    matrix = attribution_matrix(tiny_pair, explanation, AttributionSettings(n_steps=32, tolerance=TOLERANCE),
                                limit=UNLIMITED)
    for row, delta, error in zip(matrix.scores, matrix.deltas, matrix.errors):
        assert error == pytest.approx(abs(delta) / sum(abs(v) for v in row))
        assert delta == pytest.approx(relative_error(row, delta) * sum(abs(v) for v in row) * (1 if delta > 0 else -1))
    note = matrix_note_html(matrix, len(matrix.targets), 1.0)
    assert f"completeness error at most {max(matrix.errors):.2%}" in note
    single = attribute(tiny_pair, explanation, settings=AttributionSettings(n_steps=64, tolerance=TOLERANCE),
                       limit=UNLIMITED)
    gap = single.logit - single.baseline_logit
    assert single.error == pytest.approx(abs(sum(single.scores) - gap) / sum(abs(v) for v in single.scores), rel=1e-3,
                                         abs=1e-6)
    assert f"{single.points} integration points; completeness error {single.error:.2%}" in attribution_note_html(single)


def test_rows_arrive_in_order_and_a_closed_iterator_stops(tiny_pair, explanation):
    parts = iter_matrix(tiny_pair, explanation, AttributionSettings(n_steps=16, tolerance=TOLERANCE), limit=UNLIMITED)
    first = next(parts)
    assert len(first.targets) == 4 and not first.done
    parts.close()  # a cancelled request: no more work
    with pytest.raises(StopIteration):
        next(parts)
    everything = list(iter_matrix(tiny_pair, explanation, AttributionSettings(n_steps=16, tolerance=TOLERANCE),
                                  limit=UNLIMITED))
    assert [len(m.targets) for m in everything] == sorted({len(m.targets) for m in everything})
    assert everything[-1].done and everything[-1].targets == tuple(matrix_targets(explanation))
    assert everything[0].scores == everything[-1].scores[:4]  # a shown row never changes afterwards


PRICE = budget.Costs(forward=1e-4, backward=2e-4)  # seconds per point-token: the bundled model's order here


def test_a_request_within_the_limit_runs_as_asked():
    assert budget.fit(PRICE, 30, 50, 28, limit=10.0) == budget.Plan(50, 28, PRICE.seconds(30, 50, 28))


def test_an_over_budget_request_is_reduced_points_first_then_words_then_refused():
    points = budget.fit(PRICE, 30, 500, 28, limit=10.0)
    assert points.targets == 28 and budget.MIN_POINTS <= points.points < 500
    assert PRICE.seconds(30, points.points, 28) <= 10.0 < PRICE.seconds(30, points.points + 1, 28)
    assert "reduced from 500 to" in points.notice
    words = budget.fit(PRICE, 512, 500, 64, limit=10.0)
    assert words.points == budget.MIN_POINTS and 0 < words.targets < 64 and "only the first" in words.notice
    assert PRICE.seconds(512, budget.MIN_POINTS, words.targets) <= 10.0
    with pytest.raises(budget.BudgetError, match="Shorten the text"):
        budget.fit(PRICE, 512, 500, 64, limit=0.1)
    adaptive = budget.fit(PRICE, 30, 128, 28, limit=10.0, start=8)  # only the first pass must fit
    assert adaptive == budget.Plan(128, 28, PRICE.seconds(30, 8, 28))


def test_the_limit_is_a_setting(monkeypatch):
    monkeypatch.delenv("ELECTRA_ATTRIBUTION_SECONDS", raising=False)
    assert budget.limit_seconds() == 10.0
    monkeypatch.setenv("ELECTRA_ATTRIBUTION_SECONDS", "2.5")
    assert budget.limit_seconds() == 2.5


def test_costs_are_measured_once_per_model(tiny_pair):
    price = budget.costs(tiny_pair)
    assert price.forward > 0 and price.backward > 0 and budget.costs(tiny_pair) is price


@pytest.mark.slow
def test_512_tokens_500_points_every_word_is_reduced_or_refused_before_it_runs():
    """The bundled model, a 512-token text: priced on this machine, then cut to fit 1 s (or refused)."""
    from explainer.core import models

    pair = models.load("bundled")
    text = " ".join(["the old fisherman repaired his boat before the storm arrived ."] * 60)
    explanation = explain(pair, text, Settings(seed=0))
    assert len(explanation.tokens) == 512
    asked = AttributionSettings(n_steps=500)
    try:
        matrix = attribution_matrix(pair, explanation, asked, limit=1.0)
    except budget.BudgetError as error:
        assert "over this server's limit of 1 s" in str(error)
        return
    assert "limit" in matrix.notices[0] and set(matrix.points) < set(range(budget.MIN_POINTS, 500))
    assert len(matrix.targets) < len(matrix_targets(explanation))


def test_the_heatmap_stops_when_its_measured_pace_would_pass_the_limit(tiny_pair, explanation, monkeypatch):
    """The price said every row fits; the rows themselves run slower (a loaded machine, a long text: here one
    simulated second each), so the engine stops before the chunk its pace says would pass the limit, and says so."""
    from explainer.core import integration

    clock = [0.0]
    rows = integration._Path.rows

    def slow_rows(self, targets):
        clock[0] += len(targets)
        return rows(self, targets)

    monkeypatch.setattr(budget, "costs", lambda pair: budget.Costs(1e-12, 1e-12))
    monkeypatch.setattr(integration._Path, "rows", slow_rows)
    monkeypatch.setattr(integration.time, "perf_counter", lambda: clock[0])
    words = len(matrix_targets(explanation))
    assert words > integration.FIRST_CHUNK + integration.CHUNK
    *_, last = iter_matrix(tiny_pair, explanation, AttributionSettings(n_steps=16), limit=10)
    assert len(last.targets) == integration.FIRST_CHUNK and last.done  # 4 s spent; 8 more rows would pass 10 s
    assert f"Only the first {integration.FIRST_CHUNK} of {words} words are explained" in " ".join(last.notices)


def test_a_long_path_is_integrated_in_parts_that_agree_with_one_graph(tiny_pair, explanation):
    """Past GRAPH_CELLS points x tokens the path runs in parts (memory stays bounded whatever the length): the
    rows and completeness errors are the one graph's, and no part holds more points than its share."""
    from explainer.core import integration

    settings = AttributionSettings(n_steps=16)
    targets = matrix_targets(explanation)
    tokens = len(explanation.tokens)
    with tiny_pair.lock:
        whole = integration._path_forward(tiny_pair, explanation, settings, cells=10 ** 9)
        split = integration._path_forward(tiny_pair, explanation, settings, cells=3 * tokens)
        sizes, forward = [], split.forward
        split.forward = lambda alphas: sizes.append(len(alphas)) or forward(alphas)
        with torch.enable_grad():
            one, parts = whole.rows(targets), split.rows(targets)
    assert whole.part >= 16 and split.part == 3 and split.cells == 3 * tokens
    assert sizes == [3, 3, 3, 3, 3, 1]  # 16 points in parts of 3, each built for this call and freed
    assert whole.held is not None and split.held is None
    torch.testing.assert_close(parts, one, rtol=1e-4, atol=1e-6)
    assert split.deltas(parts, targets) == pytest.approx(whole.deltas(one, targets), abs=1e-5)
    # The same through the heatmap's engine, with a server whose graphs hold 2 points.
    full = attribution_matrix(tiny_pair, explanation, settings, limit=1e6)
    old = integration.GRAPH_CELLS
    try:
        integration.GRAPH_CELLS = 2 * tokens
        small = attribution_matrix(tiny_pair, explanation, settings, limit=1e6)
    finally:
        integration.GRAPH_CELLS = old
    torch.testing.assert_close(torch.tensor(small.scores), torch.tensor(full.scores), rtol=1e-4, atol=1e-6)


def test_gradient_x_input_on_a_long_text_runs_one_row_at_a_time(tiny_pair, explanation, monkeypatch):
    """captum's batch of one row per target is used only while it fits GRAPH_CELLS; past it the shared engine
    (one row's forward, a backward per target) gives the same matrix."""
    from explainer.core import attributions, integration

    settings = AttributionSettings(method="gradient_x_input")
    batched = attribution_matrix(tiny_pair, explanation, settings, limit=1e6)
    monkeypatch.setattr(attributions, "GRAPH_CELLS", len(explanation.tokens))
    monkeypatch.setattr(integration, "GRAPH_CELLS", len(explanation.tokens))
    called = []
    monkeypatch.setattr(attributions, "_run", lambda *a, **k: called.append(1))
    shared = attribution_matrix(tiny_pair, explanation, settings, limit=1e6)
    assert not called and shared.deltas is None
    torch.testing.assert_close(torch.tensor(shared.scores), torch.tensor(batched.scores), rtol=1e-4, atol=1e-6)


def test_the_freed_heap_goes_back_to_the_system_where_glibc_allows(monkeypatch):
    from explainer.core import memory

    assert isinstance(memory.trim(), bool)
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert memory.limit_arenas() is False  # the environment's setting wins
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    import sys

    assert memory.limit_arenas(8) is sys.platform.startswith("linux")
