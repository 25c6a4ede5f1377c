"""ELECTRA Explainer: the Gradio app. `python app.py` serves it; `demo` is built at import.

Tabs arrive with their issues (Explore, Training, Classroom); until then this page shows the
bundled model and where to start.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

import gradio as gr  # noqa: E402

from explainer.ui.home import build_home  # noqa: E402

with gr.Blocks(title="ELECTRA Explainer") as demo:
    build_home()

if __name__ == "__main__":
    demo.launch()
