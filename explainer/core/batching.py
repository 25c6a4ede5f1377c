"""Micro-batching: sentences that arrive while the models are busy run together, in one forward.

One sentence takes ~25 ms of model time on the bundled pair, most of it fixed cost (a 6-layer forward
over a dozen tokens barely uses a CPU's matrix units). So when 20 people press the button at once,
running them one after another wastes most of the machine. `explain` here queues each request; a
request that finds the models free takes everything queued (up to MAX_BATCH sentences) and runs it as
one padded batch (`pipeline.explain_many`), while later arrivals queue for the next batch. A lone
request runs at once, alone, with no added wait.

Each sentence keeps its own seed and settings, so its masks and samples are those it gets alone; its
probabilities may differ from a lone run in the last float bits (padding changes the order of sums).
A sentence that fails (empty text, a bad setting) gets its own error; the rest of its batch runs.
The batch runs in one thread of its own (the leader waits for it), always the same one: torch keeps state per
calling thread, so models called from every worker thread in turn held memory for each. A batch is bounded in
memory too: the waiting requests are taken oldest first while their generator work, as
explainer/core/explain_memory.py estimates it, fits ELECTRA_EXPLAIN_MEMORY_MB (a request over it runs alone), and
a batch that held much gives its freed pages back to the system after it (explainer/core/memory.py).
Why not gradio's `batch=True`: it hands one exception to every request of a batch, and batches per
event, where this also merges the page's button, the API and the Classroom.
"""

from __future__ import annotations

import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

from explainer.core import memory
from explainer.core.explain_memory import batch_bytes, estimate_bytes
from explainer.core.pipeline import Explanation, Settings, explain_many

MAX_BATCH = max(1, int(os.environ.get("ELECTRA_EXPLAIN_BATCH", 16)))  # 1: no batching
_BATCHERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # ModelPair -> Batcher
_BATCHERS_LOCK = threading.Lock()
# Every batch runs in this one thread: torch (its OpenMP team, oneDNN's scratch) keeps state per calling thread,
# and batches led by whichever of gradio's 40 worker threads came first grew the server's resting size by
# ~240 MB per 262 calls; in one thread it stays flat (measured: +44 MB once).
MODEL_THREAD_NAME = "explain-models"
_MODEL_THREAD = ThreadPoolExecutor(1, thread_name_prefix=MODEL_THREAD_NAME)


TRIM_BYTES = 64_000_000  # a batch estimated above this returns its freed pages to the system afterwards


class _Job:
    __slots__ = ("request", "result", "done", "cost")

    def __init__(self, request: tuple[str, Settings], cost: int = 0):
        self.request, self.result, self.done, self.cost = request, None, False, cost


class Batcher:
    """Leader/follower: whoever finds the models free runs the queue; nobody waits on a timer."""

    def __init__(self, pair, max_batch: int = MAX_BATCH, max_bytes: int | None = None):
        self.pair, self.max_batch = pair, max_batch
        self.max_bytes = batch_bytes() if max_bytes is None else max_bytes
        self.vocabulary = len(pair.tokenizer)
        self._queue: list[_Job] = []
        self._busy = False
        self._changed = threading.Condition()
        self.batches: list[int] = []  # sizes of the batches run (the last 1,000), for benchmarks

    def explain(self, text: str, settings: Settings) -> Explanation:
        job = _Job((text, settings), estimate_bytes(text, settings, self.vocabulary))
        with self._changed:
            self._queue.append(job)
        while True:
            with self._changed:
                while not job.done and self._busy:
                    self._changed.wait()
                if job.done:
                    return self._result(job)
                self._busy = True  # this request leads: it runs the oldest queued ones, itself among them
                batch = self._take()
            try:
                results = in_model_thread(explain_many, self.pair, [j.request for j in batch])
            except BaseException as error:  # noqa: BLE001 - any failure: every request of the batch hears of it
                results = [error] * len(batch)
            with self._changed:
                for j, result in zip(batch, results):
                    j.result, j.done = result, True
                self.batches = (self.batches + [len(batch)])[-1000:]
                self._busy = False
                self._changed.notify_all()
            if sum(j.cost for j in batch) > TRIM_BYTES:
                memory.trim()

    def _take(self) -> list[_Job]:
        """The oldest waiting requests, at most max_batch, while their estimated memory fits max_bytes (the
        first always: a request over the bound runs alone)."""
        size, held = 0, 0
        for job in self._queue[:self.max_batch]:
            if size and held + job.cost > self.max_bytes:
                break
            size, held = size + 1, held + job.cost
        batch, self._queue = self._queue[:size], self._queue[size:]
        return batch

    @staticmethod
    def _result(job: _Job) -> Explanation:
        if isinstance(job.result, BaseException):
            raise job.result
        return job.result


def in_model_thread(call, *args, **kwargs):
    """`call(*args, **kwargs)` in the models' own thread (see _MODEL_THREAD), for other short model work (a
    class's round, a round-B verdict): the caller waits for it."""
    if threading.current_thread().name.startswith(MODEL_THREAD_NAME):  # already there: waiting would deadlock
        return call(*args, **kwargs)
    return _MODEL_THREAD.submit(call, *args, **kwargs).result()


def batcher(pair) -> Batcher:
    with _BATCHERS_LOCK:
        found = _BATCHERS.get(pair)
        if found is None:
            found = _BATCHERS[pair] = Batcher(pair)
        return found


def explain(pair, text: str, settings: Settings = Settings()) -> Explanation:
    """`pipeline.explain`, batched with whatever other requests are waiting for the same models."""
    return batcher(pair).explain(text, settings)
