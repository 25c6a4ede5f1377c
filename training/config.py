"""A pretraining run's settings (`TrainConfig`), checked when made; `training.trainer.train` runs one.

`python -m training pretrain` and `compare` turn every field into a flag; a race
(training/race/settings.py) fills one in for each objective.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


# The settings of the generator + discriminator pair: an MLM run refuses any of them set away from its default (the
# checks below, all in one place), rather than train without them. Commands that train both objectives on one set of
# settings (a race, `compare`) give them to the RTD side alone: `for_objective`.
RTD_ONLY = ("warm_start", "generator_warm_start", "generator_stack", "untie_embeddings", "freeze_generator",
            "hot_share", "hot_temperature", "generator_head_only", "disc_weight", "temperature", "generator_layers",
            "generator_hidden", "generator_lr_scale")
WARM_START_ONLY = ("warm_start", "generator_warm_start", "generator_stack", "warm_start_lr_scale")  # copying weights
SAVED_EXTRAS = ("world_size", "vocab_size", "blocks", "mixed_blocks")  # what the trainer adds to a run's config.json


@dataclass(frozen=True)
class TrainConfig:
    objective: str = "rtd"  # "rtd" (ELECTRA) or "mlm" (BERT-style baseline)
    preset: str = "mini"  # model sizes, see training/models.py
    corpus: str = "imdb"  # "imdb" (built in) or a .txt/.jsonl path
    tokenizer: str = "bert-base-uncased"  # packaged vocab, "wordpiece:N" (trained), or a folder/hub id
    warm_start: str | None = None  # "minilm" (packaged all-MiniLM-L6-v2 encoder) or a run folder to continue
    max_documents: int | None = None  # use only the first N training documents (tests, quick demos)
    seq_len: int = 128  # tokens per block, [CLS] and [SEP] included
    mixed_seq_len: int | None = None  # every other step trains on blocks this long instead (batch scaled by
    #   seq_len / mixed_seq_len, so every step holds the same tokens): short input as people type it, too
    mixed_sentences: bool = False  # those shorter blocks hold whole sentences ([CLS] sentences [SEP] [PAD]...),
    #   as people type them, instead of a cut of running text that starts and ends mid-sentence
    unpunctuated: float = 0.0  # with mixed_sentences: the share of those blocks whose last sentence loses its final
    #   . ! or ?, as people often type a sentence; without it, a text that stops without one looks cut short,
    #   and the discriminator suspects its last word
    batch_size: int = 32  # blocks per step per process
    lr: float = 5e-4  # peak learning rate of newly initialised weights (ELECTRA-Small: 5e-4)
    warm_start_lr_scale: float = 0.2  # copied weights train at lr x this, so they drift slowly
    generator_lr_scale: float = 1.0  # RTD: the generator's own weights (not the shared embeddings) train at
    #   their lr x this; 0 freezes them, so the discriminator trains against a fixed generator
    freeze_generator: bool = False  # RTD: the generator AND the shared embeddings stay fixed, so the generator runs
    #   without gradients (about a third less work per step) and stays exactly the one measured
    freeze_embeddings: bool = False  # the shared token and position embeddings get no gradient: a generator trained
    #   alone (disc_weight 0) then leaves the discriminator exactly as it was, so the pair's discriminator is kept
    generator_head_only: bool = False  # only the generator's MLM head trains (its layers, and the embeddings, stay):
    #   a generator cut to fewer layers gets its head re-fitted to read its new last layer
    dropout: float | None = None  # dropout of the networks while they train; None keeps each model's own (0.1).
    #   The saved configs keep their own value, so fine-tuning is unchanged. 0 makes a CPU step ~1.4x faster
    #   and suits continued pretraining, which sees each block once and does not overfit
    warmup: float = 0.05  # fraction of the budget spent in linear warmup, then the schedule below
    schedule: str = "linear"  # after warmup: "linear" decays to 0 at the budget's end; "constant" holds the peak,
    #   for an open-ended campaign whose budget is a ceiling, not a plan (decay later, in a short run of its own)
    weight_decay: float = 0.01  # AdamW, not on biases and LayerNorm
    max_grad_norm: float = 1.0  # gradient clipping
    mask_rate: float = 0.15  # fraction of non-special tokens selected per sequence
    disc_weight: float = 50.0  # lambda: weight of the discriminator's BCE (paper: 50)
    temperature: float = 1.0  # generator sampling temperature
    hot_share: float = 0.0  # RTD: this share of the masked positions is drawn at hot_temperature instead: blatant
    #   fakes (a noun for an unrelated noun, as people swap words by hand) among the generator's plausible ones
    hot_temperature: float = 1.5  # at 1.5 the 3-layer generator mostly still draws whole words; at 2 often junk
    generator_layers: int | None = None  # override the preset's generator depth
    generator_hidden: int | None = None  # ... and width (heads: one per 64; feed-forward 4 x width)
    generator_warm_start: str | None = None  # "minilm": the generator's layers from MiniLM's lower layers and a
    #   new MLM head, whatever --warm-start gave the discriminator and the shared embeddings; or a pair folder:
    #   that pair's whole generator (layers, head, embeddings), e.g. after a generator-only phase
    generator_stack: bool = False  # with a pair folder as generator_warm_start: a deeper generator from its shallower
    #   one, layer i copied from layer i mod n (progressive stacking, Gong et al. 2019), head and embeddings as they are
    untie_embeddings: bool = False  # RTD: the discriminator gets an embedding table of its own (the paper shares
    #   one): with --freeze-generator its embeddings still learn, and a warm start gives each network its own
    max_steps: int | None = None  # budget in optimizer steps ...
    max_flops: float | None = None  # ... or in training FLOPs (measured, forward + backward) ...
    max_minutes: float | None = None  # ... or in wall-clock minutes; the first limit reached ends the run
    log_every: int = 10  # steps between events
    checkpoint_every: int = 100  # steps between checkpoints (a killed run loses at most this many)
    seed: int = 0
    device: str = "auto"  # "auto" (CUDA when present), "cpu" or "cuda"
    precision: str = "auto"  # "auto" (bf16 autocast on CUDA, float32 on a CPU), "bf16" or "fp32". bf16 on a
    #   CPU with AMX (Xeon 4th gen and later) runs an RTD step ~1.4x faster; weights and AdamW stay float32
    threads: int | None = None  # torch CPU threads; None leaves torch's default

    def __post_init__(self) -> None:
        if self.objective not in ("rtd", "mlm"):
            raise ValueError(f"objective must be 'rtd' or 'mlm', not {self.objective!r}")
        given = changed(self, RTD_ONLY)
        if self.objective == "mlm" and given:
            raise ValueError(f"{', '.join(given)}: only implemented for the RTD pair (objective rtd), not for mlm")
        if changed(self, ("hot_temperature",)) and not self.hot_share:
            raise ValueError("hot_temperature is the temperature of the hot share: give hot_share too")
        if changed(self, ("warm_start_lr_scale",)) and not (self.warm_start or self.generator_warm_start):
            raise ValueError("warm_start_lr_scale scales the copied weights' rate: give warm_start or "
                             "generator_warm_start too")
        if self.generator_stack and self.generator_warm_start in (None, "minilm"):
            raise ValueError("generator_stack deepens a trained generator: give a pair folder as generator_warm_start")
        if not (self.max_steps or self.max_flops or self.max_minutes):
            raise ValueError("give a budget: max_steps, max_flops or max_minutes")
        if not 0 < self.mask_rate < 1:
            raise ValueError("mask_rate must be between 0 and 1")
        if self.seq_len < 8:
            raise ValueError("seq_len must be at least 8")
        if self.disc_weight < 0:
            raise ValueError("disc_weight must be 0 or more (0 trains the generator alone)")
        if not 0.0 <= self.hot_share <= 1.0:
            raise ValueError(f"hot_share is a share from 0 to 1, not {self.hot_share}")
        if self.hot_share and self.hot_temperature <= 0:
            raise ValueError("hot_share draws some fakes hotter: a hot_temperature above 0")
        if self.schedule not in ("linear", "constant"):
            raise ValueError(f"schedule must be 'linear' or 'constant', not {self.schedule!r}")
        if self.precision not in ("auto", "bf16", "fp32"):
            raise ValueError(f"precision must be 'auto', 'bf16' or 'fp32', not {self.precision!r}")
        if self.dropout is not None and not 0 <= self.dropout < 1:
            raise ValueError(f"dropout must be from 0 up to (not including) 1, not {self.dropout}")
        if self.generator_lr_scale < 0:
            raise ValueError("generator_lr_scale must be 0 or more")
        if self.generator_head_only and (self.disc_weight != 0 or self.freeze_generator):
            raise ValueError("generator_head_only re-fits a generator trained alone: disc_weight 0, the generator not "
                             "frozen")
        if self.mixed_sentences and self.mixed_seq_len is None:
            raise ValueError("mixed_sentences shapes the mixed-length blocks: give mixed_seq_len too")
        if not 0.0 <= self.unpunctuated <= 1.0:
            raise ValueError(f"unpunctuated is a share from 0 to 1, not {self.unpunctuated}")
        if self.unpunctuated and not self.mixed_sentences:
            raise ValueError("unpunctuated shapes the whole-sentence blocks: give mixed_sentences too")
        if self.mixed_seq_len is not None:
            if self.mixed_seq_len < 8 or self.seq_len % self.mixed_seq_len:
                raise ValueError(f"mixed_seq_len must be at least 8 and divide seq_len ({self.seq_len}), "
                                 f"not {self.mixed_seq_len}")

    @classmethod
    def from_dict(cls, values: dict) -> "TrainConfig":
        """A config from a dict, a run's config.json too (the keys the trainer adds to it are skipped); any other
        key is an error naming it, not a setting silently dropped."""
        names = {f.name for f in dataclasses.fields(cls)}
        refuse_unknown(values, names | set(SAVED_EXTRAS), "training setting")
        return cls(**{k: v for k, v in values.items() if k in names})


def changed(config, names) -> list[str]:
    """Those of `names` whose value in `config` is not its field's default, in order."""
    defaults = {f.name: f.default for f in dataclasses.fields(config)}
    return [name for name in names if getattr(config, name) != defaults[name]]


def refuse_unknown(values: dict, known: set[str], what: str) -> None:
    """ValueError naming every key of `values` that is not in `known`."""
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown {what}{'s' if len(unknown) > 1 else ''}: {', '.join(map(str, unknown))}")


def for_objective(objective: str, values: dict) -> dict:
    """`values` (settings for both objectives) as they apply to `objective`: the RTD pair's left out for mlm."""
    return {k: v for k, v in values.items() if objective == "rtd" or k not in RTD_ONLY}
