"""A visitor's fair share of the live class (explainer/core/quotas.py): class starts and joins per network,
counted only when they succeed, with a message saying when to try again; the settings checked; the proxy
setting handed to the web server (X-Forwarded-For believed only from a listed proxy, "*" refused)."""

from __future__ import annotations

import gradio as gr
import pytest

from explainer.core import quotas
from explainer.core.live_class.store import ClassStore
from explainer.lesson.live_class import session as class_session
from explainer.ui import api


class Client:
    def __init__(self, host: str):
        self.host = host


class Request:
    """What gradio hands an endpoint: the client's address (after the web server's proxy walk)."""

    def __init__(self, host: str):
        self.client = Client(host)


@pytest.fixture
def classes(tmp_path, monkeypatch, tiny_pair_dir):
    monkeypatch.setenv("ELECTRA_MODEL", str(tiny_pair_dir))
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tiny_pair_dir))
    monkeypatch.setenv("ELECTRA_CLASS_START_RATE", "2/hour")
    monkeypatch.setenv("ELECTRA_CLASS_JOIN_RATE", "3 per minute")
    monkeypatch.setattr(class_session, "_store", ClassStore(tmp_path))
    quotas.reset()
    yield
    quotas.reset()


def test_a_visitor_starts_only_their_share_of_classes_and_others_still_can(classes):
    mallory, teacher = Request("203.0.113.9"), Request("198.51.100.7")
    for _ in range(2):
        api.class_start(3, 1, request=mallory)
    with pytest.raises(gr.Error, match="You have started 2 classes in the last hour, the most this server allows one "
                                       "visitor: try again in (60|59) minutes"):
        api.class_start(3, 1, request=mallory)
    assert api.class_start(3, 1, request=teacher)["phase"] == "lobby"
    assert api.class_start(3, 1)["phase"] == "lobby"  # a call from Python itself is the local user: no share


def test_a_refused_start_costs_nothing(classes):
    mallory = Request("203.0.113.9")
    for _ in range(3):
        with pytest.raises(gr.Error, match="Sentence 1 cannot be played: it has fewer than 4 words"):
            api.class_start(3, 1, own_sentences=["too short"], request=mallory)
    api.class_start(3, 1, request=mallory)


def test_joins_are_counted_per_network(classes):
    code = api.class_start(3, 1)["code"]
    school, other = Request("192.0.2.1"), Request("192.0.2.2")
    for _ in range(3):
        api.class_join(code, request=school)
    with pytest.raises(gr.Error, match="3 students have joined from your network in the last minute"):
        api.class_join(code, request=school)
    assert api.class_join(code, "Bo", request=other)["number"] == 4


def test_the_settings_are_checked(monkeypatch):
    monkeypatch.setenv("ELECTRA_CLASS_START_RATE", "lots")
    with pytest.raises(ValueError, match="ELECTRA_CLASS_START_RATE must be a rate such as '10/hour'"):
        quotas.rate("ELECTRA_CLASS_START_RATE", quotas.DEFAULT_START_RATE)
    monkeypatch.setenv("ELECTRA_TRUSTED_PROXIES", "10.0.0.0/8, 127.0.0.1")
    assert quotas.forwarded_allow_ips() == "10.0.0.0/8,127.0.0.1"
    monkeypatch.setenv("ELECTRA_TRUSTED_PROXIES", "*")
    with pytest.raises(ValueError, match="would believe a header any visitor writes"):
        quotas.forwarded_allow_ips()
    monkeypatch.delenv("ELECTRA_TRUSTED_PROXIES")
    assert quotas.forwarded_allow_ips() == ""  # by default nobody's X-Forwarded-For is believed
