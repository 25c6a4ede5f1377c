"""The two pretraining objectives, MLM (BERT) and RTD (ELECTRA), as small pure functions.

Read top to bottom, `RTDObjective.forward` is the paper's algorithm (Clark et al. 2020, sec. 2):
    1. mask ~15% of the tokens                                   (`mask_tokens`, done by the caller)
    2. the generator predicts the originals at masked positions  (`masked_lm_logits`)
    3. sample a replacement for each from its softmax            (`corrupt`, no gradient)
    4. the discriminator labels every token original/replaced    (`detect`; label = corrupted != original)
    loss = generator MLM loss + 50 x discriminator BCE over every non-padding token.

The models are wrapped in one `nn.Module` per objective so that one forward call is one training
step: that is what DDP (Accelerate) needs to synchronise gradients, and what FlopCounterMode counts.

Two-stage training (paper, sec. 3.2) is two runs: one with disc_weight 0 (the generator alone), then one
with the generator frozen (`freeze_generator` in the trainer, or `generator_lr_scale` 0 to let the shared
embeddings keep learning).

Left out: the paper's other ablations (adversarial generator, all-tokens MLM).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from transformers import ElectraForMaskedLM, ElectraForPreTraining

IGNORE_INDEX = -100  # label value cross_entropy skips; never the pad id (pad is a real token id)


@dataclass(frozen=True)
class MaskingConfig:
    rate: float = 0.15  # fraction of non-special tokens selected per sequence (rounded)
    mask_frac: float = 0.85  # of the selected: replaced by [MASK] (ELECTRA: 85%, BERT: 80%)
    random_frac: float = 0.0  # of the selected: replaced by a random token (ELECTRA: 0, BERT: 10%)
    # the rest of the selected keep their original token but are still predicted


ELECTRA_MASKING = MaskingConfig()
BERT_MASKING = MaskingConfig(rate=0.15, mask_frac=0.80, random_frac=0.10)


@dataclass(frozen=True)
class MaskedBatch:
    original: torch.Tensor  # (B, T) token ids before masking
    masked: torch.Tensor  # (B, T) generator input: [MASK] (or kept/random) at selected positions
    is_masked: torch.Tensor  # (B, T) bool, the selected positions (the MLM targets)
    attention_mask: torch.Tensor  # (B, T) 1 for real tokens, 0 for padding


def selected_count(n_candidates: torch.Tensor, rate: float) -> torch.Tensor:
    """How many positions `mask_tokens` selects out of `n_candidates` (any shape): round(rate x n), half to even."""
    return torch.round(n_candidates.float() * rate).long()


def mask_tokens(
    input_ids: torch.Tensor,  # (B, T)
    special_tokens_mask: torch.Tensor,  # (B, T) 1 at [CLS]/[SEP]/[PAD]: never selected
    attention_mask: torch.Tensor,  # (B, T)
    mask_token_id: int,
    vocab_size: int,
    config: MaskingConfig,
    rng: torch.Generator,
    n_selected: torch.Tensor | None = None,  # (B,) how many to select; default `selected_count` of the candidates
) -> MaskedBatch:
    """Select exactly round(rate x n) non-special positions per sequence (or `n_selected`, at most all the
    candidates) and corrupt them. The random draws do not depend on the count: the same rng, the same scores."""
    special = special_tokens_mask.bool() | ~attention_mask.bool()
    n_candidates = (~special).sum(dim=1)  # (B,)
    if n_selected is None:
        n_selected = selected_count(n_candidates, config.rate)
    n_selected = torch.minimum(n_selected.to(n_candidates.device), n_candidates)
    # A random score per position, specials pushed to the end; the k lowest scores are selected.
    scores = torch.rand(input_ids.shape, generator=rng, device=input_ids.device)
    scores = scores.masked_fill(special, 2.0)
    ranks = scores.argsort(dim=1).argsort(dim=1)  # (B, T) rank of each position's score
    is_masked = ranks < n_selected[:, None]

    action = torch.rand(input_ids.shape, generator=rng, device=input_ids.device)
    to_mask = is_masked & (action < config.mask_frac)
    to_random = is_masked & (action >= config.mask_frac) & (action < config.mask_frac + config.random_frac)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=rng, device=input_ids.device)
    masked = input_ids.masked_fill(to_mask, mask_token_id)
    masked = torch.where(to_random, random_ids, masked)
    return MaskedBatch(input_ids, masked, is_masked, attention_mask)


def masked_lm_logits(
    model: ElectraForMaskedLM, input_ids: torch.Tensor, attention_mask: torch.Tensor, is_masked: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Vocabulary logits at the masked positions only, (M, V), and the last hidden state (B, T, H).

    The vocabulary projection is the largest matmul of a small generator; projecting only the
    ~15% masked positions instead of all T saves most of it.
    """
    hidden = model.electra(input_ids, attention_mask=attention_mask).last_hidden_state  # (B, T, H)
    logits = model.generator_lm_head(model.generator_predictions(hidden[is_masked]))  # (M, V)
    return logits, hidden


@dataclass
class Corruption:
    """The generator's draws written into the sentence, and the labels the discriminator learns."""

    ids: torch.Tensor  # (B, T) the corrupted sentence: what the discriminator reads
    labels: torch.Tensor  # (B, T) bool: replaced, i.e. different from the original (a draw of the original is 0)
    samples: torch.Tensor  # (M,) the draw at each masked position
    probs: torch.Tensor  # (M, V) float32, the distribution they were drawn from: softmax(logits / T)


@torch.no_grad()
def corrupt(original: torch.Tensor, is_masked: torch.Tensor, logits: torch.Tensor, temperature: float | torch.Tensor,
            rng: torch.Generator, attention_mask: torch.Tensor | None = None) -> Corruption:
    """Swap: one token per masked position from softmax(logits / T) (float32: a bf16 softmax skews rare
    tokens; T one number, or one per masked position, (M,)), written into a copy of `original`. A draw equal
    to the original is labelled original, as in the paper (section 2) and the official code; padding
    (attention 0) is never replaced.
    The one corrupt step of the trainer, the evaluator, the Classroom's sweep and the Explore pipeline."""
    probs = softmax(logits, temperature)  # (M, V)
    samples = draw(probs, rng)  # (M,)
    ids = original.clone()
    ids[is_masked] = samples
    labels = ids != original
    if attention_mask is not None:
        labels &= attention_mask.bool()
    return Corruption(ids, labels, samples, probs)


def detect(discriminator: ElectraForPreTraining, ids: torch.Tensor, attention_mask: torch.Tensor
           ) -> tuple[torch.Tensor, torch.Tensor]:
    """Detect: the discriminator's logit per token, (B, T) (sigmoid = P(replaced)), and its last hidden
    state, (B, T, H)."""
    hidden = discriminator.electra(ids, attention_mask=attention_mask).last_hidden_state
    return discriminator.discriminator_predictions(hidden), hidden


def softmax(logits: torch.Tensor, temperature: float | torch.Tensor) -> torch.Tensor:
    """The generator's sampling distribution, softmax(logits / T), in float32, (M, V); T is one number or one
    per row, (M,)."""
    per_row = isinstance(temperature, torch.Tensor)
    t = temperature.float().clamp_min(1e-6)[:, None] if per_row else max(temperature, 1e-6)
    return torch.softmax(logits.detach().float() / t, dim=-1)


def draw(probs: torch.Tensor, rng: torch.Generator) -> torch.Tensor:
    """One token per row of `probs`, (M,), by inverse-CDF sampling: one uniform number per row against the
    row's running sum (float64, so no token's share is lost to rounding; a zero-probability token is never
    drawn). torch.multinomial draws even one sample per row as an exponential race: one random number per
    vocabulary entry, which took a quarter of a training step at 25% masking (bench/discriminator_phase.py)."""
    cdf = probs.cumsum(-1, dtype=torch.float64)  # (M, V)
    u = torch.rand(probs.shape[0], 1, generator=rng, dtype=torch.float64, device=probs.device) * cdf[:, -1:]  # (M, 1)
    return torch.searchsorted(cdf, u, right=True).squeeze(-1).clamp_(max=probs.shape[-1] - 1)


@dataclass
class StepOutput:
    """One step's loss (with graph) plus detached tensors the metrics are computed from."""

    loss: torch.Tensor
    mlm_loss: torch.Tensor  # generator's (RTD) or the encoder's (MLM) cross-entropy
    mlm_logits: torch.Tensor  # (M, V) at masked positions
    mlm_targets: torch.Tensor  # (M,)
    hidden: torch.Tensor  # (B, T, H) last hidden state of the network that is kept (disc/encoder)
    attention_mask: torch.Tensor  # (B, T)
    disc_loss: torch.Tensor | None = None  # unweighted BCE
    disc_logits: torch.Tensor | None = None  # (B, T); sigmoid = P(replaced)
    disc_labels: torch.Tensor | None = None  # (B, T) 1 = replaced, 0 = original


class RTDObjective(nn.Module):
    """ELECTRA: generator MLM loss + disc_weight x replaced-token-detection loss."""

    def __init__(self, generator: ElectraForMaskedLM, discriminator: ElectraForPreTraining, disc_weight: float = 50.0,
                 temperature: float = 1.0, hot_share: float = 0.0, hot_temperature: float = 1.5):
        super().__init__()
        self.generator = generator
        self.discriminator = discriminator
        self.disc_weight = disc_weight  # lambda in the paper
        self.temperature = temperature  # sampling temperature of the generator
        self.hot_share = hot_share  # share of the masked positions drawn at hot_temperature instead
        self.hot_temperature = hot_temperature

    def temperatures(self, n_masked: int, rng: torch.Generator, device: torch.device) -> float | torch.Tensor:
        """The sampling temperature: one number, or one per masked position when a share is drawn hotter (the
        share's own random numbers come first, so a run without it draws exactly as before)."""
        if not self.hot_share:
            return self.temperature
        hot = torch.rand(n_masked, generator=rng, device=rng.device) < self.hot_share
        return torch.where(hot, self.hot_temperature, self.temperature).to(device)

    def forward(self, batch: MaskedBatch, rng: torch.Generator) -> StepOutput:
        targets = batch.original[batch.is_masked]  # (M,)
        frozen = not any(p.requires_grad for p in self.generator.parameters())  # nothing to learn: no graph
        with torch.set_grad_enabled(torch.is_grad_enabled() and not frozen):
            gen_logits, gen_hidden = masked_lm_logits(self.generator, batch.masked, batch.attention_mask,
                                                      batch.is_masked)
        temperature = self.temperatures(targets.numel(), rng, targets.device)
        if frozen and self.disc_weight > 0 and not self.hot_share and self.temperature == 1.0:
            gen_loss = None  # nothing to learn: read it off the sampling distribution below, not a second softmax
        else:
            gen_loss = F.cross_entropy(gen_logits.float(), targets)
        if self.disc_weight == 0:
            # lambda = 0: the generator's MLM stage of two-stage training (paper, sec. 3.2); the
            # discriminator would get no gradient, so it is not run at all.
            return StepOutput(gen_loss, gen_loss.detach(), gen_logits.detach(), targets, gen_hidden.detach(),
                              batch.attention_mask)

        # Sampling is not differentiable: the discriminator's loss never reaches the generator
        # (except through the shared embeddings, as in the paper).
        fake = corrupt(batch.original, batch.is_masked, gen_logits, temperature, rng, batch.attention_mask)
        labels = fake.labels  # (B, T); a sample equal to the original is labelled original
        if gen_loss is None:  # the frozen generator's cross-entropy: -log softmax(logits)[target], at T = 1
            gen_loss = -fake.probs.gather(1, targets[:, None]).clamp_min(1e-30).log().mean()
        disc_logits, hidden = detect(self.discriminator, fake.ids, batch.attention_mask)  # (B, T), (B, T, H)
        real = batch.attention_mask.bool()
        disc_loss = F.binary_cross_entropy_with_logits(disc_logits[real].float(), labels[real].float())
        return StepOutput(
            loss=gen_loss + self.disc_weight * disc_loss,
            mlm_loss=gen_loss.detach(),
            mlm_logits=gen_logits.detach(),
            mlm_targets=targets,
            hidden=hidden.detach(),
            attention_mask=batch.attention_mask,
            disc_loss=disc_loss.detach(),
            disc_logits=disc_logits.detach(),
            disc_labels=labels.long(),
        )


class MLMObjective(nn.Module):
    """BERT: cross-entropy on the masked positions only."""

    def __init__(self, encoder: ElectraForMaskedLM):
        super().__init__()
        self.encoder = encoder

    def forward(self, batch: MaskedBatch, rng: torch.Generator | None = None) -> StepOutput:
        targets = batch.original[batch.is_masked]
        logits, hidden = masked_lm_logits(self.encoder, batch.masked, batch.attention_mask, batch.is_masked)
        loss = F.cross_entropy(logits.float(), targets)
        return StepOutput(loss, loss.detach(), logits.detach(), targets, hidden.detach(), batch.attention_mask)
