"""Export a run's generator + discriminator as a compact, self-contained pair (e.g. assets/model), or its
generator alone (e.g. assets/stronger-generator: `export_generator`).

Each folder gets its weights (stored as float16 by default: half the size; loaded as float32) and
the tokenizer, so `AutoModelForMaskedLM` / `AutoModelForPreTraining`
+ `AutoTokenizer` load either folder alone, offline. Both folders carry the shared embeddings;
`training.models.load_pair` re-ties them on load.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from transformers import AutoTokenizer, ElectraForMaskedLM

from training.models import load_pair


def _tokenizer(run_dir: Path, max_length: int):
    tokenizer = AutoTokenizer.from_pretrained(run_dir / "discriminator")
    # A run saves its tokenizer as training left it, padding every text to the block length: the exported files
    # pad nothing and cut only at the model's positions, for anyone reading tokenizer.json directly.
    tokenizer.backend_tokenizer.no_padding()
    tokenizer.backend_tokenizer.enable_truncation(max_length=max_length)
    return tokenizer


def _save(model, tokenizer, folder: Path, dtype: str) -> float:
    """`model` stored in `dtype` with the tokenizer beside it, in `folder`; its size in MiB."""
    model.to(getattr(torch, dtype)).save_pretrained(folder)
    # Stored in `dtype`, loaded as float32: from_pretrained's default ("auto") follows the config,
    # and a float16 model on a CPU is slow and fragile to fine-tune (the Classroom's snippet).
    config_path = folder / "config.json"
    config = json.loads(config_path.read_text())
    config["dtype"] = "float32"
    config_path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    tokenizer.save_pretrained(folder)
    return sum(f.stat().st_size for f in folder.iterdir() if f.is_file()) / 2**20


def export_pair(run_dir: str | Path, out_dir: str | Path, dtype: str = "float16", calibrate: bool = False) -> dict:
    """Save the run's pair in `dtype`; with `calibrate`, the discriminator's logit first gets the scale and
    bias that make P(replaced) calibrated at Explore's 15% (training.calibrate), written to calibration.json."""
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    generator, discriminator = load_pair(run_dir)
    tokenizer = _tokenizer(run_dir, discriminator.config.max_position_embeddings)
    fit = None
    if calibrate:
        from training.calibrate import calibrate_pair

        fit = calibrate_pair(generator, discriminator, tokenizer)
    sizes = {name: _save(model, tokenizer, out_dir / name, dtype)
             for name, model in (("generator", generator), ("discriminator", discriminator))}
    result = {f"{name}_mb": round(size, 1) for name, size in sizes.items()}
    if fit is not None:
        (out_dir / "discriminator" / "calibration.json").write_text(json.dumps(fit, indent=2) + "\n")
        result["calibration"] = fit
    return result


def export_generator(run_dir: str | Path, out_dir: str | Path, dtype: str = "float16") -> dict:
    """Save the run's generator alone in `out_dir` (its config, weights and tokenizer, no pair folder around
    them): a plain masked language model that `AutoModelForMaskedLM` and `pipeline("fill-mask")` load. It
    keeps its own copy of the embeddings, so it can play against another pair's discriminator."""
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    generator = ElectraForMaskedLM.from_pretrained(run_dir / "generator")
    tokenizer = _tokenizer(run_dir, generator.config.max_position_embeddings)
    return {"generator_mb": round(_save(generator, tokenizer, out_dir, dtype), 1)}
