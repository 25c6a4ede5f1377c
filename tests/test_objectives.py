"""The RTD and MLM objectives on tiny random models: labels, P(replaced), the losses and where their gradients
go, the corruption step, hot draws. Masking itself: tests/test_masking.py."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.nn.functional as F

from training import objectives
from training.metrics import step_metrics
from training.models import PRESETS, build_electra, build_mlm
from training.objectives import (
    BERT_MASKING,
    ELECTRA_MASKING,
    IGNORE_INDEX,
    MaskedBatch,
    MLMObjective,
    RTDObjective,
    masked_lm_logits,
)
from toy_batches import PAD, VOCAB, make_rows, mask


# ---------------------------------------------------------------------------------------------
# RTD on a tiny generator/discriminator pair


@pytest.fixture
def pair():
    generator, discriminator = build_electra(PRESETS["tiny"], VOCAB, PAD, seed=0)
    return generator.eval(), discriminator.eval()  # eval: no dropout, so outputs can be recomputed


@pytest.fixture
def masked_batch() -> MaskedBatch:
    rows = make_rows([24, 24, 17, 10], width=24)
    return mask(rows, dataclasses.replace(ELECTRA_MASKING, rate=0.3), seed=3)


def rng() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def fixed_sampler(monkeypatch, replacements: torch.Tensor) -> None:
    monkeypatch.setattr(objectives, "draw", lambda probs, rng: replacements)  # corrupt's draws


def test_a_sample_equal_to_the_original_is_labelled_original(pair, masked_batch, monkeypatch):
    fixed_sampler(monkeypatch, masked_batch.original[masked_batch.is_masked])
    out = RTDObjective(*pair)(masked_batch, rng())
    assert masked_batch.is_masked.sum() > 0
    assert out.disc_labels.sum() == 0


def test_a_different_sample_is_labelled_replaced(pair, masked_batch, monkeypatch):
    originals = masked_batch.original[masked_batch.is_masked]
    fixed_sampler(monkeypatch, (originals - 4 + 1) % (VOCAB - 4) + 4)  # another ordinary token
    out = RTDObjective(*pair)(masked_batch, rng())
    assert torch.equal(out.disc_labels.bool(), masked_batch.is_masked)


def test_mixed_samples_are_labelled_position_by_position(pair, masked_batch, monkeypatch):
    originals = masked_batch.original[masked_batch.is_masked]
    keep = torch.arange(len(originals)) % 2 == 0
    fixed_sampler(monkeypatch, torch.where(keep, originals, (originals - 4 + 1) % (VOCAB - 4) + 4))
    out = RTDObjective(*pair)(masked_batch, rng())
    assert torch.equal(out.disc_labels[masked_batch.is_masked].bool(), ~keep)
    assert out.disc_labels[~masked_batch.is_masked].sum() == 0


@pytest.mark.parametrize("peak_at_original", [True, False])
def test_generator_peaked_by_its_bias_drives_the_labels(peak_at_original):
    """No monkeypatching: the real sampler at a low temperature, the generator forced by its bias."""
    generator, discriminator = build_electra(PRESETS["tiny"], VOCAB, PAD, seed=0)
    rows = make_rows([20, 20, 13], width=20)
    body = rows["attention_mask"].bool() & ~rows["special_tokens_mask"].bool()
    rows["input_ids"][body] = 7  # every ordinary token is 7
    batch = mask(rows, dataclasses.replace(ELECTRA_MASKING, rate=0.4), seed=0)
    with torch.no_grad():
        generator.generator_lm_head.bias.zero_()
        generator.generator_lm_head.bias[7 if peak_at_original else 8] = 1e4
    out = RTDObjective(generator, discriminator, temperature=1e-3)(batch, rng())
    expected = torch.zeros_like(batch.is_masked) if peak_at_original else batch.is_masked
    assert torch.equal(out.disc_labels.bool(), expected)
    assert out.mlm_targets.eq(7).all()


def test_sigmoid_of_the_discriminator_logit_is_p_replaced(pair, masked_batch, monkeypatch):
    generator, discriminator = pair
    originals = masked_batch.original[masked_batch.is_masked]
    replacements = (originals - 4 + 1) % (VOCAB - 4) + 4
    fixed_sampler(monkeypatch, replacements)
    out = RTDObjective(generator, discriminator)(masked_batch, rng())

    corrupted = masked_batch.original.clone()
    corrupted[masked_batch.is_masked] = replacements
    labels = masked_batch.is_masked.long()
    # The logits are the stock ElectraForPreTraining's, whose own loss takes label 1 = replaced ...
    reference = discriminator(corrupted, attention_mask=masked_batch.attention_mask, labels=labels)
    assert torch.allclose(out.disc_logits, reference.logits, atol=1e-6)
    assert torch.allclose(out.disc_loss, reference.loss, atol=1e-6)
    # ... and the objective's BCE treats sigmoid(logit) as P(label 1) over the real tokens.
    real = masked_batch.attention_mask.bool()
    p_replaced = torch.sigmoid(out.disc_logits[real])
    manual = -(labels[real] * p_replaced.log() + (1 - labels[real]) * (1 - p_replaced).log()).mean()
    assert torch.allclose(out.disc_loss, manual, atol=1e-5)


def test_metrics_read_a_positive_logit_as_replaced(pair, masked_batch, monkeypatch):
    generator, discriminator = pair
    originals = masked_batch.original[masked_batch.is_masked]
    fixed_sampler(monkeypatch, (originals - 4 + 1) % (VOCAB - 4) + 4)
    with torch.no_grad():
        discriminator.discriminator_predictions.dense_prediction.bias.fill_(100.0)  # "all replaced"
    metrics = step_metrics(RTDObjective(generator, discriminator)(masked_batch, rng()))
    real = masked_batch.attention_mask.bool()
    replaced_fraction = masked_batch.is_masked[real].float().mean().item()
    assert metrics["disc_recall"] == 1.0
    assert metrics["disc_precision"] == pytest.approx(replaced_fraction)
    assert metrics["disc_accuracy"] == pytest.approx(replaced_fraction)
    assert metrics["replaced_fraction"] == pytest.approx(replaced_fraction)
    assert metrics["supervised_positions"] == real.sum().item()  # RTD learns from every real token


def test_loss_is_mlm_loss_plus_50_times_disc_loss(pair, masked_batch):
    out = RTDObjective(*pair)(masked_batch, rng())
    assert out.loss.item() == pytest.approx(out.mlm_loss.item() + 50 * out.disc_loss.item(), rel=1e-6)
    out7 = RTDObjective(*pair, disc_weight=7.0)(masked_batch, rng())
    assert out7.loss.item() == pytest.approx(out7.mlm_loss.item() + 7 * out7.disc_loss.item(), rel=1e-6)
    # The generator's loss is the cross-entropy at the masked positions only.
    logits, _ = masked_lm_logits(pair[0], masked_batch.masked, masked_batch.attention_mask, masked_batch.is_masked)
    targets = masked_batch.original[masked_batch.is_masked]
    assert out.mlm_loss.item() == pytest.approx(F.cross_entropy(logits, targets).item(), rel=1e-6)
    assert torch.equal(out.mlm_targets, targets)


def test_disc_loss_covers_every_non_padding_token_and_no_padding(pair, masked_batch):
    generator, discriminator = pair
    with torch.no_grad():  # confident logits, so that including padding would move the mean
        discriminator.discriminator_predictions.dense_prediction.bias.fill_(3.0)
    out = RTDObjective(generator, discriminator)(masked_batch, rng())
    real = masked_batch.attention_mask.bool()
    assert not real.all()  # the batch has padding
    expected = F.binary_cross_entropy_with_logits(out.disc_logits[real], out.disc_labels[real].float())
    with_padding = F.binary_cross_entropy_with_logits(out.disc_logits, out.disc_labels.float())
    assert out.disc_loss.item() == pytest.approx(expected.item(), rel=1e-6)
    assert out.disc_loss.item() != pytest.approx(with_padding.item(), rel=0.05)
    assert out.disc_labels[~real].sum() == 0


def test_generator_vocab_projection_runs_on_masked_positions_only(pair, masked_batch):
    generator, _ = pair
    rows_seen = []
    hook = generator.generator_lm_head.register_forward_hook(lambda m, args, output: rows_seen.append(args[0].shape))
    try:
        logits, hidden = masked_lm_logits(generator, masked_batch.masked, masked_batch.attention_mask,
                                          masked_batch.is_masked)
    finally:
        hook.remove()
    m = int(masked_batch.is_masked.sum())
    assert logits.shape == (m, VOCAB)
    assert rows_seen == [torch.Size([m, PRESETS["tiny"].embedding])]
    assert hidden.shape == (*masked_batch.masked.shape, PRESETS["tiny"].generator.hidden)
    # Same numbers as the stock model's full (B, T, V) output at those positions.
    full = generator(masked_batch.masked, attention_mask=masked_batch.attention_mask).logits
    assert torch.allclose(logits, full[masked_batch.is_masked], atol=1e-5)


def generator_own_parameters(generator) -> dict[str, torch.nn.Parameter]:
    """The generator's parameters that are not the shared embeddings (nor tied to them)."""
    shared = {id(p) for p in generator.electra.embeddings.parameters()}
    return {n: p for n, p in generator.named_parameters() if id(p) not in shared}


def test_no_gradient_from_the_discriminator_loss_reaches_the_generator(pair, masked_batch, monkeypatch):
    generator, discriminator = pair
    own = generator_own_parameters(generator)
    assert any(n.startswith("electra.encoder.layer") for n in own)
    # Keep only the discriminator's term of the loss: the generator's cross-entropy becomes a
    # constant without a graph, so every gradient below comes from the discriminator's loss.
    real_cross_entropy = F.cross_entropy
    monkeypatch.setattr(objectives.F, "cross_entropy", lambda logits, targets: torch.zeros(()))
    out = RTDObjective(generator, discriminator)(masked_batch, rng())
    monkeypatch.setattr(objectives.F, "cross_entropy", real_cross_entropy)
    out.loss.backward()

    leaked = {n for n, p in own.items() if p.grad is not None and p.grad.abs().sum() > 0}
    assert leaked == set()
    # The shared embeddings do learn from the discriminator (the paper's only coupling) ...
    assert discriminator.electra.embeddings.word_embeddings.weight.grad.abs().sum() > 0
    assert (generator.electra.embeddings.word_embeddings.weight.grad
            is discriminator.electra.embeddings.word_embeddings.weight.grad)
    # ... and so does the discriminator's own encoder.
    assert discriminator.electra.encoder.layer[0].attention.self.query.weight.grad.abs().sum() > 0


def test_the_full_loss_does_train_the_generator(pair, masked_batch):
    """Control for the test above: with its own MLM loss, the generator's layers get gradients."""
    generator, discriminator = pair
    RTDObjective(generator, discriminator)(masked_batch, rng()).loss.backward()
    own = generator_own_parameters(generator)
    assert own["electra.encoder.layer.0.attention.self.query.weight"].grad.abs().sum() > 0
    assert own["generator_predictions.dense.weight"].grad.abs().sum() > 0


def test_mlm_objective_is_cross_entropy_at_masked_positions():
    encoder = build_mlm(PRESETS["tiny"], VOCAB, PAD, seed=0).eval()
    batch = mask(make_rows([24, 24, 17, 10], width=24), BERT_MASKING, seed=0)
    out = MLMObjective(encoder)(batch)
    full = encoder(batch.masked, attention_mask=batch.attention_mask).logits  # (B, T, V)
    labels = batch.original.masked_fill(~batch.is_masked, IGNORE_INDEX)
    expected = F.cross_entropy(full.view(-1, VOCAB), labels.view(-1), ignore_index=IGNORE_INDEX)
    assert out.loss.item() == pytest.approx(expected.item(), rel=1e-5)
    assert out.disc_logits is None
    assert step_metrics(out)["supervised_positions"] == int(batch.is_masked.sum())


def test_corrupt_writes_the_draws_labels_only_real_changes_and_keeps_its_distribution(masked_batch):
    from training.objectives import corrupt

    m = int(masked_batch.is_masked.sum())
    logits = torch.randn(m, VOCAB, generator=torch.Generator().manual_seed(1))
    fake = corrupt(masked_batch.original, masked_batch.is_masked, logits, 1.0, rng(), masked_batch.attention_mask)
    assert torch.equal(fake.ids[masked_batch.is_masked], fake.samples)
    assert torch.equal(fake.ids[~masked_batch.is_masked], masked_batch.original[~masked_batch.is_masked])
    assert torch.equal(fake.labels, (fake.ids != masked_batch.original) & masked_batch.attention_mask.bool())
    assert fake.probs.dtype == torch.float32 and torch.allclose(fake.probs.sum(-1), torch.ones(m))
    assert torch.equal(fake.samples, objectives.draw(objectives.softmax(logits, 1.0), rng()))  # the same draws


def test_detect_is_the_discriminators_own_forward(pair, masked_batch):
    from training.objectives import detect

    _, discriminator = pair
    logits, hidden = detect(discriminator, masked_batch.original, masked_batch.attention_mask)
    own = discriminator(input_ids=masked_batch.original, attention_mask=masked_batch.attention_mask)
    assert torch.allclose(logits, own.logits) and hidden.shape[:2] == masked_batch.original.shape


# ---------------------------------------------------------------------------------------------
# A share of the fakes drawn hotter


def test_a_temperature_per_row_is_each_rows_own_softmax():
    logits = torch.randn(6, VOCAB, generator=torch.Generator().manual_seed(2))
    temperatures = torch.tensor([1.0, 1.5, 2.0, 1.0, 0.5, 1.5])
    rows = objectives.softmax(logits, temperatures)
    for row, t in enumerate(temperatures.tolist()):
        assert torch.allclose(rows[row], objectives.softmax(logits[row:row + 1], t)[0], atol=1e-6)


def test_the_hot_share_picks_that_share_of_positions_and_none_without_it(pair):
    hot = RTDObjective(*pair, hot_share=0.3, hot_temperature=1.5).temperatures(20_000, rng(), torch.device("cpu"))
    assert set(hot.unique().tolist()) == {1.0, 1.5}
    assert (hot == 1.5).float().mean().item() == pytest.approx(0.3, abs=0.01)
    assert RTDObjective(*pair).temperatures(20_000, rng(), torch.device("cpu")) == 1.0


def test_without_a_hot_share_the_draws_are_exactly_the_plain_ones(pair, masked_batch):
    plain = RTDObjective(*pair)(masked_batch, rng())
    zero = RTDObjective(*pair, hot_share=0.0, hot_temperature=3.0)(masked_batch, rng())
    assert torch.equal(plain.disc_labels, zero.disc_labels) and torch.equal(plain.disc_logits, zero.disc_logits)


def test_hot_positions_are_drawn_from_the_hotter_softmax_and_the_generator_loss_stays_at_t1(pair, masked_batch,
                                                                                           monkeypatch):
    seen = []
    real_draw = objectives.draw
    monkeypatch.setattr(objectives, "draw", lambda probs, g: seen.append(probs) or real_draw(probs, g))
    out = RTDObjective(*pair, hot_share=0.5, hot_temperature=2.0)(masked_batch, rng())
    (probs,) = seen
    temperatures = RTDObjective(*pair, hot_share=0.5, hot_temperature=2.0).temperatures(len(probs), rng(), probs.device)
    assert 0 < (temperatures == 2.0).sum() < len(probs)  # both kinds in this batch
    logits, _ = masked_lm_logits(pair[0], masked_batch.masked, masked_batch.attention_mask, masked_batch.is_masked)
    assert torch.allclose(probs, torch.softmax(logits / temperatures[:, None], -1), atol=1e-6)
    targets = masked_batch.original[masked_batch.is_masked]
    assert out.mlm_loss.item() == pytest.approx(F.cross_entropy(logits, targets).item(), rel=1e-5)


def test_a_frozen_generator_with_a_hot_share_reports_its_t1_loss(pair, masked_batch):
    generator, discriminator = pair
    for p in generator.parameters():
        p.requires_grad_(False)
    out = RTDObjective(generator, discriminator, hot_share=1.0, hot_temperature=2.0)(masked_batch, rng())
    logits, _ = masked_lm_logits(generator, masked_batch.masked, masked_batch.attention_mask, masked_batch.is_masked)
    targets = masked_batch.original[masked_batch.is_masked]
    assert out.mlm_loss.item() == pytest.approx(F.cross_entropy(logits, targets).item(), rel=1e-5)


@pytest.mark.parametrize("values, message", [
    ({"hot_share": 1.5}, "share from 0 to 1"),
    ({"hot_share": 0.3, "objective": "mlm"}, "objective rtd"),
    ({"hot_share": 0.3, "hot_temperature": 0.0}, "hot_temperature above 0"),
])
def test_a_bad_hot_share_is_refused(values, message):
    from training.config import TrainConfig

    with pytest.raises(ValueError, match=message):
        TrainConfig(max_steps=1, **values)
