"""The body guard (explainer/ui/http_guard.py): a body past its limit gets 413 and a message in words, before it is
read when its length is announced, as soon as it passes the limit when it comes in chunks; a body under the limit
reaches the app whole. Driven as ASGI directly (a small Starlette app behind the guard, messages in and out), and
once against the launched app: gradio's upload route at its own per-file limit, and the guard's limit past it."""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
from urllib.parse import urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from explainer.ui.http_guard import MAX_BODY, MULTIPART_SLACK, BodyGuard, middleware

LIMIT = 1000


async def echo(request: Request) -> JSONResponse:
    body = await request.body()  # as gradio's routes do: the whole body, then parse it
    return JSONResponse({"bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()})


ECHO = Starlette(routes=[Route("/gradio_api/call/explain", echo, methods=["POST"]),
                         Route("/gradio_api/upload", echo, methods=["POST"])])


def serve(app, chunks: list[bytes], length: int | None = None, path: str = "/gradio_api/call/explain"):
    """(status, headers, body, the messages the app read) of one POST whose body comes in `chunks`, with
    Content-Length `length` when given (else chunked, as uvicorn presents both: a body message at a time)."""
    headers = [(b"content-type", b"application/json")] + ([(b"content-length", str(length).encode())]
                                                          if length is not None else [])
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "headers": headers,
             "server": ("127.0.0.1", 7860), "client": ("127.0.0.1", 50000)}
    messages = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]
    read, sent = [], []

    async def receive():
        read.append(messages[len(read)] if len(read) < len(messages) else {"type": "http.disconnect"})
        return read[-1]

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), body, read


def test_an_announced_body_over_the_limit_is_refused_before_the_app_or_the_body_is_touched():
    called = []

    async def app(scope, receive, send):
        called.append(scope)

    status, headers, body, read = serve(BodyGuard(app, limit=LIMIT), [b"x" * 10], length=5_000_001)
    assert status == 413 and called == [] and read == []
    assert json.loads(body) == {"error": "This request's body is 5,000,001 bytes; this server reads at most 1,000."}
    assert headers[b"connection"] == b"close"  # uvicorn closes the connection: the rest is never read
    assert serve(BodyGuard(ECHO, limit=LIMIT), [b"x" * LIMIT], length=LIMIT)[0] == 200  # at the limit: read


def test_a_chunked_body_is_refused_once_it_passes_the_limit_and_nothing_of_the_app_goes_out():
    chunks = [b"a" * 400] * 10  # 4,000 bytes; the limit passes in the third chunk
    status, headers, body, read = serve(BodyGuard(ECHO, limit=LIMIT), chunks)
    assert status == 413 and len(read) == 3  # the rest is not read
    # The app, told the client left, raised Starlette's ClientDisconnect: swallowed, and nothing of its own answer
    # went out (the body is the guard's message alone)
    assert json.loads(body) == {"error": "This request's body is at least 1,200 bytes; this server reads at most "
                                         "1,000."}


def test_a_large_body_under_the_limit_reaches_the_app_whole():
    chunks = [bytes([i]) * 333 for i in range(3)]  # 999 bytes in three pieces, announced and chunked
    whole = b"".join(chunks)
    for length in (len(whole), None):
        status, _, body, _ = serve(BodyGuard(ECHO, limit=LIMIT), chunks, length=length)
        assert status == 200 and json.loads(body) == {"bytes": 999, "sha256": hashlib.sha256(whole).hexdigest()}


def test_the_upload_route_reads_one_file_of_launchs_max_file_size_and_no_more():
    body_guard = middleware(50 * 2**20)[-1]
    assert body_guard.cls is BodyGuard and body_guard.kwargs == {"upload_limit": 50 * 2**20 + MULTIPART_SLACK}
    guard = BodyGuard(ECHO, limit=LIMIT, upload_limit=3 * LIMIT)
    assert serve(guard, [b"f" * 3 * LIMIT], length=3 * LIMIT, path="/gradio_api/upload")[0] == 200
    assert serve(guard, [b"f" * 3 * LIMIT], length=3 * LIMIT)[0] == 413  # elsewhere, the plain limit
    status, _, body, _ = serve(guard, [b"f" * 2 * LIMIT] * 2, path="/gradio_api/upload")
    assert status == 413 and "reads at most 3,000." in json.loads(body)["error"]


def test_websockets_and_bodyless_requests_pass_untouched():
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["type"])

    async def never(*_):
        raise AssertionError("the guard read or answered a websocket")

    asyncio.run(BodyGuard(app, limit=1)({"type": "websocket", "path": "/", "headers": []}, never, never))
    assert seen == ["websocket"]


@pytest.mark.slow
def test_the_launched_app_keeps_gradios_upload_limit_and_refuses_a_larger_body_unread(app_url):
    """One file of exactly max_file_size is stored; a byte more is gradio's own 413; a body announced past the
    guard's limit gets the guard's 413 with no byte of it sent; the JSON routes read MAX_BODY, over 3x the largest
    call the app accepts."""
    from explainer.ui import app as app_module  # built at import (app_url has built it already)

    limit = app_module.LAUNCH["max_file_size"]
    assert app_module.LAUNCH["app_kwargs"]["middleware"][-1].kwargs == {"upload_limit": limit + MULTIPART_SLACK}
    upload = app_url.rstrip("/") + "/gradio_api/upload"
    stored = httpx.post(upload, files={"files": ("corpus.txt", b"a" * limit)}, timeout=120)
    assert stored.status_code == 200 and stored.json()[0].endswith("corpus.txt")
    over = httpx.post(upload, files={"files": ("corpus.txt", b"a" * (limit + 1))}, timeout=120)
    assert over.status_code == 413 and f"maximum allowed size of {limit} bytes" in over.text
    # The largest call the app accepts: 100,000 characters (the bounds' MAX_TEXT), each an emoji as two escapes
    largest = json.dumps({"data": ["\U0001F600" * 100_000, "", "auto", 0.15, 0, 1.0, 10, list(range(512)),
                                   "electra"]})
    assert len(largest) > 1_200_000
    call = httpx.post(app_url.rstrip("/") + "/gradio_api/call/explain", content=largest,
                      headers={"content-type": "application/json"}, timeout=60)
    assert call.status_code == 200 and "event_id" in call.json()
    where = urlsplit(app_url)
    for path, announced, most in (("/gradio_api/upload", 10**9, limit + MULTIPART_SLACK),
                                  ("/gradio_api/queue/join", MAX_BODY + 1, MAX_BODY)):
        connection = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
        connection.putrequest("POST", path)
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(announced))
        connection.endheaders()  # and not a byte of the body
        response = connection.getresponse()
        assert response.status == 413
        assert json.loads(response.read())["error"] == (f"This request's body is {announced:,} bytes; this server "
                                                        f"reads at most {most:,}.")


def test_the_text_boxes_cannot_send_a_body_the_guard_refuses():
    """A huge paste into Explore or the Classroom is cut by the box itself (HTML maxlength), to a text the bounds
    accept (and the pipeline cuts further, with a notice): before, a 5 MB paste was a 413 and six bare "Error" toasts.
    The longest the box allows, in the costliest characters JSON can carry (an emoji: two escapes, 12 bytes), fits."""
    from explainer.core.bounds import MAX_TEXT
    from explainer.ui import app

    boxes = {block.elem_id: block for block in app.demo.blocks.values() if getattr(block, "elem_id", None)}
    for box in ("explore-text", "classroom-text"):
        assert boxes[box].max_length == MAX_TEXT, box
    worst = json.dumps({"data": ["\U0001F600" * (MAX_TEXT // 2)]})  # maxlength counts UTF-16 units: 2 an emoji
    assert len(worst.encode()) < MAX_BODY / 3
