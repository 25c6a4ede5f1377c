"""The choice of generator as Explore, the game and the live class offer it: a radio and one measured line.

The choices come from explainer.core.generators: ELECTRA's own always, the stronger one where this copy of the app
has it (else a line says it is not installed). The line beside the choice is what the strength study measured
for each (explainer.render.difficulty.forger_line_html).
"""

from __future__ import annotations

import gradio as gr

from explainer.core import generators
from explainer.lesson.strength import load_study
from explainer.render.difficulty import forger_line_html
from explainer.render.style import FONT

NOT_INSTALLED = "A stronger generator is not installed in this copy of the app: ELECTRA's generator forges."


def choices(labels: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(label, key) per generator this copy of the app can offer, ELECTRA's own first."""
    labels = labels or generators.LABELS
    keys = [generators.ELECTRA] + ([generators.STRONGER] if generators.installed() else [])
    return [(labels[key], key) for key in keys]


def radio(label: str, elem_id: str, labels: dict[str, str] | None = None, **kwargs) -> gr.Radio:
    return gr.Radio(choices(labels), value=generators.ELECTRA, label=label, elem_id=elem_id, **kwargs)


def line_html() -> str:
    """The measured consequence of the choice, and a note when the stronger generator is absent."""
    try:
        study = load_study()
    except ValueError:  # a malformed study file: the choice still works, without figures
        study = None
    note = "" if generators.installed() else f'<p style="{FONT}; font-size: 0.9em; margin: 2px 0">{NOT_INSTALLED}</p>'
    return forger_line_html(study) + note


def chosen(key) -> str:
    """A key from the page, or the default when the radio sent nothing."""
    return key or generators.ELECTRA
