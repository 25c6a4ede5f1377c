"""Make the discriminator's P(replaced) mean what it says at the masking rate the app shows.

A discriminator trained at one masking rate (say 25%: more replaced tokens per step) and shown at another
(Explore's 15%) is miscalibrated: it expects more fakes than there are, and its P(replaced) runs high. A
scale and a bias on its logit, fitted by maximum likelihood on held-out text corrupted at the shown rate
(Platt scaling), fix that without changing any ranking: ROC-AUC and the order of the words in a sentence
stay exactly as they were. Both fold into the RTD head's last linear layer, so the saved model is a plain
`ElectraForPreTraining` that needs no extra code to load or use.

    python -m training export runs/x --out assets/model --calibrate

Left out: per-token-type or per-length calibration (a richer map could change rankings; two numbers can't).
"""

from __future__ import annotations

import numpy as np
import torch


def fit_scale_bias(logits: torch.Tensor, labels: torch.Tensor) -> tuple[float, float]:
    """(a, b) minimising the mean BCE of sigmoid(a * logit + b) against `labels` (1 = replaced): an unpenalised
    one-feature logistic regression (scikit-learn's), in float64."""
    from sklearn.linear_model import LogisticRegression

    x, y = logits.detach().double().flatten().numpy(), labels.detach().flatten().numpy().astype(int)
    if not 0 < y.sum() < len(y):
        raise ValueError("calibration needs both replaced and original tokens")
    fit = LogisticRegression(C=np.inf).fit(x[:, None], y)  # C = inf: no penalty
    return float(fit.coef_[0, 0]), float(fit.intercept_[0])


@torch.no_grad()
def fold_into_head(discriminator, scale: float, bias: float) -> None:
    """Rewrite the RTD head's last layer so that its logit becomes scale * logit + bias, exactly."""
    last = discriminator.discriminator_predictions.dense_prediction  # hidden -> 1 logit per token
    last.weight.mul_(scale)
    last.bias.mul_(scale).add_(bias)


def calibrate_pair(generator, discriminator, tokenizer, n_blocks: int = 600, seq_len: int = 32, seed: int = 1) -> dict:
    """Fit the scale and bias on held-out broad English and IMDB as blocks of whole sentences (`[CLS]` sentences
    `[SEP]` padding, up to `seq_len` tokens: the shape of what people type into Explore), corrupted as Explore
    shows them (15% selected, samples at temperature 1), and fold them into `discriminator`. Returns the fit,
    and the mean P(replaced) of each class, recall and false alarms at 0.5, before and after."""
    from training import data as data_lib
    from training.downstream.evaluate import scored_batches
    from training.english import load_english

    logits, labels = [], []
    for texts in (load_english().heldout, data_lib.load_imdb().heldout):
        for b in scored_batches(generator, discriminator, tokenizer, texts, seq_len=seq_len, n_blocks=n_blocks,
                                seed=seed, sentences=True):
            logits.append(b.logits[b.scored])
            labels.append(b.labels[b.scored])
    x, y = torch.cat(logits), torch.cat(labels)
    scale, bias = fit_scale_bias(x, y)
    fold_into_head(discriminator, scale, bias)

    def means(z: torch.Tensor) -> dict[str, float]:
        p = torch.sigmoid(z)
        return {"replaced": p[y].mean().item(), "original": p[~y].mean().item(),
                "recall": (z[y] > 0).float().mean().item(), "false_alarms": (z[~y] > 0).float().mean().item()}

    return {"scale": scale, "bias": bias, "tokens": len(y), "replaced_fraction": y.float().mean().item(),
            "seq_len": seq_len, "blocks_per_corpus": n_blocks, "seed": seed,
            "before": means(x), "after": means(scale * x.double() + bias)}
