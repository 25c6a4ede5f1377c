"""The choice of generator (explainer/core/generators.py): ELECTRA's own (the default) or a stronger one, one
discriminator judging both, through the pipeline, the page's handlers, `/explain`, `/game`, the live class and a
link; refused clearly where it cannot forge (absent, another vocabulary). The stronger generator here is a second
tiny generator on the tiny pair's vocabulary (conftest's `tiny_stronger_dir`)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import gradio as gr
import pytest

from explainer.core import generators, links
from explainer.core.live_class.store import ClassStore
from explainer.core.pipeline import Settings, explain
from explainer.lesson import beat_electra as game
from explainer.lesson.live_class import session as class_session
from explainer.lesson.strength import StrengthStudy, load_study
from explainer.render.live_class import projector
from explainer.render.difficulty import forger_line_html, strength_summary_html
from explainer.render.guesses import guesses_html

TEXT = "The old fisherman repaired his boat before the storm arrived."
BLANK_TEXT = "I drank a cup of [MASK] before work."
SENTENCES = ("The cat sat on the warm mat by the door.", "A small dog ran across the busy road today.",
             "We cooked rice and beans for the whole family.", "She read the letter twice before she answered.")


@pytest.fixture
def stronger(monkeypatch, tiny_stronger_dir, tiny_pair_dir):
    """The tiny stronger generator installed, the tiny pair the API's default and allowed model."""
    monkeypatch.setenv(generators.FOLDER_ENV, str(tiny_stronger_dir))
    monkeypatch.setenv("ELECTRA_MODEL", str(tiny_pair_dir))
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tiny_pair_dir))
    return tiny_stronger_dir


@pytest.fixture
def other_vocabulary(monkeypatch, tmp_path, tiny_stronger_dir):
    """A generator folder whose tokenizer is the bundled pair's (another vocabulary than the tiny pair's)."""
    from transformers import AutoTokenizer, ElectraForMaskedLM

    from training.project import ASSETS

    folder = tmp_path / "other-vocabulary"
    ElectraForMaskedLM.from_pretrained(tiny_stronger_dir).save_pretrained(folder)
    AutoTokenizer.from_pretrained(ASSETS / "model" / "discriminator").save_pretrained(folder)
    monkeypatch.setenv(generators.FOLDER_ENV, str(folder))
    return folder


def test_the_stronger_generator_forges_on_the_same_masks_and_the_same_discriminator_judges(tiny_pair, stronger):
    assert generators.available(tiny_pair) == ("electra", "stronger")
    for seed in range(3):
        own = explain(tiny_pair, TEXT, Settings(seed=seed))
        other = explain(tiny_pair, TEXT, Settings(seed=seed, generator="stronger"))
        assert [m.position for m in own.masked] == [m.position for m in other.masked]  # masks drawn before it forges
        assert [m.proposals for m in own.masked] != [m.proposals for m in other.masked]
        assert other.settings.generator == "stronger" and other.to_dict()["settings"]["generator"] == "stronger"
    assert "The stronger generator&#x27;s top guesses" in guesses_html(other)
    assert "The generator&#x27;s top guesses" in guesses_html(own)


def test_a_typed_blank_holds_both_generators_guesses(tiny_pair, stronger):
    own = explain(tiny_pair, BLANK_TEXT, Settings(mode="manual", top_k=4))
    other = explain(tiny_pair, BLANK_TEXT, Settings(mode="manual", top_k=4, generator="stronger"))
    (card,), (card_other,) = own.masked, other.masked
    assert card.typed and card.others_generator == "stronger" and card_other.others_generator == "electra"
    # each side's guesses are the other run's own: the same input, the same temperature
    assert [p.token for p in card.others] == [p.token for p in card_other.proposals]
    assert [p.token for p in card_other.others] == [p.token for p in card.proposals]
    assert card.others[0].probability == pytest.approx(card_other.proposals[0].probability, rel=1e-4)
    html = guesses_html(own)
    assert html.count("ee-guess-half") == 2 and "ee-blank-card" in html
    assert html.index("ELECTRA&#x27;s generator (drew this one)") < html.index("A stronger generator")
    html = guesses_html(other)
    assert "A stronger generator (drew this one)" in html
    assert html.index("ELECTRA&#x27;s generator") < html.index("A stronger")


def test_another_vocabulary_is_refused_with_a_message(tiny_pair, other_vocabulary):
    with pytest.raises(ValueError, match="another one, so it cannot forge for this model"):
        explain(tiny_pair, TEXT, Settings(generator="stronger"))
    assert generators.available(tiny_pair) == ("electra",)
    card = explain(tiny_pair, BLANK_TEXT, Settings()).masked  # the blank's card shows ELECTRA's guesses alone
    assert all(m.others == () for m in card)


def test_an_absent_stronger_generator_is_refused_and_not_offered(tiny_pair, monkeypatch, tmp_path, tiny_pair_dir):
    from explainer.ui import api, forgers

    monkeypatch.setenv(generators.FOLDER_ENV, str(tmp_path / "absent"))
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tiny_pair_dir))
    assert not generators.installed() and forgers.choices() == [("ELECTRA's generator", "electra")]
    assert forgers.NOT_INSTALLED in forgers.line_html()
    with pytest.raises(gr.Error, match="not installed"):
        api.explain(TEXT, str(tiny_pair_dir), generator="stronger")
    with pytest.raises(ValueError, match="one of electra, stronger"):
        explain(tiny_pair, TEXT, Settings(generator="forger"))
    assert explain(tiny_pair, TEXT, Settings(mode="detect", generator="stronger")).masked == ()  # nothing forges


def test_explain_and_game_apis_take_the_generator(stronger, tiny_pair):
    from explainer.ui import api

    result = api.explain(TEXT, "", seed=2, generator="stronger")
    assert result["settings"]["generator"] == "stronger"
    direct = explain(tiny_pair, TEXT, Settings(seed=2, generator="stronger"))
    assert tuple(result["corrupted_ids"]) == tuple(direct.corrupted_ids)
    assert api.explain(TEXT, "", seed=2)["settings"]["generator"] == "electra"
    harder = api.game(7, 3, generator="stronger")
    normal = api.game(7, 3)
    assert harder["generator"] == "stronger" and normal["generator"] == "electra"
    assert harder["sentences"] != normal["sentences"] and normal["code"] == 7  # a number stays a number
    assert harder == api.game(7, 3, generator="stronger")  # the same code and level, the same round
    worded = api.game("FFT-V8X", 3)  # a worded code, as the page's "Round code" takes it: hashed to one round
    assert worded["code"] == "FFT-V8X" and worded["sentences"] == api.game("fft v8x", 3)["sentences"]
    assert worded["sentences"] == api.game(game.round_code("FFT-V8X").seed, 3)["sentences"] != normal["sentences"]
    scored = api.game(7, 3, picks=[[0]] * 3, generator="stronger")
    assert [s["words"] for s in scored["sentences"]] == [s["words"] for s in harder["sentences"]]
    with pytest.raises(gr.Error, match="one of electra, stronger"):
        api.game(7, 3, generator="strongest")


def test_the_games_harder_level_through_its_handlers(stronger, tiny_pair_dir):
    from explainer.ui import beat_electra as page

    state = page.start_round(5, 3, str(tiny_pair_dir), "stronger")["state"]
    assert state.generator == "stronger"
    assert [i.explanation.settings.generator for i in state.items] == ["stronger"] * 3
    assert state.items == game.spot_round(game_pair(tiny_pair_dir), 5, 3, generator="stronger")
    shown = page.reveal(state, [0])
    revealed, score = shown["revealed"], shown["score"]
    assert "harder level: a stronger generator forged the fakes" in score and "the truth" in revealed
    assert page.class_link(5, "stronger").count("?game=5&amp;level=harder") == 1
    assert "level=" not in page.class_link(5, "electra")
    request = SimpleNamespace(query_params={"game": "5", "level": "harder"})
    assert {k: page.code_from_link(request)[k] for k in ("code", "level")} == {"code": "5", "level": "stronger"}
    assert page.code_from_link(SimpleNamespace(query_params={"game": "5"}))["level"] == "electra"


def game_pair(folder):
    from explainer.core import models

    return models.load(str(folder))


def test_a_live_class_plays_the_stronger_generators_round_and_the_projector_says_so(stronger, tiny_pair, tmp_path,
                                                                                     monkeypatch):
    from explainer.ui import api

    monkeypatch.setattr(class_session, "_store", ClassStore(tmp_path))
    start = api.class_start(3, 11, generator="stronger")
    assert start["generator"] == "stronger"
    code, key = start["code"], start["teacher_key"]
    assert class_session.default_store().get_class(code).generator == "stronger"
    items = class_session.class_items(tiny_pair, code)
    assert items == game.spot_round(tiny_pair, 11, 3, generator="stronger")
    assert items != game.spot_round(tiny_pair, 11, 3)
    view = api.class_view(code, start["view_token"])
    assert view["generator"] == "stronger"
    html = projector.room_html(class_session.teacher_view_data(tiny_pair, code, key), "http://x/class?class=" + code)
    assert "Fakes forged by a stronger generator" in html
    plain = api.class_start(3, 11)
    assert plain["generator"] == "electra"
    assert "forged by ELECTRA&#x27;s generator" in projector.room_html(
        class_session.teacher_view_data(tiny_pair, plain["code"], plain["teacher_key"]), "http://x")
    with pytest.raises(gr.Error, match="one of electra, stronger"):
        api.class_start(3, 11, generator="x")


def test_an_older_class_file_gains_the_generator_column(tmp_path):
    import sqlite3

    from explainer.core.live_class import store as class_store

    with sqlite3.connect(tmp_path / "classes.sqlite3") as conn:
        conn.executescript(class_store.SCHEMA)
        conn.execute("INSERT INTO classes (code, secret_hash, seed, n_sentences, model, created, expires) "
                     "VALUES ('AAAAAA', 'x', 1, 3, '', 0, 1e12)")
    store = ClassStore(tmp_path)
    assert store.get_class("AAAAAA").generator == "electra"
    assert store.get_class(store.create_class(2, 3, "m", generator="stronger").info.code).generator == "stronger"


def test_a_link_restores_the_generator():
    link = links.ExploreLink("a text", generator="stronger")
    query = links.explore_query(link)
    assert "generator=stronger" in query
    params = dict(pair.split("=", 1) for pair in query[1:].split("&"))
    params["text"] = "a text"
    parsed, problems = links.parse_explore(params, links.ExploreLink("default"))
    assert parsed.generator == "stronger" and problems == []
    assert "generator" not in links.explore_query(links.ExploreLink("a text"))  # the default: left out
    parsed, problems = links.parse_explore({"text": "x", "generator": "mine"}, links.ExploreLink("default"))
    assert parsed.generator == "electra" and "“generator” must be one of electra, stronger" in problems[0]


def test_the_page_runs_and_links_the_chosen_generator(stronger, tiny_pair_dir):
    from explainer.ui import explore
    from explainer.ui.explore_share import link_query

    out = explore.run_explain(TEXT, str(tiny_pair_dir), "auto", 0.15, 1, 1.0, 5, [], True, "standard", "stronger")
    assert out["explanation"].settings.generator == "stronger" and "The stronger generator" in out["proposals"]
    assert "generator=stronger" in link_query(TEXT, str(tiny_pair_dir), "auto", 0.15, 1, 1.0, 5, [], "stronger")
    request = SimpleNamespace(query_params={"text": TEXT, "generator": "stronger"})
    assert explore.apply_link(request)["generator"] == "stronger"
    assert explore.apply_link(SimpleNamespace(query_params={"text": TEXT}))["generator"] == "electra"


def _point(name: str, recall: float, top: float, **flags) -> dict:
    return {"name": name, "shipped": False, "layers": 3, "hidden": 384, "top1_at_mask": 0.25, "top5_at_mask": 0.4,
            "auc": 0.9, "recall": 0.4, "false_alarm_rate": 0.02, "classroom_recall": recall,
            "classroom_false_alarms": 0.01, "classroom_top_word": top, **flags}


def _study(tmp_path, *points) -> StrengthStudy:
    path = tmp_path / "strength.json"
    path.write_text(json.dumps({"discriminator": "d", "discriminator_sha256": "0" * 64, "blocks": 10, "seeds": [0],
                                "sentences": 5, "points": list(points)}))
    return load_study(path)


def test_the_measured_line_reads_the_shipped_and_the_stronger_points(tmp_path):
    study = _study(tmp_path, _point("shipped", 0.47, 0.79, shipped=True), _point("cut", 0.6, 0.9),
                   _point("strong", 0.27, 0.58, stronger=True))
    shipped, strong = study.forgers()
    assert (shipped.name, strong.name) == ("shipped", "strong") and not shipped.stronger
    line = forger_line_html(study)
    assert "against ELECTRA's generator the discriminator flags 47% of the fakes" in line
    assert "top-rated word is a fake in 79%" in line and "flags 27%" in line and "a fake in 58%" in line
    assert "The stronger generator (◆)" in strength_summary_html(study, True)
    alone = _study(tmp_path, _point("shipped", 0.47, 0.79, shipped=True))  # no stronger point: shipped figures only
    assert alone.forgers()[1] is None
    assert "47%" in forger_line_html(alone) and "stronger" not in forger_line_html(alone)
    assert forger_line_html(None) == ""


def test_the_exports_footer_names_the_stronger_generator(tiny_pair, stronger):
    from explainer.render import export

    assert "fakes forged by a stronger generator" in export.card_html(
        explain(tiny_pair, TEXT, Settings(generator="stronger")))
    assert "forged by" not in export.card_html(explain(tiny_pair, TEXT, Settings()))
