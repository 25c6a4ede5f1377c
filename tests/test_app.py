"""The launched app: `/explain` and `/attribute` through gradio_client, and the page's own handlers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the app, served: seconds each

SENTENCE = "The chef cooked a delicious meal for the guests."


@pytest.fixture(scope="module")
def client(app_url):
    from gradio_client import Client

    return Client(app_url, verbose=False)


def test_the_api_names_are_stable(client):
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    classes = {f"/class_{name}" for name in ("start", "join", "round", "spot", "fool", "view", "phase", "results",
                                             "lock", "remove")}
    assert set(endpoints) == {"/explain", "/attribute", "/game", *classes}  # the pages' own events stay private
    assert [p["parameter_name"] for p in endpoints["/class_spot"]["parameters"]] == ["code", "student", "sentence",
                                                                                      "picks"]
    names = [p["parameter_name"] for p in endpoints["/explain"]["parameters"]]
    assert names[:3] == ["text", "model", "mode"]


def test_a_typed_blank_and_the_choice_of_generator_through_gradio_client(client):
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    for name in ("/explain", "/attribute", "/game", "/class_start"):
        generator = next(p for p in endpoints[name]["parameters"] if p["parameter_name"] == "generator")
        assert generator["parameter_default"] == "electra"
    result = client.predict("I drank a cup of [mask] before work.", mode="manual", generator="stronger",
                            api_name="/explain")
    (card,) = result["masked"]
    assert result["settings"]["generator"] == "stronger" and card["typed"] and card["replaced"]
    assert card["others_generator"] == "electra" and len(card["others"]) == len(card["proposals"]) == 5
    assert result["words"][5]["blank"] and result["score"]["replaced"] == 1
    detect = client.predict("I drank a cup of [MASK] before work.", mode="detect", api_name="/explain")
    assert detect["masked"] == [] and any("cannot be judged" in n for n in detect["notices"])


def test_explain_through_gradio_client(client):
    result = client.predict(SENTENCE, seed=3, api_name="/explain")
    assert result["text"] == SENTENCE and result["settings"]["seed"] == 3
    assert result["tokens"][0]["original"] == "[CLS]" and result["masked"]
    assert all(0 <= t["p_replaced"] <= 1 for t in result["tokens"])
    again = client.predict(SENTENCE, seed=3, api_name="/explain")
    assert again == result  # reproducible across calls


def test_explain_modes_through_gradio_client(client):
    detect = client.predict("the chef ate the car", mode="detect", api_name="/explain")
    assert detect["masked"] == [] and detect["score"] == {}
    manual = client.predict("the chef ate the car", mode="manual", mask_words=[1], api_name="/explain")
    assert {m["position"] for m in manual["masked"]} == set(manual["words"][1]["tokens"])


def test_attribute_through_gradio_client(client):
    result = client.predict(SENTENCE, target=-1, n_steps=20, api_name="/attribute")
    explanation = client.predict(SENTENCE, api_name="/explain")
    assert result["target"] == explanation["most_suspicious"]
    assert abs(result["delta"]) < 1e-4 and len(result["scores"]) == len(explanation["tokens"])
    matrix = client.predict(SENTENCE, all_tokens=True, method="gradient_x_input", api_name="/attribute")
    assert len(matrix["scores"]) == len(matrix["targets"]) == len(explanation["tokens"]) - 2


def test_api_errors_carry_the_message(client):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="empty"):
        client.predict("   ", api_name="/explain")
    with pytest.raises(AppError, match="offline"):  # said at once: offline, the hub is not tried
        client.predict(SENTENCE, model="google/electra-small", api_name="/explain")
    with pytest.raises(AppError, match="outside the folders"):
        client.predict(SENTENCE, model="../../etc", api_name="/explain")


def test_page_handlers_render_results_and_errors(app_url, tiny_pair_dir):
    from explainer.ui import explore
    from explainer.ui import explore_share as share

    model = str(tiny_pair_dir)
    out = explore.run_explain(SENTENCE, model, "auto", 0.15, 0, 1.0, 5, [], True)
    explanation = out["explanation"]
    assert ("[MASK]" in out["generator_input"] and 'class="ee-chip"' in out["verdict"]
            and "ee-guess-card" in out["proposals"])
    assert out["target"]["value"] == explanation.most_suspicious
    # offered; written only when pressed
    assert out["verdict_svg"]["visible"] and out["card"]["visible"] and not out["attribution_svg"]["visible"]
    why = explore.run_attribute(explanation, None, "integrated_gradients", 10, "pad", True, True)
    html, figure, attribution = why["attribution_text"], why["attribution_plot"], why["attribution"]
    assert why["attribution_svg"]["visible"]
    files = {kind: share.make_file(kind, explanation, attribution, True, "standard") for kind in share.DOWNLOADS}
    assert [Path(files[k]).suffix for k in share.DOWNLOADS] == [".json", ".svg", ".html", ".svg"]
    assert json.loads(Path(files["json"]).read_text())["attribution"]["target"] == attribution.target
    assert not [kind for kind, file in files.items() if model in Path(file).read_text()]  # no server path leaves
    assert share.make_file("why", explanation, None, True, "standard") is None  # nothing to draw yet: a warning
    assert "convergence delta" in html and figure["visible"] and attribution.target == explanation.most_suspicious
    assert f"{attribution.points} integration points; completeness error {attribution.error:.2%}" in html
    *partial, last = list(explore.run_matrix(explanation, "integrated_gradients", 16, "pad", True))
    heatmap, note = last["matrix_plot"], last["matrix_note"]
    assert heatmap["visible"] and heatmap["value"] is not None and "completeness error at most" in note
    assert all(row["matrix_plot"]["visible"] for row in partial)  # rows drawn as they came
    failed = explore.run_explain("", model, "auto", 0.15, 0, 1.0, 5, [], True)
    assert "ee-error" in failed["notices"] and "empty" in failed["notices"]
    assert failed["explanation"] is None and failed["attribution"] is None and not failed["card"]["visible"]
    status, active = explore.model_status("google/electra-small")
    assert "offline" in status and active == {"__type__": "update"}


def test_the_app_starts_and_explains_why_when_the_bundled_model_is_missing(monkeypatch, tmp_path):
    from explainer.core import models
    from explainer.ui import explore

    monkeypatch.setattr(models, "BUNDLED", tmp_path / "absent")
    status, _ = explore.model_status("bundled")
    assert "bundled model is missing" in status


def test_the_game_through_gradio_client_is_the_same_round_for_the_same_code(client):
    first = client.predict(7, 3, api_name="/game")
    again = client.predict(7, 3, api_name="/game")
    assert first == again and first["code"] == 7 and len(first["sentences"]) == 3
    assert "replaced" not in first["sentences"][0]  # no truth before the picks
    picks = [[0], [], [1, 2]]
    scored = client.predict(7, 3, picks, api_name="/game")
    assert [s["words"] for s in scored["sentences"]] == [s["words"] for s in first["sentences"]]
    for entry in scored["sentences"]:
        assert any(entry["replaced"]) and len(entry["electra_p_replaced"]) == len(entry["words"])
    assert scored["you"]["caught"] + scored["you"]["missed"] == sum(sum(s["replaced"]) for s in scored["sentences"])
    with pytest.raises(Exception, match="one list of word numbers per sentence"):
        client.predict(7, 3, [[0]], api_name="/game")
    with pytest.raises(Exception, match=r"A round code that is a number is a whole number from 0 to 999,999,999, "
                                        r"not -1"):
        client.predict(-1, 3, api_name="/game")
    worded = client.predict("FFT-V8X", 3, api_name="/game")  # a word, as the page's "Round code" takes it
    assert worded["code"] == "FFT-V8X" and worded["sentences"] == client.predict("fft v8x", 3, api_name="/game")[
        "sentences"]


def test_every_call_that_takes_a_visitor_s_lock_runs_one_at_a_time_in_the_queue(app_url):
    """The calls that hold a visitor's share lock (explainer/ui/api.py `within_share`) are the ones the fair queue
    runs one per visitor: the API's start and join, the page's "Start a class" and "Join"; nothing else (a school's
    answers run side by side)."""
    import ast

    from explainer.ui import app, fair_queue

    marked = sorted(f.fn.__name__ for f in app.demo.fns.values() if getattr(f.fn, fair_queue.ONE_PER_VISITOR, False))
    assert marked == ["class_join", "class_start", "join", "start_class"]
    takers = set()  # the functions that call within_share or join_student (which calls it)
    for path in Path("explainer/ui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name != "within_share":
                names = {getattr(n, "attr", getattr(n, "id", None)) for n in ast.walk(node)}
                if names & {"within_share", "join_student"}:
                    takers.add(node.name)
    assert takers == {"class_join", "class_start", "join", "start_class", "join_student"}  # join_student: in join
