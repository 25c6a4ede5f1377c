"""The launch's reachability check waits for a slow first page (gradio's gives up after 3 s and refuses to start),
and still says no for a server that never answers (explainer/ui/reachable.py)."""

from __future__ import annotations

import http.server
import socket
import threading
import time

import pytest
from gradio import networking

from explainer.ui import reachable


class _SlowFirstPage(http.server.BaseHTTPRequestHandler):
    delays = [3.5]  # the first answer comes after gradio's 3 s

    def do_HEAD(self):  # the standard library calls it by this name
        if self.delays:
            time.sleep(self.delays.pop())
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.mark.slow  # a page that answers after 3.5 s
def test_a_first_page_slower_than_gradios_three_seconds_is_waited_for():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowFirstPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        started = time.monotonic()
        assert reachable.answers(f"http://127.0.0.1:{server.server_port}/", seconds=30)
        assert time.monotonic() - started >= 3.5  # it did wait for the slow answer
    finally:
        server.shutdown()


def test_a_server_that_never_answers_is_refused_and_gradios_check_is_put_back():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    assert not reachable.answers(f"http://127.0.0.1:{port}/", seconds=0.2)
    original = networking.url_ok
    with reachable.patient():
        assert networking.url_ok is reachable.answers
    assert networking.url_ok is original
