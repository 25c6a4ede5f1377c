"""A run's trainable parts from its `TrainConfig`, built in one place: the objective (the RTD pair or the MLM
encoder, any warm start copied in) and its masking step, set up to train (dropout, what is frozen), and AdamW with
its parameter groups, each with its own base learning rate. The config checked its own settings when it was made
(training/config.py); what needs the preset (the sequence length) is checked here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import torch

from training import warmstart
from training.config import TrainConfig
from training.models import EncoderSize, Preset, build_electra, build_mlm, resolve_preset, untie_embeddings
from training.objectives import BERT_MASKING, ELECTRA_MASKING, MaskingConfig, MLMObjective, RTDObjective


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


def generator_size(size: EncoderSize, layers: int | None, hidden: int | None) -> EncoderSize:
    """A preset's generator at another depth and/or width (one head per ~64 wide, feed-forward 4 x width)."""
    if hidden:
        heads = max(h for h in range(1, max(1, hidden // 64) + 1) if hidden % h == 0)
        size = dataclasses.replace(size, hidden=hidden, heads=heads, ffn=4 * hidden)
    return dataclasses.replace(size, layers=layers) if layers else size


def preset_of(config: TrainConfig) -> Preset:
    """The config's preset, its generator resized by generator_layers / generator_hidden."""
    base = resolve_preset(config.preset)
    return resolve_preset(config.preset, generator=generator_size(base.generator, config.generator_layers,
                                                                  config.generator_hidden))


def _copied(source: str, part: str, from_minilm: Callable[[], set[str]], from_pair: Callable[[str], set[str]],
            what: str, folder: str) -> set[str]:
    """Copy weights from 'minilm' (the packaged encoder) or a pair's folder holding `part`/; the names copied."""
    if source == "minilm":
        return from_minilm()
    if (Path(source) / part).is_dir():
        return from_pair(source)
    raise ValueError(f"unknown {what} {source!r}: 'minilm' or {folder}")


def build_objective(config: TrainConfig, vocab_size: int, pad_id: int) -> tuple[torch.nn.Module, set[str]]:
    """The objective's networks, any warm start copied in, and the names of its copied weights."""
    preset = preset_of(config)
    if config.seq_len > preset.max_positions:
        raise ValueError(f"seq_len {config.seq_len} exceeds the preset's {preset.max_positions} positions")
    if config.objective == "mlm":  # the RTD-only settings were refused by the config
        return MLMObjective(build_mlm(preset, vocab_size, pad_id, config.seed)), set()
    generator, discriminator = build_electra(preset, vocab_size, pad_id, config.seed)
    if config.untie_embeddings:  # before any warm start, so each network is given its own table
        untie_embeddings(generator, discriminator)
    warm: set[str] = set()
    if config.warm_start:
        warm = _copied(config.warm_start, "discriminator",
                       lambda: warmstart.warm_start_minilm(generator, discriminator),
                       lambda folder: warmstart.warm_start_from_pair(generator, discriminator, folder),
                       "warm start", "a run folder with generator/ and discriminator/")
    if config.generator_warm_start:  # the generator's weights from here instead, whatever the warm start gave it
        warm = {n for n in warm if not n.startswith("generator.")} | _copied(
            config.generator_warm_start, "generator", lambda: warmstart.warm_start_generator_minilm(generator),
            lambda folder: warmstart.warm_start_generator_from_pair(generator, folder, stack=config.generator_stack),
            "generator warm start", "a pair folder with generator/")
    return RTDObjective(generator, discriminator, config.disc_weight, config.temperature,
                        config.hot_share, config.hot_temperature), warm


def masking_for(config: TrainConfig) -> MaskingConfig:
    """The objective's masking step, at the config's rate: ELECTRA's (85% [MASK], the rest kept) for RTD, BERT's
    (80% [MASK], 10% random, 10% kept) for MLM. The trainer and the benchmarks mask with it."""
    return dataclasses.replace(ELECTRA_MASKING if config.objective == "rtd" else BERT_MASKING, rate=config.mask_rate)


def objective_and_optimizer(config: TrainConfig, vocab_size: int, pad_id: int) -> tuple[torch.nn.Module,
                                                                                       torch.optim.Optimizer]:
    """The objective as the trainer runs it, seeded and in training mode (its dropout, what is frozen), and its
    AdamW."""
    torch.manual_seed(config.seed)
    objective, warm_names = build_objective(config, vocab_size, pad_id)
    objective.train()
    if config.dropout is not None:  # every dropout of the networks, the saved configs untouched
        for module in objective.modules():
            if isinstance(module, torch.nn.Dropout):
                module.p = config.dropout
    if config.freeze_embeddings:  # one module, shared: the generator's and the discriminator's input (both if untied)
        if config.objective == "rtd":
            objective.discriminator.electra.embeddings.requires_grad_(False)
            objective.generator.electra.embeddings.requires_grad_(False)
        else:
            objective.encoder.electra.embeddings.requires_grad_(False)
    if config.generator_head_only:  # the head's output projection is the (frozen) embedding table: its bias trains
        objective.generator.requires_grad_(False)
        objective.generator.generator_predictions.requires_grad_(True)
        objective.generator.generator_lm_head.bias.requires_grad_(True)
    if config.freeze_generator:
        objective.generator.requires_grad_(False)  # its embeddings are the discriminator's too, unless untied
        # A fixed generator draws as it is evaluated and used: without dropout. In training mode its
        # draws would come from a noisier generator than the one the discriminator is measured against.
        # The embedding module is shared, so the discriminator's input embeddings drop no units either.
        objective.generator.eval()
    optimizer = torch.optim.AdamW(param_groups(objective, config, warm_names), lr=config.lr, eps=1e-6)
    return objective, optimizer
