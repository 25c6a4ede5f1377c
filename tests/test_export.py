"""Exporting a run as a compact pair: float16 on disk, float32 when loaded, tokenizer in each folder."""

from __future__ import annotations

import json

import torch
from safetensors import safe_open
from transformers import AutoModelForMaskedLM, AutoModelForPreTraining, AutoTokenizer

from training.export import export_pair
from training.models import embeddings_shared, load_pair


def test_export_stores_float16_loads_float32_and_keeps_the_weights(tiny_pair_dir, tmp_path):
    sizes = export_pair(tiny_pair_dir, tmp_path / "model")
    assert set(sizes) == {"generator_mb", "discriminator_mb"} and all(v > 0 for v in sizes.values())
    for name in ("generator", "discriminator"):
        with safe_open(str(tmp_path / "model" / name / "model.safetensors"), "pt") as f:
            assert {f.get_tensor(k).dtype for k in f.keys()} == {torch.float16}
        assert json.loads((tmp_path / "model" / name / "config.json").read_text())["dtype"] == "float32"
        assert AutoTokenizer.from_pretrained(tmp_path / "model" / name).mask_token == "[MASK]"
    assert AutoModelForMaskedLM.from_pretrained(tmp_path / "model" / "generator").dtype == torch.float32
    assert AutoModelForPreTraining.from_pretrained(tmp_path / "model" / "discriminator").dtype == torch.float32

    original = load_pair(tiny_pair_dir)[1].state_dict()
    generator, discriminator = load_pair(tmp_path / "model")
    assert embeddings_shared(generator, discriminator)
    for key, value in discriminator.state_dict().items():
        assert torch.equal(value, original[key].half().float()), key
