"""Detect only corrupts nothing, and the page says so: its button reads "Judge every word", and the legend keeps the
colour scale and the flag but not the outlines for what the generator really replaced (there is no truth to mark)."""

from __future__ import annotations

import pytest

from explainer.core.pipeline import Settings, explain
from explainer.render import explore as render
from explainer.ui import explore
from explainer.ui.explore_controls import run_label

TEXT = "The old fisherman repaired his banana before the storm arrived."
TRUTH = ("the generator really replaced it", "masked, but the generator drew the original back")


def test_the_button_names_what_each_mode_does():
    assert [run_label(mode) for _, mode in explore.MODES] == [
        "Corrupt it and judge every word", "Corrupt it and judge every word", "Judge every word"]


def test_detect_only_leaves_the_truths_legend_out(tiny_pair):
    judged = render.sentence_html(explain(tiny_pair, TEXT, Settings(mode="detect")))
    assert "looks replaced" in judged and "bold and underlined: flagged" in judged
    assert not any(item in judged for item in TRUTH)
    for mode in ("auto", "manual"):
        corrupted = render.sentence_html(explain(tiny_pair, TEXT, Settings(mode=mode, mask_words=(5,))))
        assert all(item in corrupted for item in TRUTH) and "looks replaced" in corrupted


@pytest.mark.slow  # imports the gradio page: about 4 s alone
def test_the_page_in_detect_only(tiny_pair_dir, monkeypatch):
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tiny_pair_dir))
    out = explore.run_explain(TEXT, str(tiny_pair_dir), "detect", 0.15, 0, 1.0, 5, [], True)
    assert "Nothing was masked" in out["generator_input"] and "Detect-only" in out["verdict"]
    assert not any(item in out["verdict"] for item in TRUTH)
