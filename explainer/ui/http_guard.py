"""Requests the server refuses before gradio reads them: an address longer than MAX_URL bytes.

gradio 6.31.0 builds every page's root URL with httpx, which raises on an address over 65,536 characters, so a
100 KB query string was a 500 (Internal Server Error). No link this app makes comes near the limit (a shared
Explore link carries at most 2,000 characters of text), so past it the answer is 414 with a short JSON message.
A plain ASGI middleware, installed through `launch(app_kwargs={"middleware": [...]})` (app.py's LAUNCH).
"""

from __future__ import annotations

import json

from starlette.middleware import Middleware

MAX_URL = 32_768  # bytes of path and query string


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
                body = json.dumps({"error": f"This address is {size:,} bytes long; this server reads at most "
                                            f"{self.limit:,}."}).encode()
                await send({"type": "http.response.start", "status": 414,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def middleware() -> list[Middleware]:
    """The middleware list for gradio's launch(app_kwargs={"middleware": ...})."""
    return [Middleware(LongURLGuard)]
