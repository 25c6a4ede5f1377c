"""A live class under load: `--students` simulated phones answering at once, then the server killed and restarted.

The app runs in a subprocess as a Space runs it (`python app.py`, GRADIO_SERVER_NAME / GRADIO_SERVER_PORT,
offline), its classes stored in a fresh temporary ELECTRA_CLASS_DIR (or `--data`). A teacher starts a class
of `--sentences` sentences (/class_start); then every student at once, each a gradio_client of its own in a
thread of its own: joins (/class_join), reads the round (/class_round), answers each sentence of round A
(/class_spot, 0 to 3 words drawn with a seed), sends one of those answers again with other words (it must
come back as first stored, `new` false) and makes one round-B edit with a bet (/class_fool). The teacher
reads the projector view (/class_view); the server is killed (SIGKILL), started again on the same port and
the same store, and the view read again.

The last line of stdout is one JSON object:
- submissions, errors: first answers sent (round A and B; the replays not counted); calls that raised or
  answered something unexpected;
- lost: answers the server acknowledged that the view after the restart does not count;
- aggregate_matches: after the restart, the class total equals the sum of the scores the server returned to
  each student, round B's tries and fooled edits equal the students' own, and the restart changed nothing;
- p50_s, p95_s: a first answer's wall time as the student's client sees it (queueing included);
- view_ms, view_ms_before: the server's time to build the teacher's view with every student in, after and before
  the restart; view_ms_first_after_restart: the first build after it, which also computes the class's round
  again (rounds are kept in memory, not stored: the store keeps the seed);
- restart_s: from the SIGKILL to the page being served again.
Exit status 0 when there were no errors, nothing was lost and the aggregates match.

    .venv/bin/python bench/class_load.py                 # 40 students, 5 sentences, the bundled pair
    .venv/bin/python bench/class_load.py --students 4    # smoke test

Left out: the /class page's own events (the same queues), several classes at once, expiry.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

import load  # bench/load.py: the same wait for a served app

PROJECT = Path(__file__).resolve().parent.parent
NEW_WORDS = ["dog", "happy", "quickly", "green", "table"]
SCORE_KEYS = ("caught", "missed", "false_alarms", "points")
STARTUP_S = 120


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--students", type=int, default=40, help="simulated students, all at once (default: 40)")
    p.add_argument("--port", type=int, default=0, help="the server's port (default: 0, a free one)")
    p.add_argument("--model", default="", help="ELECTRA_MODEL for the server (default: the bundled pair)")
    p.add_argument("--sentences", type=int, default=5, help="sentences in the class's round (default: 5)")
    p.add_argument("--data", help="ELECTRA_CLASS_DIR (default: a fresh temporary folder, removed at the end)")
    p.add_argument("--timeout-s", type=float, default=600, help="give up on the students after this (default: 600)")
    return p.parse_args(argv)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(env: dict, log: Path) -> subprocess.Popen:
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "app.py"], cwd=PROJECT, env=env, stdout=out, stderr=out)


def wait_for_page(url: str, server: subprocess.Popen, log: Path) -> None:
    """Until the app answers at `url` (bench/load.py's wait: it exits with the app's output if it never does)."""
    load.wait_for_page(url, server, STARTUP_S, log)


def percentile(values: list[float], q: float) -> float | None:
    """Linear interpolation between the closest ranks (numpy's default)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return round(ordered[low] + (ordered[high] - ordered[low]) * (rank - low), 3)


class Tally:
    """What the students saw, shared by their threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.sent = 0
        self.acked: dict[int, list[int]] = {}  # student number -> [round A, round B] acknowledged
        self.you = dict.fromkeys(SCORE_KEYS, 0)  # the sum of the round-A scores the server returned
        self.fool_tries = self.fool_fooled = 0

    def error(self, what: str, error: object) -> None:
        text = f"{type(error).__name__}: {error}" if isinstance(error, Exception) else str(error)
        with self.lock:
            self.errors.append(f"{what}: {text[:300]}")


def student(i: int, url: str, code: str, tally: Tally) -> None:
    from gradio_client import Client

    try:
        client = Client(url, verbose=False)
        joined = client.predict(code, f"s{i}", api_name="/class_join")
        me, number = joined["student"], joined["number"]
        mine = client.predict(code, me, api_name="/class_round")
        sentences, fool = mine["sentences"], mine["fool_sentences"]
    except Exception as error:  # noqa: BLE001 - counted and printed
        tally.error("join", error)
        return
    with tally.lock:
        acked = tally.acked.setdefault(number, [0, 0])

    def submit(api_name: str, *args) -> dict | None:
        with tally.lock:
            tally.sent += 1
        began = time.perf_counter()
        try:
            out = client.predict(code, me, *args, api_name=api_name)
        except Exception as error:  # noqa: BLE001 - counted and printed
            tally.error(api_name, error)
            return None
        with tally.lock:
            tally.latencies.append(time.perf_counter() - began)
        if out.get("new") is not True:
            tally.error(api_name, f"a first answer came back with new={out.get('new')!r}")
        return out

    first = {}
    for k, sentence in enumerate(sentences):
        rng = random.Random(i * 100 + k)
        n_words = len(sentence["words"])
        picks = sorted(rng.sample(range(n_words), rng.randint(0, min(3, n_words))))
        out = submit("/class_spot", k, picks)
        if out is None:
            continue
        first[k] = out
        with tally.lock:
            acked[0] += 1
            for key in SCORE_KEYS:
                tally.you[key] += out["you"][key]

    if first:  # the same sentence again, other words: the first answer must come back
        k = i % len(sentences) if i % len(sentences) in first else next(iter(first))
        other = [w for w in range(len(sentences[k]["words"])) if w not in first[k]["picks"]][:3]
        try:
            again = client.predict(code, me, k, other, api_name="/class_spot")
            if again["new"] is not False or again["picks"] != first[k]["picks"] or again["you"] != first[k]["you"]:
                tally.error("replay", f"came back as new={again['new']} picks={again['picks']} you={again['you']}"
                                         f", first picks={first[k]['picks']} you={first[k]['you']}")
        except Exception as error:  # noqa: BLE001 - counted and printed
            tally.error("replay", error)

    s = i % len(fool)
    word = 1 if len(fool[s]["words"]) > 1 else 0
    out = submit("/class_fool", s, word, NEW_WORDS[i % len(NEW_WORDS)], i % 2 == 0)
    if out is not None:
        with tally.lock:
            acked[1] += 1
            tally.fool_tries += 1
            tally.fool_fooled += bool(out["fooled"])


def totals(view: dict) -> dict:
    return {"class_total": {key: view["class_total"][key] for key in SCORE_KEYS},
            "fool_tries": view["fool_tries"], "fool_fooled": view["fool_fooled"]}


def machine() -> str:
    try:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:
        device = "cpu"
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {device}"


def main(argv=None) -> int:
    args = parse_args(argv)
    from gradio_client import Client

    began = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="class-load-"))
    data = Path(args.data) if args.data else scratch / "classes"
    port = args.port or free_port()
    url = f"http://127.0.0.1:{port}/"
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1", GRADIO_SERVER_NAME="127.0.0.1",
               GRADIO_SERVER_PORT=str(port), ELECTRA_CLASS_DIR=str(data))
    if args.model:
        env["ELECTRA_MODEL"] = args.model
    log = scratch / "server.log"
    server = None
    tally = Tally()
    try:
        server = start_server(env, log)
        wait_for_page(url, server, log)
        print(f"server up at {url} after {time.perf_counter() - began:.1f} s", file=sys.stderr)
        teacher = Client(url, verbose=False)
        start = teacher.predict(args.sentences, None, "", api_name="/class_start")
        code, key = start["code"], start["teacher_key"]
        print(f"class {code}: {start['sentences']} sentences on {start['model']}", file=sys.stderr)

        crowd_began = time.perf_counter()
        pool = ThreadPoolExecutor(max_workers=args.students)
        futures = [pool.submit(student, i, url, code, tally) for i in range(args.students)]
        done, pending = wait(futures, timeout=max(1.0, args.timeout_s - (time.perf_counter() - began)))
        for future in done:
            if future.exception() is not None:
                tally.error("student thread", future.exception())
        for _ in pending:
            tally.error("student", f"not done after --timeout-s {args.timeout_s}")
        pool.shutdown(wait=False, cancel_futures=True)
        print(f"{args.students} students done in {time.perf_counter() - crowd_began:.1f} s", file=sys.stderr)

        before = teacher.predict(code, key, api_name="/class_view")
        killed = time.perf_counter()
        server.kill()
        server.wait()
        server = start_server(env, log)
        wait_for_page(url, server, log)
        restart_s = time.perf_counter() - killed
        print(f"killed and restarted in {restart_s:.1f} s", file=sys.stderr)
        fresh = Client(url, verbose=False)
        cold = fresh.predict(code, key, api_name="/class_view")  # the restarted server computes the round again
        after = fresh.predict(code, key, api_name="/class_view")
    except Exception as error:  # noqa: BLE001 - the server's output is in the message
        print(f"class_load: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.kill()
            server.wait()
        shutil.rmtree(scratch, ignore_errors=True)

    stored = {entry["number"]: entry["answered_a"] + entry["answered_b"] for entry in after["roster"]}
    lost = sum(max(0, a + b - stored.get(number, 0)) for number, (a, b) in tally.acked.items())
    if after["joined"] != args.students:
        print(f"after the restart {after['joined']} students, not {args.students}", file=sys.stderr)
    mine = {"class_total": tally.you, "fool_tries": tally.fool_tries, "fool_fooled": tally.fool_fooled}
    matches = totals(after) == mine and totals(before) == totals(after) == totals(cold)
    if not matches:
        print(f"totals: the students' {mine}, before {totals(before)}, after {totals(after)}", file=sys.stderr)
    for message in list(dict.fromkeys(tally.errors))[:5]:  # the first 5 distinct ones
        print(f"error ({tally.errors.count(message)}x): {message}", file=sys.stderr)
    figures = {
        "students": args.students, "submissions": tally.sent, "errors": len(tally.errors), "lost": lost,
        "aggregate_matches": matches, "p50_s": percentile(tally.latencies, 0.5),
        "p95_s": percentile(tally.latencies, 0.95), "view_ms": after["build_ms"], "view_ms_before": before["build_ms"],
        "view_ms_first_after_restart": cold["build_ms"],
        "restart_s": round(restart_s, 2), "sentences": start["sentences"], "model": start["model"],
        "machine": machine(), "wall_s": round(time.perf_counter() - began, 1),
    }
    print(json.dumps(figures))
    return 0 if not tally.errors and lost == 0 and matches else 1


if __name__ == "__main__":
    sys.exit(main())
