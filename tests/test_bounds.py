"""Every knob bounded where the request enters (explainer/core/bounds.py), thrown random and extreme values.

hypothesis draws for every parameter of every endpoint (/explain, /attribute, /game and the live class's
/class_*) values of every kind: huge and negative whole numbers, NaN and the infinities, bools, text of up to
100,000 characters, lists, None. Each call on the tiny pair either answers with strict JSON (no NaN, no
Infinity) of at most 1 MB, or raises gradio's Error with a message in words (never Python's own: "invalid
literal for int()"); never another exception. A generous deadline per call (hypothesis's own) catches work
that is not bounded at all (top_k=1000000 once took minutes); it is no speed measure. Over raw HTTP: a bare
`Infinity` is refused with a message, a 100 KB address gets 414, not a 500.
"""

from __future__ import annotations

import http.client
import json
import math
from datetime import timedelta
from urllib.parse import urlsplit

import gradio as gr
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explainer.core import bounds, budget
from explainer.core.live_class.store import ClassStore
from explainer.lesson.live_class import session as class_session
from explainer.ui import api

ANY = st.one_of(
    st.none(), st.booleans(),
    st.integers(), st.sampled_from([-2**63 - 1, 2**63, 10**100, -1, 0, 1, 511, 512, 10**6]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([math.inf, -math.inf, math.nan, 1e308, 5e-324]),
    st.text(max_size=30), st.sampled_from(["Infinity", "nan", "many", "1e9", " 7 ", "auto", "detect", "mask",
                                           "gradient_x_input", "true", "x" * 100_000]),
    st.lists(st.integers(-10, 10**6), max_size=40), st.lists(st.text(max_size=10), max_size=5),
)


def calls(good: dict[str, tuple]):
    """Keyword arguments where one parameter (or none) gets anything at all and the rest a good value, so
    every call gets past the others' checks to the hostile one, and some run the models."""
    names = [None] * len(good) + list(good)  # half the calls all good
    return st.sampled_from(names).flatmap(lambda hostile: st.fixed_dictionaries(
        {name: ANY if name == hostile else st.sampled_from(values) for name, values in good.items()}))


GOOD_TEXTS = ("the chef cooked a delicious meal today", "word " * 600, "w" * 100_000)
EXPLAIN = dict(text=GOOD_TEXTS, mode=("auto", "manual", "detect"), mask_rate=(0.15, 1.0, 0), seed=(0, -5, 2**63 - 1),
               temperature=(1.0, 0.01, 100), top_k=(5, 10), mask_words=(None, [0, 2], [-1, 10**5]))
ATTRIBUTE = dict(text=GOOD_TEXTS, target=(-1, 1, 3), method=("integrated_gradients", "gradient_x_input"),
                 n_steps=(50, 500, 1), baseline=("pad", "mask"), all_tokens=(False, True), mask_rate=(0.15, 1.0),
                 temperature=(1.0, 3.0), top_k=(5, 10), tolerance=(0.0, 0.01, 0.5))
CLASS = dict(a=(0, 1, 2), b=([0, 1], 1, True, "Bo"), c=(0, "word", None), d=("round_a", "word", 0), e=(None, "x"),
             f=(True, False))


RUNS = settings(max_examples=40, deadline=timedelta(seconds=30), suppress_health_check=list(HealthCheck),
                derandomize=True)


def strict_and_small(reply) -> None:
    text = json.dumps(reply, allow_nan=False, separators=(",", ":"), ensure_ascii=False)
    assert len(text.encode()) <= bounds.MAX_REPLY_BYTES


def answered(call) -> None:
    """A bounded reply, or gradio's Error with a message that is not Python's own."""
    try:
        reply = call()
    except gr.Error as error:
        assert error.message and "invalid literal" not in error.message and "Traceback" not in error.message
        return
    strict_and_small(reply)


@pytest.fixture
def served(tmp_path, monkeypatch, tiny_pair_dir):
    """The API on the tiny pair, a fresh class store, a short attribution budget (the request is cut to it)."""
    monkeypatch.setenv("ELECTRA_MODEL", str(tiny_pair_dir))
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tiny_pair_dir))
    monkeypatch.setenv("ELECTRA_ATTRIBUTION_SECONDS", "1")
    monkeypatch.setattr(class_session, "_store", ClassStore(tmp_path))
    start = api.class_start(3, 11)
    student = api.class_join(start["code"], "Ana")
    return start["code"], start["teacher_key"], student["student"]


def test_the_explain_endpoint_bounds_every_value(served):
    @RUNS
    @given(calls(EXPLAIN))
    def run(values):
        answered(lambda: api.explain(**values))
    run()


def test_the_explain_endpoint_at_its_largest_stays_under_a_megabyte(served):
    reply = api.explain("the quick brown fox jumps over the lazy dog " * 80, mask_rate=1, top_k=bounds.MAX_TOP_K)
    strict_and_small(reply)
    assert len(reply["masked"]) > 100 and all(len(m["proposals"]) == bounds.MAX_TOP_K for m in reply["masked"])


def test_the_attribute_endpoint_bounds_every_value(served):
    @RUNS
    @given(calls(ATTRIBUTE))
    def run(values):
        answered(lambda: api.attribute(**values))
    run()


def test_the_game_and_class_endpoints_bound_every_value(served):
    code, key, student = served

    @RUNS
    @given(calls(CLASS))
    def run(values):
        a, b, c, d, e, f = (values[k] for k in "abcdef")
        answered(lambda: api.game(a, b, c))
        answered(lambda: api.class_start(a, b, "", c))
        answered(lambda: api.class_join(a, b))
        answered(lambda: api.class_round(code, a))
        answered(lambda: api.class_spot(code, student, a, b))
        answered(lambda: api.class_fool(code, student, a, b, c, d))
        answered(lambda: api.class_view(code, a))
        answered(lambda: api.class_phase(code, key, a, b))
        answered(lambda: api.class_results(a, e))
        answered(lambda: api.class_spot(a, b, c, d))
        answered(lambda: api.class_fool(a, b, c, d, e, f))
    run()


@pytest.mark.parametrize("raw, message", [
    (dict(temperature=math.inf), "not inf"), (dict(top_k=10**6), "from 1 to 10"), (dict(n_steps="many"), "not 'many'"),
    (dict(tolerance=-0.1), "from 0 to 0.5"), (dict(all_tokens=2), "true or false"), (dict(mode=None), "one of auto"),
    (dict(colour="red"), "Unknown setting 'colour'"),
])
def test_bad_values_get_the_apps_own_words(raw, message):
    with pytest.raises(bounds.BoundError, match=message):
        bounds.check(**raw)


def test_good_values_come_back_as_their_types():
    assert bounds.check(top_k="7", seed=3.0, temperature="1.5", all_tokens="true", mask_words=None, model=None) == {
        "top_k": 7, "seed": 3, "temperature": 1.5, "all_tokens": True, "mask_words": (), "model": ""}


def test_a_reply_too_large_or_not_strict_json_is_refused():
    with pytest.raises(bounds.BoundError, match="over the 1 MB"):
        bounds.reply({"x": "a" * bounds.MAX_REPLY_BYTES})
    with pytest.raises(bounds.BoundError, match="NaN or Infinity"):
        bounds.reply({"x": math.inf})


def sse_result(url: str, endpoint: str, body: bytes) -> str:
    base = url.rstrip("/") + "/gradio_api/call/" + endpoint
    event = httpx.post(base, content=body, headers={"content-type": "application/json"}).json()["event_id"]
    return httpx.get(f"{base}/{event}", timeout=60).text


def test_raw_http_infinity_is_refused_in_words_and_long_addresses_get_414(app_url):
    stream = sse_result(app_url, "explain",
                        b'{"data": ["the chef cooked a meal", "", "auto", 0.15, 0, Infinity, 5, null, "electra"]}')
    assert "event: error" in stream and "temperature" in stream and "not inf" in stream
    data = stream.split("data:", 1)[1].strip().splitlines()[0]
    json.loads(data, parse_constant=lambda name: pytest.fail(f"bare {name} in the reply"))
    parts = urlsplit(app_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    connection.request("GET", "/?text=" + "a" * 100_000)
    response = connection.getresponse()
    assert response.status == 414 and "reads at most 32,768" in json.loads(response.read())["error"]


def test_the_attribution_budget_counts_the_explanation_that_came_first(served, monkeypatch):
    """/attribute explains the text first; the seconds that took come off the attribution's limit, so the whole
    call holds the server's limit (within one row: the pace check's step)."""
    import time

    clock = [100.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    explained = api.make_explanation

    def slow_explanation(*args, **kwargs):
        clock[0] += 0.75  # the explanation took three quarters of the 1 s limit
        return explained(*args, **kwargs)

    seen = {}
    matrix = api.attribution_matrix
    one = api.attribute_one
    monkeypatch.setattr(api, "make_explanation", slow_explanation)
    monkeypatch.setattr(api, "attribution_matrix",
                        lambda *a, limit, **k: seen.update(matrix=limit) or matrix(*a, limit=limit, **k))
    monkeypatch.setattr(api, "attribute_one",
                        lambda *a, limit, **k: seen.update(one=limit) or one(*a, limit=limit, **k))
    api.attribute("the chef cooked a meal", all_tokens=True, method="gradient_x_input")
    api.attribute("the chef cooked a meal", method="gradient_x_input")
    assert seen == {"matrix": pytest.approx(0.25), "one": pytest.approx(0.25)}
    # A message names the server's limit and what the request had left of it, never the rest as the limit.
    assert budget.limit_words(seen["matrix"]) == "1 s per request, 0.2 s of it left after explaining the text"
    clock[0] = 100.0
    monkeypatch.setattr(api, "make_explanation",
                        lambda *a, **k: clock.__setitem__(0, clock[0] + 5) or explained(*a, **k))
    api.attribute("the chef cooked a meal", all_tokens=True)  # nothing left: the budget's floor (the tiny pair fits)
    assert seen["matrix"] == 0.01
