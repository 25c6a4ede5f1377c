"""Fair shares of gradio's queue: each lane has room of its own, and no visitor holds more than a share of one.

gradio 6.31's queue has one `max_size` for every event together, so 262 /explain calls from one visitor filled
it and every call of a live class answered 503 "Queue is full" for everyone. Here the queue has no size of its
own; instead, as a call joins it (`Queue.push`, wrapped on this app's queue only, by `install`):
- each lane (a concurrency_id: explainer/ui/queues.py) holds at most ELECTRA_LANE_ROOM (256) calls waiting;
- one visitor (a network: explainer/core/visitors.py) holds at most ELECTRA_LANE_SHARE (32) calls of a lane,
  waiting or running; in a live class's lanes ELECTRA_CLASS_LANE_SHARE (400: a school's classes behind one
  address, every phone polling at once).
Within a lane, calls wait in a fair order, not in the order they came: each visitor's next call goes before
anyone's call after that (`fair_order`), so 200 joins from one network do not hold back another class's answers.
A call over either share is refused at once, alone, with HTTP 429 and a message that says when to try again
(and a Retry-After header); the visitor's earlier calls, and everybody else's, run as before.

One at a time: a call that takes its visitor's share lock (a class started or joined: explainer.core.quotas
`one_at_a_time`) cannot run beside another of the same visitor's, so it waits in the lane, not in a worker: the
lane hands out (`next_events`, in place of gradio's `Queue.get_events`) the first waiting call whose visitor has
no such call running. 191 joins from one network then hold one of the class lane's workers, not all 16 of them
blocked on one lock, and a school's answers run beside them.

Memory: gradio keeps a session's state (a copy of every component's settings, ~0.65 MB for this app) for each
session it sees, up to 10,000 of them, and a scripted call (/gradio_api/call/NAME, no session of its own) gets a
session per call: 1,000 API calls held ~650 MB for good. An API call has no state to keep, so its session is
forgotten once the call has finished (`install` watches the calls it let in), and so is gradio's record of the
results a session waits for, once they are delivered (`forget_delivered`).
"""

from __future__ import annotations

import math
import random

from fastapi import HTTPException
from gradio import route_utils

from explainer.core import quotas, visitors
from explainer.ui import queues

DEFAULT_ROOM, DEFAULT_SHARE, DEFAULT_CLASS_SHARE = 256, 32, 400


def _setting(name: str, default: int) -> int:
    return int(quotas.setting(name, default, int, "a whole number from 1"))


def shares() -> dict[str, int]:
    """The settings, checked: {"room", "share", "class_share"}."""
    return {"room": _setting("ELECTRA_LANE_ROOM", DEFAULT_ROOM), "share": _setting("ELECTRA_LANE_SHARE", DEFAULT_SHARE),
            "class_share": _setting("ELECTRA_CLASS_LANE_SHARE", DEFAULT_CLASS_SHARE)}


def _who(event_or_request) -> str:
    """The visitor of a queued event (read once, kept on the event: the lanes are scanned often) or a request."""
    known = getattr(event_or_request, "electra_visitor", None)
    if known is not None:
        return known
    request = getattr(event_or_request, "request", event_or_request)
    client = getattr(request, "client", None)
    who = visitors.visitor(getattr(client, "host", None))
    if request is not event_or_request:  # an event: gradio's own object, which takes an attribute
        event_or_request.electra_visitor = who
    return who


def refusal(queue, fn, request, limits: dict[str, int]) -> tuple[str, int] | None:
    """(message, seconds to wait) when this call would take more than its lane's room or its visitor's share;
    None when it may join."""
    lane = fn.concurrency_id
    waiting = list(getattr(queue.event_queue_per_concurrency_id.get(lane), "queue", ()))
    running = [e for job in queue.active_jobs if job for e in job if e.concurrency_id == lane]
    who = _who(request)
    mine = sum(_who(e) == who for e in waiting + running)
    share = limits["class_share"] if lane in queues.CLASS_LANES else limits["share"]
    timing = queue.process_time_per_fn.get(fn)
    each = timing.avg_time if timing is not None and timing.count else 1.0
    width = max(1, fn.concurrency_limit or 1) if isinstance(fn.concurrency_limit, int) else 1
    if mine >= share:
        wait = max(1, math.ceil(each * mine / width))
        return (f"The server is busy with your {mine} earlier requests of this kind (a visitor may have {share} at "
                f"once): try again in {wait} s."), wait
    if len(waiting) >= limits["room"]:
        wait = max(1, math.ceil(each * len(waiting) / width))
        return f"The server is busy ({len(waiting)} requests of this kind waiting): try again in {wait} s.", wait
    return None


ONE_PER_VISITOR = "one_per_visitor"  # the mark on a handler (its attribute) that `one_per_visitor` sets


def one_per_visitor(handler):
    """Mark `handler` (an event's or an API's function) as one that runs one call per visitor at a time."""
    setattr(handler, ONE_PER_VISITOR, True)
    return handler


def _serial(event) -> bool:
    return getattr(getattr(event.fn, "fn", None), ONE_PER_VISITOR, False)


def next_events(queue):
    """What gradio's `Queue.get_events` does (a lane with a free worker, chosen at random; its first call, with
    its batch), except that a call marked `one_per_visitor` whose visitor already runs one is passed over: the
    first call of the lane that may run goes."""
    running = {_who(e) for job in queue.active_jobs if job for e in job if _serial(e)}
    lanes = list(queue.event_queue_per_concurrency_id.items())
    random.shuffle(lanes)
    for lane_id, lane in lanes:
        full = lane.concurrency_limit is not None and lane.current_concurrency >= lane.concurrency_limit
        if full or not lane.queue:
            continue
        first = next((e for e in lane.queue if not (_serial(e) and _who(e) in running)), None)
        if first is None:
            continue
        events = [first]
        if first.fn.batch:
            events += [e for e in lane.queue if e is not first and e.fn == first.fn][: first.fn.max_batch_size - 1]
        for event in events:
            lane.queue.remove(event)
        return events, first.fn.batch, lane_id
    return None


def fair_order(waiting: list, running: list) -> None:
    """Reorder a lane's waiting calls in place: by how many calls their visitor has ahead of them (running, and
    waiting before them), and as they came among equals."""
    ahead: dict[str, int] = {}
    for event in running:
        who = _who(event)
        ahead[who] = ahead.get(who, 0) + 1
    rank = {}
    for event in waiting:
        who = _who(event)
        rank[id(event)] = ahead.get(who, 0)
        ahead[who] = rank[id(event)] + 1
    waiting.sort(key=lambda event: rank[id(event)])  # stable: first come, first served among equals


def forget_delivered(queue) -> int:
    """Drop gradio's record of a session's undelivered results where nothing is left to deliver; how many went.

    gradio 6.31 keeps, per session, the ids of the results its stream has still to send
    (`pending_event_ids_session`), and once the last one is sent it leaves the session's empty set behind for
    good: one entry per scripted call and per browser visit, a server up for a week grows by every call it
    served. Dropped: empty sets (gradio makes a new one at the session's next call, and drops empty ones itself
    when it cancels), and the ids of a session whose stream can no longer be opened (its messages gone from
    gradio's cache of 2,000 sessions) and whose calls have all finished."""
    pending = queue.pending_event_ids_session
    gone = [session for session, ids in pending.items()
            if not ids or (session not in queue.pending_messages_per_session
                           and not any(event in queue.event_ids_to_events for event in ids))]
    for session in gone:
        pending.pop(session, None)
    return len(gone)


def install(demo) -> None:
    """Wrap `demo`'s queue (after `demo.queue(...)`) so that every call joining it is checked by `refusal`."""
    queue = demo._queue
    limits = shares()
    push = queue.push
    api_calls: list[str] = []  # the ids of the scripted calls let in, whose sessions are theirs alone

    async def fair_push(body, request, username):
        try:
            fn = route_utils.get_fn(demo, None, body)
        except Exception:  # noqa: BLE001 - a call gradio cannot place: its own push answers it
            fn = None
        refused = refusal(queue, fn, request, limits) if fn is not None else None
        if refused:
            message, wait = refused
            raise HTTPException(status_code=429, detail=message, headers={"Retry-After": str(wait)})
        scripted = body.session_hash is None  # gradio names its session after the event
        joined = await push(body, request, username)
        lane = queue.event_queue_per_concurrency_id.get(fn.concurrency_id) if fn is not None else None
        if joined[0] and lane is not None and len(lane.queue) > 1:
            fair_order(lane.queue, [e for job in queue.active_jobs if job for e in job
                                    if e.concurrency_id == fn.concurrency_id])
        if scripted and joined[0]:
            api_calls.append(joined[1])
        finished = [event for event in api_calls if event not in queue.event_ids_to_events]
        if finished:
            with demo.state_holder.lock:
                for event in finished:
                    demo.state_holder.session_data.pop(event, None)
                    demo.state_holder.time_last_used.pop(event, None)
            api_calls[:] = [event for event in api_calls if event in queue.event_ids_to_events]
        forget_delivered(queue)
        return joined

    queue.push = fair_push
    queue.get_events = lambda: next_events(queue)
