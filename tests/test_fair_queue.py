"""Fair shares of gradio's queue (explainer/ui/fair_queue.py), on a small app of its own: one visitor's flood of
slow calls gets a short "busy, try again in N s" (HTTP 429) past their share, while the class's lane, and
another visitor, still get in; the settings are checked."""

from __future__ import annotations

import threading
import types
from concurrent.futures import ThreadPoolExecutor

import gradio as gr
import httpx
import pytest

from explainer.ui import fair_queue, reachable


def quick(x: str) -> str:
    return x.upper()


def serve(*apis: tuple) -> tuple[str, gr.Blocks]:
    """A small app of (function, api name, lane, workers) calls behind the fair queue, served on 127.0.0.1."""
    with gr.Blocks() as demo:
        for fn, name, lane, limit in apis:
            gr.api(fn, api_name=name, concurrency_id=lane, concurrency_limit=limit)
    demo.queue(max_size=None)
    fair_queue.install(demo)
    with reachable.patient():
        _, url, _ = demo.launch(prevent_thread_lock=True, quiet=True, server_name="127.0.0.1")
    return url, demo


@pytest.fixture
def small_app(monkeypatch):
    monkeypatch.setenv("ELECTRA_LANE_SHARE", "3")
    monkeypatch.setenv("ELECTRA_CLASS_LANE_SHARE", "5")
    release = threading.Event()

    def slow(x: str) -> str:
        release.wait(10)
        return x

    url, demo = serve((slow, "slow", "explain", 1), (quick, "quick", "class", 2))
    yield url, release, demo
    release.set()
    demo.close()


def join(url: str, name: str, headers: dict | None = None) -> httpx.Response:
    return httpx.post(f"{url}gradio_api/call/{name}", json={"data": ["hi"]}, headers=headers or {}, timeout=10)


@pytest.mark.slow
def test_a_flood_from_one_visitor_is_told_to_wait_and_the_class_lane_still_answers(small_app):
    url, release, _ = small_app
    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda _: join(url, "slow"), range(8)))
    codes = sorted(r.status_code for r in replies)
    assert codes == [200] * 3 + [429] * 5  # their share: 3 calls of the lane, waiting or running
    refused = next(r for r in replies if r.status_code == 429)
    assert "busy with your 3 earlier requests of this kind (a visitor may have 3 at once): try again in" in \
        refused.json()["detail"] and int(refused.headers["retry-after"]) >= 1
    quick = join(url, "quick")  # the class's lane: its own room, a share of its own
    assert quick.status_code == 200
    answer = httpx.get(f"{url}gradio_api/call/quick/{quick.json()['event_id']}", timeout=10).text
    assert '"HI"' in answer
    release.set()


@pytest.mark.slow
def test_a_scripted_call_s_session_is_forgotten_once_it_has_finished(small_app):
    url, _, demo = small_app
    for i in range(12):
        event = join(url, "quick").json()["event_id"]
        assert '"HI"' in httpx.get(f"{url}gradio_api/call/quick/{event}", timeout=10).text
    assert len(demo.state_holder.session_data) <= 1  # 12 calls: at most the last one's, not 12 copies of the page
    assert len(demo._queue.pending_event_ids_session) <= 1  # gradio left an empty set per call: 12


def test_gradio_s_record_of_results_to_deliver_keeps_only_what_is_still_to_deliver():
    queue = types.SimpleNamespace(
        pending_event_ids_session={"delivered": set(), "running": {"e1"}, "unread": {"e2"}, "unreadable": {"e3"},
                                   "evicted, running": {"e4"}},
        pending_messages_per_session={"delivered": 0, "running": 0, "unread": 0},  # "unreadable": evicted
        event_ids_to_events={"e1": object(), "e4": object()})
    assert fair_queue.forget_delivered(queue) == 2
    assert sorted(queue.pending_event_ids_session) == ["evicted, running", "running", "unread"]
    assert fair_queue.forget_delivered(queue) == 0


@pytest.mark.parametrize("name, raw", [("ELECTRA_LANE_SHARE", "0"), ("ELECTRA_LANE_ROOM", "many")])
def test_the_settings_are_checked(monkeypatch, name, raw):
    monkeypatch.setenv(name, raw)
    with pytest.raises(ValueError, match=f"{name} must be a whole number from 1, not '{raw}'"):
        fair_queue.shares()


def test_a_lane_serves_each_visitor_s_next_call_before_anyone_s_call_after_it():
    class Event:
        def __init__(self, host: str, name: str):
            self.request = type("Request", (), {"client": type("Client", (), {"host": host})()})()
            self.name = name

    bots = [Event(f"2001:db8::{i + 1:x}", f"bot{i}") for i in range(4)]  # one /64: one visitor
    waiting = bots + [Event("192.0.2.1", "ana"), Event("192.0.2.1", "bo"), Event("198.51.100.9", "cy")]
    fair_queue.fair_order(waiting, running=[Event("192.0.2.1", "running")])
    assert [e.name for e in waiting] == ["bot0", "cy", "bot1", "ana", "bot2", "bo", "bot3"]


@pytest.mark.slow
def test_a_visitor_s_one_at_a_time_calls_wait_in_the_lane_not_in_its_workers():
    """Four "joins" of one visitor (each would wait on that visitor's lock) hold one worker of a 2-worker lane:
    another call of the lane runs beside them at once, and no two of them ever run together."""
    release, lock = threading.Event(), threading.Lock()
    running, most = [0], [0]

    @fair_queue.one_per_visitor
    def enter(x: str) -> str:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        release.wait(10)
        with lock:
            running[0] -= 1
        return x

    url, demo = serve((enter, "enter", "class", 2), (quick, "quick", "class", 2))
    try:
        events = [join(url, "enter").json()["event_id"] for _ in range(4)]
        other = join(url, "quick").json()["event_id"]
        assert '"HI"' in httpx.get(f"{url}gradio_api/call/quick/{other}", timeout=5).text  # before any join ends
        release.set()
        for event in events:
            assert '"hi"' in httpx.get(f"{url}gradio_api/call/enter/{event}", timeout=10).text
        assert most[0] == 1
    finally:
        release.set()
        demo.close()
