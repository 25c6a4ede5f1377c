"""Gradio's check that a launched server answers, given a busy machine's time.

Before `launch()` returns, gradio 6.31 sends HEAD requests to the new server's page (gradio.networking.url_ok) and
gives up at the first answer slower than 3 s; it then refuses to start with "When localhost is not accessible, a
shareable link must be created. Please set share=True", which says nothing of the real cause. A cold first page on a
loaded 2-core machine (a teacher's old laptop, CI) can take longer. `patient()` gives the same check up to a minute:
it still answers at once when the page does, and still refuses a server that never answers.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import httpx
from gradio import networking

PATIENCE_S = 60.0
ANSWERED = (200, 301, 302, 303, 307, 308, 401)  # gradio's own list: a page, a redirect, or a login


def answers(url: str, seconds: float = PATIENCE_S) -> bool:
    """Whether the server at `url` answers a HEAD within `seconds`, each try allowed 10 s."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.head(url, timeout=10, verify=False).status_code in ANSWERED:
                return True
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)


@contextlib.contextmanager
def patient() -> Iterator[None]:
    """`with patient(): demo.launch(...)`: gradio's reachability check, allowed `PATIENCE_S`."""
    original = networking.url_ok
    networking.url_ok = answers
    try:
        yield
    finally:
        networking.url_ok = original
