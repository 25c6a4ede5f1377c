"""Many users at once: the served app under `--clients` concurrent gradio_client users, `--calls` /explain each.

Side by side in one run, three servers one after another (`--scenarios`), each started in a
subprocess exactly as a Space does (`python app.py`, GRADIO_SERVER_NAME / GRADIO_SERVER_PORT on a free
port, offline):
- before: one sentence per forward, 4 requests at a time (ELECTRA_EXPLAIN_BATCH=1,
  ELECTRA_EXPLAIN_CONCURRENCY=4: the previous server);
- now: the defaults, concurrent requests micro-batched (explainer.core.batching);
- race: the defaults while a default race (mini, 10 minutes) runs in the server's Training tab.
First it prints the compute-bound ceiling: calls/s if only model time counted (one sentence per
forward, and 16), measured in this process. Then, per server:
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
    p.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=list(SCENARIOS),
                   help="servers to load, one after another (default: all, side by side)")
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


def stop_server(server: subprocess.Popen | None) -> None:
    """Stop a server this bench started (our own child, by its pid): terminate, then kill after 30 s."""
    if server is None or server.poll() is not None:
        return
    server.terminate()
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        server.kill()


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


# A server with a default race running in its Training tab: the race is started on the app's own
# manager (as the tab's Start button does), then the app is served exactly as `python app.py` does.
RACE_BOOT = """
import runpy, sys
sys.path.insert(0, ".")
from explainer.ui import races
from training.race.settings import RaceSettings
races.MANAGER.start(RaceSettings())
runpy.run_path("app.py", run_name="__main__")
"""
SCENARIOS = {  # name -> (what it is, server environment, boot with a race)
    "before": ("one sentence per forward, 4 at a time (the previous server)",
               {"ELECTRA_EXPLAIN_BATCH": "1", "ELECTRA_EXPLAIN_CONCURRENCY": "4"}, False),
    "now": ("micro-batched: up to 16 sentences per forward, 16 at a time", {}, False),
    "race": ("micro-batched, while a default race runs in the Training tab", {}, True),
}


def ceiling(model_env: dict, threads: int | None, sentences: int = 64) -> dict:
    """Calls/s if only model time counted, measured in this process (with the server's torch threads):
    one sentence per forward, and 16."""
    os.environ.update(model_env)
    sys.path.insert(0, str(PROJECT))
    import torch

    if threads:
        torch.set_num_threads(threads)
    from explainer.core import models
    from explainer.core.pipeline import Settings, explain, explain_many

    pair = models.load(model_env.get("ELECTRA_MODEL", "bundled"), roots=models.allowed_roots())
    requests = [(SENTENCES[i % len(SENTENCES)], Settings(seed=i)) for i in range(sentences)]
    explain(pair, *requests[0])  # warm-up
    began = time.perf_counter()
    for text, settings in requests:
        explain(pair, text, settings)
    alone = time.perf_counter() - began
    began = time.perf_counter()
    for start in range(0, sentences, 16):
        explain_many(pair, requests[start:start + 16])
    batched = time.perf_counter() - began
    return {"ceiling_alone_calls_per_s": round(sentences / alone, 1),
            "ceiling_batched_calls_per_s": round(sentences / batched, 1)}


def serve_and_load(args, model_env: dict, scratch: Path, extra_env: dict, race: bool) -> tuple[dict, list[str]]:
    """Start the server, time its cold start, drive the load, stop it: (figures, errors)."""
    server = None
    try:
        port = free_port()
        url = f"http://127.0.0.1:{port}/"
        env = {**os.environ, **model_env, **extra_env, "GRADIO_SERVER_NAME": "127.0.0.1",
               "GRADIO_SERVER_PORT": str(port), "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False",
               "PYTHONUNBUFFERED": "1", "ELECTRA_RACE_DIR": str(scratch / "races")}
        if args.threads:
            env["OMP_NUM_THREADS"] = str(args.threads)
        log = scratch / "server.log"
        began = time.perf_counter()
        command = [sys.executable, "-c", RACE_BOOT] if race else [sys.executable, "app.py"]
        with open(log, "wb") as out:
            server = subprocess.Popen(command, cwd=PROJECT, env=env, stdout=out, stderr=subprocess.STDOUT)
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
        stop_server(server)
    ms = lambda s: None if s is None else round(1000 * s, 1)
    return {
        "cold_start_page_s": round(page_s, 2), "cold_start_first_explain_s": round(first_s, 2),
        "calls": args.clients * args.calls, "ok": len(latencies), "errors": len(errors), "wall_s": round(wall, 2),
        "throughput_calls_per_s": round(len(latencies) / wall, 2) if wall else None,
        "p50_ms": ms(percentile(latencies, 50)), "p95_ms": ms(percentile(latencies, 95)),
        "max_ms": ms(max(latencies, default=None)), "idle_rss_mib": round(idle_rss / 2**20, 1),
        "peak_rss_mib": round(peak / 2**20, 1),
    }, errors


def main(argv=None) -> int:
    args = parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="electra-load-"))
    rows, failed = {}, False
    try:
        model_env, described = prepare_model(args.model, scratch)
        limits = ceiling(model_env, args.threads)
        for name in args.scenarios:
            rows[name], errors = serve_and_load(args, model_env, scratch, SCENARIOS[name][1], SCENARIOS[name][2])
            failed |= bool(errors)
            for error in errors[:10]:
                print(f"  {name}: {error}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"model: {described}; server: python app.py on 127.0.0.1 (torch threads: {args.threads or 'default'}), "
          f"cpus here: {os.cpu_count()}; the clients run on this machine too")
    print(f"load: {args.clients} clients x {args.calls} /explain calls each, all at once")
    print(f"compute-bound ceiling (model time only, this process): {limits['ceiling_alone_calls_per_s']} calls/s one "
          f"sentence per forward, {limits['ceiling_batched_calls_per_s']} calls/s 16 per forward")
    print(f"{'scenario':8s} {'calls/s':>8s} {'p50 ms':>8s} {'p95 ms':>8s} {'max ms':>8s} {'errors':>6s} "
          f"{'cold start s':>12s} {'peak MiB':>8s}  what")
    for name, row in rows.items():
        print(f"{name:8s} {row['throughput_calls_per_s']:8} {row['p50_ms']:8} {row['p95_ms']:8} {row['max_ms']:8} "
              f"{row['errors']:6} {row['cold_start_first_explain_s']:12} {row['peak_rss_mib']:8}  {SCENARIOS[name][0]}")
    figures = {"model": described, "clients": args.clients, "calls_per_client": args.calls, "mode": args.mode,
               "server_threads": args.threads, **limits, "scenarios": rows}
    print(json.dumps(figures))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
