"""Data parallel training with 2 CPU processes: `torchrun` runs the same CLI over gloo.

(`accelerate launch --cpu --num_processes 2` started a single process with accelerate 1.15;
torchrun with `Accelerator(cpu=True)` inside is the path that works on CPU.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import N_DOCUMENTS, WORDPIECE, free_port

from training.project import PROJECT as ROOT

pytestmark = pytest.mark.slow  # two processes: seconds each

BATCH, SEQ, STEPS = 4, 64, 10



def test_two_cpu_processes_train_one_model(tmp_path):
    out, cache = tmp_path / "run", tmp_path / "cache"
    # A cold cache: both ranks need the tokenizer and token stream at the same time.
    env = {**os.environ, "OMP_NUM_THREADS": "1", "ELECTRA_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
        "--master-addr", "127.0.0.1", "--master-port", str(free_port()),
        "-m", "training", "pretrain", "--preset", "tiny", "--tokenizer", WORDPIECE,
        "--max-documents", str(N_DOCUMENTS), "--seq-len", str(SEQ), "--batch-size", str(BATCH),
        # The last step is also a checkpoint step: every rank must agree that nothing is left to save.
        "--max-steps", str(STEPS), "--checkpoint-every", str(STEPS), "--log-every", "5",
        "--threads", "1", "--device", "cpu", "--out", str(out),
    ]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]

    config = json.loads((out / "config.json").read_text())
    assert config["world_size"] == 2
    assert config["batch_size"] == BATCH and config["device"].startswith("cpu")

    events = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [e["step"] for e in events] == [5, STEPS]  # written once, by rank 0
    for event in events:
        # Each step is 2 ranks x BATCH blocks: the global batch is split, not repeated.
        assert event["tokens"] == event["step"] * 2 * BATCH * SEQ
        assert event["step_supervised_positions"] == 2 * BATCH * SEQ
        assert event["flops"] > 0

    for name in ("generator", "discriminator"):
        assert (out / name / "model.safetensors").exists() and (out / name / "tokenizer.json").exists()
    assert (out / "checkpoint.pt").exists()
    # Both ranks used one vocabulary: a single tokenizer and a single token stream in the cache.
    assert len(list(cache.glob("wordpiece-*"))) == 1
    assert len(list(cache.glob("stream-*.npy"))) == 1
