"""The ELECTRA paper's published compute/score points, as data (drawn by explainer.render.classroom_tab).

Source: Clark, Luong, Le and Manning (2020), "ELECTRA: Pre-training Text Encoders as Discriminators
Rather Than Generators", ICLR 2020, Table 1: GLUE dev score against pretraining (train) FLOPs. In each
Small and Base pair, BERT is the paper's own implementation with the same hyperparameters as ELECTRA
(Table 1's caption), pretrained on the same data with the same compute: BERT-Small trains for 1.5M
steps to ELECTRA-Small's 1M, because each ELECTRA step also runs the generator (section 3.3). ELMo
(a bidirectional LSTM language model: a left-to-right and a right-to-left one, their states
concatenated) and GPT (a left-to-right Transformer language model) are the paper's reference points.
"""

from __future__ import annotations

from dataclasses import dataclass

SOURCE = ("Clark, Luong, Le & Manning (2020), ELECTRA: Pre-training Text Encoders as Discriminators Rather "
          "Than Generators, ICLR 2020, Table 1 (GLUE dev score vs. train FLOPs)")
SHORT_SOURCE = "Clark et al. (2020), ELECTRA, ICLR 2020, Table 1"
SOURCE_URL = "https://arxiv.org/abs/2003.10555"


@dataclass(frozen=True)
class PaperPoint:
    model: str
    objective: str  # "RTD" (ELECTRA), "MLM" (BERT), "LM" (language models: GPT left-to-right; ELMo both ways)
    train_flops: float  # pretraining compute
    glue: float  # GLUE dev score


PAPER_POINTS: tuple[PaperPoint, ...] = (
    PaperPoint("ELMo", "LM", 3.3e18, 71.2),
    PaperPoint("GPT", "LM", 4.0e19, 78.8),
    PaperPoint("BERT-Small", "MLM", 1.4e18, 75.1),
    PaperPoint("ELECTRA-Small", "RTD", 1.4e18, 79.9),
    PaperPoint("BERT-Base", "MLM", 6.4e19, 82.2),
    PaperPoint("ELECTRA-Base", "RTD", 6.4e19, 85.1),
)


def _glue(model: str) -> float:
    return next(p.glue for p in PAPER_POINTS if p.model == model)


def _flops(model: str) -> float:
    return next(p.train_flops for p in PAPER_POINTS if p.model == model)


# What the Efficiency view says about the points, its numbers taken from them. "Same hyperparameters": Table 1's
# caption; the step counts: section 3.3 ("We train BERT-Small for 1.5M steps, so it uses the same training FLOPs
# as ELECTRA-Small, which was trained for 1M steps"). The pairs differ in the objective and in the step count.
COMPARISON = (
    "Same model size, data, hyperparameters and pretraining compute (BERT-Small trains for 1.5M steps to "
    "ELECTRA-Small's 1M, since every ELECTRA step also runs the generator): ELECTRA-Small beats BERT-Small by "
    f"{_glue('ELECTRA-Small') - _glue('BERT-Small'):.1f} GLUE points, and ELECTRA-Base beats BERT-Base by "
    f"{_glue('ELECTRA-Base') - _glue('BERT-Base'):.1f}. ELECTRA-Small even beats GPT, trained with about "
    f"{round(_flops('GPT') / _flops('ELECTRA-Small'), -1):.0f}× more compute.")  # 28.6×: the paper's "30x"
