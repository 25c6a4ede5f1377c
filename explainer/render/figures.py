"""Plotly figures built from plain dicts, without plotly's per-property validation.

The Explore tab draws a figure for every sentence (and redraws the heatmap up to twice a second
while its rows arrive). Built through plotly's validating objects (`make_subplots`,
`update_xaxes`, a template looked up by name) the guesses chart took longer than the models
themselves; from dicts it is about ten times faster (bench/page_explain.py). The tests check every
figure built here against plotly's schema instead (tests/test_figures.py).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import plotly.graph_objects as go
import plotly.io as pio

TEMPLATE = "plotly_white"


@functools.cache
def _template(name: str) -> dict:
    return pio.templates[name].to_plotly_json()


def figure(data: list[dict], layout: dict) -> go.Figure:
    """A figure of `data` (trace dicts, each with its "type") and `layout`, on the app's template."""
    return go.Figure({"data": data, "layout": {"template": _template(TEMPLATE), **layout}}, _validate=False)


@dataclass(frozen=True)
class Cell:
    """One chart of a grid: its axes' names and domains, as `make_subplots` lays them out."""

    index: int  # 0-based, row by row from the top left
    x_domain: tuple[float, float]
    y_domain: tuple[float, float]

    @property
    def x(self) -> str:  # the trace's axis references: "x", "x2", ...
        return "x" if self.index == 0 else f"x{self.index + 1}"

    @property
    def y(self) -> str:
        return "y" if self.index == 0 else f"y{self.index + 1}"

    def axes(self, x: dict | None = None, y: dict | None = None) -> dict:
        """The layout entries of this cell's two axes, with extra settings for each."""
        suffix = "" if self.index == 0 else str(self.index + 1)
        return {f"xaxis{suffix}": {"domain": list(self.x_domain), "anchor": self.y, **(x or {})},
                f"yaxis{suffix}": {"domain": list(self.y_domain), "anchor": self.x, **(y or {})}}

    def title(self, text: str, size: int = 12) -> dict:
        """The cell's title, centred above it (an annotation, as `make_subplots`' subplot_titles)."""
        return {"text": text, "x": sum(self.x_domain) / 2, "y": self.y_domain[1], "xref": "paper", "yref": "paper",
                "xanchor": "center", "yanchor": "bottom", "showarrow": False, "font": {"size": size}}


def grid(n: int, cols: int, horizontal_spacing: float, vertical_spacing: float) -> list[Cell]:
    """`n` charts in rows of `cols`, top left first, with `make_subplots`' domains and spacings."""
    rows = -(-n // cols)
    width = (1 - horizontal_spacing * (cols - 1)) / cols
    height = (1 - vertical_spacing * (rows - 1)) / rows
    cells = []
    for i in range(n):
        row, col = divmod(i, cols)
        x0 = col * (width + horizontal_spacing)
        top = 1 - row * (height + vertical_spacing)
        # Clamped: the bottom row's float sum can land a hair below 0, which plotly refuses.
        cells.append(Cell(i, (x0, min(1.0, x0 + width)), (max(0.0, top - height), min(1.0, top))))
    return cells
