"""The "Use it in Hugging Face" panel: the code shown is the code run, and it needs no generator.

The snippet runs exactly as stored in `explainer.lesson.hf_snippet.HF_SNIPPET`, from the project folder,
against the bundled model. Until assets/model exists, only its folder path is swapped for a copy of
the tiny pair's discriminator that has no generator beside it.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil

import pytest

from explainer.lesson.hf_snippet import BUNDLED_DISCRIMINATOR, HF_SNIPPET, HUB_DISCRIMINATOR, hub_snippet
from training.project import PROJECT


def test_the_snippet_names_the_folder_once_and_loads_no_generator():
    assert HF_SNIPPET.count(f'"{BUNDLED_DISCRIMINATOR}"') == 1
    assert "AutoModelForSequenceClassification" in HF_SNIPPET
    code = "\n".join(line.split("#")[0] for line in HF_SNIPPET.splitlines())  # comments may mention it
    assert "generator" not in code.replace("discriminator", "")


def test_the_hub_variant_differs_only_in_the_model_id():
    hub = hub_snippet()
    assert f'"{HUB_DISCRIMINATOR}"' in hub and BUNDLED_DISCRIMINATOR not in hub
    differing = [(a, b) for a, b in zip(HF_SNIPPET.splitlines(), hub.splitlines()) if a != b]
    assert len(differing) == 1 and len(HF_SNIPPET.splitlines()) == len(hub.splitlines())


def test_the_snippet_runs_as_shown(tiny_pair_dir, tmp_path, monkeypatch):
    code = HF_SNIPPET
    if not (PROJECT / BUNDLED_DISCRIMINATOR / "config.json").exists():
        alone = tmp_path / "discriminator"  # no generator/ beside it: the snippet must not need one
        shutil.copytree(tiny_pair_dir / "discriminator", alone)
        code = code.replace(f'"{BUNDLED_DISCRIMINATOR}"', f'"{alone}"')
    monkeypatch.chdir(PROJECT)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "hf_snippet", "exec"), {"__name__": "__hf_snippet__"})
    lines = printed.getvalue().splitlines()
    assert lines[0] == "ElectraForSequenceClassification"
    probabilities = [float(x) for x in re.findall(r"\d\.\d+(?:e[-+]?\d+)?", "".join(lines[1:]))]
    assert len(probabilities) == 4  # two texts x (negative, positive)
    assert probabilities[0] + probabilities[1] == pytest.approx(1, abs=1e-3)


@pytest.mark.slow
def test_the_app_shows_exactly_this_code(tiny_pair_dir, monkeypatch):
    monkeypatch.setenv("ELECTRA_MODEL", str(tiny_pair_dir))
    import gradio as gr

    from explainer.ui import app

    shown = [b.value for b in app.demo.blocks.values() if isinstance(b, gr.Code)]
    assert HF_SNIPPET in shown
    hub = [b.value for b in app.demo.blocks.values()
           if isinstance(b, gr.Markdown) and HUB_DISCRIMINATOR in (b.value or "")]
    assert any(f"```python\n{hub_snippet()}\n```" in value for value in hub)
