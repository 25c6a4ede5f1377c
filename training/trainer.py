"""One training loop for both objectives. `train(config, out_dir)` yields one event per log step.

The CLI prints the events, the UI plots them, the tests assert on them: one stream for all.
Each event is also appended to `out_dir/metrics.jsonl`; `config.json` holds the resolved config.

Reproducible and resumable by construction:
- the batch at step i is a pure function of (seed, i)                  (`Blocks.batch`)
- the masks and the generator's samples at step i use a torch.Generator seeded by (seed, i, rank)
- dropout uses the global RNG, whose state is checkpointed
so a run resumed from its checkpoint at step k logs the same losses as one never stopped.

Multi-process data parallel goes through Accelerate: `torchrun --nproc_per_node 2 -m training ...`
runs this same code, each rank on its own slice of every global batch.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import NamedTuple

import torch
import transformers
from accelerate import Accelerator
from torch.utils.flop_counter import FlopCounterMode
from transformers import AutoTokenizer

from training import data as data_lib
from training.metrics import step_metrics
from training.models import build_electra, build_mlm, resolve_preset
from training.objectives import BERT_MASKING, ELECTRA_MASKING, MaskingConfig, MLMObjective, RTDObjective, mask_tokens
from training.tokenizer import load_tokenizer


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
    batch_size: int = 32  # blocks per step per process
    lr: float = 5e-4  # peak learning rate of newly initialised weights (ELECTRA-Small: 5e-4)
    warm_start_lr_scale: float = 0.2  # copied weights train at lr x this, so they drift slowly
    generator_lr_scale: float = 1.0  # RTD: the generator's own weights (not the shared embeddings) train at
    #   their lr x this; 0 freezes them, so the discriminator trains against a fixed generator
    freeze_generator: bool = False  # RTD: the generator AND the shared embeddings stay fixed, so the generator runs
    #   without gradients (about a third less work per step) and stays exactly the one measured
    warmup: float = 0.05  # fraction of the budget spent in linear warmup, then linear decay to 0
    weight_decay: float = 0.01  # AdamW, not on biases and LayerNorm
    max_grad_norm: float = 1.0  # gradient clipping
    mask_rate: float = 0.15  # fraction of non-special tokens selected per sequence
    disc_weight: float = 50.0  # lambda: weight of the discriminator's BCE (paper: 50)
    temperature: float = 1.0  # generator sampling temperature
    generator_layers: int | None = None  # override the preset's generator depth
    generator_hidden: int | None = None  # ... and width (heads: one per 64; feed-forward 4 x width)
    generator_warm_start: str | None = None  # "minilm": the generator's layers from MiniLM's lower layers and a
    #   new MLM head, whatever --warm-start gave the discriminator and the shared embeddings
    max_steps: int | None = None  # budget in optimizer steps ...
    max_flops: float | None = None  # ... or in training FLOPs (measured, forward + backward) ...
    max_minutes: float | None = None  # ... or in wall-clock minutes; the first limit reached ends the run
    log_every: int = 10  # steps between events
    checkpoint_every: int = 100  # steps between checkpoints (a killed run loses at most this many)
    seed: int = 0
    device: str = "auto"  # "auto" (CUDA with bf16 when present), "cpu" or "cuda"
    threads: int | None = None  # torch CPU threads; None leaves torch's default

    def __post_init__(self) -> None:
        if self.objective not in ("rtd", "mlm"):
            raise ValueError(f"objective must be 'rtd' or 'mlm', not {self.objective!r}")
        if not (self.max_steps or self.max_flops or self.max_minutes):
            raise ValueError("give a budget: max_steps, max_flops or max_minutes")
        if not 0 < self.mask_rate < 1:
            raise ValueError("mask_rate must be between 0 and 1")
        if self.seq_len < 8:
            raise ValueError("seq_len must be at least 8")
        if self.disc_weight < 0:
            raise ValueError("disc_weight must be 0 or more (0 trains the generator alone)")
        if self.generator_lr_scale < 0:
            raise ValueError("generator_lr_scale must be 0 or more")
        if self.mixed_seq_len is not None:
            if self.mixed_seq_len < 8 or self.seq_len % self.mixed_seq_len:
                raise ValueError(f"mixed_seq_len must be at least 8 and divide seq_len ({self.seq_len}), "
                                 f"not {self.mixed_seq_len}")

    @classmethod
    def from_dict(cls, values: dict) -> "TrainConfig":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in names})


def lr_factor(progress: float, warmup: float) -> float:
    """Linear warmup to 1 over the first `warmup` of the budget, then linear decay to 0 at its end."""
    if progress < warmup:
        return progress / warmup
    return max(0.0, (1.0 - progress) / (1.0 - warmup))


def param_groups(module: torch.nn.Module, config: TrainConfig, warm_names: set[str]) -> list[dict]:
    """AdamW groups by (copied weight?, generator's own?, decayed?): each gets its base learning rate."""
    discriminator = getattr(module, "discriminator", None)
    shared_or_discriminator = {id(p) for p in discriminator.parameters()} if discriminator is not None else set()
    groups: dict[tuple[bool, bool, bool], list] = {}
    seen = set()
    for name, param in module.named_parameters():
        if id(param) in seen or not param.requires_grad:  # shared embeddings appear under both networks
            continue
        seen.add(id(param))
        no_decay = name.endswith("bias") or "LayerNorm" in name
        generator_own = name.startswith("generator.") and id(param) not in shared_or_discriminator
        groups.setdefault((name in warm_names, generator_own, no_decay), []).append(param)
    return [
        {
            "params": params,
            "weight_decay": 0.0 if no_decay else config.weight_decay,
            "base_lr": config.lr * (config.warm_start_lr_scale if warm else 1.0)
                       * (config.generator_lr_scale if generator_own else 1.0),
        }
        for (warm, generator_own, no_decay), params in groups.items()
    ]


class _Stream(NamedTuple):
    """Blocks of one length and the batch size that gives every step the same tokens."""
    length: int
    batch_size: int
    blocks: data_lib.Blocks


def _streams(config: TrainConfig, texts, tokenizer, cache) -> list[_Stream]:
    """One stream per block length; step s trains on stream s % len(streams), whose batches are
    numbered s // len(streams): each stream keeps its own resumable order."""
    lengths = [config.seq_len] + ([config.mixed_seq_len] if config.mixed_seq_len else [])
    return [_Stream(length, config.batch_size * config.seq_len // length,
                    data_lib.make_blocks(texts, tokenizer, length, config.seed, cache)) for length in lengths]


def _flops_after(steps: int, per_shape: list[float]) -> float:
    """Training FLOPs of the first `steps` steps when step s has the shape s % len(per_shape)."""
    n = len(per_shape)
    return sum(((steps - k + n - 1) // n) * flops for k, flops in enumerate(per_shape) if steps > k)


def _step_rng(seed: int, step: int, rank: int, device: torch.device) -> torch.Generator:
    return torch.Generator(device=device).manual_seed(seed * 1_000_003 + step * 101 + rank)


class _JsonlLog:
    """metrics.jsonl, one complete line per event; a torn last line (a killed writer) is dropped."""

    def __init__(self, path: Path, keep_until_step: int | None):
        self.path = path
        lines = []
        if path.exists() and keep_until_step is not None:
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    break  # torn line from a killed run; everything after it is recomputed
                if event["step"] > keep_until_step:
                    break
                lines.append(line + "\n")
        tmp = path.with_suffix(".jsonl.tmp")
        tmp.write_text("".join(lines), encoding="utf-8")
        tmp.replace(path)  # atomic: a kill during the rewrite leaves the old file whole

    def append(self, event: dict) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(event) + "\n")
            f.flush()


def read_metrics(run_dir: str | Path) -> list[dict]:
    """All complete events of a run (a torn last line is ignored)."""
    events = []
    path = Path(run_dir) / "metrics.jsonl"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                break
    return events


def _build(config: TrainConfig, vocab_size: int, pad_id: int) -> tuple[torch.nn.Module, set[str]]:
    preset = resolve_preset(config.preset)
    if config.generator_layers:
        preset = dataclasses.replace(preset, generator=dataclasses.replace(preset.generator, layers=config.generator_layers))
    if config.generator_hidden:
        width = config.generator_hidden
        heads = max(h for h in range(1, max(1, width // 64) + 1) if width % h == 0)  # ~64 wide each
        preset = dataclasses.replace(preset, generator=dataclasses.replace(
            preset.generator, hidden=width, heads=heads, ffn=4 * width))
    if config.seq_len > preset.max_positions:
        raise ValueError(f"seq_len {config.seq_len} exceeds the preset's {preset.max_positions} positions")
    warm: set[str] = set()
    if config.objective == "mlm":
        encoder = build_mlm(preset, vocab_size, pad_id, config.seed)
        if config.warm_start:
            raise ValueError("warm start is only implemented for the RTD pair")
        return MLMObjective(encoder), warm
    generator, discriminator = build_electra(preset, vocab_size, pad_id, config.seed)
    if config.warm_start == "minilm":
        from training.warmstart import warm_start_minilm

        warm = warm_start_minilm(generator, discriminator)
    elif config.warm_start and (Path(config.warm_start) / "discriminator").is_dir():
        from training.warmstart import warm_start_from_pair

        warm = warm_start_from_pair(generator, discriminator, config.warm_start)
    elif config.warm_start:
        raise ValueError(f"unknown warm start {config.warm_start!r}: 'minilm' or a run folder with generator/ and discriminator/")
    if config.generator_warm_start == "minilm":
        from training.warmstart import warm_start_generator_minilm

        warm = {n for n in warm if not n.startswith("generator.")} | warm_start_generator_minilm(generator)
    elif config.generator_warm_start:
        raise ValueError(f"unknown generator warm start {config.generator_warm_start!r}: only 'minilm'")
    return RTDObjective(generator, discriminator, config.disc_weight, config.temperature), warm


def save_models(objective: torch.nn.Module, tokenizer, out_dir: Path) -> None:
    """generator/ + discriminator/ (RTD) or encoder/ (MLM), each with tokenizer files."""
    if isinstance(objective, RTDObjective):
        folders = {"generator": objective.generator, "discriminator": objective.discriminator}
    else:
        folders = {"encoder": objective.encoder}
    transformers.utils.logging.disable_progress_bar()
    for name, model in folders.items():
        model.save_pretrained(out_dir / name)
        tokenizer.save_pretrained(out_dir / name)
    tokenizer.save_pretrained(out_dir)


def _save_checkpoint(path: Path, objective, optimizer, counters: dict) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(
        {
            "model": objective.state_dict(),
            "optimizer": optimizer.state_dict(),
            "counters": counters,
            "rng_cpu": torch.get_rng_state(),
            "rng_cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        },
        tmp,
    )
    tmp.replace(path)  # atomic: a kill during the write leaves the previous checkpoint intact


def train(config: TrainConfig, out_dir: str | Path, resume: bool = False, stop=lambda: False) -> Iterator[dict]:
    """Run (or resume) pretraining; yield one event per log step. `stop()` ends it cleanly."""
    out_dir = Path(out_dir)
    if config.threads:
        torch.set_num_threads(config.threads)
    use_cuda = config.device == "cuda" or (config.device == "auto" and torch.cuda.is_available())
    accelerator = Accelerator(cpu=not use_cuda, mixed_precision="bf16" if use_cuda else "no")
    rank, world = accelerator.process_index, accelerator.num_processes
    main = accelerator.is_main_process

    cache = data_lib.cache_dir()
    corpus = data_lib.load_corpus(config.corpus)
    texts = corpus.train[: config.max_documents] if config.max_documents else corpus.train
    # Rank 0 trains the tokenizer and tokenizes first, the other ranks then read its cache: a trained
    # WordPiece numbers its tokens differently every time, and all ranks must share one vocabulary.
    with accelerator.main_process_first():
        # A resumed run reuses its own saved tokenizer: a retrained WordPiece would renumber tokens.
        saved = out_dir / "tokenizer.json"
        tokenizer = AutoTokenizer.from_pretrained(out_dir) if resume and saved.exists() else load_tokenizer(config.tokenizer, texts, cache)
        streams = _streams(config, texts, tokenizer, cache)

    torch.manual_seed(config.seed)
    objective, warm_names = _build(config, len(tokenizer), tokenizer.pad_token_id)
    objective.train()
    if config.freeze_generator:
        if config.objective != "rtd":
            raise ValueError("freeze_generator applies to RTD only")
        objective.generator.requires_grad_(False)  # its embeddings are the discriminator's too
    optimizer = torch.optim.AdamW(param_groups(objective, config, warm_names), lr=config.lr, eps=1e-6)
    masking: MaskingConfig = ELECTRA_MASKING if config.objective == "rtd" else BERT_MASKING
    masking = dataclasses.replace(masking, rate=config.mask_rate)

    checkpoint = out_dir / "checkpoint.pt"
    counters = {"step": 0, "flops": 0.0, "elapsed": 0.0, "supervised": 0, "flops_per_shape": {}}
    if resume and checkpoint.exists():
        state = torch.load(checkpoint, map_location="cpu", weights_only=False)
        objective.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        counters = state["counters"]
        if "flops_per_step" in counters:  # a checkpoint from before mixed block lengths: one shape
            measured = counters.pop("flops_per_step")
            counters["flops_per_shape"] = {} if measured is None else {config.seq_len: measured}
        torch.set_rng_state(state["rng_cpu"])
        if state["rng_cuda"] is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["rng_cuda"])
    elif resume:
        raise FileNotFoundError(f"no checkpoint to resume in {out_dir}")
    objective, optimizer = accelerator.prepare(objective, optimizer)
    model = accelerator.unwrap_model(objective)

    if main:
        out_dir.mkdir(parents=True, exist_ok=True)
        resolved = {**asdict(config), "world_size": world, "vocab_size": len(tokenizer),
                    "device": str(accelerator.device), "blocks": len(streams[0].blocks),
                    **({"mixed_blocks": len(streams[1].blocks)} if len(streams) > 1 else {})}
        (out_dir / "config.json").write_text(json.dumps(resolved, indent=2))
        log = _JsonlLog(out_dir / "metrics.jsonl", keep_until_step=counters["step"] if resume else None)

    tokens_per_step = config.batch_size * config.seq_len * world  # the same for every block length
    flops_per_shape = counters["flops_per_shape"]
    step = counters["step"]
    started = time.perf_counter() - counters["elapsed"]
    interval_start, interval_step = time.perf_counter(), step

    def clock() -> tuple[float, bool]:
        """Elapsed seconds and whether to stop, agreed by every rank (the slowest clock wins), so
        all ranks use one learning rate and leave the loop at the same step."""
        state = torch.tensor([time.perf_counter() - started, float(stop())], dtype=torch.float64, device=accelerator.device)
        if world > 1:
            state = accelerator.reduce(state, reduction="max")
        return state[0].item(), bool(state[1].item())

    def progress(steps_done: int, elapsed: float) -> float:
        """Fraction of the budget used after `steps_done` steps: the first limit to be reached."""
        done = [steps_done / config.max_steps if config.max_steps else 0.0]
        if config.max_flops and len(flops_per_shape) == len(streams):
            done.append(_flops_after(steps_done, [flops_per_shape[s.length] for s in streams]) / config.max_flops)
        if config.max_minutes:
            done.append(elapsed / 60 / config.max_minutes)
        return max(done)

    # The step the files on disk hold. Every rank keeps it itself: asking the filesystem
    # (checkpoint.exists()) would race with rank 0's write and leave one rank in a barrier alone.
    saved_step = counters["step"] if resume else None

    def save() -> None:
        nonlocal saved_step
        saved_step = step
        counters.update(step=step, elapsed=time.perf_counter() - started)
        accelerator.wait_for_everyone()
        if main:
            save_models(model, tokenizer, out_dir)
            _save_checkpoint(checkpoint, model, optimizer, counters)

    def event(out, factor: float, elapsed: float) -> dict:
        nonlocal interval_start, interval_step
        now = time.perf_counter()
        record = {
            "objective": config.objective,
            "step": step,
            "tokens": step * tokens_per_step,
            "supervised_positions": counters["supervised"],
            "flops": counters["flops"],
            "wall_time": elapsed,
            "tokens_per_second": (step - interval_step) * tokens_per_step / max(now - interval_start, 1e-9),
            "lr": config.lr * factor,
            "loss": out.loss.item(),
            **{k: v for k, v in step_metrics(out).items() if k != "supervised_positions"},
            "step_supervised_positions": supervised_now * world,
        }
        interval_start, interval_step = now, step
        record = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in record.items()}
        if main:
            log.append(record)
        return record

    logged_step, pending = step, None
    while True:
        elapsed, stopping = clock()
        if progress(step, elapsed) >= 1.0 or stopping:
            break
        factor = lr_factor(progress(step + 1, elapsed), config.warmup)  # the lr this step moves towards
        for group in optimizer.param_groups:
            group["lr"] = group["base_lr"] * factor
        length, batch_size, blocks = streams[step % len(streams)]
        batch = {k: v.to(accelerator.device) for k, v in blocks.batch(step // len(streams), batch_size, rank, world).items()}
        rng = _step_rng(config.seed, step, rank, accelerator.device)
        masked = mask_tokens(batch["input_ids"], batch["special_tokens_mask"], batch["attention_mask"],
                             tokenizer.mask_token_id, len(tokenizer), masking, rng)

        counter = FlopCounterMode(display=False) if length not in flops_per_shape else None
        with counter if counter is not None else contextlib.nullcontext():
            out = objective(masked, rng)
            accelerator.backward(out.loss)
        if counter is not None:  # one measured step prices every step of its block length
            flops_per_shape[length] = float(counter.get_total_flops()) * world
        accelerator.clip_grad_norm_(objective.parameters(), config.max_grad_norm)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

        step += 1
        counters["flops"] += flops_per_shape[length]
        # RTD supervises every token; MLM, and a generator trained alone (disc_weight 0), the masked ones
        supervised_now = int(out.attention_mask.sum()) if out.disc_logits is not None else int(masked.is_masked.sum())
        counters["supervised"] += supervised_now * world

        elapsed = time.perf_counter() - started
        if step % config.log_every == 0 or progress(step, elapsed) >= 1.0:
            yield event(out, factor, elapsed)
            logged_step = step
        else:
            pending = (out, factor)
        if step % config.checkpoint_every == 0:
            save()
    if logged_step != step and pending is not None:  # stopped between log steps: report where
        yield event(*pending, time.perf_counter() - started)
    if saved_step != step:
        save()  # the budget ran out or stop() was called: keep everything trained so far

