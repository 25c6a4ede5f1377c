"""training.downstream.evaluate: the swap-pair fixture, the detection scores, and the bundled pair's own figures."""

from __future__ import annotations

import json
import re

import pytest
from transformers import AutoTokenizer

from training import data as data_lib
from training.downstream.evaluate import SWAP_PAIRS, detection, swap_pairs, word_scores
from training.models import embeddings_shared, load_pair
from training.project import PROJECT as PROJECT_ROOT

BUNDLED = PROJECT_ROOT / "assets" / "model"
PAIRS = json.loads(SWAP_PAIRS.read_text())


def test_the_fixture_holds_40_pairs_that_differ_in_exactly_the_named_word():
    # 20 mostly about films, then 20 from everyday topics (kitchen, weather, travel, work...)
    assert len(PAIRS) == 40
    assert len({pair["original"] for pair in PAIRS}) == 40
    for pair in PAIRS:
        original, swapped = pair["original"].split(), pair["swapped"].split()
        assert len(original) == len(swapped)
        differ = [(a, b) for a, b in zip(original, swapped) if a != b]
        assert len(differ) == 1 and differ[0][1] == pair["word"], pair
        # word_scores keys its result by word: the swapped word must be one whole word, once
        assert pair["word"].isalpha() and swapped.count(pair["word"]) == 1, pair
        assert pair["swapped"] == pair["swapped"].lower(), pair


def test_word_scores_take_the_most_suspicious_token_of_each_word(tiny_pair):
    text = "the unbelievably cheerful chef"
    scores = word_scores(tiny_pair.discriminator, tiny_pair.tokenizer, text)
    assert [w for w, _ in scores] == text.split()
    assert all(0.0 <= p <= 1.0 for _, p in scores)


def test_swap_pairs_score_a_hit_when_the_swapped_word_is_the_top_one(tiny_pair):
    result = swap_pairs(tiny_pair.discriminator, tiny_pair.tokenizer, PAIRS[:4])
    rows = result["pairs"]
    assert [r["hit"] for r in rows] == [r["flagged"] == r["word"] for r in rows]
    assert result["hit_rate"] == sum(r["hit"] for r in rows) / 4


def test_detection_scores_every_non_special_token_against_the_generators_samples(tiny_pair, imdb_texts):
    result = detection(tiny_pair.generator, tiny_pair.discriminator, tiny_pair.tokenizer, imdb_texts[:50],
                       seq_len=64, n_blocks=16, seed=0, batch_size=8)
    # [CLS] and [SEP] are left out: two per block, plus a [SEP] where one review ends inside a block
    assert 16 * 58 < result["tokens"] <= 16 * 62
    assert 0.0 < result["replaced_fraction"] <= 0.15  # only masked positions can be replaced
    assert 0.0 <= result["auc"] <= 1.0 and 0.0 <= result["generator_top1_at_mask"] <= 1.0
    again = detection(tiny_pair.generator, tiny_pair.discriminator, tiny_pair.tokenizer, imdb_texts[:50],
                      seq_len=64, n_blocks=16, seed=0, batch_size=8)
    assert again == result  # seeded masks and samples


# --- the bundled pair: what its model card claims, checked on the shipped weights ----------------

@pytest.fixture(scope="module")
def bundled():
    generator, discriminator = load_pair(BUNDLED)
    return generator, discriminator, AutoTokenizer.from_pretrained(BUNDLED / "discriminator")


@pytest.mark.slow
def test_the_bundled_pair_flags_the_swapped_word_more_often_than_not(bundled):
    _, discriminator, tokenizer = bundled
    measured = json.loads((BUNDLED / "measured" / "evaluate.json").read_text())["swap_pairs"]
    # The card's figure was measured on the pairs the fixture held then (its first 20): rescore
    # exactly those, so that the fixture can grow without invalidating the shipped measurement.
    pairs = [{key: row[key] for key in ("original", "swapped", "word")} for row in measured["pairs"]]
    assert pairs == PAIRS[:len(pairs)]
    result = swap_pairs(discriminator, tokenizer, pairs)
    assert result["hit_rate"] > 0.5
    assert result["hit_rate"] == measured["hit_rate"]  # deterministic: the card's figure


@pytest.mark.slow
def test_the_bundled_pair_detects_its_own_generators_replacements(bundled):
    generator, discriminator, tokenizer = bundled
    assert embeddings_shared(generator, discriminator)
    reviews = data_lib.load_imdb().heldout[:200]  # ~50k tokens: plenty for 32 blocks, quick to tokenize cold
    result = detection(generator, discriminator, tokenizer, reviews, n_blocks=32, seed=0)
    assert result["auc"] > 0.75  # 32 blocks; the card's 0.81 is over 992 (seed 0)
    assert 0.08 < result["replaced_fraction"] < 0.15


def test_the_model_card_quotes_the_measured_files():
    card = (BUNDLED / "README.md").read_text()
    measured = json.loads((BUNDLED / "measured" / "evaluate.json").read_text())
    assert f"**{measured['heldout_imdb']['auc']:.4f}**" in card
    n_pairs = len(measured["swap_pairs"]["pairs"])  # the fixture's size when the card was measured
    hits = round(n_pairs * measured["swap_pairs"]["hit_rate"])
    assert f"**{hits} of {n_pairs}**" in card
    finetuned = json.loads((BUNDLED / "measured" / "finetune.json").read_text())
    floor = json.loads((BUNDLED / "measured" / "finetune-random-init.json").read_text())
    assert f"**{100 * finetuned['accuracy']:.1f}%**" in card
    # the model card's downstream bar: +5 points over random weights
    assert 100 * (finetuned["accuracy"] - floor["accuracy"]) >= 5
    assert not re.search(r"\{[A-Z_]+\}", card)  # no placeholder left unfilled


def test_the_bundled_folders_stay_within_the_size_allowed():
    size = sum(f.stat().st_size for f in BUNDLED.glob("*/model.safetensors"))
    assert size < 100 * 2**20  # up to 100 MB in float16 (docs/pretraining-at-cpu-scale.md, Size)
