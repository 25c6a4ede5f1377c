"""bench/abuse.py's attacks on the server's fairness: starving the class, taking its slots, filling a class,
disguised swear words, memory, bad picks. Each is bounded in count and time, against 127.0.0.1 only, through the
same pretend proxy (`Proxy.call(name, data, visitor)`), and returns one line for the table.

- starvation: 16 class starts at once, each with 2,500 copies of a 200-character sentence and a bad last line
  (refused by the count cap before any model runs), beside 262 plain /explain calls from one visitor (past its
  share of the lane: told to try again, HTTP 429); the honest class plays meanwhile (no 503, its p95);
- rotating X-Forwarded-For addresses within one IPv6 /64: 40 class starts, of which at most the per-visitor
  number start;
- one IPv6 address spelled three ways: 12 starts, 4 per spelling: one visitor's share;
- a class flooded with joins from one /64 while 30 students of a school join: the flood stops at the per-network
  cap of one class, every student gets in, the teacher locks the room (the flood is refused) and removes a bot;
- disguised swear words (the filter's own list behind a grapheme joiner, an accent, a Cyrillic look-alike, a
  Hangul filler, spaced letters) as nicknames and in a teacher's sentences: all refused;
- 16 /explain calls at once with 512 typed blanks and the stronger generator (the memory bound);
- /game's picks: [[Infinity]], a pick of 5,000 digits, True: each a message in words;
- a 500 MB JSON body to /call/explain, its length announced, then chunked (bench/huge_body.py: every route).
"""

from __future__ import annotations

import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # training.offensive: the filter's own list

import huge_body  # bench/huge_body.py: a body's bytes, made as they are sent

LINE = ("The old fisherman repaired his wooden boat on the quiet beach before the autumn storm arrived, while "
        "his grandchildren gathered shells and watched the grey waves roll slowly towards the shore.")[:200]


def kinds(results) -> dict[str, int]:
    out: dict[str, int] = {}
    for kind, _, _ in results:
        out[kind] = out.get(kind, 0) + 1
    return out


def message(results, kind: str = "error") -> str:
    for got, payload, _ in results:
        if got == kind or (kind == "error" and got != "complete"):
            text = payload.get("error") if isinstance(payload, dict) else payload
            return str(text)[:80]
    return ""


def starvation(proxy, state) -> str:
    hostile = [LINE] * 2500 + ["no"]
    with ThreadPoolExecutor(48) as pool:
        starts = [pool.submit(proxy.call, "class_start", [3, None, "", hostile, "electra"], "203.0.113.77")
                  for _ in range(16)]
        plain = [pool.submit(proxy.call, "explain", [f"the chef cooked meal {i} for us", "", "auto", 0.15, i, 1.0, 5,
                                                     None, "electra"], "203.0.113.78") for i in range(262)]
        starts, plain = [f.result() for f in starts], [f.result() for f in plain]
    slowest = max(s for _, _, s in starts)
    return (f"16 long lists: {kinds(starts)} in at most {slowest:.1f} s ({message(starts)[:40]}); 262 /explain: "
            f"{kinds(plain)} ({message(plain, 'http 429')[8:60]})")


def rotating(proxy, state) -> str:
    results = [proxy.call("class_start", [3, 1, "", None, "electra"], f"2001:db8:1::{i + 1:x}") for i in range(40)]
    return f"40 starts from one /64: {kinds(results)['complete'] if 'complete' in kinds(results) else 0} started " \
           f"(per visitor: 10); {message(results)[:60]}"


def spellings(proxy, state) -> str:
    forms = ["2001:db8:2::1", "2001:0db8:0002:0000:0000:0000:0000:0001", "2001:DB8:2:0:0:0:0:1"]
    results = [proxy.call("class_start", [3, 1, "", None, "electra"], forms[i % 3]) for i in range(12)]
    return f"12 starts, 4 per spelling: {kinds(results).get('complete', 0)} started (one visitor's 10)"


def join_flood(proxy, state) -> str:
    teacher = "198.51.100.240"
    _, start, _ = proxy.call("class_start", [3, 4, "", None, "electra"], teacher)
    code, key = start[0]["code"], start[0]["teacher_key"]
    with ThreadPoolExecutor(32) as pool:
        bots = [pool.submit(proxy.call, "class_join", [code, f"B{i}"], f"2001:db8:3::{i + 1:x}") for i in range(191)]
        school = [pool.submit(proxy.call, "class_join", [code, f"S{i}"], "192.0.2.230") for i in range(30)]
        bots, school = [f.result() for f in bots], [f.result() for f in school]
    proxy.call("class_lock", [code, key, True], teacher)
    late = [proxy.call("class_join", [code, f"L{i}"], f"2001:db8:4::{i + 1:x}") for i in range(20)]
    first_bot = next(p[0]["number"] for k, p, _ in bots if k == "complete")
    removed = proxy.call("class_remove", [code, key, first_bot], teacher)
    return (f"191 bots: {kinds(bots).get('complete', 0)} in; 30 students: {kinds(school).get('complete', 0)} in; "
            f"after the lock 20 more: {kinds(late).get('complete', 0)} in; a bot removed: {removed[0] == 'complete'}")


def disguises(proxy, state) -> str:
    from training.offensive import _blocked

    words = sorted(w for w in _blocked()[0] if w.isascii() and w.isalpha() and 4 <= len(w) <= 6)
    rng = random.Random(0)
    picked = [rng.choice(words) for _ in range(5)]
    look = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "c": "\u0441", "p": "\u0440", "i": "\u0456", "s": "\u0455"}
    disguised = [picked[0][:2] + "\u034f" + picked[0][2:], picked[1][0] + "\u0301" + picked[1][1:],
                 "".join(look.get(c, c) for c in picked[2]), picked[3][:1] + "\u3164" + picked[3][1:],
                 " ".join(picked[4])]
    _, start, _ = proxy.call("class_start", [3, 6, "", None, "electra"], "198.51.100.241")
    code = start[0]["code"]
    names = [proxy.call("class_join", [code, d], "192.0.2.231") for d in disguised]
    own = [proxy.call("class_start", [3, None, "", [f"Yesterday the new pupil said {d} to us.", LINE], "electra"],
                      "198.51.100.242") for d in disguised]
    return (f"5 nicknames: {len(names) - kinds(names).get('complete', 0)} refused; 5 teachers' sentences: "
            f"{len(own) - kinds(own).get('complete', 0)} refused")


def memory(proxy, state) -> str:
    blanks = "[MASK] " * 512
    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(lambda i: proxy.call("explain", [blanks, "", "auto", 0.15, i, 1.0, 5, None,
                                                                 "stronger"], f"203.0.113.{100 + i}"), range(16)))
    return f"{kinds(results)} in at most {max(s for _, _, s in results):.1f} s"


def picks(proxy, state) -> str:
    sent = []
    for raw in ("[[Infinity]]", "[[" + "1" * 5000 + "]]", "[[true]]", "true"):
        body = '{"data": [1, 1, ' + raw + ', "", "electra"]}'
        sent.append(proxy.call_raw("game", body, "203.0.113.90"))
    words = [str(p.get("error") if isinstance(p, dict) else p)[:45] for _, p, _ in sent]
    return f"{kinds(sent)}: " + " | ".join(words)


ATTACKS = [("starvation: 16 long sentence lists + 262 /explain", starvation),
           ("rotating addresses in one IPv6 /64", rotating), ("one IPv6 address, three spellings", spellings),
           ("191 bot joins from one /64, then the lock", join_flood), ("disguised swear words", disguises),
           ("16 x 512 typed blanks, stronger generator", memory), ("/game picks: Infinity, 5,000 digits, True", picks),
           ("500 MB bodies to /call/explain", lambda proxy, state: huge_body.huge_bodies(proxy.url))]
