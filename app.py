"""ELECTRA Explainer: the Gradio app. `python app.py` serves it; `demo` is built at import.

Tabs: Explore, Classroom, Training. The scriptable
endpoints `/explain`, `/attribute` and `/game` (explainer.ui.api) are registered here with `gr.api`.

Hosting (a Hugging Face Space runs `python app.py`): gradio itself reads GRADIO_SERVER_NAME and
GRADIO_SERVER_PORT in `launch()`; queue concurrency is set per event (explainer/ui/queues.py);
uploads are capped at ELECTRA_MAX_UPLOAD_MB (50) by gradio's upload route as well as by the
Training tab; gradio's cached uploads and downloads are deleted after an hour and at restart.
Nothing is downloaded unless a user names a hub model; analytics and hub telemetry are off.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

import gradio as gr  # noqa: E402

from explainer.ui import api, queues  # noqa: E402
from explainer.ui.classroom import build_classroom  # noqa: E402
from explainer.ui.explore import build_explore  # noqa: E402
from explainer.ui.training_tab import MANAGER, build_training, latest_race, measured_gaps  # noqa: E402

CACHE_MAX_AGE_S = 3600  # gradio's copies of uploads and downloads: checked and deleted hourly

with gr.Blocks(title="ELECTRA Explainer", delete_cache=(CACHE_MAX_AGE_S, CACHE_MAX_AGE_S)) as demo:
    gr.Markdown("# ELECTRA Explainer")
    with gr.Tab("Explore"):
        explore_model = build_explore(demo)
    with gr.Tab("Classroom"):
        build_classroom(demo, latest_race=latest_race, measured_gaps=measured_gaps)
    with gr.Tab("Training"):
        build_training(demo, explore_model=explore_model)
    gr.api(api.explain, api_name="explain", **queues.EXPLAIN)
    gr.api(api.attribute, api_name="attribute", **queues.ATTRIBUTE)
    gr.api(api.game, api_name="game", **queues.EXPLAIN)
demo.queue(max_size=queues.MAX_QUEUED, default_concurrency_limit=queues.DEFAULT)

LAUNCH = dict(max_file_size=MANAGER.max_upload_bytes)  # what `python app.py` passes to launch(); bytes

if __name__ == "__main__":
    demo.launch(**LAUNCH)
