"""How exact an attribution is, in words: the integration points it took and the completeness error it reached.

Integrated gradients promise that a row's shares add up to logit(sentence) - logit(baseline); the
completeness error is how far they miss, relative to the row's sum |shares| (1% is far below
anything a heatmap can show). No gradio, no torch.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from explainer.render.style import FONT, esc

if TYPE_CHECKING:
    from explainer.core.attributions import Attribution, AttributionMatrix


def _points(counts: Counter) -> str:
    return ", ".join(f"{points} points × {rows} row{'s' if rows > 1 else ''}"
                     for points, rows in sorted(counts.items()))


def matrix_note_html(matrix: AttributionMatrix, total: int, seconds: float) -> str:
    """The line under the heatmap: rows so far, then the points per row and the largest completeness error."""
    done = len(matrix.targets)
    lines = [f"{done} of {total} rows" + (f" in {seconds:.1f} s" if matrix.done else f" after {seconds:.1f} s…")]
    if matrix.errors is not None and done:
        tolerance = matrix.settings.tolerance
        over = sum(e > tolerance for e in matrix.errors) if tolerance > 0 else 0
        lines.append(f"integration points: {_points(Counter(matrix.points))}")
        reached = f"completeness error at most {max(matrix.errors):.2%} of a row's sum |shares|"
        if tolerance > 0:
            reached += f" (tolerance {tolerance:.0%}" + (f"; {over} row(s) over it)" if over else ")")
        lines.append(reached)
    elif done:
        lines.append("gradient × input: one gradient per row, no completeness to check")
    notices = "".join(f"<li>{esc(n)}</li>" for n in matrix.notices)
    notices = f'<ul style="margin: 4px 0">{notices}</ul>' if notices else ""
    return (f'<div class="ee-matrix-note" role="status" style="{FONT}; font-size: 0.9em">'
            f'{" · ".join(lines)}{notices}</div>')


def attribution_note_html(attribution: Attribution) -> str:
    """The points and the completeness error of one word's attribution, and any budget notice."""
    parts = []
    if attribution.error is not None:
        parts.append(f"{attribution.points} integration points; completeness error {attribution.error:.2%} of the "
                     "sum |shares|" + (f" (tolerance {attribution.settings.tolerance:.0%})"
                                       if attribution.settings.tolerance > 0 else ""))
    parts.extend(esc(n) for n in attribution.notices)
    if not parts:
        return ""
    return f'<p class="ee-attribution-note" style="{FONT}; font-size: 0.9em">{" · ".join(parts)}</p>'
