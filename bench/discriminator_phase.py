"""Throughput of the discriminator phase as it actually trains: the bundled pair, its generator frozen.

Each variant is the trainer's own `_Run` (training/trainer.py): the `english+imdb` corpus, 128-token
steps alternating with 32-token ones (`--mixed-seq-len 32`, 2,048 tokens each), masking, the frozen
generator's draws, the discriminator's forward and backward, clipping, AdamW. The variants step
round-robin, so drift on the machine hits them alike; each prints the median seconds per step and
tokens/s, and its speed against the first variant (bench/phase_timing.py), the settings the bundled discriminator
was trained with (float32, dropout 0.1, 15% masked).

    PYTHONPATH=. .venv/bin/python bench/discriminator_phase.py            # needs `python -m training corpus fetch`
    PYTHONPATH=. .venv/bin/python bench/discriminator_phase.py --smoke   # seconds: 200 IMDB reviews, 2 steps

Variants (a variant adds to the one above it, except the last two):
    phase-8 settings     float32, the models' own dropout (0.1), 15% masked
    dropout 0            --dropout 0: a continued run sees each block about once and does not overfit
    + bf16 autocast      --precision bf16: bf16 matmuls on the CPU's AMX units, composite attention
    + 2 layers frozen    the discriminator's two lowest layers get no gradient (measured, not adopted:
                         it trades what the discriminator can still learn for speed)
    campaign             dropout 0 + bf16, 25% masked (--mask-rate 0.25): what the long run trains with
    campaign, multinomial the same, drawing with torch.multinomial as before (an exponential race over the
                         whole vocabulary per draw) instead of training.objectives.draw's inverse CDF

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

inverse_cdf_draw = objectives.draw

PHASE8 = TrainConfig(  # the bundled discriminator's last phase (assets/model/measured/phase8-config.json)
    preset="minilm", corpus="english+imdb", warm_start="assets/model", generator_layers=3, freeze_generator=True,
    batch_size=16, seq_len=128, mixed_seq_len=32, lr=5e-4, warm_start_lr_scale=0.2, max_steps=10_000,
    checkpoint_every=10**9, log_every=10**9, seed=12, device="cpu",
)

VARIANTS = {
    "phase-8 settings": (PHASE8, 0),
    "dropout 0": (dataclasses.replace(PHASE8, dropout=0.0), 0),
    "+ bf16 autocast": (dataclasses.replace(PHASE8, dropout=0.0, precision="bf16"), 0),
    "+ 2 layers frozen": (dataclasses.replace(PHASE8, dropout=0.0, precision="bf16"), 2),
    "campaign": (dataclasses.replace(PHASE8, dropout=0.0, precision="bf16", mask_rate=0.25), 0),
    "campaign, multinomial": (dataclasses.replace(PHASE8, dropout=0.0, precision="bf16", mask_rate=0.25), 0),
}
OLD_DRAW = {"campaign, multinomial"}  # variants that draw as the trainer did before inverse-CDF sampling


def multinomial_draw(probs: torch.Tensor, rng: torch.Generator) -> torch.Tensor:
    return torch.multinomial(probs, 1, generator=rng).squeeze(-1)


def build(config: TrainConfig, frozen_layers: int, folder: Path) -> _Run:
    run = _Run(config, folder, resume=False, stop=lambda: False)
    for layer in run.model.discriminator.electra.encoder.layer[:frozen_layers]:
        layer.requires_grad_(False)  # no gradient: AdamW skips them, autograd stops below the first trained layer
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=10, help="timed steps per variant, an even number (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps per variant first (default 2)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--smoke", action="store_true",
                        help="a check that it runs: 200 IMDB reviews, 2 steps, 1 warm-up")
    args = parser.parse_args()
    if args.smoke:
        args.steps, args.warmup = 2, 1
        for name, (config, frozen) in VARIANTS.items():
            VARIANTS[name] = (dataclasses.replace(config, corpus="imdb", max_documents=200), frozen)

    def stepper(name: str, run: _Run):
        def step() -> None:
            objectives.draw = multinomial_draw if name in OLD_DRAW else inverse_cdf_draw
            try:
                run.train_step(0.0)
            finally:
                objectives.draw = inverse_cdf_draw
        return step

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        steps = {name: stepper(name, build(config, frozen, Path(tmp) / str(i)))
                 for i, (name, (config, frozen)) in enumerate(VARIANTS.items())}
        times = round_robin(steps, args.steps, args.warmup)
    report(f"discriminator phase, bundled pair, {VARIANTS['campaign'][0].corpus}, 16 x 128 / 64 x 32 blocks, "
           f"{args.threads} threads, median of {args.steps // 2} step pairs after {args.warmup} warm-up steps",
           times, PHASE8.batch_size * PHASE8.seq_len, "phase-8 settings",
           {"threads": args.threads, "steps": args.steps, "torch": torch.__version__})


if __name__ == "__main__":
    main()
