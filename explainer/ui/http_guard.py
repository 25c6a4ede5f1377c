"""Requests the server refuses before gradio reads them: an address longer than MAX_URL bytes, a body larger
than MAX_BODY bytes (on gradio's upload route: one file of launch's max_file_size).

gradio 6.31.0 builds every page's root URL with httpx, which raises on an address over 65,536 characters, so a
100 KB query string was a 500 (Internal Server Error). No link this app makes comes near the limit (a shared
Explore link carries at most 2,000 characters of text), so past it the answer is 414 with a short JSON message.

gradio reads a request's whole body into memory before anything checks it, with no limit: one 500 MB JSON body
took the server from 0.8 to 2.5 GB, and it rested at 2.0 GB after (bench/huge_body.py); its upload route bounds
each file (launch's max_file_size) but not their number, nor a plain form field, which it keeps in memory. The
largest call the app accepts is 1.2 MB: /explain with a text of 100,000 characters (the bounds' MAX_TEXT), each
an emoji written as a pair of JSON escapes (Python's json.dumps); a browser sends it in 400 KB of UTF-8. The
largest upload is one file of max_file_size. Past its limit, a body gets 413 with a short JSON message: before a
byte of it is read when its length is announced (Content-Length), as soon as it passes the limit when chunked.
Plain ASGI middleware, installed through `launch(app_kwargs={"middleware": middleware(...)})` (app.py's LAUNCH).
"""

from __future__ import annotations

import json

from starlette.middleware import Middleware

MAX_URL = 32_768  # bytes of path and query string
MAX_BODY = 4 * 2**20  # bytes of a request's body: over 3x the largest call the app accepts
UPLOAD_ROUTE = "/gradio_api/upload"
MULTIPART_SLACK = 2**20  # bytes of an upload's body past its file: the form's boundaries and headers


async def refuse(send, status: int, words: str) -> None:
    """Answer `status` with {"error": words}, and close the connection (the rest of a body is not read)."""
    body = json.dumps({"error": words}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class LongURLGuard:
    def __init__(self, app, limit: int = MAX_URL):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            size = len(scope.get("raw_path") or scope.get("path", "").encode()) + len(scope.get("query_string", b""))
            if size > self.limit:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1009})
                    return
                await refuse(send, 414, f"This address is {size:,} bytes long; this server reads at most "
                                        f"{self.limit:,}.")
                return
        await self.app(scope, receive, send)


class BodyGuard:
    """413 for a body over `limit` bytes (`upload_limit` on gradio's upload route). A chunked body is counted as
    the app reads it: past the limit the app is told the client left (Starlette raises ClientDisconnect) and
    whatever it answers after the 413 is dropped."""

    def __init__(self, app, limit: int = MAX_BODY, upload_limit: int = MAX_BODY):
        self.app, self.limit, self.upload_limit = app, limit, upload_limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.upload_limit if scope["path"].endswith(UPLOAD_ROUTE) else self.limit
        announced = dict(scope["headers"]).get(b"content-length", b"")
        if announced.isdigit() and int(announced) > limit:
            await refuse(send, 413, f"This request's body is {int(announced):,} bytes; this server reads at most "
                                    f"{limit:,}.")
            return
        read, started, refused = 0, False, False

        async def counted():
            nonlocal read, refused
            message = await receive()
            if message["type"] == "http.request" and not refused:
                read += len(message.get("body", b""))
                if read > limit:
                    refused = True
                    if not started:
                        await refuse(send, 413, f"This request's body is at least {read:,} bytes; this server "
                                                f"reads at most {limit:,}.")
            return {"type": "http.disconnect"} if refused else message

        async def watched(message):
            nonlocal started
            if not refused:
                started = True
                await send(message)

        try:
            await self.app(scope, counted, watched)
        except Exception:
            if not refused:  # the app's own error; after a refusal, its complaint that the client left is expected
                raise


def middleware(upload_bytes: int = 0) -> list[Middleware]:
    """The middleware list for gradio's launch(app_kwargs={"middleware": ...}); `upload_bytes`: launch's
    max_file_size, which gradio checks per file (this bounds the whole upload to one such file)."""
    return [Middleware(LongURLGuard),
            Middleware(BodyGuard, upload_limit=max(MAX_BODY, upload_bytes + MULTIPART_SLACK))]
