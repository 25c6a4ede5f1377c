"""How many requests of each kind the server runs at once: gradio's queue, set per event on purpose.

The models are loaded once and shared; `ModelPair.lock` lets one request at a time run them (and
their tokenizer), each forward using every CPU thread torch has. So more workers than that add no
model throughput; a few extra workers only let the parts outside the lock (tokenizer checks,
rendering HTML and plotly figures, JSON) overlap, and keep cheap clicks from waiting behind slow
ones. Requests over a group's limit wait in gradio's queue, where the page shows their position,
instead of piling up as threads blocked on the lock.

    explain    /explain, Explore's button and page load, the Classroom's sentence  ELECTRA_EXPLAIN_CONCURRENCY (16)
               (requests waiting for the models are run together as one batch: explainer.core.batching)
    attribute  /attribute, "Explain this word", the heatmap (seconds each)          ELECTRA_ATTRIBUTE_CONCURRENCY (2)
    model      loading a model named in the model box (memory: one at a time per model in models.load)  4
    sweep      the Classroom's temperature sweep (cached per model after the first)  1
    class      a live class's joins, answers in round A, the phones' polls,        ELECTRA_CLASS_CONCURRENCY (16)
               the teacher's moves and views: SQLite and a round computed once per class
    class_model a live class's calls that run the models (a class started,         ELECTRA_CLASS_MODEL_CONCURRENCY (16)
               a round-B verdict): their own lane, so a class never waits behind Explore's queue
    the rest   quiz, walk-through, re-rendering, training-tab controls: milliseconds  DEFAULT (8)

The class's two lanes are apart from the model work of Explore, attributions and the game: a queue of
Explore calls never delays a class's call in gradio's queue. Each lane has room of its own and each visitor a
share of a lane (explainer/ui/fair_queue.py): past it a call is told to try again in a few seconds.

Training is one job per server, enforced by training.race.manager.RaceManager, not by the queue
(a start returns at once; the race runs in its own thread). The Training tab's 1-second timer has
no limit: its figures are built once per race snapshot and shared by every viewer.
"""

from __future__ import annotations

import os


def _limit(name: str, default: int) -> int:
    return max(1, int(os.environ.get(name, default)))


EXPLAIN = dict(concurrency_id="explain", concurrency_limit=_limit("ELECTRA_EXPLAIN_CONCURRENCY", 16))
ATTRIBUTE = dict(concurrency_id="attribute", concurrency_limit=_limit("ELECTRA_ATTRIBUTE_CONCURRENCY", 2))
MODEL = dict(concurrency_id="model", concurrency_limit=4)
SWEEP = dict(concurrency_id="sweep", concurrency_limit=1)
CLASS = dict(concurrency_id="class", concurrency_limit=_limit("ELECTRA_CLASS_CONCURRENCY", 16))
CLASS_MODEL = dict(concurrency_id="class_model", concurrency_limit=_limit("ELECTRA_CLASS_MODEL_CONCURRENCY", 16))
CLASS_LANES = frozenset({"class", "class_model"})  # a school's phones share one address: a wider share per visitor
DEFAULT = 8  # `Blocks.queue(default_concurrency_limit=...)`: every event not listed above
MAX_QUEUED = None  # gradio's one size for every lane together: none; each lane has its own (fair_queue.ROOM)
