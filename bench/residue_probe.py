"""What the server's resting size holds, asked from outside: `bench/abuse.py --probe` serves the app through this file.

Run as a script (`python bench/residue_probe.py`, $RESIDUE_PROBE_DIR set) it serves app.py in this process, with a
thread that answers each request file `ask-N` the bench writes there with `N.json`:
- RSS, and RSS again after glibc's `malloc_trim(0)` (what the allocator kept, free, and gave back when asked);
- glibc's `mallinfo2()` over every arena: the C heap in use, free inside the heap, mmapped blocks;
- pymalloc's arenas (sys._debugmallocstats: Python's small objects, allocated and free);
- objects by type, grown since probe 0; with $RESIDUE_PROBE_TRACE set, tracemalloc too (started at probe 0, so it
  traces only what was allocated after it): the Python memory still held, by file:line (pymalloc's figures are then
  not available);
- the size of the tables the app and gradio keep (sessions, queue tables, quotas, the live class's caches).
Nothing here is imported by the app. `ask` and `table` are the bench's side: write a request, wait, print.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import runpy
import sys
import tempfile
import threading
import time
import tracemalloc
from collections import Counter
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
TOP = 15  # lines and types listed per probe
_types0: Counter = Counter()


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                      "fsmblks", "uordblks", "fordblks", "keepcost")]


def _mb(n: float) -> float:
    return round(n / 1e6, 1)


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _pymalloc() -> dict:
    """pymalloc's own count (sys._debugmallocstats writes to the C stderr: caught in a file for the call); empty
    while tracemalloc runs (it hooks the allocator, and pymalloc then prints nothing)."""
    with tempfile.TemporaryFile("w+") as caught:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(caught.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        caught.seek(0)
        text = caught.read()
    out = {}
    for line in text.splitlines():
        for key, name in (("# arenas allocated current", "arenas"), ("# bytes in allocated blocks", "allocated"),
                          ("# bytes in available blocks", "available")):
            if line.startswith(key):
                out[name] = int(line.split("=")[-1].strip().replace(",", ""))
    return out


def _tables() -> dict:
    """The sizes of the tables kept between requests (0 where a module is not loaded)."""
    out: dict = {}
    app = sys.modules.get("explainer.ui.app")
    demo = getattr(app, "demo", None)
    if demo is not None:
        queue = demo._queue
        out.update(gradio_sessions=len(demo.state_holder.session_data),
                   queue_pending_messages=len(queue.pending_messages_per_session),
                   queue_pending_event_ids=len(queue.pending_event_ids_session),
                   queue_events=len(queue.event_ids_to_events), queue_analytics=len(queue.event_analytics))
    quotas = sys.modules.get("explainer.core.quotas")
    for kind, quota in (getattr(quotas, "_quotas", {}) or {}).items():
        store = quota._limiter.storage
        out[f"quota_{kind}_keys"] = len(getattr(store, "events", {})) + len(getattr(store, "storage", {}))
    session = sys.modules.get("explainer.lesson.live_class.session")
    if session is not None:
        out.update(class_rounds=len(session._rounds), class_computing=len(session._computing))
    out["threads"] = threading.active_count()
    out["os_threads"] = len(os.listdir("/proc/self/task"))
    return out


def report(number: int) -> dict:
    """Probe `number`: 0 starts tracemalloc and counts objects; later ones say what grew since."""
    global _types0
    gc.collect()
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    heap = libc.mallinfo2()
    out = {"probe": number, "rss_mb": _mb(_rss()), "heap_in_use_mb": _mb(heap.uordblks),
           "heap_free_mb": _mb(heap.fordblks), "mmapped_mb": _mb(heap.hblkhd), "heap_arena_mb": _mb(heap.arena)}
    pymalloc = _pymalloc()
    out.update(pymalloc_arenas=pymalloc.get("arenas"), pymalloc_used_mb=_mb(pymalloc.get("allocated", 0)),
               pymalloc_free_mb=_mb(pymalloc.get("available", 0)))
    out.update(_tables())
    types = Counter(type(o).__name__ for o in gc.get_objects())
    if number == 0:
        _types0 = types
        if os.environ.get("RESIDUE_PROBE_TRACE"):
            tracemalloc.start()
    else:
        grown = types - _types0
        out["types"] = grown.most_common(TOP)
    if tracemalloc.is_tracing():
        snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__),
                                                               tracemalloc.Filter(False, __file__)])
        stats = snapshot.statistics("lineno")
        out["traced_mb"] = _mb(sum(s.size for s in stats))
        out["tracemalloc_own_mb"] = _mb(tracemalloc.get_tracemalloc_memory())
        out["lines"] = [[f"{_short(s.traceback[0].filename)}:{s.traceback[0].lineno}", _mb(s.size), s.count]
                        for s in stats[:TOP]]
    del types
    gc.collect()
    trimmed = libc.malloc_trim(0)
    out["rss_after_trim_mb"], out["trimmed"] = _mb(_rss()), bool(trimmed)
    return out


def _short(path: str) -> str:
    for marker in ("site-packages/", "python3.11/", str(PROJECT) + "/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


def _watch(directory: Path) -> None:
    number = 0
    while True:
        if (directory / f"ask-{number}").exists():
            try:
                out = report(number)
            except Exception as error:  # noqa: BLE001 - the bench prints what broke instead of waiting forever
                out = {"probe": number, "error": f"{type(error).__name__}: {error}"}
            part = directory / f"{number}.part"
            part.write_text(json.dumps(out))
            part.rename(directory / f"{number}.json")
            number += 1
        time.sleep(0.5)


def ask(directory: Path, number: int, timeout: float = 600) -> dict:
    """The bench's side: ask the served process for probe `number` and wait for it."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"ask-{number}").touch()
    answer = directory / f"{number}.json"
    deadline = time.monotonic() + timeout
    while not answer.exists():
        if time.monotonic() > deadline:
            return {"probe": number, "error": "no answer"}
        time.sleep(0.5)
    return json.loads(answer.read_text())


COLUMNS = ("rss_mb", "rss_after_trim_mb", "heap_in_use_mb", "heap_free_mb", "mmapped_mb", "pymalloc_arenas",
           "pymalloc_used_mb", "pymalloc_free_mb", "traced_mb", "tracemalloc_own_mb", "gradio_sessions",
           "queue_pending_messages", "queue_pending_event_ids", "queue_events", "queue_analytics",
           "quota_start_keys", "quota_join_keys", "quota_join_class_keys", "class_rounds", "class_computing",
           "threads", "os_threads")


def table(probes: list[dict]) -> list[str]:
    """Markdown lines: one column per probe (before the attacks, after each round or attack), then each probe's
    Python lines (with tracemalloc) and the object types grown."""
    if not probes:
        return []
    lines = ["| probe | " + " | ".join(p.get("label", str(p["probe"]))[:24] for p in probes) + " |",
             "|---" * (len(probes) + 1) + "|"]
    lines += [f"| {key} | " + " | ".join(str(p.get(key, "")) for p in probes) + " |" for key in COLUMNS]
    for p in probes[1:]:
        lines.append(f"{p.get('label', p['probe'])}: Python memory still held, allocated since 'before' (MB, blocks):")
        lines += [f"  {where} {size} MB {count:,}" for where, size, count in p.get("lines", [])]
        lines.append("  objects grown: " + ", ".join(f"{name} +{n:,}" for name, n in p.get("types", [])))
    return lines


def serve() -> None:
    directory = Path(os.environ["RESIDUE_PROBE_DIR"])
    directory.mkdir(parents=True, exist_ok=True)
    threading.Thread(target=_watch, args=(directory,), daemon=True, name="residue-probe").start()
    sys.path[0] = str(PROJECT)  # as `python app.py` would have it, not bench/
    sys.argv = [str(PROJECT / "app.py")]
    with contextlib.suppress(SystemExit):
        runpy.run_path(str(PROJECT / "app.py"), run_name="__main__")


if __name__ == "__main__":
    serve()
