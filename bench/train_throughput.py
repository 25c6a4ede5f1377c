"""Training throughput: our RTD and MLM steps, and electra_pytorch's `Electra` wrapper, on one batch.

Prints, for one preset and one real IMDB batch:
- median step time and tokens/s of three full training steps (masking, forward, backward,
  gradient clipping, AdamW), timed round-robin so that drift (thermal, a neighbour's load)
  hits every variant alike:
    ours RTD    `RTDObjective` on `build_electra`'s generator + discriminator
    theirs RTD  lucidrains' `electra_pytorch.Electra` driving the same two transformers models
    ours MLM    `MLMObjective` on `build_mlm` (the discriminator-sized BERT-style baseline)
- FLOPs per step (FlopCounterMode, as the trainer counts them), the achieved FLOP/s, and that as
  a fraction of this machine's float32 matmul peak, measured in the same run with the same threads;
- the RTD speed ratio ours/theirs, then everything again as one JSON line.

Their wrapper projects the generator's hidden states onto the vocabulary at every position;
ours only at the ~15% masked ones (`masked_lm_logits`), which is most of the gap.

`--precision bf16` runs every variant's forward under the bf16 autocast the campaigns train with
(`torch.autocast("cpu", torch.bfloat16)` and PyTorch's composite attention, as the trainer does); the peak is
then a bf16 matmul's. Weights and AdamW stay float32.

Left out: GPUs, data loading (the batch is built once), multi-process training.

    PYTHONPATH=. .venv/bin/python bench/train_throughput.py --preset small --batch-size 8
    PYTHONPATH=. .venv/bin/python bench/train_throughput.py --preset small --batch-size 8 --precision bf16
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
import transformers
from electra_pytorch import Electra
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

from training import data as data_lib
from training.build import build_objective, masking_for, param_groups
from training.config import TrainConfig
from training.models import build_electra, count_parameters, resolve_preset
from training.objectives import mask_tokens
from training.tokenizer import load_tokenizer


@dataclass(frozen=True)
class VariantResult:
    name: str
    parameters: int  # unique trainable parameters
    median_step_s: float  # median wall time of one full training step
    tokens_per_s: float  # batch_size x seq_len / median_step_s
    flops_per_step: float  # matmul FLOPs of forward + backward, FlopCounterMode
    flops_per_s: float  # flops_per_step / median_step_s
    peak_fraction: float  # flops_per_s / measured float32 matmul peak


class LogitsOnly(nn.Module):
    """What `Electra` expects of each network: `net(input_ids) -> logits`, (B, T, V) or (B, T)."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, **kwargs) -> torch.Tensor:
        return self.model(input_ids, **kwargs).logits


def forward_precision(precision: str) -> contextlib.AbstractContextManager:
    """The forward's numerics: float32, or bf16 autocast with composite attention (training/trainer.py's CPU bf16)."""
    if precision == "fp32":
        return contextlib.nullcontext()
    stack = contextlib.ExitStack()
    stack.enter_context(torch.autocast("cpu", dtype=torch.bfloat16))
    stack.enter_context(sdpa_kernel(SDPBackend.MATH))
    return stack


def matmul_peak(size: int, repeats: int, dtype: torch.dtype = torch.float32) -> float:
    """Best FLOP/s of `repeats` (size x size) @ (size x size) products in `dtype`, after one warm-up."""
    a, b = torch.randn(size, size, dtype=dtype), torch.randn(size, size, dtype=dtype)
    torch.matmul(a, b)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        torch.matmul(a, b)
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / best


def real_batch(tokenizer, batch_size: int, seq_len: int, seed: int) -> dict[str, torch.Tensor]:
    """The trainer's first batch of packed IMDB blocks, tokenizing only as many reviews as it needs."""
    texts = data_lib.load_imdb().train
    n_docs = 8
    while True:
        stream = data_lib.tokenize_stream(texts[:n_docs], tokenizer)
        if len(stream) >= batch_size * (seq_len - 2) or n_docs >= len(texts):
            break
        n_docs *= 2
    ids = data_lib.pack_blocks(stream, seq_len, tokenizer.cls_token_id, tokenizer.sep_token_id)
    specials = (tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id)
    return data_lib.Blocks(ids, specials, seed).batch(0, batch_size)


def make_steps(args: argparse.Namespace, tokenizer,
               batch: dict[str, torch.Tensor]) -> dict[str, tuple[nn.Module, Callable[[int], None]]]:
    """One closure per variant; calling it with the step index runs one full training step."""
    preset = resolve_preset(args.preset)
    vocab, pad = len(tokenizer), tokenizer.pad_token_id
    config = TrainConfig(preset=args.preset, seq_len=args.seq_len, batch_size=args.batch_size, max_steps=1,
                         seed=args.seed)
    mlm_config = dataclasses.replace(config, objective="mlm")

    def optimizer_for(module: nn.Module) -> torch.optim.Optimizer:
        return torch.optim.AdamW(param_groups(module, config, set()), lr=config.lr, eps=1e-6)  # as the trainer

    def update(module: nn.Module, optimizer: torch.optim.Optimizer, loss: torch.Tensor) -> None:
        loss.backward()
        torch.nn.utils.clip_grad_norm_(module.parameters(), config.max_grad_norm)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    def ours(objective: nn.Module, masking) -> Callable[[int], None]:
        optimizer = optimizer_for(objective)

        def step(i: int) -> None:
            rng = torch.Generator().manual_seed(args.seed * 1_000_003 + i)  # as the trainer: (seed, step)
            masked = mask_tokens(batch["input_ids"], batch["special_tokens_mask"], batch["attention_mask"],
                                 tokenizer.mask_token_id, vocab, masking, rng)
            with forward_precision(args.precision):
                loss = objective(masked, rng).loss
            update(objective, optimizer, loss)

        return step

    # Each variant trains its own copy; both RTD pairs start from the same weights (same seed). Ours are built, and
    # masked, as the trainer builds and masks them (training/build.py).
    rtd, _ = build_objective(config, vocab, pad)
    masking = masking_for(config)
    generator, discriminator = build_electra(preset, vocab, pad, args.seed)
    theirs = Electra(
        LogitsOnly(generator),
        LogitsOnly(discriminator),
        num_tokens=vocab,
        mask_prob=masking.rate,
        replace_prob=masking.mask_frac,
        random_token_prob=masking.random_frac,
        mask_token_id=tokenizer.mask_token_id,
        pad_token_id=pad,
        mask_ignore_token_ids=[tokenizer.cls_token_id, tokenizer.sep_token_id],
        disc_weight=config.disc_weight,
        temperature=config.temperature,
    )
    theirs_optimizer = optimizer_for(theirs)

    def theirs_step(i: int) -> None:  # masks and samples from the global RNG, seeded once in main
        with forward_precision(args.precision):
            loss = theirs(batch["input_ids"], attention_mask=batch["attention_mask"]).loss
        update(theirs, theirs_optimizer, loss)

    mlm, _ = build_objective(mlm_config, vocab, pad)
    modules = {"ours RTD": rtd, "theirs RTD": theirs, "ours MLM": mlm}
    for module in modules.values():
        module.train()
    steps = {"ours RTD": ours(rtd, masking), "theirs RTD": theirs_step, "ours MLM": ours(mlm, masking_for(mlm_config))}
    return {name: (modules[name], steps[name]) for name in modules}


def run(args: argparse.Namespace) -> dict:
    transformers.set_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    preset = resolve_preset(args.preset)
    if args.seq_len > preset.max_positions:
        raise SystemExit(f"--seq-len {args.seq_len} exceeds the preset's {preset.max_positions} positions")
    tokenizer = load_tokenizer("bert-base-uncased")
    batch = real_batch(tokenizer, args.batch_size, args.seq_len, args.seed)
    variants = make_steps(args, tokenizer, batch)
    peak = matmul_peak(args.peak_size, args.peak_repeats, torch.bfloat16 if args.precision == "bf16" else torch.float32)

    flops = {}
    for name, (_, step) in variants.items():  # shapes are fixed: one counted step prices them all
        with FlopCounterMode(display=False) as counter:
            step(0)
        flops[name] = float(counter.get_total_flops())
    for i in range(1, 1 + args.warmup):
        for _, step in variants.values():
            step(i)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for i in range(1 + args.warmup, 1 + args.warmup + args.steps):
        for name, (_, step) in variants.items():  # round-robin: drift is shared, not one variant's
            start = time.perf_counter()
            step(i)
            times[name].append(time.perf_counter() - start)

    tokens = args.batch_size * args.seq_len
    results = []
    for name, (module, _) in variants.items():
        median = statistics.median(times[name])
        results.append(VariantResult(name, count_parameters(module), median, tokens / median,
                                     flops[name], flops[name] / median, flops[name] / median / peak))
    by_name = {r.name: r for r in results}
    return {
        "preset": args.preset,
        "batch_size": args.batch_size,
        "seq_len": args.seq_len,
        "vocab_size": len(tokenizer),
        "steps": args.steps,
        "warmup": args.warmup,
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "peak_flops_per_s": peak,
        "precision": args.precision,
        "peak_matmul": f"{'bfloat16' if args.precision == 'bf16' else 'float32'} {args.peak_size}x{args.peak_size}, "
                       f"best of {args.peak_repeats}",
        "rtd_speed_ratio_ours_over_theirs": by_name["ours RTD"].tokens_per_s / by_name["theirs RTD"].tokens_per_s,
        "rtd_flops_ratio_theirs_over_ours": by_name["theirs RTD"].flops_per_step / by_name["ours RTD"].flops_per_step,
        "variants": [dataclasses.asdict(r) for r in results],
    }


def print_report(report: dict) -> None:
    print(f"preset {report['preset']}  batch {report['batch_size']} x seq {report['seq_len']}  "
          f"vocab {report['vocab_size']}  "
          f"threads {report['threads']}  torch {report['torch']}  forward {report['precision']}")
    print(f"matmul peak ({report['peak_matmul']}): {report['peak_flops_per_s'] / 1e9:.1f} GFLOP/s")
    print(f"median of {report['steps']} timed steps after {report['warmup']} warm-up, "
          "variants interleaved round-robin\n")
    header = (f"{'variant':<12} {'params':>8} {'step ms':>9} {'tokens/s':>10} {'GFLOP/step':>11} {'GFLOP/s':>9} "
              f"{'% peak':>7}")
    print(header)
    print("-" * len(header))
    for r in report["variants"]:
        print(f"{r['name']:<12} {r['parameters'] / 1e6:>7.2f}M {r['median_step_s'] * 1e3:>9.1f} "
              f"{r['tokens_per_s']:>10.0f} "
              f"{r['flops_per_step'] / 1e9:>11.2f} {r['flops_per_s'] / 1e9:>9.2f} {r['peak_fraction'] * 100:>6.1f}%")
    print(f"\nRTD tokens/s, ours / theirs: {report['rtd_speed_ratio_ours_over_theirs']:.2f}x")
    print(f"RTD FLOPs per step, theirs / ours: {report['rtd_flops_ratio_theirs_over_ours']:.2f}x  "
          "(their wrapper projects the generator onto the vocabulary at every position, ours only at the masked ones)")
    print(json.dumps(report))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="small", help="training.models.PRESETS name (default: small)")
    parser.add_argument("--batch-size", type=int, default=8, help="blocks per step (default: 8)")
    parser.add_argument("--seq-len", type=int, default=128, help="tokens per block (default: 128)")
    parser.add_argument("--steps", type=int, default=5, help="timed steps per variant (default: 5)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps per variant first (default: 2)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    parser.add_argument("--peak-size", type=int, default=2048, help="matmul size for the peak (default: 2048)")
    parser.add_argument("--peak-repeats", type=int, default=5, help="matmuls timed for the peak (default: 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--precision", choices=("fp32", "bf16"), default="fp32",
                        help="the forward in float32, or under the bf16 autocast the campaigns train with")
    print_report(run(parser.parse_args()))


if __name__ == "__main__":
    main()
