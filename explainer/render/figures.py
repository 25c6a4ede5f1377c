"""Plotly figures built from plain dicts, without plotly's per-property validation.

The Explore tab redraws the attribution heatmap up to twice a second while its rows arrive. Built
through plotly's validating objects (`update_xaxes`, a template looked up by name) a figure took
longer than the models themselves; from dicts it is several times faster (bench/page_explain.py
prints the attribution bars both ways). The tests check every figure built here against plotly's
schema instead (tests/test_figures.py). `_validate=False` is plotly's own switch for this (an
underscore argument of `BaseFigure`, so the tests pin what it builds).
"""

from __future__ import annotations

import functools

import plotly.graph_objects as go
import plotly.io as pio

TEMPLATE = "plotly_white"


@functools.cache
def _template(name: str) -> dict:
    return pio.templates[name].to_plotly_json()


def figure(data: list[dict], layout: dict) -> go.Figure:
    """A figure of `data` (trace dicts, each with its "type") and `layout`, on the app's template."""
    return go.Figure({"data": data, "layout": {"template": _template(TEMPLATE), **layout}}, _validate=False)
