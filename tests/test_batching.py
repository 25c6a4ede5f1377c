"""Micro-batching: sentences run together give each the masks and samples it gets alone; errors stay with their own."""

from __future__ import annotations

import threading
import time

import pytest

from explainer.core import batching
from explainer.core.pipeline import Settings, explain, explain_many

REQUESTS = [
    ("The old fisherman repaired his boat before the storm arrived.", Settings(seed=1)),
    ("A cat.", Settings(seed=2, temperature=2.0)),
    ("She opened the door and saw her old friend standing in the rain outside.", Settings(seed=3, mask_rate=0.3)),
    ("The chef ate the meal.", Settings(mode="manual", mask_words=(1, 3))),
    ("The chef ate the car.", Settings(mode="detect")),
]


def same(batched, alone) -> None:
    assert batched.corrupted_ids == alone.corrupted_ids and batched.original_ids == alone.original_ids
    assert [(m.position, m.sampled_id, [p.token_id for p in m.proposals]) for m in batched.masked] == \
        [(m.position, m.sampled_id, [p.token_id for p in m.proposals]) for m in alone.masked]
    assert [t.p_replaced for t in batched.tokens] == pytest.approx([t.p_replaced for t in alone.tokens], abs=1e-5)
    assert batched.words == alone.words or [w.corrupted for w in batched.words] == [w.corrupted for w in alone.words]


def queue_while_busy(pair, runner, calls) -> None:
    """Start `calls` in threads while the models are busy (their lock held), so that all but the leader queue in
    `runner`; then let them run and wait for them."""
    with pair.lock:
        threads = [threading.Thread(target=call) for call in calls]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 30
        while len(runner._queue) < len(calls) - 1 and time.monotonic() < deadline:
            time.sleep(0.01)
    for thread in threads:
        thread.join(60)


def test_a_batch_gives_each_sentence_its_lone_result(tiny_pair):
    alone = [explain(tiny_pair, text, settings) for text, settings in REQUESTS]
    for batched, lone in zip(explain_many(tiny_pair, REQUESTS), alone):
        same(batched, lone)


def test_a_bad_sentence_gets_its_own_error_and_the_rest_run(tiny_pair):
    requests = [REQUESTS[0], ("   ", Settings()), (REQUESTS[1][0], Settings(temperature=0.0)), REQUESTS[4]]
    results = explain_many(tiny_pair, requests)
    assert isinstance(results[1], ValueError) and "empty" in str(results[1]).lower()
    assert isinstance(results[2], ValueError) and "temperature" in str(results[2])
    same(results[0], explain(tiny_pair, *REQUESTS[0]))
    same(results[3], explain(tiny_pair, *REQUESTS[4]))


def test_requests_that_wait_for_the_models_run_as_one_batch(tiny_pair):
    runner = batching.Batcher(tiny_pair, max_batch=8)
    texts = [f"The chef cooked meal number {i} for the guests." for i in range(11)]
    results, errors = {}, []

    def call(i: int) -> None:
        try:
            results[i] = runner.explain(texts[i], Settings(seed=i))
        except Exception as error:  # noqa: BLE001 - reported by the assert below
            errors.append(error)

    # the models are busy: the first request leads and waits, the others queue
    queue_while_busy(tiny_pair, runner, [lambda i=i: call(i) for i in range(11)])
    assert not errors and sorted(results) == list(range(11))
    # The first leader runs what had queued when it took over (itself, maybe one more), then the rest
    # leave in batches of at most 8.
    assert sum(runner.batches) == 11 and max(runner.batches) == 8 and len(runner.batches) == 3
    for i, result in results.items():
        same(result, explain(tiny_pair, texts[i], Settings(seed=i)))


def test_a_lone_request_runs_alone_at_once(tiny_pair):
    runner = batching.Batcher(tiny_pair)
    result = runner.explain(*REQUESTS[0])
    assert runner.batches == [1]
    assert result == explain(tiny_pair, *REQUESTS[0])  # no padding: bit for bit


def test_waiting_requests_run_in_parts_that_fit_the_memory_bound(tiny_pair, monkeypatch):
    from explainer.core import explain_memory

    vocabulary = len(tiny_pair.tokenizer)
    blanks = "I drank a cup of [MASK] before [MASK] work."
    one = explain_memory.estimate_bytes(blanks, Settings(), vocabulary)
    # at most 27 tokens (25 characters but spaces, a typed blank one each, [CLS] and [SEP]): 15% of them and the 2
    # typed blanks, 5 + 2 = 7 blanks, x 2 generators x 3 copies
    assert one == 7 * vocabulary * 4 * 3 * 2 and explain_memory.estimate_bytes(blanks, Settings(mode="detect"), 9) == 0
    assert explain_memory.estimate_bytes("[MASK] " * 600, Settings(), 30_522) == 512 * 30_522 * 4 * 3 * 2  # ~375 MB
    runner = batching.Batcher(tiny_pair, max_batch=8, max_bytes=2 * one)
    done = []
    queue_while_busy(tiny_pair, runner, [lambda i=i: done.append(runner.explain(blanks, Settings(seed=i)))
                                         for i in range(5)])
    assert len(done) == 5 and sum(runner.batches) == 5 and max(runner.batches) == 2  # in parts of two
    monkeypatch.setenv("ELECTRA_EXPLAIN_MEMORY_MB", "lots")
    with pytest.raises(ValueError, match="ELECTRA_EXPLAIN_MEMORY_MB must be a positive number of megabytes"):
        explain_memory.batch_bytes()
