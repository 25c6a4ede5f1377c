"""Huge request bodies against a server it starts on 127.0.0.1: what each costs the server, and what comes back.

Each case sends one body over a raw socket (so nothing in a client library stands in front, and the body is made
as it is sent: this process never holds it): with its length announced (Content-Length) or streamed in chunks
(Transfer-Encoding: chunked, no length), to gradio's JSON routes (/gradio_api/call/explain, /run/explain,
/queue/join) and to its upload route (one file; many files each under gradio's per-file limit; one form field,
which gradio keeps in memory). The sender stops as soon as the server answers. For each case: the reply's status
and first words, seconds until it came, bytes sent, the server's resident memory (RSS, psutil) before, at its peak
and 3 s after, and the seconds an honest /explain call took next. The last line is the table as JSON.

    PYTHONPATH=. .venv/bin/python bench/huge_body.py            # every case (50 and 500 MB; about 2 minutes)
    PYTHONPATH=. .venv/bin/python bench/huge_body.py --mb 5 --only explain   # smoke

bench/abuse.py's row "500 MB bodies" sends two of these (`huge_bodies`) beside its honest class.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import socket
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

MB = 10**6
PIECE = 2**20
REST = ', "", "auto", 0.15, 0, 1.0, 5, null, "electra"]'
BOUNDARY = "huge-body-boundary"


def json_body(size: int, join: bool = False) -> list[tuple[bytes, int, bytes]]:
    """/explain's arguments with a text of about `size` bytes (as (head, filler bytes, tail) parts)."""
    tail = (REST + ', "fn_index": 0, "session_hash": "huge"}' if join else REST + "}").encode()
    return [(b'{"data": ["', size, b'"' + tail)]


def multipart(size: int, files: int = 1, field: bool = False) -> list[tuple[bytes, int, bytes]]:
    """`files` files of `size` bytes each for gradio's upload route (or one plain form field of `size` bytes)."""
    name = "" if field else '; filename="corpus{}.txt"'
    parts = [(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="files"{name.format(i)}\r\n'
              f"Content-Type: text/plain\r\n\r\n".encode(), size, b"\r\n") for i in range(files)]
    return parts[:-1] + [(parts[-1][0], size, f"\r\n--{BOUNDARY}--\r\n".encode())]


def pieces(parts):
    for head, filler, tail in parts:
        yield head
        for start in range(0, filler, PIECE):
            yield b"a" * min(PIECE, filler - start)
        yield tail


def post_body(url: str, path: str, parts, chunked: bool = False, content_type: str = "application/json",
              pace: float = 0.0, timeout: float = 600) -> dict:
    """POST the body made of `parts`; stop sending once the server answers or closes. (status, the reply's first
    120 characters, seconds until the reply, bytes of body sent.) `pace`: seconds to wait between pieces."""
    where = urlsplit(url)
    size = sum(len(head) + filler + len(tail) for head, filler, tail in parts)
    length = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"
    if content_type == "multipart":
        content_type = f"multipart/form-data; boundary={BOUNDARY}"
    head = (f"POST {path} HTTP/1.1\r\nHost: {where.netloc}\r\nContent-Type: {content_type}\r\n{length}\r\n"
            f"Connection: close\r\n\r\n").encode()
    sent, start = 0, time.perf_counter()
    with socket.create_connection((where.hostname, where.port), timeout=timeout) as sock:
        sock.sendall(head)
        try:
            for piece in pieces(parts):
                sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked and piece else piece)
                sent += len(piece)
                if select.select([sock], [], [], pace)[0]:
                    break  # the server answered (or closed) before the body ended
            else:
                if chunked:
                    sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # it closed the connection while the body was still coming
        reply = b""
        try:
            while chunk := sock.recv(65536):
                reply += chunk
        except OSError:
            pass
    seconds = time.perf_counter() - start
    status_line, _, rest = reply.partition(b"\r\n")
    words = rest.partition(b"\r\n\r\n")[2].decode(errors="replace")
    status = int(status_line.split()[1]) if status_line.startswith(b"HTTP/") else None
    return {"status": status, "reply": words[:120], "seconds": round(seconds, 2), "sent_mb": round(sent / MB, 1)}


def huge_bodies(url: str, size: int = 500 * MB) -> str:
    """bench/abuse.py's row: a body of `size` bytes to /call/explain, announced and then chunked."""
    said = []
    for chunked in (False, True):
        r = post_body(url, "/gradio_api/call/explain", json_body(size), chunked=chunked)
        said.append(f"{'chunked' if chunked else 'announced'}: HTTP {r['status']} in {r['seconds']:.1f} s after "
                    f"{r['sent_mb']:g} MB")
    return "; ".join(said)


def cases(mb: int) -> list[tuple[str, str, list, bool, str]]:
    """(name, path, parts, chunked, content type)."""
    n = mb * MB
    return [(f"call/explain {mb} MB, announced", "/gradio_api/call/explain", json_body(n), False, "application/json"),
            (f"call/explain {mb} MB, chunked", "/gradio_api/call/explain", json_body(n), True, "application/json"),
            (f"run/explain {mb} MB, announced", "/gradio_api/run/explain", json_body(n), False, "application/json"),
            (f"queue/join {mb} MB, announced", "/gradio_api/queue/join", json_body(n, join=True), False,
             "application/json"),
            (f"upload: one file of {mb} MB", "/gradio_api/upload", multipart(n), False, "multipart"),
            (f"upload: {mb // 45 or 1} files of 45 MB", "/gradio_api/upload", multipart(45 * MB, mb // 45 or 1),
             False, "multipart"),
            (f"upload: a form field of {mb} MB", "/gradio_api/upload", multipart(n, field=True), False, "multipart")]


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import load  # bench/load.py: the wait for a served app
    from abuse import ATTRIBUTE_REST, Memory, Proxy  # noqa: F401 - the same calls and the same sampler
    from live_server import free_port, start_server

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mb", type=int, nargs="+", default=[50, 500], help="body sizes in MB (default: 50 500)")
    p.add_argument("--only", default="", help="run only the cases whose name holds this")
    args = p.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="electra-body-"))
    port = free_port()
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "ELECTRA_CLASS_DIR": str(folder / "c"),
           "GRADIO_TEMP_DIR": str(folder / "uploads")}
    server = start_server(env, folder / "server.log")
    url, rows = f"http://127.0.0.1:{port}/", []
    try:
        load.wait_for_page(url, server, 180, folder / "server.log")
        proxy = Proxy(url)

        def honest() -> float:
            return round(proxy.call("explain", ["the chef cooked a meal", "", "auto", 0.15, 0, 1.0, 5, None,
                                                "electra"], "198.51.100.1")[2], 2)
        honest()
        memory = Memory(server.pid)
        memory.start()
        for name, path, parts, chunked, kind in [c for mb in args.mb for c in cases(mb) if args.only in c[0]]:
            time.sleep(2)
            memory.reset()
            before = memory.top
            result = post_body(url, path, parts, chunked, kind)
            peak = memory.top
            time.sleep(3)
            rows.append({"case": name, **result, "rss_before_mb": round(before / MB),
                         "rss_peak_mb": round(peak / MB), "rss_after_mb": round(memory.process.memory_info().rss / MB),
                         "honest_s": honest(), "uploads_mb": round(sum(
                             f.stat().st_size for f in (folder / "uploads").rglob("*") if f.is_file()) / MB)})
            r = rows[-1]
            print(f"| {name} | {r['status']} {r['reply'][:70]!r} | {r['seconds']} | {r['sent_mb']:g} | "
                  f"{r['rss_before_mb']:,} | {r['rss_peak_mb']:,} | {r['rss_after_mb']:,} | {r['honest_s']} | "
                  f"{r['uploads_mb']:,} |", flush=True)
        memory.stopped = True
    finally:
        load.stop_server(server)
    print(json.dumps({"rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
