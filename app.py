"""ELECTRA Explainer: the Gradio app. `python app.py` serves it; `demo` is built at import.

Tabs: Explore (issue #3), Classroom (issue #5), Training (issue #4). The scriptable
endpoints `/explain` and `/attribute` (explainer.api) are registered here with `gr.api`.
Nothing is downloaded unless a user names a hub model; analytics and hub telemetry are off.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

import gradio as gr  # noqa: E402

from explainer import api  # noqa: E402
from explainer.ui.classroom import build_classroom  # noqa: E402
from explainer.ui.explore import build_explore  # noqa: E402
from explainer.ui.training_tab import build_training, latest_race  # noqa: E402

with gr.Blocks(title="ELECTRA Explainer") as demo:
    gr.Markdown("# ELECTRA Explainer")
    with gr.Tab("Explore"):
        build_explore(demo)
    with gr.Tab("Classroom"):
        build_classroom(demo, latest_race=latest_race)
    with gr.Tab("Training"):
        build_training(demo)
    gr.api(api.explain, api_name="explain")
    gr.api(api.attribute, api_name="attribute")

if __name__ == "__main__":
    demo.launch()
