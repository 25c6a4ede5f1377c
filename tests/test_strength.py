"""The generator-strength study (the paper's Figure 3 on a pair) on the tiny seeded pair: cutting a generator,
measuring one, the study's JSON, its figure and summary, the command line and the Classroom's view."""

from __future__ import annotations

import copy
import dataclasses
import json
import shutil

import pytest
import torch

from explainer.__main__ import main
from explainer.core.models import ROOTS_ENV, ModelPair
from explainer.lesson import strength
from explainer.lesson.measure import classroom_measure
from explainer.render import difficulty as view
from explainer.render.style import RTD_COLOUR
from training.models import same_embeddings

SENTENCES = ["The chef cooked a delicious meal for the guests.", "My sister walked the dog in the park this morning."]
NASTY = "<b>x</b>"


def _point(name: str, top1: float, auc: float, recall: float, shipped: bool = False) -> strength.StrengthPoint:
    return strength.StrengthPoint(name, shipped, 2, 16, top1, min(top1 + 0.2, 1.0), auc, 0.4, 0.05, recall, 0.03, 0.6)


STUDY = strength.StrengthStudy(
    "model: 12 layers x 384", "ab" * 32, 200, (0, 1, 2, 3, 4), 65,
    (_point(NASTY, 0.10, 0.93, 0.80), _point("3 layers x 384 (shipped)", 0.45, 0.85, 0.55, shipped=True),
     _point("cut after 1 layer", 0.25, 0.90, 0.70)))


# --- cutting a generator ---------------------------------------------------------------------------

def test_cut_generator_keeps_the_first_layers_and_their_output(tiny_pair):
    full = tiny_pair.generator
    assert full.config.num_hidden_layers == 2  # the tiny preset's generator
    cut = strength.cut_generator(full, 1)
    assert len(cut.electra.encoder.layer) == cut.config.num_hidden_layers == 1
    assert len(full.electra.encoder.layer) == full.config.num_hidden_layers == 2  # the original is untouched
    ids = torch.tensor([[tiny_pair.tokenizer.cls_token_id, 5, 17, tiny_pair.tokenizer.mask_token_id, 42,
                         tiny_pair.tokenizer.sep_token_id]])
    with torch.no_grad():
        hidden = full(ids, output_hidden_states=True).hidden_states[1]  # the first layer's output
        expected = full.generator_lm_head(full.generator_predictions(hidden))
        torch.testing.assert_close(cut.eval()(ids).logits, expected)
        assert not torch.allclose(full(ids).logits, expected)  # the second layer did change something
    assert strength.cut_generator(full, 2).config.num_hidden_layers == 2
    for wrong in (0, 3, -1):
        with pytest.raises(ValueError, match="cut after 1 to 2 layers"):
            strength.cut_generator(full, wrong)


# --- measuring one generator -----------------------------------------------------------------------

def test_measure_generator_reports_fractions_and_the_classroom_measure(tiny_pair, imdb_texts):
    generator = copy.deepcopy(tiny_pair.generator)  # its own copy of the (shared) embeddings, equal values
    point = strength.measure_generator("tiny", generator, tiny_pair.discriminator, tiny_pair.tokenizer,
                                       imdb_texts[:20], SENTENCES, seeds=(0,), blocks=3, shipped=True)
    assert point.name == "tiny" and point.shipped and (point.layers, point.hidden) == (2, 16)
    figures = [getattr(point, f.name) for f in dataclasses.fields(point) if f.type == "float"]
    assert len(figures) == 8 and all(0.0 <= value <= 1.0 for value in figures), point
    assert point.top1_at_mask <= point.top5_at_mask
    assert same_embeddings(generator, tiny_pair.discriminator)  # measured as stored: nothing re-tied or changed
    assert generator.electra.embeddings is not tiny_pair.discriminator.electra.embeddings
    direct = classroom_measure(ModelPair(generator, tiny_pair.discriminator, tiny_pair.tokenizer, "tiny"),
                               SENTENCES, (0,))
    assert (point.classroom_recall, point.classroom_false_alarms, point.classroom_top_word) == (
        direct.recall, direct.false_alarm_rate, direct.top_word_replaced)


def test_measure_generator_refuses_a_generator_of_another_vocabulary(tiny_pair):
    generator = copy.deepcopy(tiny_pair.generator)
    generator.config.vocab_size += 1
    with pytest.raises(ValueError, match="vocabulary"):
        strength.measure_generator("odd", generator, tiny_pair.discriminator, tiny_pair.tokenizer, ["text"],
                                   SENTENCES, seeds=(0,), blocks=1)


# --- the study as JSON -----------------------------------------------------------------------------

def test_a_study_round_trips_through_json(tmp_path):
    path = tmp_path / "study.json"
    path.write_text(json.dumps(STUDY.to_dict(), indent=1))
    assert strength.load_study(path) == STUDY
    assert strength.StrengthStudy.from_dict(json.loads(json.dumps(STUDY.to_dict()))) == STUDY


def test_load_study_missing_is_none_and_malformed_is_a_clear_error(tmp_path):
    assert strength.load_study(tmp_path / "absent.json") is None
    broken = STUDY.to_dict()
    broken["points"][0]["auc"] = "high"
    no_points = {**STUDY.to_dict(), "points": []}
    for text in ("{", "[]", json.dumps({"points": []}), json.dumps(broken), json.dumps(no_points)):
        path = tmp_path / "bad.json"
        path.write_text(text)
        with pytest.raises(ValueError, match="is not a generator-strength study"):
            strength.load_study(path)


# --- the figure and the summary --------------------------------------------------------------------

def test_strength_figure_stacks_two_panels_and_stars_the_shipped_generator():
    figure = view.strength_figure(STUDY)
    assert {t.yaxis for t in figure.data} == {"y", "y2"}  # two stacked panels, both full width
    assert figure.layout.xaxis.domain == figure.layout.xaxis2.domain == (0.0, 1.0)
    assert figure.layout.yaxis2.domain[1] < figure.layout.yaxis.domain[0]
    markers = [t for t in figure.data if "markers" in t.mode]
    shipped = [t for t in markers if t.marker.symbol == "star"]
    others = [t for t in markers if t.marker.symbol == "circle"]
    assert len(shipped) == len(others) == 2  # one of each per panel
    assert all(t.marker.color == RTD_COLOUR and t.x == (0.45,) for t in shipped)
    assert all(t.marker.color != RTD_COLOUR and t.marker.size < shipped[0].marker.size for t in others)
    lines = [t for t in figure.data if t.mode == "lines"]
    assert len(lines) == 2 and all(t.x == (0.10, 0.25, 0.45) and t.line.dash == "dot" for t in lines)  # sorted by x
    assert lines[0].y == (0.93, 0.90, 0.85) and lines[1].y == (0.80, 0.70, 0.55)  # AUC above, classroom recall below
    labels = [text for t in markers for text in (t.text or ())] + [h for t in markers for h in (t.hovertext or ())]
    assert any("&lt;b&gt;x&lt;/b&gt;" in label for label in labels) and not any(NASTY in label for label in labels)
    assert not [t for t in figure.data if t.name == "the generator in use"]
    ringed = view.strength_figure(STUDY, current="3 layers x 384 (shipped)")
    assert [t.x for t in ringed.data if t.name == "the generator in use"] == [(0.45,), (0.45,)]


def test_strength_summary_escapes_names_and_notes_another_model():
    matching = view.strength_summary_html(STUDY, True)
    other = view.strength_summary_html(STUDY, False)
    for html in (matching, other):
        assert "&lt;b&gt;x&lt;/b&gt;" in html and NASTY not in html
        assert "3 generators against one discriminator" in html and "200 held-out blocks" in html
        assert "65 classroom sentences under 5 seeds" in html and "1/4 to 1/2" in html
        assert "(★), <b>3 layers x 384 (shipped)</b>: top guess right 45%" in html  # the shipped generator's figures
        assert "The weakest, <b>&lt;b&gt;x&lt;/b&gt;</b>: top guess right 10%" in html
        assert "The shipped generator is the strongest here." in html and "The strongest," not in html
        assert "Here too" in html  # the AUC falls from the weakest (0.93) to the strongest (0.85)
    assert "not the model in use" in other and "not the model in use" not in matching
    missing = view.strength_summary_html(None, True)
    assert "has not been measured" in missing and "python -m explainer strength" in missing


# --- the command line ------------------------------------------------------------------------------

def test_cli_help_works(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["strength", "--help"])
    assert exit_.value.code == 0 and "--cut" in capsys.readouterr().out


@pytest.fixture()
def sharp_pair_dir(tiny_pair_dir, tmp_path):
    """The tiny pair with a generator whose last layer matters and whose output is peaked.

    At random initialisation a layer adds little to its residual stream, and the generator's logits are nearly
    flat: at temperature 1 the generator and its cut then draw the same tokens from the same random numbers,
    and nothing they measure tells them apart. Here the last layer's output projection is scaled up (x 100) and
    the head's LayerNorm gain too (x 300), so the cut's draws differ from the whole generator's."""
    from transformers import AutoModelForMaskedLM

    folder = tmp_path / "sharp-pair"
    shutil.copytree(tiny_pair_dir, folder)
    generator = AutoModelForMaskedLM.from_pretrained(folder / "generator")
    with torch.no_grad():
        generator.electra.encoder.layer[-1].output.dense.weight.mul_(100.0)
        generator.generator_predictions.LayerNorm.weight.mul_(300.0)
    generator.save_pretrained(folder / "generator")
    return folder


def test_cli_measures_the_pair_and_its_cut(sharp_pair_dir, imdb_texts, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(strength, "heldout_texts", lambda: imdb_texts[:20])  # no corpus fetch in a test
    sentences = tmp_path / "sentences.json"
    sentences.write_text(json.dumps({"sentences": SENTENCES}))
    out = tmp_path / "study.json"
    assert main(["strength", "--pair", str(sharp_pair_dir), "--cut", "1", "--blocks", "2", "--seeds", "1",
                          "--sentences", str(sentences), "--threads", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    study = strength.load_study(out)
    assert [(p.name, p.shipped, p.layers) for p in study.points] == [
        ("2 layers x 16 (shipped)", True, 2), ("cut after 1 layer", False, 1)]
    shipped, cut = study.points
    assert shipped.auc != cut.auc  # two different generators, each measured
    assert (study.blocks, study.seeds, study.sentences) == (2, (0,), 2)
    assert study.discriminator_sha256 == strength.file_sha256(sharp_pair_dir / "discriminator" / "model.safetensors")
    assert study.discriminator.startswith(sharp_pair_dir.name)
    assert printed.count("top-1 at [MASK]") == 2
    assert torch.get_num_threads() == 1


def test_cli_adds_a_generator_folder_and_prints_the_study(tiny_pair_dir, imdb_texts, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(strength, "heldout_texts", lambda: imdb_texts[:20])
    sentences = tmp_path / "sentences.json"
    sentences.write_text(json.dumps(SENTENCES))  # a bare list is read too
    assert main(["strength", "--pair", str(tiny_pair_dir), "--generator", f"again={tiny_pair_dir}",  # a run folder
                          "--generator", f"alone={tiny_pair_dir / 'generator'}", "--blocks", "1", "--seeds", "1",
                          "--sentences", str(sentences), "--threads", "1"]) == 0
    captured = capsys.readouterr()
    study = strength.StrengthStudy.from_dict(json.loads(captured.out))  # stdout is the study alone
    assert [p.name for p in study.points] == ["2 layers x 16 (shipped)", "again", "alone"]
    assert study.points[1].auc == study.points[2].auc == study.points[0].auc  # the same generator three times
    assert captured.err.count("top-1 at [MASK]") == 3


def test_cli_marks_the_stronger_generator_and_an_older_study_without_the_mark_still_loads(tiny_pair_dir, imdb_texts,
                                                                                             tmp_path, monkeypatch,
                                                                                             capsys):
    monkeypatch.setattr(strength, "heldout_texts", lambda: imdb_texts[:20])
    sentences = tmp_path / "sentences.json"
    sentences.write_text(json.dumps(SENTENCES))
    assert main(["strength", "--pair", str(tiny_pair_dir), "--stronger", str(tiny_pair_dir / "generator"),
                          "--blocks", "1", "--seeds", "1", "--sentences", str(sentences), "--threads", "1"]) == 0
    study = strength.StrengthStudy.from_dict(json.loads(capsys.readouterr().out))
    assert [(p.name, p.shipped, p.stronger) for p in study.points] == [
        ("2 layers x 16 (shipped)", True, False), (strength.STRONGER_NAME, False, True)]
    older = json.loads(json.dumps(study.to_dict()))
    for point in older["points"]:
        del point["stronger"]
    assert [p.stronger for p in strength.StrengthStudy.from_dict(older).points] == [False, False]
    older["points"][1]["stronger"] = "yes"
    with pytest.raises(ValueError, match="stronger must be a bool"):
        strength.StrengthStudy.from_dict(older)


def test_merge_keeps_points_not_measured_again_and_refuses_another_measurement():
    shipped = STUDY.points[1]
    new = dataclasses.replace(STUDY, points=(shipped, _point("trained longer", 0.50, 0.80, 0.40),
                                             _point("cut after 1 layer", 0.26, 0.91, 0.71)))
    merged = strength.merge_studies(new, STUDY)
    assert [p.name for p in merged.points] == ["3 layers x 384 (shipped)", "trained longer", "cut after 1 layer", NASTY]
    assert merged.points[2].top1_at_mask == 0.26  # measured again: the new figures win
    assert (merged.discriminator_sha256, merged.blocks, merged.seeds) == (STUDY.discriminator_sha256, 200, STUDY.seeds)
    for change, said in (({"discriminator_sha256": "cd" * 32}, "weights' hash"), ({"blocks": 100}, "number of blocks"),
                         ({"seeds": (0,)}, "seeds"), ({"sentences": 80}, "classroom sentences")):
        with pytest.raises(ValueError, match=said):
            strength.merge_studies(dataclasses.replace(new, **change), STUDY)
    nudged = dataclasses.replace(new, points=(dataclasses.replace(shipped, auc=shipped.auc + 0.001),))
    assert strength.merge_studies(nudged, STUDY).points[0].auc == shipped.auc + 0.001  # within the tolerance
    moved = dataclasses.replace(new, points=(dataclasses.replace(shipped, auc=shipped.auc + 0.01),))
    with pytest.raises(ValueError, match="auc differs"):  # the shipped generator came out otherwise
        strength.merge_studies(moved, STUDY)
    renamed = dataclasses.replace(new, points=(dataclasses.replace(shipped, name="4 layers (shipped)"),))
    with pytest.raises(ValueError, match="no point for the shipped generator"):
        strength.merge_studies(renamed, STUDY)


def test_cli_keeps_an_earlier_study_s_points(sharp_pair_dir, imdb_texts, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(strength, "heldout_texts", lambda: imdb_texts[:20])
    sentences = tmp_path / "sentences.json"
    sentences.write_text(json.dumps(SENTENCES))
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    common = ["--pair", str(sharp_pair_dir), "--blocks", "1", "--seeds", "1", "--sentences", str(sentences),
              "--threads", "1"]
    assert main(["strength", *common, "--cut", "1", "--out", str(first)]) == 0
    assert main(["strength", *common, "--generator", f"again={sharp_pair_dir}", "--keep", str(first),
                          "--out", str(second)]) == 0
    study, earlier = strength.load_study(second), strength.load_study(first)
    assert [p.name for p in study.points] == ["2 layers x 16 (shipped)", "again", "cut after 1 layer"]
    assert study.points[0] == earlier.points[0] and study.points[2] == earlier.points[1]  # kept as measured
    assert "kept 1 point(s)" in capsys.readouterr().out
    monkeypatch.setattr(strength, "measure_generator", None)  # refused before anything is measured
    assert main(["strength", *common, "--blocks", "2", "--keep", str(first)]) == 2  # measured otherwise
    assert "number of blocks" in capsys.readouterr().err
    assert main(["strength", *common, "--seeds", "2", "--keep", str(first)]) == 2
    assert "seeds" in capsys.readouterr().err
    assert main(["strength", *common, "--keep", str(tmp_path / "none.json")]) == 2
    assert "no study at" in capsys.readouterr().err


def test_cli_refuses_a_bad_generator_spec(tiny_pair_dir):
    with pytest.raises(SystemExit) as exit_:
        main(["strength", "--pair", str(tiny_pair_dir), "--generator", "no-equals-sign"])
    assert exit_.value.code == 2


# --- the Classroom's view --------------------------------------------------------------------------

def test_the_classroom_view_draws_the_study_and_says_whose_it_is(tiny_pair_dir, monkeypatch):
    from explainer.ui import classroom_tab as ui

    monkeypatch.setenv(ROOTS_ENV, str(tiny_pair_dir))
    monkeypatch.setattr(ui, "_discriminator_hashes", {})
    weights = strength.file_sha256(tiny_pair_dir / "discriminator" / "model.safetensors")
    ours = dataclasses.replace(STUDY, discriminator_sha256=weights)
    monkeypatch.setattr(ui, "_study", [ours])
    figure, note = (ui.run_strength(str(tiny_pair_dir))[k] for k in ("strength_plot", "strength_note"))
    assert "not the model in use" not in note and any(t.name == "the generator in use" for t in figure.data)
    monkeypatch.setattr(ui, "_study", [STUDY])  # measured against another discriminator
    figure, note = (ui.run_strength(str(tiny_pair_dir))[k] for k in ("strength_plot", "strength_note"))
    assert "not the model in use" in note and not any(t.name == "the generator in use" for t in figure.data)
    # a hub model: never a match
    assert "not the model in use" in ui.run_strength("google/electra-small")["strength_note"]
    monkeypatch.setattr(ui, "_study", [None])
    assert ui.run_strength("bundled") == {"strength_plot": None,
                                          "strength_note": view.strength_summary_html(None, False)}
    monkeypatch.setattr(ui, "_study", [ValueError("assets/generator_strength.json is not a generator-strength study")])
    assert "not a generator-strength study" in ui.run_strength("bundled")["strength_note"]


def test_the_shipped_study_belongs_to_the_bundled_discriminator():
    """Shipping new weights means measuring the study again (its command is in the module's docstring)."""
    study = strength.load_study()
    if study is None:
        pytest.skip("no generator-strength study ships with this checkout")
    weights = strength.ASSETS / "model" / "discriminator" / "model.safetensors"
    if not weights.exists():
        pytest.skip("the bundled model is missing")
    assert study.discriminator_sha256 == strength.file_sha256(weights)
    assert sum(p.shipped for p in study.points) == 1 and len(study.points) >= 4
    shipped = next(p for p in study.points if p.shipped)
    assert {p.top1_at_mask > shipped.top1_at_mask for p in study.points if not p.shipped} == {True, False}
