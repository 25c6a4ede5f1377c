"""A hostile visitor against a server it starts on 127.0.0.1, while an honest class plays beside every attack.

The app runs as a Space runs it (`python app.py`, offline, a fresh ELECTRA_CLASS_DIR), behind a pretend proxy:
ELECTRA_TRUSTED_PROXIES=127.0.0.1, and this script plays that proxy, sending each visitor's address in
X-Forwarded-For (appended after whatever the visitor wrote there, as a proxy does). Calls go over raw HTTP
(gradio's /gradio_api/call/NAME), so nothing a client library checks stands in front of the server.

Each attack runs once, at the same time as an honest class: a teacher (an address of their own) starts a
class, 40 students join from one school address, the teacher opens round A and every student answers its
first sentence after a seeded pause of 1-8 s. For each attack the table gives what came back, the largest
reply and whether every reply was strict JSON (no NaN, no Infinity), the server's peak memory (RSS, psutil,
sampled every 0.1 s) and the honest class: did its teacher start it, its answers' p95 and errors.

    .venv/bin/python bench/abuse.py   # every attack; about 3 minutes on 2 cores (smoke: --students 5 --only top_k)

The attacks (the holes found by hand before the bounds): top_k=1000000 at mask rate 1; the largest reply the
bounds allow (512 tokens, every one masked, 10 guesses each); temperature=Infinity, NaN, n_steps="many" over
raw HTTP; a 100 KB query string; the all-words attribution of 600 words; 191 class starts from one visitor
(then with a forged X-Forwarded-For); 200 joins from one address into the honest class; the public sentence
file against round A (the fakes it finds before the reveal, bundled set and the teacher's own sentences); the
store's file modes; then the attacks on the server's fairness (bench/abuse_server.py): starving the class,
addresses rotating in one /64, one address spelled three ways, a join flood and the teacher's lock, disguised
swear words, 16 x 512 typed blanks with the stronger generator, /game's bad picks, 500 MB bodies. The last line
of stdout is the table as JSON. Exit status 0 when every reply was under 1 MB and strict JSON, the server stayed
under 2 GB, every honest class started with 0 errors (no 503) and an answers' p95 of at most 1.5 s, and the
server's resting size after the attacks is within 10% of its size before them (read after one call of each kind:
both generators, an attribution, a small class).

`--repeat N` runs every attack N times in the same server (each round's visitors are new addresses, their shares
unspent) and prints the resting size after each round side by side: a leak grows the same amount every round, a
one-off (caches warmed, bounded tables filled, the allocator's pages) stops after the first. `--probe heap|trace`
serves the app through bench/residue_probe.py, which says after each round what the resting size holds.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import stat
import string
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from urllib.parse import urlsplit

import httpx
import psutil

import abuse_server  # bench/abuse_server.py: the attacks on the server's fairness
import residue_probe  # bench/residue_probe.py: what the resting size holds (--probe)
import load  # bench/load.py: the same wait for a served app
from live_server import free_port, percentile

PROJECT = Path(__file__).resolve().parent.parent
SENTENCE_36 = ("the old man walked slowly to the market on a cold morning and bought some bread cheese and apples "
               "for his family before the rain started and the streets filled with people going home")
OWN = ["Our class planted three trees behind the school last spring.",
       "The library opens early on Mondays for students who want to read.",
       "My sister baked a cake for her friend's birthday party."]
MAX_REPLY, MAX_RSS, MAX_P95, REST_GROWTH = 1_000_000, 2e9, 1.5, 0.10
# /attribute's values after n_steps (gradio's raw call wants every one): baseline, all_tokens, model, mode,
# mask_rate, seed, temperature, top_k, mask_words, tolerance, generator
ATTRIBUTE_REST = ["pad", False, "", "auto", 0.15, 0, 1.0, 5, None, 0.0, "electra"]


class Proxy:
    """Calls to the server as the proxy passes them on: the visitor's address appended to X-Forwarded-For."""

    def __init__(self, url: str):
        self.url = url.rstrip("/")
        self.local = threading.local()
        self.replies: list[tuple[int, bool]] = []  # (bytes, strict JSON) of every reply
        self.lock = threading.Lock()
        self.round = 0  # each round's visitors are new addresses (`moved`)

    def http(self) -> httpx.Client:
        if not hasattr(self.local, "client"):
            self.local.client = httpx.Client(timeout=300)
        return self.local.client

    def call(self, name: str, data: list, visitor: str, forged: str = "") -> tuple[str, object, float]:
        """("complete" or "error", the payload, seconds); the reply's size and strictness are recorded."""
        body = json.dumps({"data": data}, allow_nan=True)  # Infinity and NaN as a hostile client writes them
        return self.call_raw(name, body, visitor, forged)

    def call_raw(self, name: str, body: str, visitor: str, forged: str = "") -> tuple[str, object, float]:
        """`call` with the request's JSON as written (a number of 5,000 digits, which json.dumps refuses)."""
        visitor = moved(visitor, self.round)
        headers = {"content-type": "application/json", "x-forwarded-for": ", ".join(filter(None, [forged, visitor]))}
        start = time.perf_counter()
        posted = self.http().post(f"{self.url}/gradio_api/call/{name}", content=body, headers=headers)
        if posted.status_code != 200:
            self.record(posted.content)
            return f"http {posted.status_code}", posted.text[:80], time.perf_counter() - start
        event = posted.json()["event_id"]
        stream = self.http().get(f"{self.url}/gradio_api/call/{name}/{event}", headers=headers).text
        seconds = time.perf_counter() - start
        kind, raw, event = "other", "null", ""
        for line in stream.splitlines():  # heartbeats ("event: heartbeat", "data: null") come before a slow result
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event in ("complete", "error"):
                kind, raw = event, line[5:].strip()
        payload = self.record(raw.encode())
        return kind, payload, seconds

    def record(self, raw: bytes) -> object:
        def refuse(name):
            raise ValueError(name)
        try:
            payload, strict = json.loads(raw, parse_constant=refuse), True
        except ValueError:
            payload, strict = None, False
        with self.lock:
            self.replies.append((len(raw), strict))
        return payload


class Memory(threading.Thread):
    """The server's resident memory, sampled; `peak()` since the last `reset()`."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.process, self.top, self.stopped = psutil.Process(pid), 0, False

    def run(self):
        while not self.stopped:
            try:
                self.top = max(self.top, self.process.memory_info().rss)
            except psutil.Error:
                return
            time.sleep(0.1)

    def reset(self) -> None:
        self.top = self.process.memory_info().rss


def honest_class(proxy: Proxy, teacher: str, students: int, seed: int, out: dict) -> None:
    """A teacher starts a class, students join from one school address and answer round A's first sentence;
    `out` gets the class's code as soon as it exists, then the figures."""
    kind, start, _ = proxy.call("class_start", [3, seed, "", None, "electra"], teacher)
    if kind != "complete" or not start:
        out.update(started=False, why=str(start)[:80], p95_s=None, errors=students)
        return
    code, key = start[0]["code"], start[0]["teacher_key"]
    out["code"] = code
    school, rng = f"192.0.2.{seed % 250 + 1}", random.Random(seed)
    with ThreadPoolExecutor(students) as pool:
        joined = list(pool.map(lambda i: proxy.call("class_join", [code, f"S{i}"], school), range(students)))
    ids = [payload[0]["student"] for kind, payload, _ in joined if kind == "complete"]
    proxy.call("class_phase", [code, key, "round_a", 0], teacher)
    pauses = [rng.uniform(1, 8) for _ in ids]  # a class answering within seconds, not all at once

    def answer(i: int):
        time.sleep(pauses[i])
        return proxy.call("class_spot", [code, ids[i], 0, [0]], school)
    with ThreadPoolExecutor(max(1, len(ids))) as pool:
        answers = list(pool.map(answer, range(len(ids))))
    seconds = [s for kind, _, s in answers if kind == "complete"]
    errors = students - len(ids) + sum(kind != "complete" for kind, _, _ in answers)
    out.update(started=True, p95_s=percentile(seconds, 0.95), errors=errors)


def refused(results) -> str:
    kinds = [kind for kind, _, _ in results]
    return f"{kinds.count('complete')} answered, {len(kinds) - kinds.count('complete')} refused"


def first_message(results) -> str:
    for kind, payload, _ in results:
        if kind != "complete":
            text = payload.get("error") if isinstance(payload, dict) else payload
            return str(text)[:90]
    return ""


def _spelled(words) -> list[str]:  # punctuation left out: the file's "arrived." is the phone's "arrived" "."
    return [w.strip(string.punctuation + "“”‘’…–—").lower() for w in words if any(ch.isalnum() for ch in w)]


def attacks(proxy: Proxy, data_dir: Path, only: str) -> list[tuple[str, object]]:
    """(name, a function returning what came back) for each attack."""
    words600 = " ".join(SENTENCE_36.split() * 17)[:4000]
    public = json.loads((PROJECT / "assets" / "game_sentences.json").read_text())["sentences"]
    state: dict = {}

    def top_k():
        r = proxy.call("explain", [SENTENCE_36, "", "auto", 1.0, 0, 1.0, 1_000_000, None, "electra"], "203.0.113.66")
        return f"{r[0]} in {r[2]:.1f} s: {first_message([r])}"

    def largest():
        r = proxy.call("explain", [words600, "", "auto", 1.0, 0, 1.0, 10, None, "electra"], "203.0.113.66")
        size = len(json.dumps(r[1]).encode()) if r[0] == "complete" else 0
        return f"{r[0]} in {r[2]:.1f} s, {size / 1e6:.2f} MB"

    def loose_edges():
        calls = [proxy.call("explain",
                            ["the chef cooked a meal", "", "auto", 0.15, 0, float("inf"), 5, None, "electra"],
                            "203.0.113.66"),
                 proxy.call("explain",
                            ["the chef cooked a meal", "", "auto", float("nan"), 0, 1.0, 5, None, "electra"],
                            "203.0.113.66"),
                 proxy.call("attribute",
                            ["the chef cooked a meal", -1, "integrated_gradients", "many", *ATTRIBUTE_REST],
                            "203.0.113.66")]
        return f"{refused(calls)}: {first_message(calls)}"

    def long_url():  # httpx refuses addresses over 64 KB itself: http.client sends it as a visitor would
        parts = urlsplit(proxy.url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        connection.request("GET", "/?text=" + "a" * 100_000)
        response = connection.getresponse()
        proxy.record(response.read())
        return f"HTTP {response.status}"

    def all_words():
        r = proxy.call("attribute", [words600, -1, "integrated_gradients", 50, "pad", True, *ATTRIBUTE_REST[2:]],
                       "203.0.113.66")
        notes = r[1][0].get("notices", []) if r[0] == "complete" else [first_message([r])]
        return f"{r[0]} in {r[2]:.1f} s (limit 10 s): {'; '.join(notes)[:90]}"

    def starts():
        plain = [proxy.call("class_start", [3, None, "", None, "electra"], "203.0.113.66") for _ in range(191)]
        forged = [proxy.call("class_start", [3, None, "", None, "electra"], "203.0.113.66", forged=f"10.9.{i}.1")
                  for i in range(20)]
        return f"191 from one visitor: {refused(plain)}; 20 with a forged X-Forwarded-For: {refused(forged)}"

    def joins():
        code = state.get("code")
        results = [proxy.call("class_join", [code, f"M{i}"], "203.0.113.66") for i in range(200)]
        return f"into the honest class: {refused(results)}; {first_message(results)[:60]}"

    def public_file():
        """Round A's words on a phone, matched against the public file: a sentence whose best match there agrees
        on at least half its words is found, and the words that differ are the fakes."""
        found = []
        for number, (label, own) in enumerate((("bundled set", None), ("own sentences", OWN))):
            teacher = f"198.51.100.{200 + number}"
            _, start, _ = proxy.call("class_start", [3, 5, "", own, "electra"], teacher)
            code, key = start[0]["code"], start[0]["teacher_key"]
            _, me, _ = proxy.call("class_join", [code, "Eve"], "198.51.100.250")
            proxy.call("class_phase", [code, key, "round_a", 0], teacher)
            _, seen, _ = proxy.call("class_round", [code, me[0]["student"]], "198.51.100.250")
            hits = 0
            for sentence in seen[0]["sentences"]:
                words = _spelled(sentence["words"])  # the phone's words: punctuation is a word of its own there
                same = max((sum(a == b for a, b in zip(_spelled(p.split()), words)) for p in public
                            if len(_spelled(p.split())) == len(words)), default=0)
                hits += same >= len(words) / 2
            found.append(f"{label}: {hits} of {len(seen[0]['sentences'])} found in the file")
        return "; ".join(found)

    def file_modes():
        modes = {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in data_dir.iterdir()}
        return (f"folder {oct(stat.S_IMODE(data_dir.stat().st_mode))}, "
                + ", ".join(f"{k} {v}" for k, v in modes.items()))

    table = [("top_k=1000000, mask rate 1", top_k), ("largest reply allowed", largest),
             ("temperature=Infinity, NaN, n_steps='many'", loose_edges), ("100 KB query string", long_url),
             ("all-words attribution, 600 words", all_words), ("class starts, one visitor", starts),
             ("200 joins from one address", joins), ("public sentence file vs round A", public_file),
             ("class store file modes", file_modes)] + [(name, lambda fn=fn: fn(proxy, state))
                                                          for name, fn in abuse_server.ATTACKS]
    return [(name, fn, state) for name, fn in table if not only or only in name or only in fn.__name__]


def moved(visitor: str, shift: int) -> str:
    """Round `shift`'s copy of an address: its first number moved on, so every round's visitors are new ones (their
    shares unspent) while one network stays one network and an address's three spellings stay one address."""
    if not shift or not visitor:
        return visitor
    head, sep, rest = visitor.partition(":" if ":" in visitor else ".")
    return f"{int(head, 16) + shift:x}{sep}{rest}" if sep == ":" else f"{(int(head) + shift) % 256}{sep}{rest}"


def attack_round(proxy: Proxy, memory: Memory, data_dir: Path, args, number_from: int, probe=None) -> list[dict]:
    """Every attack once, each beside an honest class; the table's rows, printed as they come. `probe(label)` after
    each attack, when given."""
    rows = []
    for number, (name, attack, state) in enumerate(attacks(proxy, data_dir, args.only), start=number_from):
        memory.reset()
        before = len(proxy.replies)
        honest: dict = {}
        teacher = threading.Thread(target=honest_class, args=(proxy, f"198.51.100.{10 + number % 200}", args.students,
                                                              number, honest))
        teacher.start()
        while "code" not in honest and "started" not in honest and teacher.is_alive():
            time.sleep(0.2)  # the attack begins once the honest class exists
        state["code"] = honest.get("code")
        begin = time.perf_counter()
        try:
            came_back = attack()
        except Exception as error:  # noqa: BLE001 - a bench row, not a crash: say what broke
            came_back = f"bench error: {type(error).__name__}: {error}"[:120]
        seconds = time.perf_counter() - begin
        teacher.join()
        replies = proxy.replies[before:]
        rows.append({"attack": name, "round": proxy.round + 1, "came_back": came_back, "attack_s": round(seconds, 1),
                     "largest_reply_bytes": max((size for size, _ in replies), default=0),
                     "all_strict_json": all(strict for _, strict in replies),
                     "server_peak_mb": round(memory.top / 1e6),
                     "honest_started": honest.get("started"), "honest_p95_s": honest.get("p95_s"),
                     "honest_errors": honest.get("errors")})
        r = rows[-1]
        print(f"| {name} | {came_back} | {r['largest_reply_bytes']:,} | {r['all_strict_json']} | "
              f"{r['server_peak_mb']:,} | {r['honest_started']} | {r['honest_p95_s']} | {r['honest_errors']} |",
              flush=True)
        if probe is not None:
            time.sleep(2)  # as before the first reading: the attack's threads finish
            probe(name)
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--students", type=int, default=40, help="the honest class's students (default: 40)")
    p.add_argument("--only", default="", help="run only the attacks whose name holds this")
    p.add_argument("--model", default="", help="ELECTRA_MODEL (default: the bundled pair)")
    p.add_argument("--repeat", type=int, default=1, help="rounds of every attack, the resting size after each (1)")
    p.add_argument("--probe", choices=["heap", "trace", "attacks"], help="serve through bench/residue_probe.py: what "
                   "the resting size holds (heap: by allocator and table; trace: tracemalloc's Python lines too), "
                   "after each round (attacks: heap, after each attack too)")
    args = p.parse_args(argv)
    data_dir = Path(tempfile.mkdtemp(prefix="electra-abuse-")) / "classes"
    port = free_port()
    probe_dir = data_dir.parent / "probe"
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "ELECTRA_CLASS_DIR": str(data_dir),
           "ELECTRA_TRUSTED_PROXIES": "127.0.0.1", **({"ELECTRA_MODEL": args.model} if args.model else {}),
           **({"RESIDUE_PROBE_DIR": str(probe_dir)} if args.probe else {}),
           **({"RESIDUE_PROBE_TRACE": "1"} if args.probe == "trace" else {})}
    log = data_dir.parent / "server.log"
    entry = [str(PROJECT / "bench" / "residue_probe.py")] if args.probe else ["app.py"]
    with log.open("ab") as out:
        server = subprocess.Popen([sys.executable, *entry], cwd=PROJECT, env=env, stdout=out, stderr=out)
    url = f"http://127.0.0.1:{port}/"
    rows, rests, probes, started = [], [], [], time.perf_counter()
    try:
        load.wait_for_page(url, server, 180, log)
        proxy = Proxy(url)
        for forger in ("electra", "stronger"):  # every path warmed once before the resting size is read
            proxy.call("explain", ["warm up the [MASK] models", "", "auto", 0.15, 0, 1.0, 5, None, forger],
                       "198.51.100.1")
        proxy.call("attribute", ["warm up the models", -1, "integrated_gradients", 8, *ATTRIBUTE_REST], "198.51.100.1")
        warm: dict = {}
        honest_class(proxy, "198.51.100.2", 3, 99, warm)
        memory = Memory(server.pid)
        memory.start()
        time.sleep(2)
        rests.append(memory.process.memory_info().rss)

        def probe(label: str) -> None:
            probes.append({**residue_probe.ask(probe_dir, len(probes)), "label": label})
        if args.probe:
            probe("before")
        for number in range(args.repeat):
            proxy.round = number
            print(f"round {number + 1} of {args.repeat}", flush=True)
            rows += attack_round(proxy, memory, data_dir, args, number * 16, probe if args.probe == "attacks" else None)
            time.sleep(5)  # the last requests' threads finish; what they freed is given back
            rests.append(memory.process.memory_info().rss)
            if args.probe:
                probe(f"after round {number + 1}")
        memory.stopped = True
    finally:
        load.stop_server(server)
    ok = all(r["largest_reply_bytes"] < MAX_REPLY and r["all_strict_json"] and r["server_peak_mb"] * 1e6 < MAX_RSS
             and r["honest_started"] and r["honest_errors"] == 0 and (r["honest_p95_s"] or 0) <= MAX_P95 for r in rows)
    rest_before, rest_after = rests[0], rests[-1]
    rested = rest_after <= rest_before * (1 + REST_GROWTH)
    print(f"resting size: {rest_before / 1e6:,.0f} MB before the attacks, {rest_after / 1e6:,.0f} MB after "
          f"({'within' if rested else 'over'} {REST_GROWTH:.0%})", flush=True)
    print("| resting size (MB) | " + " | ".join(["before"] + [f"after round {i}" for i in range(1, len(rests))]) + " |")
    print("| RSS | " + " | ".join(f"{r / 1e6:,.0f}" for r in rests) + " |")
    print("| growth over the round before | | " + " | ".join(f"{(b - a) / 1e6:+,.0f}" for a, b in zip(rests, rests[1:]))
          + " |", flush=True)
    for line in residue_probe.table(probes):
        print(line, flush=True)
    print(json.dumps({"rows": rows, "rest_before_mb": round(rest_before / 1e6),
                      "rest_after_mb": round(rest_after / 1e6), "rests_mb": [round(r / 1e6) for r in rests],
                      "probes": probes,
                      "total_s": round(time.perf_counter() - started, 1), "ok": ok and rested}))
    return 0 if ok and rested else 1


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
