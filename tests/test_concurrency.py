"""Many users at once: the shared models and tokenizer are used one request at a time, and the queue
limits each kind of event on purpose (explainer/ui/queues.py). Figures under load: bench/load.py."""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from explainer.core.pipeline import Settings, explain
from explainer.lesson import difficulty

pytestmark = pytest.mark.slow  # the app, served, under load: seconds each

LONG = " ".join(["the chef cooked a delicious meal for all the guests"] * 20)  # longer than 64 tokens


@pytest.fixture
def fast_switching():
    """Switch threads every 10 µs (default 5 ms), so unsafe interleavings show up within a few calls."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(previous)


def test_explain_is_not_disturbed_by_concurrent_tokenizer_use(tiny_pair, fast_switching):
    # A fast tokenizer keeps truncation/padding in its shared Rust object, set on every call: the
    # Classroom's sweep (max_length 64, padding) running beside an explanation used to cut the
    # explanation's text to the sweep's length. Every user of the shared tokenizer holds pair.lock.
    expected = explain(tiny_pair, LONG, Settings(mode="detect"))
    assert len(expected.tokens) > 64
    stop = threading.Event()

    def sweep_like():
        while not stop.is_set():
            with tiny_pair.lock:
                tiny_pair.tokenizer(["short", "a b c d e f g h i j"], padding=True, truncation=True, max_length=8)

    others = [threading.Thread(target=sweep_like) for _ in range(2)]
    for thread in others:
        thread.start()
    try:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda _: explain(tiny_pair, LONG, Settings(mode="detect")), range(80)))
    finally:
        stop.set()
        for thread in others:
            thread.join()
    assert {len(r.tokens) for r in results} == {len(expected.tokens)}
    assert all(r.tokens == expected.tokens for r in results)


def test_explain_beside_the_real_sweep_gives_the_sequential_answer(tiny_pair, fast_switching):
    sentences = difficulty.heldout_sentences(8)
    settings = [Settings(seed=s) for s in range(12)]
    expected = [explain(tiny_pair, LONG, s) for s in settings]
    with ThreadPoolExecutor(4) as pool:
        sweeps = [pool.submit(difficulty.temperature_sweep, tiny_pair, sentences) for _ in range(3)]
        results = list(pool.map(lambda s: explain(tiny_pair, LONG, s), settings))
        points = {sweep.result().points for sweep in sweeps}
    assert results == expected  # same seed, same answer, whoever else is running
    assert len(points) == 1  # and the sweeps agree with each other


def test_every_heavy_event_has_a_deliberate_concurrency_group(app_url):
    from explainer.ui import app
    from explainer.ui import queues
    from explainer.ui.classroom_tab import run_lesson, run_sweep
    from explainer.ui.explore import model_status, run_attribute, run_explain, run_matrix

    groups = {}
    for block_fn in app.demo.fns.values():  # a handler wrapped to return by component name: the handler itself
        groups.setdefault(getattr(block_fn.fn, "__wrapped__", block_fn.fn), set()).add(
            (block_fn.concurrency_id, block_fn.concurrency_limit))
    for fn, group in [(run_explain, queues.EXPLAIN), (run_lesson, queues.EXPLAIN), (run_attribute, queues.ATTRIBUTE),
                      (run_matrix, queues.ATTRIBUTE), (model_status, queues.MODEL), (run_sweep, queues.SWEEP)]:
        assert groups[fn] == {(group["concurrency_id"], group["concurrency_limit"])}, fn.__name__
    api = {block_fn.api_name: block_fn for block_fn in app.demo.fns.values()
           if block_fn.api_name in ("explain", "attribute")}
    assert (api["explain"].concurrency_id, api["attribute"].concurrency_id) == ("explain", "attribute")
    assert app.demo._queue.max_size is None  # each lane has its own room instead (explainer/ui/fair_queue.py)
    lanes = {block_fn.api_name: block_fn.concurrency_id for block_fn in app.demo.fns.values()}
    assert {lanes[name]
            for name in ("class_join", "class_round", "class_spot", "class_view", "class_phase")} == {"class"}
    assert lanes["class_start"] == lanes["class_fool"] == "class_model"
    assert app.demo._queue.default_concurrency_limit == queues.DEFAULT


def test_concurrent_api_calls_all_succeed_with_the_sequential_answers(app_url):
    from gradio_client import Client

    texts = [f"The chef cooked meal number {i} for the guests." for i in range(6)]
    client = Client(app_url, verbose=False)
    expected = [client.predict(t, seed=1, api_name="/explain") for t in texts]

    def call(text: str) -> dict:
        return Client(app_url, verbose=False).predict(text, seed=1, api_name="/explain")  # one client per user

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(call, texts))
    # Concurrent calls may run as one padded batch: the same masks, samples and words; the
    # probabilities the same to the last float bits padding changes.
    for result, alone in zip(results, expected):
        assert result["corrupted_ids"] == alone["corrupted_ids"]
        assert [(m["position"], m["sampled_id"]) for m in result["masked"]] == \
            [(m["position"], m["sampled_id"]) for m in alone["masked"]]
        assert [t["corrupted"] for t in result["tokens"]] == [t["corrupted"] for t in alone["tokens"]]
        assert [t["p_replaced"] for t in result["tokens"]] == pytest.approx([t["p_replaced"] for t in alone["tokens"]],
                                                                             abs=1e-5)


def test_the_game_played_from_many_threads_gives_the_sequential_answers(tiny_pair, fast_switching):
    # Round A, round B's word lists and round B's verdicts, beside a sweep that resets the shared tokenizer's
    # truncation: every path to a sentence's words goes through sentence_words, under pair.lock.
    from explainer.core.pipeline import sentence_words
    from explainer.lesson import beat_electra as game

    def play(seed: int):
        items = game.spot_round(tiny_pair, seed, 2)
        words = [game.fool_words(tiny_pair, LONG + " " + item.explanation.text) for item in items]
        picks = [[0, len(item.words) - 1] for item in items]
        verdicts = [game.fool(tiny_pair, item.explanation.text, 0, "river", True) for item in items]
        return items, words, [game.score_spot(item, p) for item, p in zip(items, picks)], verdicts

    seeds = [seed % 4 for seed in range(24)]
    expected = {seed: play(seed) for seed in set(seeds)}
    read, _ = sentence_words(tiny_pair, LONG)
    assert len(read.input_ids) > 64  # longer than the sweep's 64 tokens: a cut would show
    with ThreadPoolExecutor(6) as pool:
        sweeps = [pool.submit(difficulty.temperature_sweep, tiny_pair, difficulty.heldout_sentences(4))
                  for _ in range(2)]
        results = list(pool.map(play, seeds))
        [sweep.result() for sweep in sweeps]
    assert results == [expected[seed] for seed in seeds]
