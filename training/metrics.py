"""Per-step metrics computed from a `StepOutput`: what the trainer logs and the UI plots.

`token_cosine` is the collapse detector: the mean cosine similarity between the kept network's
token vectors. A discriminator that has fallen back to calling every token "original" stops
needing distinct token representations and drifts towards 0.99 (measured here, docs/pretraining-at-cpu-scale.md);
a healthy encoder sits near 0.3.
"""

from __future__ import annotations

import math

import torch
from sklearn.metrics import roc_auc_score

from training.objectives import StepOutput


def token_cosine(hidden: torch.Tensor, attention_mask: torch.Tensor, max_tokens: int = 256) -> float:
    """Mean pairwise cosine similarity of up to `max_tokens` non-padding token vectors."""
    vectors = hidden[attention_mask.bool()].float()  # (N, H)
    vectors = vectors[:: max(1, len(vectors) // max_tokens)][:max_tokens]
    n = len(vectors)
    if n < 2:
        return math.nan
    unit = torch.nn.functional.normalize(vectors, dim=-1)
    sims = unit @ unit.T  # (n, n)
    return ((sims.sum() - n) / (n * (n - 1))).item()  # mean off the diagonal


def roc_auc(scores: torch.Tensor, labels: torch.Tensor) -> float:
    """The area under the ROC curve of `scores` for the 0/1 `labels`, on the tensors' own device: the Mann-Whitney
    statistic with tied scores given their average rank, which is the trapezoidal area scikit-learn's
    `roc_auc_score` gives. NaN when one class is absent. For tensors on a GPU: there scikit-learn's would copy them
    to the CPU and take about 12 ms a step at 256 x 128 tokens, as long as the step itself; on a CPU scikit-learn's
    is the faster one (a sort of 32k scores costs more than its whole call)."""
    positives = labels.bool()
    n_pos, n = int(positives.sum()), len(labels)
    if not 0 < n_pos < n:
        return math.nan
    ordered, order = torch.sort(scores.double())
    _, group, counts = torch.unique_consecutive(ordered, return_inverse=True, return_counts=True)
    ends = counts.cumsum(0).double()
    ranks = ((ends - counts + 1 + ends) / 2)[group]  # 1-based, ties averaged, in sorted order
    rank_sum = ranks[positives[order]].sum().item()
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * (n - n_pos))


def binary_metrics(logits: torch.Tensor, labels: torch.Tensor) -> dict[str, float]:
    """Accuracy, precision, recall and ROC-AUC of P(replaced) = sigmoid(logit) against labels."""
    auc = roc_auc(logits.float(), labels) if logits.is_cuda else None
    logits, labels = logits.float().cpu(), labels.long().cpu()
    predicted = logits > 0  # sigmoid(logit) > 0.5
    true_pos = (predicted & (labels == 1)).sum().item()
    if auc is None:
        auc = roc_auc_score(labels.numpy(), logits.numpy()) if 0 < labels.sum() < len(labels) else math.nan
    return {
        "accuracy": (predicted == labels.bool()).float().mean().item(),
        "precision": true_pos / max(1, predicted.sum().item()),
        "recall": true_pos / max(1, labels.sum().item()),
        "auc": float(auc),
    }


def supervised_positions(out: StepOutput) -> int:
    """The positions a step's loss is computed on: RTD every non-padding token; MLM, and a generator trained
    alone (disc_weight 0), the masked ones."""
    return int(out.attention_mask.sum()) if out.disc_logits is not None else len(out.mlm_targets)


def step_metrics(out: StepOutput) -> dict[str, float]:
    real = out.attention_mask.bool()
    n_masked = len(out.mlm_targets)
    metrics = {
        "mlm_loss": out.mlm_loss.item(),
        "mlm_accuracy": (out.mlm_logits.argmax(-1) == out.mlm_targets).float().mean().item() if n_masked else math.nan,
        "masked_positions": n_masked,
        "token_cosine": token_cosine(out.hidden, out.attention_mask),
    }
    metrics["supervised_positions"] = supervised_positions(out)
    if out.disc_logits is None:  # MLM: only the masked positions carry a loss
        return metrics
    labels = out.disc_labels[real]
    metrics.update({f"disc_{k}": v for k, v in binary_metrics(out.disc_logits[real], labels).items()})
    metrics.update(
        disc_loss=out.disc_loss.item(),
        replaced_fraction=labels.float().mean().item(),  # of all non-padding tokens
    )
    return metrics
