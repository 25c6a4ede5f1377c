"""The app served in a subprocess for the live-class benchmarks (class_load.py, abuse.py): a free port, the
server (killed and restarted on demand), a phone's gradio_client that waits out a restart, and percentiles."""

from __future__ import annotations

import random
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

import load  # bench/load.py: the same wait for a served app

PROJECT = Path(__file__).resolve().parent.parent
STARTUP_S = 180
ATTEMPTS = 6  # a call that finds the server down (or too slow to answer its first requests) is sent again
# One TLS context for every simulated phone. httpx otherwise builds one per request (gradio_client calls
# httpx.post), even for plain http: profiled in burst mode, that was most of this process's CPU, taken from
# the server on the same 2 cores. Real phones bring their own CPUs.
TLS = ssl.create_default_context()



def client(url: str):
    from gradio_client import Client

    return Client(url, verbose=False, ssl_verify=TLS)  # passed on to httpx as its `verify`: a context is used as is


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(env: dict, log: Path) -> subprocess.Popen:
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "app.py"], cwd=PROJECT, env=env, stdout=out, stderr=out)


def percentile(values: list[float], q: float) -> float | None:
    """numpy's percentile (linear interpolation between the closest ranks), rounded to the millisecond; None
    when there is nothing to rank."""
    return round(float(np.percentile(values, q * 100)), 3) if values else None


class Server:
    """The app in a subprocess, killed and restarted once; callers that find it down wait for `up`."""

    def __init__(self, env: dict, log: Path, url: str):
        self.env, self.log, self.url = env, log, url
        self.up = threading.Event()
        self.process: subprocess.Popen | None = None
        self.restart_s: float | None = None

    def start(self) -> None:
        self.process = start_server(self.env, self.log)
        load.wait_for_page(self.url, self.process, STARTUP_S, self.log)
        self.up.set()

    def kill_and_restart(self) -> None:
        self.up.clear()
        killed = time.perf_counter()
        self.process.kill()
        self.process.wait()
        self.start()
        self.restart_s = time.perf_counter() - killed

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()


class Caller:
    """One phone's or teacher's gradio_client; a call that finds the server down waits for it and is sent again."""

    def __init__(self, server: Server):
        self.server = server
        self.client = None
        self.sent = 0.0  # when the last call went out (after any wait for the server and any reconnection)

    def __call__(self, *args, api_name: str):
        for attempt in range(ATTEMPTS):
            waited = not self.server.up.is_set()
            self.server.up.wait(STARTUP_S)
            try:
                if self.client is None:
                    self.client = client(self.server.url)
                self.sent = time.perf_counter()
                return self.client.predict(*args, api_name=api_name), attempt > 0 or waited
            except Exception as error:  # a refused call is re-raised; a dropped one is sent again
                if "AppError" in type(error).__name__ or attempt == ATTEMPTS - 1:
                    raise
                self.client = None
                time.sleep(random.uniform(0.5, 4.0))  # phones come back at their own pace, not in one instant
        raise AssertionError("unreachable")
