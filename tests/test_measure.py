"""The classroom measure (explainer.lesson.measure) and its CLI (`python -m explainer measure FILE`)."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest

from explainer.__main__ import main
from explainer.core.pipeline import Settings, explain
from explainer.lesson.measure import classroom_measure, find_misses, play, score_scenes
from tests.test_explain import forcing_generator

SENTENCES = ["The chef cooked a delicious meal for the guests.", "We walked along the river before dinner.",
             "Please close the window when it rains."]


def test_the_measure_counts_what_the_scenes_show(tiny_pair):
    measure = classroom_measure(tiny_pair, SENTENCES, seeds=range(3))
    scenes = [explain(tiny_pair, text, Settings(seed=seed)) for seed in range(3) for text in SENTENCES]
    words = [w for s in scenes for w in s.words]
    fakes = [w for w in words if w.replaced]
    originals = [w for w in words if w.replaced is False]
    assert (measure.scenes, measure.sentences, measure.seeds) == (9, 3, (0, 1, 2))
    assert measure.replaced_words == len(fakes) and measure.original_words == len(originals)
    assert measure.recall == pytest.approx(sum(w.p_replaced > 0.5 for w in fakes) / len(fakes))
    assert measure.false_alarm_rate == pytest.approx(sum(w.p_replaced > 0.5 for w in originals) / len(originals))
    with_fakes = [s for s in scenes if any(w.replaced for w in s.words)]
    top = sum(max(s.words, key=lambda w: w.p_replaced).replaced for s in with_fakes)
    assert measure.scenes_with_fakes == len(with_fakes)
    assert measure.top_word_replaced == pytest.approx(top / len(with_fakes))
    assert measure == score_scenes(scenes, 3, (0, 1, 2))  # batched scenes are the lone ones


def test_the_misses_are_the_scenes_whose_top_word_is_an_original_one(tiny_pair):
    scenes = play(tiny_pair, SENTENCES, seeds=range(4))
    measure = score_scenes(scenes, 3, (0, 1, 2, 3))
    misses = find_misses(scenes)
    assert len(misses) == round(measure.scenes_with_fakes * (1 - measure.top_word_replaced))
    wrong = [s for s in scenes if any(w.replaced for w in s.words)
             and not max(s.words, key=lambda w: w.p_replaced).replaced]
    assert len(misses) == len(wrong)
    for miss, scene in zip(misses, wrong):
        top = max(scene.words, key=lambda w: w.p_replaced)
        fakes = [w for w in scene.words if w.replaced]
        assert (miss.seed, miss.blamed, miss.blamed_p) == (scene.settings.seed, top.text, top.p_replaced)
        assert [f[1] for f in miss.fakes] == [w.text for w in fakes]
        assert all(f[0] in miss.shown for f in miss.fakes)
        assert miss.next_to_fake == any(abs(w.index - top.index) == 1 for w in fakes)
        assert miss.shown.endswith(scene.text[scene.words[-1].end:])


@pytest.mark.parametrize("blamed, next_to_fake, last_word", [(4, True, False), (6, True, True), (0, False, False)])
def test_a_miss_says_where_its_blamed_word_stands(tiny_pair, blamed, next_to_fake, last_word):
    # "the" forced into "before" (one token in every vocabulary here); the ratings are then set by hand so the
    # blamed word is fixed: the tiny discriminator rates every word about 50%, so its own top word is a coin toss.
    forced = forcing_generator(tiny_pair, "the")
    scene = explain(forced, "We walked along the river before dinner.", Settings(mode="manual", mask_words=(5,)))
    assert [w.index for w in scene.words if w.replaced] == [5] and scene.words[5].corrupted == "the"
    rated = [replace(w, p_replaced=0.9 if w.index == blamed else 0.6 if w.index == 5 else 0.1) for w in scene.words]
    (miss,) = find_misses([replace(scene, words=tuple(rated))])
    assert miss.shown == "We walked along the river the dinner."
    assert (miss.blamed, miss.blamed_p) == (scene.words[blamed].text, 0.9)
    assert miss.fakes == (("the", "before", 0.6),)
    assert (miss.next_to_fake, miss.last_word) == (next_to_fake, last_word)
    assert f"blamed {scene.words[blamed].text!r} 90%" in miss.line() and "'the' (was 'before') 60%" in miss.line()
    # The replaced word rated highest: no miss.
    caught = [replace(w, p_replaced=0.95 if w.index == 5 else w.p_replaced) for w in rated]
    assert find_misses([replace(scene, words=tuple(caught))]) == []


def test_draws_of_the_top_guess_are_inside_the_top_5_and_replace_nothing_when_original(tiny_pair):
    # A generator that always proposes "the": every draw is its top guess, never outside its top 5.
    forced = forcing_generator(tiny_pair, "the")
    measure = classroom_measure(forced, SENTENCES, seeds=range(2))
    assert measure.draws_outside_top5 == 0.0
    # A sentence made only of "the": every draw equals the original, so nothing is replaced.
    nothing = classroom_measure(forced, ["the the the the the the the the"], seeds=range(2))
    assert nothing.replaced_words == 0 and nothing.scenes_with_fakes == 0
    assert math.isnan(nothing.recall) and math.isnan(nothing.top_word_replaced)


def test_the_cli_prints_the_measure_and_json(tiny_pair_dir, tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"sentences": SENTENCES}))
    assert main(["--sentences", str(path), "--seeds", "2", "--model", str(tiny_pair_dir)]) == 0
    out = capsys.readouterr().out
    assert "3 sentences x 2 seeds = 6 scenes" in out and "replaced words flagged (P > 50%)" in out
    assert main(["measure", str(path), "--seeds", "2", "--model", str(tiny_pair_dir), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scenes"] == 6 and data["seeds"] == [0, 1] and "misses" not in data
    assert main(["measure", str(path), "--seeds", "2", "--model", str(tiny_pair_dir), "--json", "--misses"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["misses"]) == round(data["scenes_with_fakes"] * (1 - data["top_word_replaced"]))
    assert main(["measure", "--seeds", "2", "--model", str(tiny_pair_dir), "--misses", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{len(data['misses'])} scenes rate an original word highest" in out
    assert out.count("blamed ") == len(data["misses"])


@pytest.mark.parametrize("content, message", [
    (None, "s.json: no such file"),
    ("not json", "is not JSON"),
    ("[]", "holds no sentence"),
    ('{"sentences": [1, 2]}', "sentence 1 is not a string of text"),
])
def test_the_cli_explains_a_bad_sentences_file(tiny_pair_dir, tmp_path, capsys, content, message):
    path = tmp_path / "s.json"
    if content is not None:
        path.write_text(content)
    assert main(["measure", str(path), "--model", str(tiny_pair_dir)]) == 2
    assert message in capsys.readouterr().err


def test_the_older_spelling_is_the_measure_and_a_first_word_not_a_command_is_the_sentence():
    from explainer.__main__ import route

    assert route(["--sentences", "a.json", "--seeds", "2"]) == ["measure", "a.json", "--seeds", "2"]
    assert route(["--seeds", "2", "--sentences=a.json"]) == ["measure", "--seeds", "2", "a.json"]
    assert route(["the chef cooked", "--json"]) == ["explain", "the chef cooked", "--json"]
    assert route(["--detect", "the chef"]) == ["explain", "--detect", "the chef"]
    assert route(["measure", "a.json"]) == ["measure", "a.json"] and route(["--help"]) == ["--help"] and route([]) == []
    assert route(["explain", "measure"]) == ["explain", "measure"]  # a sentence that is a command's name


def test_the_cli_wants_a_command_or_a_text(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2 and "required: {explain,measure,strength,targets}" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["a text", "--misses"])  # --misses belongs to measure
    assert exit_info.value.code == 2 and "unrecognized arguments: --misses" in capsys.readouterr().err


def test_the_check_sentences_are_40_new_everyday_sentences():
    from training.project import ASSETS

    check = json.loads((ASSETS / "check_sentences.json").read_text())["sentences"]
    assert len(check) == 40 == len(set(check))
    elsewhere = " ".join([(ASSETS / name).read_text().lower() for name in
                          ("game_sentences.json", "swap_pairs.json", "everyday_sentences.json")])
    assert not [s for s in check if s.lower().rstrip(".?!") in elsewhere]
