"""Figures built from plain dicts (explainer.render.figures) are what plotly's validating API would build."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from explainer.core.attributions import AttributionSettings, attribute, attribution_matrix
from explainer.core.pipeline import Settings, explain
from explainer.render import explore as render
from explainer.render import figures


@pytest.fixture(scope="module")
def drawn(tiny_pair):
    explanation = explain(tiny_pair, "The chef cooked a delicious meal for the guests.",
                          Settings(seed=0, mask_rate=0.3))
    attribution = attribute(tiny_pair, explanation, settings=AttributionSettings(n_steps=4))
    matrix = attribution_matrix(tiny_pair, explanation, AttributionSettings(method="gradient_x_input"))
    return explanation, {"attribution": render.attribution_figure(attribution, explanation),
                         "heatmap": render.matrix_figure(matrix, explanation)}


def test_every_explore_figure_passes_plotlys_own_validation(drawn):
    for name, figure in drawn[1].items():
        checked = go.Figure(figure.to_plotly_json())  # the validating constructor raises on any bad property
        assert checked.to_plotly_json()["data"] == figure.to_plotly_json()["data"], name
        assert checked.layout.template.layout.plot_bgcolor == "white", name  # the app's template (plotly_white)


def test_figures_do_not_share_their_template():
    first, second = figures.figure([], {}), figures.figure([], {})  # fresh ones: the module's stay untouched
    first.layout.template.layout.plot_bgcolor = "black"
    assert second.layout.template.layout.plot_bgcolor == "white"
    assert figures.figure([], {}).layout.template.layout.plot_bgcolor == "white"
