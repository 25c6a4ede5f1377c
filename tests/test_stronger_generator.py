"""The stronger generator that ships beside the pair (assets/stronger-generator/): a plain masked language model
that transformers loads offline, on the bundled pair's vocabulary, small enough to travel, with a card the Hub reads
and figures that match what was measured."""

from __future__ import annotations

import json

import pytest

from explainer.core import generators
from training.project import ASSETS

FOLDER = ASSETS / "stronger-generator"
pytestmark = pytest.mark.slow  # loads a 17M-parameter model: about a second


def test_it_ships_and_the_app_offers_it():
    assert generators.STRONGER_FOLDER == FOLDER and (FOLDER / "model.safetensors").is_file()
    stored = sum(f.stat().st_size for f in FOLDER.rglob("*") if f.is_file())
    assert stored <= 40 * 2**20, f"{stored / 2**20:.1f} MiB stored"


def test_plain_transformers_load_it_offline_and_fill_a_blank():
    import torch
    from safetensors import safe_open
    from transformers import AutoModelForMaskedLM, AutoTokenizer, pipeline

    with safe_open(FOLDER / "model.safetensors", "pt") as weights:
        assert {weights.get_slice(name).get_dtype() for name in weights.keys()} == {"F16"}
    model = AutoModelForMaskedLM.from_pretrained(FOLDER, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(FOLDER)
    bundled = AutoTokenizer.from_pretrained(ASSETS / "model" / "generator")
    assert tokenizer.get_vocab() == bundled.get_vocab()  # one discriminator judges both generators' fakes
    assert type(model).__name__ == "ElectraForMaskedLM" and model.config.num_hidden_layers == 3
    fill = pipeline("fill-mask", model=model, tokenizer=tokenizer, top_k=5)
    guesses = [g["token_str"] for g in fill("She opened the [MASK] and walked in.")]
    assert len(guesses) == 5 and all(isinstance(g, str) and g for g in guesses)


def test_its_card_carries_what_the_hub_reads_and_its_measured_figures():
    from huggingface_hub import ModelCard

    text = (FOLDER / "README.md").read_text(encoding="utf-8")
    meta = ModelCard(text).data.to_dict()
    assert meta["pipeline_tag"] == "fill-mask" and meta["library_name"] == "transformers"
    assert (FOLDER / meta["license_link"]).is_file()
    assert meta["widget"] and all(example["text"].count("[MASK]") == 1 for example in meta["widget"])
    evaluated = json.loads((FOLDER / "measured" / "evaluate.json").read_text(encoding="utf-8"))
    top1 = evaluated["heldout_english"]["generator_top1_at_mask"]
    assert f"{top1:.3f}" in text  # the card quotes the file it names
