"""Many users at once: the served app under `--clients` concurrent gradio_client users, `--calls` /explain each.

Starts `python app.py` in a subprocess exactly as a Space does (GRADIO_SERVER_NAME / GRADIO_SERVER_PORT
on a free port, offline), then prints:
- cold start: from starting the process to the page being served, and to the first /explain answer
  (imports, launch, loading the model);
- the load: every client connects first, then all start together; each call's wall time as the
  client sees it (queueing included): p50, p95, max, throughput, and every error with its message;
- the server's peak resident memory (psutil, the process and any children, sampled every
  `--sample-ms`), and its memory after the first answer (the model loaded, no load yet).

Models (`--model`): "bundled" (assets/model; the default), "tiny" or "small" (random weights of that
preset with the bert-base-uncased vocabulary, saved to a temporary folder: a smoke test, and the
ELECTRA-Small size), or a folder with generator/ and discriminator/ (allowed for this run through
ELECTRA_MODEL_ROOTS).

    PYTHONPATH=. .venv/bin/python bench/load.py                                   # 20 x 10 on the bundled pair
    PYTHONPATH=. .venv/bin/python bench/load.py --model tiny --clients 3 --calls 2  # smoke test

Left out: /attribute under load, the page's own events (the same queue groups, explainer/ui/queues.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
SENTENCES = [
    "The chef cooked a delicious meal for the guests at the restaurant.",
    "The movie was long, but the acting was wonderful and the music was great.",
    "She opened the door and saw her old friend standing in the rain.",
    "The old sailor told the children a wonderful story about the sea.",
]


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="bundled", help="bundled, tiny, small, or a folder (default: bundled)")
    p.add_argument("--clients", type=int, default=20, help="concurrent gradio_client users (default: 20)")
    p.add_argument("--calls", type=int, default=10, help="/explain calls per client, one after another (default: 10)")
    p.add_argument("--mode", default="auto", choices=["auto", "detect"], help="the /explain mode (default: auto)")
    p.add_argument("--sample-ms", type=float, default=50, help="memory sampling interval (default: 50)")
    p.add_argument("--threads", type=int, help="the server's torch threads (OMP_NUM_THREADS); default: torch's own")
    p.add_argument("--startup-timeout", type=float, default=300, help="seconds to wait for the page (default: 300)")
    p.add_argument("--json", help="also write the figures to this file")
    return p.parse_args(argv)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare_model(name: str, scratch: Path) -> tuple[dict, str]:
    """Environment variables that make `name` the app's default model, and a description of it."""
    if name == "bundled":
        if not (PROJECT / "assets" / "model" / "discriminator" / "config.json").exists():
            sys.exit("assets/model is missing (being trained?): pass --model tiny|small|FOLDER")
        return {}, "bundled (assets/model)"
    if name in ("tiny", "small"):
        from transformers.utils import logging as hf_logging

        from training.models import PRESETS, build_electra
        from training.tokenizer import load_tokenizer

        hf_logging.disable_progress_bar()

        tokenizer = load_tokenizer("bert-base-uncased")
        generator, discriminator = build_electra(PRESETS[name], len(tokenizer), tokenizer.pad_token_id, seed=0)
        folder = scratch / name
        for part, model in (("generator", generator), ("discriminator", discriminator)):
            model.save_pretrained(folder / part)
            tokenizer.save_pretrained(folder / part)
        described = f"{name} preset, random weights, bert-base-uncased vocabulary"
    else:
        folder = Path(name).resolve()
        if not (folder / "discriminator" / "config.json").exists():
            sys.exit(f"{name}: no discriminator/config.json there")
        described = str(folder)
    return {"ELECTRA_MODEL": str(folder), "ELECTRA_MODEL_ROOTS": str(folder)}, described


class PeakMemory:
    """Samples the resident memory of a process and its children in a thread; keeps the peak."""

    def __init__(self, pid: int, interval: float):
        import psutil

        self.process, self.interval = psutil.Process(pid), interval
        self.peak = self.last = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def rss(self) -> int:
        import psutil

        total = 0
        for process in (self.process, *self.process.children(recursive=True)):
            try:
                total += process.memory_info().rss
            except psutil.Error:  # a child that just ended
                pass
        return total

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            try:
                self.last = self.rss()
            except psutil.Error:  # the server ended
                return
            self.peak = max(self.peak, self.last)
            self._stop.wait(self.interval)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def wait_for_page(url: str, server: subprocess.Popen, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            sys.exit(f"the app did not come up at {url}; its output:\n{log.read_text()[-3000:]}")
        time.sleep(0.1)


def drive(url: str, clients: int, calls: int, mode: str) -> tuple[list[float], list[str], float]:
    """Every client connects, then all start at once; (latencies in s, errors, wall seconds)."""
    from gradio_client import Client

    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    ready = threading.Barrier(clients + 1)

    def user(index: int) -> None:
        try:
            client = Client(url, verbose=False)
        except Exception as error:  # noqa: BLE001 - counted and printed
            with lock:
                errors.extend([f"client {index} could not connect: {type(error).__name__}: {error}"] * calls)
            ready.wait()
            return
        ready.wait()
        for call in range(calls):
            text = SENTENCES[(index + call) % len(SENTENCES)]
            began = time.perf_counter()
            try:
                result = client.predict(text, mode=mode, seed=index * 1000 + call, api_name="/explain")
                assert result["tokens"][0]["original"] == "[CLS]", "malformed answer"
                with lock:
                    latencies.append(time.perf_counter() - began)
            except Exception as error:  # noqa: BLE001 - counted and printed
                with lock:
                    errors.append(f"client {index} call {call}: {type(error).__name__}: {error}")

    threads = [threading.Thread(target=user, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    ready.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return latencies, errors, time.perf_counter() - began


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q) - 1]


def main(argv=None) -> int:
    args = parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="electra-load-"))
    server = None
    try:
        model_env, described = prepare_model(args.model, scratch)
        port = free_port()
        url = f"http://127.0.0.1:{port}/"
        env = {**os.environ, **model_env, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
               "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONUNBUFFERED": "1"}
        if args.threads:
            env["OMP_NUM_THREADS"] = str(args.threads)
        log = scratch / "server.log"
        began = time.perf_counter()
        with open(log, "wb") as out:
            server = subprocess.Popen([sys.executable, "app.py"], cwd=PROJECT, env=env, stdout=out,
                                      stderr=subprocess.STDOUT)
        memory = PeakMemory(server.pid, args.sample_ms / 1000)
        wait_for_page(url, server, args.startup_timeout, log)
        page_s = time.perf_counter() - began

        from gradio_client import Client

        first = Client(url, verbose=False).predict(SENTENCES[0], mode=args.mode, api_name="/explain")
        first_s = time.perf_counter() - began
        assert first["tokens"][0]["original"] == "[CLS]"
        idle_rss = memory.rss()

        latencies, errors, wall = drive(url, args.clients, args.calls, args.mode)
        peak = memory.stop()
    finally:
        if server is not None and server.poll() is None:
            server.terminate()  # our own child, by its pid
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(scratch, ignore_errors=True)

    total = args.clients * args.calls
    ms = lambda s: None if s is None else round(1000 * s, 1)  # noqa: E731
    figures = {
        "model": described, "clients": args.clients, "calls_per_client": args.calls, "mode": args.mode,
        "server_threads": args.threads, "cold_start_page_s": round(page_s, 2), "cold_start_first_explain_s": round(first_s, 2),
        "calls": total, "ok": len(latencies), "errors": len(errors), "wall_s": round(wall, 2),
        "throughput_calls_per_s": round(len(latencies) / wall, 2) if wall else None,
        "p50_ms": ms(percentile(latencies, 50)), "p95_ms": ms(percentile(latencies, 95)),
        "max_ms": ms(max(latencies, default=None)), "idle_rss_mib": round(idle_rss / 2**20, 1),
        "peak_rss_mib": round(peak / 2**20, 1),
    }
    print(f"model: {described}")
    print(f"server: python app.py on 127.0.0.1 (torch threads: {args.threads or 'default'}), cpus here: {os.cpu_count()}")
    print(f"cold start: page served after {page_s:.1f} s, first /explain answered after {first_s:.1f} s")
    print(f"load: {args.clients} clients x {args.calls} /explain calls = {total} calls in {wall:.1f} s "
          f"({figures['throughput_calls_per_s']} calls/s)")
    print(f"errors: {len(errors)}")
    for error in errors[:20]:
        print(f"  {error}")
    if len(errors) > 20:
        print(f"  ... and {len(errors) - 20} more")
    print(f"latency per call (queueing included): p50 {figures['p50_ms']} ms, p95 {figures['p95_ms']} ms, "
          f"max {figures['max_ms']} ms")
    print(f"server memory: peak {figures['peak_rss_mib']} MiB RSS (after the first answer: {figures['idle_rss_mib']} MiB)")
    print(json.dumps(figures))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
