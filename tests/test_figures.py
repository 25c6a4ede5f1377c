"""Figures built from plain dicts (explainer.render.figures) are what plotly's validating API would build."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from explainer.core.attributions import AttributionSettings, attribute, attribution_matrix
from explainer.core.pipeline import Settings, explain
from explainer.render import explore as render
from explainer.render import figures


@pytest.mark.parametrize("n, cols", [(1, 1), (2, 2), (3, 3), (4, 3), (5, 3), (6, 3), (8, 3), (12, 3)])
def test_the_grid_lays_charts_out_as_make_subplots_does(n, cols):
    rows = -(-n // cols)
    spacing = min(0.25, 0.6 / rows)
    reference = make_subplots(rows=rows, cols=cols, horizontal_spacing=0.12, vertical_spacing=spacing).layout
    for cell in figures.grid(n, cols, 0.12, spacing):
        axes = cell.axes()
        (x_name, x_axis), (y_name, y_axis) = axes.items()
        assert x_axis["domain"] == pytest.approx(list(reference[x_name].domain))
        assert y_axis["domain"] == pytest.approx(list(reference[y_name].domain))
        assert (x_axis["anchor"], y_axis["anchor"]) == (reference[x_name].anchor, reference[y_name].anchor)
        assert all(0 <= edge <= 1 for edge in (*x_axis["domain"], *y_axis["domain"]))  # plotly refuses a hair below 0
        go.Figure({"layout": axes})  # and the validating constructor agrees


@pytest.fixture(scope="module")
def drawn(tiny_pair):
    explanation = explain(tiny_pair, "The chef cooked a delicious meal for the guests.", Settings(seed=0, mask_rate=0.3))
    attribution = attribute(tiny_pair, explanation, settings=AttributionSettings(n_steps=4))
    matrix = attribution_matrix(tiny_pair, explanation, AttributionSettings(method="gradient_x_input"))
    return explanation, {"guesses": render.proposals_figure(explanation),
                         "attribution": render.attribution_figure(attribution, explanation),
                         "heatmap": render.matrix_figure(matrix, explanation)}


def test_every_explore_figure_passes_plotlys_own_validation(drawn):
    for name, figure in drawn[1].items():
        checked = go.Figure(figure.to_plotly_json())  # the validating constructor raises on any bad property
        assert checked.to_plotly_json()["data"] == figure.to_plotly_json()["data"], name
        assert checked.layout.template.layout.plot_bgcolor == "white", name  # the app's template (plotly_white)


def test_the_guesses_chart_has_one_titled_chart_per_masked_word(drawn):
    explanation, made = drawn
    figure = made["guesses"]
    assert len(explanation.masked) >= 2
    assert len(figure.data) == len(figure.layout.annotations) == min(len(explanation.masked), render.MAX_PROPOSAL_PLOTS)
    for i, (bar, title, masked) in enumerate(zip(figure.data, figure.layout.annotations, explanation.masked)):
        assert bar.xaxis == ("x" if i == 0 else f"x{i + 1}") and masked.original in title.text
        axis = figure.layout["xaxis" if i == 0 else f"xaxis{i + 1}"]
        assert axis.range[1] == pytest.approx(min(1.0, max(bar.x) * 1.3))


def test_figures_do_not_share_their_template(drawn):
    first, second = drawn[1]["guesses"], drawn[1]["attribution"]
    first.layout.template.layout.plot_bgcolor = "black"
    assert second.layout.template.layout.plot_bgcolor == "white"
    assert figures.figure([], {}).layout.template.layout.plot_bgcolor == "white"
