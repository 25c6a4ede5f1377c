"""The long run's tools: the constant schedule, bf16 on the CPU, the watcher, calibration folded into the
head, and the evaluation's figures (generator at [MASK], false alarms, top-rated token)."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch

from tests.conftest import N_DOCUMENTS, WORDPIECE
from training import watch
from training.calibrate import fit_scale_bias, fold_into_head
from training.config import TrainConfig
from training.downstream import evaluate
from training.downstream.evaluate import detection, over_seeds
from training.objectives import ELECTRA_MASKING
from training.trainer import lr_factor, train

TINY = TrainConfig(objective="rtd", preset="tiny", corpus="imdb", tokenizer=WORDPIECE, max_documents=N_DOCUMENTS,
                   seq_len=64, batch_size=8, lr=2e-3, max_steps=6, log_every=2, checkpoint_every=3, seed=0,
                   device="cpu")


def test_the_constant_schedule_warms_up_then_holds_the_peak():
    assert lr_factor(0.05, 0.1, "constant") == pytest.approx(0.5)
    assert lr_factor(0.1, 0.1, "constant") == lr_factor(0.9, 0.1, "constant") == lr_factor(1.0, 0.1, "constant") == 1.0
    assert lr_factor(0.55, 0.1, "linear") == pytest.approx(0.5)


def test_schedule_and_precision_are_checked():
    with pytest.raises(ValueError, match="schedule must be"):
        dataclasses.replace(TINY, schedule="cosine")
    with pytest.raises(ValueError, match="precision must be"):
        dataclasses.replace(TINY, precision="fp16")


@pytest.mark.slow
def test_bf16_on_the_cpu_trains_with_float32_weights_and_close_losses(tmp_path):
    fp32 = list(train(TINY, tmp_path / "fp32"))
    bf16 = list(train(dataclasses.replace(TINY, precision="bf16", schedule="constant"), tmp_path / "bf16"))
    assert [e.step for e in bf16] == [2, 4, 6]
    first32, first16 = fp32[0].loss, bf16[0].loss
    # The first step's forward is the same function of the same weights, only rounded differently.
    assert first16 != first32 and first16 == pytest.approx(first32, rel=0.02)
    assert all(e.lr == TINY.lr for e in bf16[1:])  # constant after the 5% warmup
    state = torch.load(tmp_path / "bf16" / "checkpoint.pt", weights_only=False)["model"]
    assert {v.dtype for v in state.values() if v.is_floating_point()} == {torch.float32}


def test_fit_scale_bias_recovers_a_known_calibration():
    g = torch.Generator().manual_seed(0)
    logits = 2 * torch.randn(200_000, generator=g)
    labels = torch.rand(200_000, generator=g) < torch.sigmoid(0.5 * logits - 1.0)
    scale, bias = fit_scale_bias(logits, labels)
    assert scale == pytest.approx(0.5, abs=0.02) and bias == pytest.approx(-1.0, abs=0.03)
    with pytest.raises(ValueError, match="both replaced and original"):
        fit_scale_bias(logits, torch.zeros_like(labels))


def test_folding_the_calibration_into_the_head_maps_every_logit_exactly(tiny_pair):
    import copy

    discriminator = copy.deepcopy(tiny_pair.discriminator).eval()
    ids = torch.tensor([[2, 40, 41, 42, 43, 3]])
    before = discriminator(ids).logits
    fold_into_head(discriminator, 0.7, -1.3)
    after = discriminator(ids).logits
    torch.testing.assert_close(after, 0.7 * before - 1.3, rtol=1e-5, atol=1e-5)


def oracle(monkeypatch):
    """Make `detection`'s discriminator an oracle: logit +10 on replaced tokens, -10 on the others."""
    seen = {}
    corrupt, detect = evaluate.corrupt, evaluate.detect

    def remember(*args, **kwargs):
        fake = corrupt(*args, **kwargs)
        seen["labels"] = fake.labels
        return fake

    def perfect(discriminator, ids, attention_mask):
        _, hidden = detect(discriminator, ids, attention_mask)
        return 20.0 * seen["labels"].float() - 10.0, hidden

    monkeypatch.setattr(evaluate, "corrupt", remember)
    monkeypatch.setattr(evaluate, "detect", perfect)


def test_detection_figures_for_a_perfect_discriminator(tiny_pair, imdb_texts, monkeypatch):
    oracle(monkeypatch)
    r = detection(tiny_pair.generator, tiny_pair.discriminator, tiny_pair.tokenizer, imdb_texts[:50], seq_len=64,
                  n_blocks=20, seed=0, batch_size=8)
    assert r["blocks"] == 20  # two full batches and a part one
    assert r["auc"] == 1.0 and r["recall"] == 1.0 and r["precision"] == 1.0
    assert r["false_alarm_rate"] == 0.0 and r["top_rated_replaced"] == 1.0


def test_the_generator_is_counted_at_mask_first_and_over_every_selected_position_second(tiny_pair, imdb_texts):
    args = (tiny_pair.generator, tiny_pair.discriminator, tiny_pair.tokenizer, imdb_texts[:50])
    r = detection(*args, seq_len=64, n_blocks=16, seed=0, batch_size=8)
    assert list(r)[:3] == ["generator_top1_at_mask", "generator_top5_at_mask", "draws_outside_top5_at_mask"]
    assert 0 <= r["generator_top1_at_mask"] <= r["generator_top5_at_mask"] <= 1
    # Every selected position shown as [MASK]: the two counts are the same positions.
    all_masked = detection(*args, seq_len=64, n_blocks=16, seed=0, batch_size=8,
                           masking=dataclasses.replace(ELECTRA_MASKING, mask_frac=1.0))
    assert all_masked["generator_top1_at_mask"] == all_masked["generator_top1_selected"]
    # A random tiny generator draws almost every sample outside its own top 5 (1,000 tokens, flat softmax).
    assert r["draws_outside_top5_at_mask"] > 0.9


def test_over_seeds_averages_each_figure_and_keeps_every_seed():
    summary = over_seeds(lambda s: {"auc": 0.5 + s / 10, "tokens": 100}, range(3))
    assert summary["auc"] == pytest.approx(0.6) and summary["auc_range"] == [0.5, 0.7]
    assert summary["seeds"] == [0, 1, 2] and len(summary["per_seed"]) == 3


@pytest.mark.slow
def test_the_watcher_measures_each_new_checkpoint_once_and_keeps_the_best(tmp_path, imdb_texts, monkeypatch):
    run = tmp_path / "run"
    list(train(TINY, run))
    monkeypatch.setattr(watch, "SLICES", (("english", "english", 64, 8, False), ("imdb", "imdb", 64, 8, False),
                                          ("english_sentences", "english", 32, 8, True)))
    texts = {"english": imdb_texts[100:150], "imdb": imdb_texts[:50]}
    first = watch.watch_once(run, texts, None)
    assert first["step"] == 6 and first["best"] is True
    assert first["score"] == pytest.approx((first["english"]["auc"] + first["imdb"]["auc"]) / 2, abs=1e-5)
    assert watch.watch_once(run, texts, 6) is None  # nothing new
    (line,) = (run / "watch.jsonl").read_text().splitlines()
    assert json.loads(line)["step"] == 6
    assert first["english_sentences"]["blocks"] == 8 and first["english_sentences"]["tokens"] < 8 * 30  # padded
    assert first["swap_pairs"]["pairs"] == 40 and 0 <= first["swap_pairs"]["hits"] <= 40
    assert json.loads((run / "best" / "measured.json").read_text())["step"] == 6
    from training.models import load_pair

    generator, discriminator = load_pair(run / "best")  # plain folders, loadable alone
    assert discriminator.config.num_hidden_layers == 2


def test_draw_follows_the_distribution_and_never_draws_an_impossible_token():
    from training.objectives import draw

    probs = torch.tensor([[0.5, 0.0, 0.3, 0.2], [0.0, 0.0, 1.0, 0.0]]).repeat(50_000, 1)  # (100k, 4)
    samples = draw(probs, torch.Generator().manual_seed(0))
    first, second = samples[0::2], samples[1::2]
    shares = torch.bincount(first, minlength=4).float() / len(first)
    torch.testing.assert_close(shares, torch.tensor([0.5, 0.0, 0.3, 0.2]), atol=0.01, rtol=0)
    assert (shares[1] == 0) and (second == 2).all()
    assert draw(torch.empty(0, 4), torch.Generator()).shape == (0,)


def test_a_frozen_generators_loss_is_its_cross_entropy(tiny_pair, imdb_texts):
    import copy

    import torch.nn.functional as F

    from training.objectives import RTDObjective, mask_tokens, masked_lm_logits

    generator, discriminator = copy.deepcopy(tiny_pair.generator), copy.deepcopy(tiny_pair.discriminator)
    generator.requires_grad_(False)
    objective = RTDObjective(generator, discriminator).eval()
    ids = torch.tensor([[2] + list(range(40, 70)) + [3]])
    special = torch.zeros_like(ids)
    special[0, [0, -1]] = 1
    batch = mask_tokens(ids, special, torch.ones_like(ids), tiny_pair.tokenizer.mask_token_id,
                        len(tiny_pair.tokenizer), ELECTRA_MASKING, torch.Generator().manual_seed(0))
    out = objective(batch, torch.Generator().manual_seed(1))
    logits, _ = masked_lm_logits(generator, batch.masked, batch.attention_mask, batch.is_masked)
    expected = F.cross_entropy(logits, batch.original[batch.is_masked])
    assert out.mlm_loss.item() == pytest.approx(expected.item(), rel=1e-5)
    assert out.loss.item() == pytest.approx(expected.item() + 50 * out.disc_loss.item(), rel=1e-5)


def test_mixed_sentences_needs_a_mixed_length():
    with pytest.raises(ValueError, match="give mixed_seq_len too"):
        dataclasses.replace(TINY, mixed_sentences=True)


@pytest.mark.slow
def test_a_run_alternates_running_text_with_whole_sentence_blocks(tmp_path, wordpiece):
    from training.trainer import _Run

    config = dataclasses.replace(TINY, mixed_seq_len=32, mixed_sentences=True, max_steps=4)
    run = _Run(config, tmp_path / "run", resume=False, stop=lambda: False)
    (long, short) = run.streams
    assert (long.length, long.batch_size, short.length, short.batch_size) == (64, 8, 32, 16)
    assert (long.blocks.ids != wordpiece.pad_token_id).all()  # running text: full blocks
    assert (short.blocks.ids[:, -1] == wordpiece.pad_token_id).any()  # sentences: padded
    events = list(train(config, tmp_path / "trained"))
    assert [e.step for e in events] == [2, 4] and all(e.loss == e.loss for e in events)


def _weights(module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def _changed(before: dict, after: dict) -> set[str]:
    return {k for k in before if not torch.equal(before[k], after[k])}


@pytest.mark.slow
def test_a_generator_trained_alone_with_frozen_embeddings_leaves_the_discriminator_as_it_was(tmp_path):
    from training.models import load_pair

    first = tmp_path / "pair"
    list(train(TINY, first))
    generator, discriminator = load_pair(first)
    config = dataclasses.replace(TINY, warm_start=str(first), disc_weight=0.0, freeze_embeddings=True, max_steps=4)
    list(train(config, tmp_path / "gen"))
    new_generator, new_discriminator = load_pair(tmp_path / "gen")
    assert not _changed(_weights(discriminator), _weights(new_discriminator))
    moved = _changed(_weights(generator), _weights(new_generator))
    assert any(".layer." in k for k in moved) and not any("electra.embeddings." in k for k in moved), moved


@pytest.mark.slow
def test_a_head_refit_moves_only_the_generators_head(tmp_path):
    from training.models import load_pair

    first = tmp_path / "pair"
    list(train(TINY, first))
    config = dataclasses.replace(TINY, warm_start=str(first), disc_weight=0.0, generator_head_only=True,
                                 generator_layers=1, max_steps=4)
    list(train(config, tmp_path / "head"))
    generator, discriminator = load_pair(first)
    cut, same_discriminator = load_pair(tmp_path / "head")
    assert cut.config.num_hidden_layers == 1 and not _changed(_weights(discriminator), _weights(same_discriminator))
    before = {k: v for k, v in _weights(generator).items() if k in _weights(cut)}
    moved = _changed(before, _weights(cut))
    assert moved and all(k.startswith("generator_predictions.") or k == "generator_lm_head.bias" for k in moved), moved


def test_a_head_refit_trains_a_generator_alone():
    with pytest.raises(ValueError, match="generator_head_only re-fits a generator trained alone"):
        dataclasses.replace(TINY, generator_head_only=True)


def test_the_learning_curve_table_lists_each_step_once_from_the_watchers_records(tmp_path):
    def record(step, english, imdb, sentences=None):
        r = {"step": step, "english": {"auc": english}, "imdb": {"auc": imdb},
             "english_short": {"auc": 0.8, "top_rated_replaced": 0.5}}
        if sentences is not None:
            r["english_sentences"] = {"auc": sentences, "recall": 0.4, "false_alarm_rate": 0.03,
                                      "top_rated_replaced": 0.7}
            r["swap_pairs"] = {"hits": 31, "pairs": 40, "above_half": 0.5}
        return r

    baseline = tmp_path / "start.json"
    baseline.write_text(json.dumps(record(0, 0.80, 0.82), indent=1))
    log = tmp_path / "watch.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in (record(500, 0.81, 0.83), record(1000, 0.84, 0.86, 0.87),
                                                     record(500, 0.9, 0.9))) + "\n")
    table = watch.curve_table(watch.read_records(baseline, log)).splitlines()
    assert len(table) == 2 + 3  # header, rule, steps 0, 500, 1,000 (a step measured twice: its last record)
    assert table[2].startswith("| 0 | 0.0M | 0.800 | 0.820 | **0.8100** | – |")
    assert table[3].startswith("| 500 | 1.0M | 0.900 | 0.900 | **0.9000** |")
    assert table[4] == ("| 1,000 | 2.0M | 0.840 | 0.860 | **0.8500** | 0.870 | 0.400 | 0.030 | 0.700 | 0.800 | "
                        "0.500 | 31 of 40 |")
    assert table[3].endswith("| – |")  # measured before the watcher counted swap pairs


def test_a_generator_run_keeps_its_best_by_the_cloze_and_tables_its_curve(tmp_path):
    def record(step, top5, auc):
        return {"step": step, "score": auc, "english": {"auc": auc, "generator_top1_at_mask": 0.25 + step / 1e5,
                                                        "generator_top5_at_mask": 0.45},
                "imdb": {"auc": auc}, "cloze": {"top1": 0.05, "top5": top5, "outside_top5": 0.7, "piece_draws": 0.04}}

    a, b = record(300, 0.20, 0.85), record(600, 0.22, 0.84)
    assert watch.BEST_BY["generator"](b) > watch.BEST_BY["generator"](a)  # the better cloze ...
    assert watch.BEST_BY["score"](b) < watch.BEST_BY["score"](a)  # ... though the discriminator fell behind it
    assert watch.BEST_BY["generator"]({"score": 0.9}) == float("-inf")  # measured before the cloze: never best
    with pytest.raises(ValueError, match="best_by must be one of score, generator"):
        watch.watch(tmp_path, best_by="loss", once=True)

    (tmp_path / "config.json").write_text(json.dumps({"batch_size": 32, "seq_len": 128}))
    assert watch.run_tokens_per_step(tmp_path) == 4096
    assert watch.run_tokens_per_step(tmp_path / "missing") == watch.TOKENS_PER_STEP
    table = watch.generator_table([a, b], watch.run_tokens_per_step(tmp_path)).splitlines()
    assert len(table) == 4 and "cloze top-5" in table[0]
    assert table[3] == "| 600 | 2.5M | 0.256 | 0.450 | 0.050 | 0.220 | 0.700 | 0.040 | 0.840 | 0.840 |"
