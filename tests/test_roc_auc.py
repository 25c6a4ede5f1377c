"""The ROC-AUC a GPU step logs (training.metrics.roc_auc, computed where the tensors are) is scikit-learn's, ties
and one-class batches included; the CPU path keeps scikit-learn's own."""

from __future__ import annotations

import math

import pytest
import torch
from sklearn.metrics import roc_auc_score

from training.metrics import binary_metrics, roc_auc


@pytest.mark.parametrize("kind", ["ties", "separated", "half precision"])
def test_the_torch_auc_is_scikit_learns_to_the_last_bits(kind):
    generator = torch.Generator().manual_seed(7)
    for _ in range(40):
        n = int(torch.randint(2, 2000, (1,), generator=generator))
        labels = (torch.rand(n, generator=generator) < torch.rand(1, generator=generator)).long()
        if kind == "ties":  # few distinct scores: most of them tied
            scores = torch.randint(0, 5, (n,), generator=generator).float()
        elif kind == "separated":
            scores = torch.randn(n, generator=generator) + labels * 0.7
        else:  # a bf16/fp16 model's logits: many near ties
            scores = torch.randn(n, generator=generator).half().float()
        if 0 < labels.sum() < n:
            assert roc_auc(scores, labels) == pytest.approx(roc_auc_score(labels.numpy(), scores.numpy()), abs=1e-12)
        else:
            assert math.isnan(roc_auc(scores, labels))


def test_perfect_inverted_and_one_class_batches():
    labels = torch.tensor([0, 0, 1, 1])
    assert roc_auc(torch.tensor([0.1, 0.2, 0.8, 0.9]), labels) == 1.0
    assert roc_auc(torch.tensor([0.9, 0.8, 0.2, 0.1]), labels) == 0.0
    assert roc_auc(torch.ones(4), labels) == 0.5
    assert math.isnan(roc_auc(torch.rand(4), torch.zeros(4, dtype=torch.long)))
    assert binary_metrics(torch.tensor([-1.0, -2.0, 3.0, 1.0]), labels) == {
        "accuracy": 1.0, "precision": 1.0, "recall": 1.0, "auc": 1.0}
