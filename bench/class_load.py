"""Live classes under load: `--classes` classes of `--students` simulated phones each, interleaved, every class
moved through its phases by its own teacher, and the server killed (SIGKILL) and restarted in the middle of
round B.

The app runs in a subprocess as a Space runs it (`python app.py`, GRADIO_SERVER_NAME / GRADIO_SERVER_PORT,
offline), its classes stored in a fresh temporary ELECTRA_CLASS_DIR (or `--data`). Each teacher starts a class
of `--sentences` sentences (/class_start), waits in the lobby until every student has joined, opens round A
(/class_phase), waits until every student has answered every sentence, reveals each sentence, opens round B,
waits for the edits, shows the results and ends the class; it reads the class as the projector does
(/class_view with the view-only token). Each student is a gradio_client of its own in a thread of its own: it
joins (/class_join), follows the phase as a phone does (/class_round every 3 s while it waits), answers each
sentence of round A (/class_spot, 0 to 3 words drawn with a seed), sends one of those answers again with other
words (it must come back as first stored, `new` false) and makes `--edits` round-B edits with a bet
(/class_fool). Students pause between answers as people do: a seeded 3-12 s each (`--pause`); `--burst` is
everyone at once, no pause (the older bench). When half of round B's edits are in, the server is killed and
started again on the same port and store; calls that found it down are sent again (a stored one comes back
`new` false, which counts as acknowledged).

The last line of stdout is one JSON object:
- classes, students (per class), submissions, errors: first answers sent (round A and B; the replays not
  counted); calls that raised or answered something unexpected;
- lost: answers the server acknowledged that the class's results do not count;
- phase_errors: phase changes refused, and answers refused because of the phase (both 0 in a class run right);
- leaked_before_reveal: responses a student or the projector got before the reveal that name a fake (the truth,
  a verdict or a score, or round B's sentences, which are round A's as written);
- aggregate_matches: in every class, the total on the results equals the sum of the points each student was
  shown after the reveal, round B's tries and fooled edits equal the students' own, and the restart changed
  nothing the teacher had seen;
- p50_s, p95_s: a first answer's wall time as the student's client sees it, from sending it to the reply
  (queueing included; calls the restart interrupted or held back, about 20 s each, not counted);
  answers_per_s: the offered load, first answers sent per second of the rounds (from the first round's
  opening to the last answer);
- view_ms, view_ms_before: the server's time to build a projector view with every student in (the slowest class),
  at the results and before the restart; view_ms_first_after_restart: the first build after it, which also
  computes the class's round again (rounds are kept in memory, not stored: the store keeps the seed);
- restart_s: from the SIGKILL to the page being served again.
Exit status 0 when there were no errors, nothing was lost or leaked, no phase error and the aggregates match.

    .venv/bin/python bench/class_load.py --classes 3 --students 40   # 3 classes of 40, paced, the bundled pair
    .venv/bin/python bench/class_load.py --burst                      # 1 class of 40, everyone at once
    .venv/bin/python bench/class_load.py --students 4 --pause 0 1     # smoke test

Left out: the /class page's own events (the same queues and store), expiry.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from live_server import Caller, Server, client, free_port, percentile

NEW_WORDS = ["dog", "happy", "quickly", "green", "table"]
SCORE_KEYS = ("caught", "missed", "false_alarms", "points")
TRUTH_KEYS = ("replaced", "originals", "electra_flagged", "electra_p_replaced", "you", "electra", "fakes",
              "most_fooling")
FOLLOW_S = 3.0  # how often a waiting phone asks for the phase (the page's own rhythm)
TEACHER_S = 1.0  # how often a teacher looks at the projector while waiting for the class


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--classes", type=int, default=1, help="classes at once, interleaved (default: 1)")
    p.add_argument("--students", type=int, default=40, help="simulated students per class (default: 40)")
    p.add_argument("--burst", action="store_true", help="everyone at once, no pause between answers")
    p.add_argument("--pause", type=float, nargs=2, default=(3.0, 12.0), metavar=("MIN", "MAX"),
                   help="seconds a student pauses before each answer, drawn with a seed (default: 3 12)")
    p.add_argument("--edits", type=int, default=2, help="round-B edits per student (default: 2)")
    p.add_argument("--seed", type=int, default=0, help="the students' draws (default: 0)")
    p.add_argument("--port", type=int, default=0, help="the server's port (default: 0, a free one)")
    p.add_argument("--model", default="", help="ELECTRA_MODEL for the server (default: the bundled pair)")
    p.add_argument("--sentences", type=int, default=5, help="sentences in each class's round (default: 5)")
    p.add_argument("--data", help="ELECTRA_CLASS_DIR (default: a fresh temporary folder, removed at the end)")
    p.add_argument("--timeout-s", type=float, default=900, help="give up after this (default: 900)")
    return p.parse_args(argv)


def leaks(response: object) -> bool:
    """Whether a response names a fake: a truth field with something in it, or round B's sentences."""
    if isinstance(response, dict):
        if any(response.get(key) not in (None, [], (), {}) for key in TRUTH_KEYS if key in response):
            return True
        if response.get("fool_sentences") or response.get("revealed") or response.get("sentences") and any(
                isinstance(s, dict) and "fakes" in s for s in response["sentences"]):
            return True
        if isinstance(response.get("class_total"), dict) and any(response["class_total"].values()):
            return True
        return any(leaks(v) for v in response.values() if isinstance(v, (dict, list)))
    if isinstance(response, list):
        return any(leaks(v) for v in response)
    return False


class Tally:
    """What the students and teachers saw, shared by their threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.sent = 0
        self.phase_errors = 0
        self.leaked = 0
        self.first_open: float | None = None
        self.last_answer = 0.0
        self.b_acked = 0

    def error(self, what: str, error: object) -> None:
        text = f"{type(error).__name__}: {error}" if isinstance(error, Exception) else str(error)
        with self.lock:
            self.errors.append(f"{what}: {text[:300]}")
            if "not open" in text or "has ended" in text or "not started" in text or "is closed" in text:
                self.phase_errors += 1


class Class:
    """One class: its teacher's thread, its students' threads, and what they saw."""

    def __init__(self, index: int, args: argparse.Namespace, server: Server, tally: Tally):
        self.index, self.args, self.server, self.tally = index, args, server, tally
        self.code = self.key = self.token = ""
        self.n = 0
        self.acked: dict[int, list[int]] = {}  # student number -> [round A, round B] acknowledged
        self.shown_points = 0  # the sum of the points the students were shown after the reveal
        self.fool_tries = self.fool_fooled = 0
        self.views: dict[str, dict] = {}
        self.lock = threading.Lock()

    def pause(self, rng: random.Random) -> None:
        if not self.args.burst:
            time.sleep(rng.uniform(*self.args.pause))

    def wait_phase(self, call: Caller, me: str, phases: tuple[str, ...]) -> dict:
        while True:
            mine, _ = call(self.code, me, api_name="/class_round")
            if mine["phase"] not in ("reveal", "round_b", "results", "ended") and leaks(mine):
                with self.tally.lock:
                    self.tally.leaked += 1
            if mine["phase"] in phases:
                return mine
            time.sleep(FOLLOW_S)

    def answer(self, call: Caller, api_name: str, *args) -> dict | None:
        with self.tally.lock:
            self.tally.sent += 1
        try:
            out, retried = call(*args, api_name=api_name)
        except Exception as error:  # noqa: BLE001 - counted and printed
            self.tally.error(api_name, error)
            return None
        with self.tally.lock:
            if not retried:  # a call the restart interrupted or held back measures the restart, not the server
                self.tally.latencies.append(time.perf_counter() - call.sent)
            self.tally.last_answer = time.perf_counter()
        if out.get("new") is not True and not retried:
            self.tally.error(api_name, f"a first answer came back with new={out.get('new')!r}")
        return out

    def student(self, i: int) -> None:
        rng = random.Random(self.args.seed * 1_000_003 + self.index * 10_007 + i)
        call = Caller(self.server)
        if not self.args.burst:
            time.sleep(rng.uniform(0, 5))  # a class arrives over a few seconds
        try:
            joined, _ = call(self.code, f"s{i}", api_name="/class_join")
            me, number = joined["student"], joined["number"]
            mine = self.wait_phase(call, me, ("round_a",))
        except Exception as error:  # noqa: BLE001 - counted and printed
            self.tally.error("join", error)
            return
        with self.lock:
            acked = self.acked.setdefault(number, [0, 0])
        first = {}
        for k, sentence in enumerate(mine["sentences"]):
            self.pause(rng)
            n_words = len(sentence["words"])
            picks = sorted(rng.sample(range(n_words), rng.randint(0, min(3, n_words))))
            out = self.answer(call, "/class_spot", self.code, me, k, picks)
            if out is None:
                continue
            if leaks(out):
                with self.tally.lock:
                    self.tally.leaked += 1
            first[k] = out
            with self.lock:
                acked[0] += 1
        if first:  # the same sentence again, other words: the first answer must come back
            k = i % len(first) if i % len(first) in first else next(iter(first))
            other = [w for w in range(len(mine["sentences"][k]["words"])) if w not in first[k]["picks"]][:3]
            try:
                again, _ = call(self.code, me, k, other, api_name="/class_spot")
                if again["new"] is not False or again["picks"] != first[k]["picks"]:
                    self.tally.error("replay", f"came back as new={again['new']} picks={again['picks']}")
            except Exception as error:  # noqa: BLE001 - counted and printed
                self.tally.error("replay", error)
        try:
            mine = self.wait_phase(call, me, ("round_b",))
        except Exception as error:  # noqa: BLE001 - counted and printed
            self.tally.error("round B", error)
            return
        with self.lock:
            self.shown_points += sum(r["you"]["points"] for r in mine["revealed"])
        fool = mine["fool_sentences"]
        for e in range(min(self.args.edits, len(fool))):
            self.pause(rng)
            s = (i + e) % len(fool)
            word = 1 if len(fool[s]["words"]) > 1 else 0
            out = self.answer(call, "/class_fool", self.code, me, s, word, NEW_WORDS[(i + e) % len(NEW_WORDS)],
                              i % 2 == 0)
            if out is not None:
                with self.lock:
                    acked[1] += 1
                    self.fool_tries += 1
                    self.fool_fooled += bool(out["fooled"])
                with self.tally.lock:
                    self.tally.b_acked += 1

    def view(self, call: Caller) -> dict:
        data, _ = call(self.code, self.token, api_name="/class_view")
        if data["phase"] in ("lobby", "round_a") and leaks({k: data[k] for k in ("sentences", "most_fooling",
                                                                                   "class_total", "electra_total")}):
            with self.tally.lock:
                self.tally.leaked += 1
        return data

    def move(self, call: Caller, phase: str, sentence: int = 0) -> None:
        try:
            call(self.code, self.key, phase, sentence, api_name="/class_phase")
        except Exception as error:  # noqa: BLE001 - counted and printed
            self.tally.error(f"move to {phase}", error)
            with self.tally.lock:
                self.tally.phase_errors += 1

    def wait_for(self, call: Caller, done) -> dict:
        while True:
            data = self.view(call)
            if done(data):
                return data
            time.sleep(TEACHER_S)

    def teacher(self) -> None:
        call = Caller(self.server)
        students = [threading.Thread(target=self.student, args=(i,), daemon=True) for i in range(self.args.students)]
        for t in students:
            t.start()
        self.wait_for(call, lambda v: v["joined"] >= self.args.students)
        with self.tally.lock:
            self.tally.first_open = self.tally.first_open or time.perf_counter()
        self.move(call, "round_a")
        self.wait_for(call, lambda v: all(n >= v["joined"] for n in v["progress"]))
        for k in range(self.n):
            self.move(call, "reveal", k)
            time.sleep(0 if self.args.burst else 2)  # the class looks at the sentence
        self.move(call, "round_b")
        want = self.args.students * min(self.args.edits, self.n)
        self.wait_for(call, lambda v: v["fool_tries"] >= want or not any(t.is_alive() for t in students))
        for t in students:
            t.join()
        self.move(call, "results")
        self.views["results"] = self.view(call)
        self.move(call, "ended")
        self.views["ended"] = self.view(call)


def machine() -> str:
    try:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:
        device = "cpu"
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {device}"


def main(argv=None) -> int:
    args = parse_args(argv)
    began = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="class-load-"))
    data = Path(args.data) if args.data else scratch / "classes"
    port = args.port or free_port()
    url = f"http://127.0.0.1:{port}/"
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1", GRADIO_SERVER_NAME="127.0.0.1",
               GRADIO_SERVER_PORT=str(port), ELECTRA_CLASS_DIR=str(data))
    if args.model:
        env["ELECTRA_MODEL"] = args.model
    server = Server(env, scratch / "server.log", url)
    tally = Tally()
    classes = [Class(c, args, server, tally) for c in range(args.classes)]
    try:
        server.start()
        print(f"server up at {url} after {time.perf_counter() - began:.1f} s", file=sys.stderr)
        teacher = client(url)
        for c in classes:
            start = teacher.predict(args.sentences, None, "", api_name="/class_start")
            c.code, c.key, c.token, c.n = start["code"], start["teacher_key"], start["view_token"], start["sentences"]
            print(f"class {c.code}: {c.n} sentences on {start['model']}", file=sys.stderr)
        teachers = [threading.Thread(target=c.teacher, daemon=True) for c in classes]
        for t in teachers:
            t.start()
        want = args.classes * args.students * min(args.edits, args.sentences)
        while tally.b_acked < want // 2 and any(t.is_alive() for t in teachers):
            if time.perf_counter() - began > args.timeout_s:
                raise TimeoutError(f"round B not half done after --timeout-s {args.timeout_s}")
            time.sleep(0.2)
        for c in classes:  # what the projector showed just before the kill
            c.views["before"] = teacher.predict(c.code, c.token, api_name="/class_view")
        server.kill_and_restart()  # mid-round B
        print(f"killed and restarted in {server.restart_s:.1f} s", file=sys.stderr)
        cold = [Caller(server)(c.code, c.token, api_name="/class_view")[0] for c in classes]
        for t in teachers:
            t.join(max(1.0, args.timeout_s - (time.perf_counter() - began)))
            if t.is_alive():
                raise TimeoutError(f"a class was not done after --timeout-s {args.timeout_s}")
    except Exception as error:  # noqa: BLE001 - the server's output is in the message
        print(f"class_load: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)

    lost, matches = 0, True
    for c in classes:
        after = c.views["results"]
        stored = {e["number"]: (e["answered_a"], e["answered_b"]) for e in after["roster"]}
        lost += sum(max(0, a - stored.get(number, (0, 0))[0]) + max(0, b - stored.get(number, (0, 0))[1])
                    for number, (a, b) in c.acked.items())
        ok = (after["class_total"]["points"] == c.shown_points == sum(e["points"] for e in after["roster"])
              and (after["fool_tries"], after["fool_fooled"]) == (c.fool_tries, c.fool_fooled)
              and c.views["before"]["class_total"] == after["class_total"] == c.views["ended"]["class_total"]
              and c.views["before"]["fool_tries"] <= after["fool_tries"])
        if not ok:
            print(f"class {c.code}: shown {c.shown_points} points, {c.fool_tries}/{c.fool_fooled} edits; results "
                  f"{after['class_total']}, {after['fool_tries']}/{after['fool_fooled']}", file=sys.stderr)
        matches = matches and ok
    for message in list(dict.fromkeys(tally.errors))[:5]:  # the first 5 distinct ones
        print(f"error ({tally.errors.count(message)}x): {message}", file=sys.stderr)
    span = (tally.last_answer - tally.first_open) if tally.first_open else 0.0
    figures = {
        "classes": args.classes, "students": args.students, "burst": args.burst, "submissions": tally.sent,
        "errors": len(tally.errors), "lost": lost, "phase_errors": tally.phase_errors,
        "leaked_before_reveal": tally.leaked, "aggregate_matches": matches,
        "p50_s": percentile(tally.latencies, 0.5), "p95_s": percentile(tally.latencies, 0.95),
        "answers_per_s": round(tally.sent / span, 2) if span > 0 else None,
        "view_ms": max(c.views["results"]["build_ms"] for c in classes),
        "view_ms_before": max(c.views["before"]["build_ms"] for c in classes),  # mid-round B, before the kill
        "view_ms_first_after_restart": max(v["build_ms"] for v in cold),
        "restart_s": round(server.restart_s, 2), "sentences": args.sentences,
        "model": classes[0].views["results"]["model"],
        "machine": machine(), "wall_s": round(time.perf_counter() - began, 1),
    }
    print(json.dumps(figures))
    return 0 if not tally.errors and lost == 0 and matches and tally.leaked == 0 and tally.phase_errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
