"""Throughput of the generator phase as it actually trains: the bundled pair's 3-layer generator alone
(`--disc-weight 0`: the discriminator does not run), its shared embeddings, and so its tied output layer, learning.

Each variant is the trainer's own `_Run` (training/trainer.py) on the `english+imdb` corpus, 32 x 128-token steps
alternating with 128 x 32-token whole-sentence steps (`--mixed-seq-len 32 --mixed-sentences`, 4,096 tokens each):
masking, the generator's forward at every position and its vocabulary projection at the selected ones, the
cross-entropy, backward, clipping, AdamW. The variants step round-robin (bench/phase_timing.py); each prints the
median seconds per step and tokens/s, and its speed against the first variant.

    PYTHONPATH=. .venv/bin/python bench/generator_phase.py            # needs `python -m training corpus fetch`
    PYTHONPATH=. .venv/bin/python bench/generator_phase.py --smoke   # seconds: 200 IMDB reviews, 2 steps

Variants (each changes one thing from the campaign's settings, the second row):
    fp32, dropout 0.1       the models' own dropout, float32: how the bundled generator was trained
    campaign                dropout 0, bf16 autocast (AMX matmuls, composite attention), 15% masked
    vocab at every position the vocabulary projection over all T positions, then the selected rows kept (what
                            `ElectraForMaskedLM(labels=...)` and the electra-pytorch wrapper do)
    128-token blocks only   no 32-token whole-sentence steps: every step 32 blocks of running text
    30% masked              twice the supervised positions per token read (`--mask-rate 0.3`)
    1 thread                the campaign's settings on one of the two cores (two runs side by side)

Left out: several processes (DDP), GPUs.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
from pathlib import Path

import torch

from phase_timing import report, round_robin  # bench/ is the script's own folder, first on sys.path
from training import objectives
from training.config import TrainConfig
from training.trainer import _Run

masked_only = objectives.masked_lm_logits

CAMPAIGN = TrainConfig(  # the generator campaign: the bundled pair, the generator alone, embeddings learning
    preset="minilm", corpus="english+imdb", warm_start="assets/model", generator_layers=3, disc_weight=0.0,
    batch_size=32, seq_len=128, mixed_seq_len=32, mixed_sentences=True, dropout=0.0, precision="bf16",
    lr=5e-4, warm_start_lr_scale=1.0, schedule="constant", max_steps=10_000, checkpoint_every=10**9,
    log_every=10**9, seed=31, device="cpu",
)

VARIANTS = {
    "fp32, dropout 0.1": dataclasses.replace(CAMPAIGN, dropout=None, precision="fp32"),
    "campaign": CAMPAIGN,
    "vocab at every position": CAMPAIGN,
    "128-token blocks only": dataclasses.replace(CAMPAIGN, mixed_seq_len=None, mixed_sentences=False),
    "30% masked": dataclasses.replace(CAMPAIGN, mask_rate=0.3),
    "1 thread": CAMPAIGN,
}
EVERY_POSITION = {"vocab at every position"}
ONE_THREAD = {"1 thread"}


def every_position_logits(model, input_ids, attention_mask, is_masked):
    """`masked_lm_logits` as a stock MLM computes it: the head over all T positions, (B, T, V), then the masked rows."""
    hidden = model.electra(input_ids, attention_mask=attention_mask).last_hidden_state  # (B, T, H)
    logits = model.generator_lm_head(model.generator_predictions(hidden))  # (B, T, V)
    return logits[is_masked], hidden


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=10, help="timed steps per variant, an even number (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps per variant first (default 2)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--smoke", action="store_true",
                        help="a check that it runs: 200 IMDB reviews, 2 steps, 1 warm-up")
    args = parser.parse_args()
    variants = dict(VARIANTS)
    if args.smoke:
        args.steps, args.warmup = 2, 1
        variants = {name: dataclasses.replace(c, corpus="imdb", max_documents=200) for name, c in variants.items()}

    def stepper(name: str, run: _Run):
        def step() -> None:
            objectives.masked_lm_logits = every_position_logits if name in EVERY_POSITION else masked_only
            torch.set_num_threads(1 if name in ONE_THREAD else args.threads)
            try:
                run.train_step(0.0)
            finally:
                objectives.masked_lm_logits = masked_only
                torch.set_num_threads(args.threads)
        return step

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        steps = {name: stepper(name, _Run(config, Path(tmp) / str(i), resume=False, stop=lambda: False))
                 for i, (name, config) in enumerate(variants.items())}
        times = round_robin(steps, args.steps, args.warmup)
    report(f"generator phase (3 layers, embeddings learning), bundled pair, {CAMPAIGN.corpus}, 32 x 128 / 128 x 32 "
           f"blocks, {args.threads} threads, median of {args.steps // 2} step pairs after {args.warmup} warm-up steps",
           times, CAMPAIGN.batch_size * CAMPAIGN.seq_len, "fp32, dropout 0.1",
           {"threads": args.threads, "steps": args.steps, "torch": torch.__version__})


if __name__ == "__main__":
    main()
