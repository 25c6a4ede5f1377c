"""Exporting a run as a compact pair: float16 on disk, float32 when loaded, tokenizer in each folder."""

from __future__ import annotations

import json

import torch
from safetensors import safe_open
from tokenizers import Tokenizer
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


def test_export_writes_a_tokenizer_that_pads_nothing(tiny_pair_dir, tmp_path):
    # A run's tokenizer is saved as training left it: padding every text to the block length.
    run = tmp_path / "run"
    tokenizer = AutoTokenizer.from_pretrained(tiny_pair_dir / "discriminator")
    tokenizer(["a short text"], padding="max_length", truncation=True, max_length=16)
    tokenizer.backend_tokenizer.enable_padding(length=16, pad_id=tokenizer.pad_token_id, pad_token=tokenizer.pad_token)
    for name in ("generator", "discriminator"):
        (run / name).mkdir(parents=True)
        for f in (tiny_pair_dir / name).iterdir():
            (run / name / f.name).write_bytes(f.read_bytes())
        tokenizer.save_pretrained(run / name)
    assert json.loads((run / "discriminator" / "tokenizer.json").read_text())["padding"] is not None
    export_pair(run, tmp_path / "model")
    positions = load_pair(run)[1].config.max_position_embeddings
    for name in ("generator", "discriminator"):
        saved = json.loads((tmp_path / "model" / name / "tokenizer.json").read_text())
        assert saved["padding"] is None and saved["truncation"]["max_length"] == positions
        tokenizer_file = str(tmp_path / "model" / name / "tokenizer.json")
        assert len(Tokenizer.from_file(tokenizer_file).encode("a short text").ids) < 16


def test_a_generator_exported_alone_is_a_plain_fill_mask_model(tiny_pair_dir, tmp_path):
    from transformers import pipeline

    from training.__main__ import main

    main(["export", str(tiny_pair_dir), "--out", str(tmp_path / "gen"), "--generator-only"])
    assert not (tmp_path / "gen" / "generator").exists() and (tmp_path / "gen" / "model.safetensors").exists()
    with safe_open(str(tmp_path / "gen" / "model.safetensors"), "pt") as f:
        assert {f.get_tensor(k).dtype for k in f.keys()} == {torch.float16}
    model = AutoModelForMaskedLM.from_pretrained(tmp_path / "gen")
    assert model.dtype == torch.float32
    original = load_pair(tiny_pair_dir)[0].state_dict()
    for key, value in model.state_dict().items():
        assert torch.equal(value, original[key].half().float()), key
    fill = pipeline("fill-mask", model=str(tmp_path / "gen"), top_k=3)
    guesses = fill("the film was [MASK] .")
    assert len(guesses) == 3 and all(g["sequence"].startswith("the film was") for g in guesses)
    assert [g["score"] for g in guesses] == sorted((g["score"] for g in guesses), reverse=True)


def test_generator_only_refuses_calibration(tiny_pair_dir, tmp_path):
    import pytest

    from training.__main__ import main

    with pytest.raises(SystemExit, match="no meaning with --generator-only"):
        main(["export", str(tiny_pair_dir), "--out", str(tmp_path / "gen"), "--generator-only", "--calibrate"])
    assert not (tmp_path / "gen").exists()
