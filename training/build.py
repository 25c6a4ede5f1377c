"""A run's trainable parts from its `TrainConfig`: the objective (the RTD pair or the MLM encoder, with
any warm start) and AdamW's parameter groups, each with its own base learning rate.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import torch

from training.config import TrainConfig
from training.models import build_electra, build_mlm, resolve_preset, untie_embeddings
from training.objectives import MLMObjective, RTDObjective


def param_groups(module: torch.nn.Module, config: TrainConfig, warm_names: set[str]) -> list[dict]:
    """AdamW groups by (copied weight?, generator's own?, decayed?): each gets its base learning rate."""
    discriminator = getattr(module, "discriminator", None)
    shared_or_discriminator = {id(p) for p in discriminator.parameters()} if discriminator is not None else set()
    groups: dict[tuple[bool, bool, bool], list] = {}
    seen = set()
    for name, param in module.named_parameters():
        if id(param) in seen or not param.requires_grad:  # shared embeddings appear under both networks
            continue
        seen.add(id(param))
        no_decay = name.endswith("bias") or "LayerNorm" in name
        generator_own = name.startswith("generator.") and id(param) not in shared_or_discriminator
        groups.setdefault((name in warm_names, generator_own, no_decay), []).append(param)
    return [
        {
            "params": params,
            "weight_decay": 0.0 if no_decay else config.weight_decay,
            "base_lr": config.lr * (config.warm_start_lr_scale if warm else 1.0)
                       * (config.generator_lr_scale if generator_own else 1.0),
        }
        for (warm, generator_own, no_decay), params in groups.items()
    ]


def build_objective(config: TrainConfig, vocab_size: int, pad_id: int) -> tuple[torch.nn.Module, set[str]]:
    """The objective to train and the names of its copied (warm-started) weights."""
    preset = resolve_preset(config.preset)
    if config.generator_layers:
        preset = dataclasses.replace(preset, generator=dataclasses.replace(preset.generator, layers=config.generator_layers))
    if config.generator_hidden:
        width = config.generator_hidden
        heads = max(h for h in range(1, max(1, width // 64) + 1) if width % h == 0)  # ~64 wide each
        preset = dataclasses.replace(preset, generator=dataclasses.replace(
            preset.generator, hidden=width, heads=heads, ffn=4 * width))
    if config.seq_len > preset.max_positions:
        raise ValueError(f"seq_len {config.seq_len} exceeds the preset's {preset.max_positions} positions")
    warm: set[str] = set()
    if config.objective == "mlm":
        encoder = build_mlm(preset, vocab_size, pad_id, config.seed)
        if config.warm_start:
            raise ValueError("warm start is only implemented for the RTD pair")
        if config.untie_embeddings:
            raise ValueError("untie_embeddings applies to the RTD pair only")
        return MLMObjective(encoder), warm
    generator, discriminator = build_electra(preset, vocab_size, pad_id, config.seed)
    if config.untie_embeddings:  # before any warm start, so each network is given its own table
        untie_embeddings(generator, discriminator)
    if config.warm_start == "minilm":
        from training.warmstart import warm_start_minilm

        warm = warm_start_minilm(generator, discriminator)
    elif config.warm_start and (Path(config.warm_start) / "discriminator").is_dir():
        from training.warmstart import warm_start_from_pair

        warm = warm_start_from_pair(generator, discriminator, config.warm_start)
    elif config.warm_start:
        raise ValueError(f"unknown warm start {config.warm_start!r}: 'minilm' or a run folder with generator/ and discriminator/")
    if config.generator_warm_start == "minilm":
        from training.warmstart import warm_start_generator_minilm

        warm = {n for n in warm if not n.startswith("generator.")} | warm_start_generator_minilm(generator)
    elif config.generator_warm_start and (Path(config.generator_warm_start) / "generator").is_dir():
        from training.warmstart import warm_start_generator_from_pair

        warm = ({n for n in warm if not n.startswith("generator.")}
                | warm_start_generator_from_pair(generator, config.generator_warm_start))
    elif config.generator_warm_start:
        raise ValueError(f"unknown generator warm start {config.generator_warm_start!r}: 'minilm' or a pair folder "
                         "with generator/")
    return RTDObjective(generator, discriminator, config.disc_weight, config.temperature,
                        config.hot_share, config.hot_temperature), warm
