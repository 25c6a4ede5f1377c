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

The settings: training/config.py. The objective, set up to train, and its optimizer: training/build.py. What
a run writes (metrics.jsonl, checkpoint.pt, the models): training/runfiles.py.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import NamedTuple

import torch
from accelerate import Accelerator
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode
from transformers import AutoTokenizer

from training import bundle
from training import data as data_lib
from training.build import masking_for, objective_and_optimizer
from training.config import TrainConfig
from training.metrics import step_metrics, supervised_positions
from training.objectives import StepOutput, mask_tokens
from training.events import TrainEvent
from training.runfiles import Counters, MetricsLog, load_checkpoint, save_checkpoint, save_models
from training.tokenizer import load_tokenizer


def lr_factor(progress: float, warmup: float, schedule: str = "linear") -> float:
    """Linear warmup to 1 over the first `warmup` of the budget, then linear decay to 0 at its end
    ("linear") or the peak held to the end ("constant").

    A pure function of the budget's progress, not a torch or transformers scheduler: the budget may be FLOPs or
    minutes, whichever ends first, and their schedulers count steps. On a budget of steps it is transformers'
    "linear" and "constant_with_warmup" schedules exactly (tests/test_trainer.py)."""
    if progress < warmup:
        return progress / warmup
    if schedule == "constant":
        return 1.0
    return max(0.0, (1.0 - progress) / (1.0 - warmup))


class _Stream(NamedTuple):
    """Blocks of one length and the batch size that gives every step the same tokens."""
    length: int
    batch_size: int
    blocks: data_lib.Blocks


def _streams(config: TrainConfig, blocks: Callable[[int, bool], data_lib.Blocks]) -> list[_Stream]:
    """One stream per block length; step s trains on stream s % len(streams), whose batches are
    numbered s // len(streams): each stream keeps its own resumable order. `blocks(length, sentences)`
    cuts the corpus into blocks of that length (of whole sentences, or of running text)."""
    streams = [_Stream(config.seq_len, config.batch_size, blocks(config.seq_len, False))]
    if config.mixed_seq_len:
        short = blocks(config.mixed_seq_len, config.mixed_sentences)
        streams.append(_Stream(config.mixed_seq_len, config.batch_size * config.seq_len // config.mixed_seq_len, short))
    return streams


def _flops_after(steps: int, per_shape: list[float]) -> float:
    """Training FLOPs of the first `steps` steps when step s has the shape s % len(per_shape)."""
    n = len(per_shape)
    return sum(((steps - k + n - 1) // n) * flops for k, flops in enumerate(per_shape) if steps > k)


def _step_rng(seed: int, step: int, rank: int, device: torch.device) -> torch.Generator:
    return torch.Generator(device=device).manual_seed(seed * 1_000_003 + step * 101 + rank)



def _accelerator(config: TrainConfig) -> Accelerator:
    """CUDA when asked for (or "auto" and present), else the CPU; bf16 autocast on CUDA unless fp32 is asked
    for; torch's CPU threads as configured."""
    if config.threads:
        torch.set_num_threads(config.threads)
    use_cuda = config.device == "cuda" or (config.device == "auto" and torch.cuda.is_available())
    return Accelerator(cpu=not use_cuda, mixed_precision="no" if config.precision == "fp32" or not use_cuda else "bf16")


def _cpu_autocast(config: TrainConfig, accelerator: Accelerator):
    """bf16 on the CPU, when asked for: autocast around the step's forward (Accelerate's own CPU bf16 is a
    process-wide setting that cannot change between runs in one process), with PyTorch's composite ("math")
    attention: the CPU flash kernel's bf16 backward took ~10x its forward here (bench/train_throughput.py)."""
    if accelerator.device.type != "cpu" or config.precision != "bf16":
        return contextlib.nullcontext()
    stack = contextlib.ExitStack()
    stack.enter_context(torch.autocast("cpu", dtype=torch.bfloat16))
    stack.enter_context(sdpa_kernel(SDPBackend.MATH))
    return stack


def _tokenizer_and_streams(config: TrainConfig, out_dir: Path, resume: bool, accelerator: Accelerator):
    """The run's tokenizer and its block streams, the same on every rank."""
    if bundle.is_bundle(config.corpus):  # tokenized elsewhere: its tokenizer and stream, as they are
        bundle.refuse_text_settings(config)
        tokens = bundle.read_bundle(config.corpus, config.tokenizer)
        return tokens.tokenizer, _streams(config, lambda length, sentences: data_lib.stream_blocks(
            tokens.stream, tokens.tokenizer, length, config.seed))
    cache = data_lib.cache_dir()
    corpus = data_lib.load_corpus(config.corpus)
    texts = corpus.train[: config.max_documents] if config.max_documents else corpus.train
    # Rank 0 trains the tokenizer and tokenizes first, the other ranks then read its cache: one training
    # and one tokenization, where every rank would otherwise repeat them.
    with accelerator.main_process_first():
        # A resumed run reuses its own saved tokenizer: a retrained WordPiece would renumber tokens.
        saved = out_dir / "tokenizer.json"
        tokenizer = (AutoTokenizer.from_pretrained(out_dir) if resume and saved.exists()
                     else load_tokenizer(config.tokenizer, texts, cache))

        def blocks(length: int, sentences: bool) -> data_lib.Blocks:
            if sentences:
                return data_lib.make_sentence_blocks(texts, tokenizer, length, config.seed, cache,
                                                     unpunctuated=config.unpunctuated)
            return data_lib.make_blocks(texts, tokenizer, length, config.seed, cache)

        streams = _streams(config, blocks)
    return tokenizer, streams


class StepResult(NamedTuple):
    """One optimizer step: its output, the learning-rate factor it moved towards, the positions it supervised
    on this process."""
    out: StepOutput
    lr_factor: float
    supervised: int


class _Run:
    """One run between its steps: set up (or resumed) on construction, then stepped, logged and saved by `train`."""

    def __init__(self, config: TrainConfig, out_dir: Path, resume: bool, stop: Callable[[], bool]):
        self.config, self.out_dir, self.stop = config, out_dir, stop
        accelerator = self.accelerator = _accelerator(config)
        self.tokenizer, self.streams = _tokenizer_and_streams(config, out_dir, resume, accelerator)
        objective, optimizer = objective_and_optimizer(config, len(self.tokenizer), self.tokenizer.pad_token_id)
        self.masking = masking_for(config)

        self.counters = Counters()
        if resume and self.checkpoint.exists():
            self.counters = load_checkpoint(self.checkpoint, objective, optimizer, config.seq_len)
        elif resume:
            raise FileNotFoundError(f"no checkpoint to resume in {out_dir}")
        self.objective, self.optimizer = accelerator.prepare(objective, optimizer)
        if self.main:
            self._write_config()
            self.log = MetricsLog(out_dir / "metrics.jsonl", keep_until_step=self.counters.step if resume else None)

        self.started = time.perf_counter() - self.counters.elapsed
        self.interval = (time.perf_counter(), self.counters.step)  # since when, and from which step, tokens/s counts
        # The step the files on disk hold. Every rank keeps it itself: asking the filesystem
        # (checkpoint.exists()) would race with rank 0's write and leave one rank in a barrier alone.
        self.saved_step = self.counters.step if resume else None

    @property
    def rank(self) -> int:
        return self.accelerator.process_index

    @property
    def world(self) -> int:
        return self.accelerator.num_processes

    @property
    def main(self) -> bool:
        return self.accelerator.is_main_process

    @property
    def model(self) -> torch.nn.Module:
        """The objective itself, unwrapped from any data-parallel wrapper."""
        return self.accelerator.unwrap_model(self.objective)

    @property
    def checkpoint(self) -> Path:
        return self.out_dir / "checkpoint.pt"

    @property
    def tokens_per_step(self) -> int:
        """The same for every block length (the batch size scales with it)."""
        return self.config.batch_size * self.config.seq_len * self.world

    def _write_config(self) -> None:
        """config.json: the config as resolved on this machine."""
        self.out_dir.mkdir(parents=True, exist_ok=True)
        streams = self.streams
        resolved = {**asdict(self.config), "world_size": self.world, "vocab_size": len(self.tokenizer),
                    "device": str(self.accelerator.device), "blocks": len(streams[0].blocks),
                    **({"mixed_blocks": len(streams[1].blocks)} if len(streams) > 1 else {})}
        (self.out_dir / "config.json").write_text(json.dumps(resolved, indent=2))

    def clock(self) -> tuple[float, bool]:
        """Elapsed seconds and whether to stop, agreed by every rank (the slowest clock wins), so
        all ranks use one learning rate and leave the loop at the same step."""
        state = torch.tensor([time.perf_counter() - self.started, float(self.stop())], dtype=torch.float64,
                             device=self.accelerator.device)
        if self.world > 1:
            state = self.accelerator.reduce(state, reduction="max")
        return state[0].item(), bool(state[1].item())

    def progress(self, steps_done: int, elapsed: float) -> float:
        """Fraction of the budget used after `steps_done` steps: the first limit to be reached."""
        config, streams = self.config, self.streams
        done = [steps_done / config.max_steps if config.max_steps else 0.0]
        measured = self.counters.flops_per_shape
        if config.max_flops and len(measured) == len(streams):
            done.append(_flops_after(steps_done, [measured[s.length] for s in streams]) / config.max_flops)
        if config.max_minutes:
            done.append(elapsed / 60 / config.max_minutes)
        return max(done)

    def train_step(self, elapsed: float) -> StepResult:
        """One optimizer step."""
        config, counters, device = self.config, self.counters, self.accelerator.device
        step = counters.step
        # the lr this step moves towards
        factor = lr_factor(self.progress(step + 1, elapsed), config.warmup, config.schedule)
        for group in self.optimizer.param_groups:
            group["lr"] = group["base_lr"] * factor
        length, batch_size, blocks = self.streams[step % len(self.streams)]
        batch = {k: v.to(device) for k, v in blocks.batch(step // len(self.streams), batch_size, self.rank,
                                                          self.world).items()}
        rng = _step_rng(config.seed, step, self.rank, device)
        masked = mask_tokens(batch["input_ids"], batch["special_tokens_mask"], batch["attention_mask"],
                             self.tokenizer.mask_token_id, len(self.tokenizer), self.masking, rng)

        counter = FlopCounterMode(display=False) if length not in counters.flops_per_shape else None
        with counter if counter is not None else contextlib.nullcontext():
            with _cpu_autocast(config, self.accelerator):  # the forward only, as torch.autocast asks
                out = self.objective(masked, rng)
            self.accelerator.backward(out.loss)
        if counter is not None:  # one measured step prices every step of its block length
            counters.flops_per_shape[length] = float(counter.get_total_flops()) * self.world
        self.accelerator.clip_grad_norm_(self.objective.parameters(), config.max_grad_norm)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)

        counters.step += 1
        counters.flops += counters.flops_per_shape[length]
        supervised = supervised_positions(out)
        counters.supervised += supervised * self.world
        return StepResult(out, factor, supervised)

    def event(self, result: StepResult, elapsed: float) -> TrainEvent:
        """The event of the step that gave `result`, appended to metrics.jsonl (by rank 0)."""
        now, (since, since_step) = time.perf_counter(), self.interval
        step, tokens_per_step, out = self.counters.step, self.tokens_per_step, result.out
        values = {
            "objective": self.config.objective,
            "step": step,
            "tokens": step * tokens_per_step,
            "supervised_positions": self.counters.supervised,
            "flops": self.counters.flops,
            "wall_time": elapsed,
            "tokens_per_second": (step - since_step) * tokens_per_step / max(now - since, 1e-9),
            "lr": self.config.lr * result.lr_factor,
            "loss": out.loss.item(),
            **{k: v for k, v in step_metrics(out).items() if k != "supervised_positions"},
            "step_supervised_positions": result.supervised * self.world,
        }
        self.interval = (now, step)
        event = TrainEvent(**{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in values.items()})
        if self.main:
            self.log.append(event)
        return event

    def save(self) -> None:
        """Models and checkpoint at the current step (rank 0 writes, once every rank has arrived)."""
        self.saved_step = self.counters.step
        self.counters.elapsed = time.perf_counter() - self.started
        self.accelerator.wait_for_everyone()
        if self.main:
            save_models(self.model, self.tokenizer, self.out_dir)
            save_checkpoint(self.checkpoint, self.model, self.optimizer, self.counters)


def train(config: TrainConfig, out_dir: str | Path, resume: bool = False, stop=lambda: False) -> Iterator[TrainEvent]:
    """Run (or resume) pretraining; yield one event per log step. `stop()` ends it cleanly."""
    run = _Run(config, Path(out_dir), resume, stop)
    counters = run.counters
    logged_step, pending = counters.step, None
    while True:
        elapsed, stopping = run.clock()
        if run.progress(counters.step, elapsed) >= 1.0 or stopping:
            break
        result = run.train_step(elapsed)
        elapsed = time.perf_counter() - run.started
        if counters.step % config.log_every == 0 or run.progress(counters.step, elapsed) >= 1.0:
            yield run.event(result, elapsed)
            logged_step = counters.step
        else:
            pending = result
        if counters.step % config.checkpoint_every == 0:
            run.save()
    if logged_step != counters.step and pending is not None:  # stopped between log steps: report where
        yield run.event(pending, time.perf_counter() - run.started)
    if run.saved_step != counters.step:
        run.save()  # the budget ran out or stop() was called: keep everything trained so far
