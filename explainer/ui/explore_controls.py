"""Explore's controls that follow the page's state: the main button's label per mode (Detect only corrupts
nothing, so its button only judges), the Stop button's look (red and pressable only while an explanation runs), and
the large-type switch for a projector (a body class; its CSS is `explainer.render.explore.LARGE_CSS`)."""

from __future__ import annotations

RUN_LABEL = "Corrupt it and judge every word"
DETECT_LABEL = "Judge every word"
IDLE_STOP = {"interactive": False, "variant": "secondary"}  # grey and inactive with nothing to stop
BUSY_STOP = {"interactive": True, "variant": "stop"}
LARGE_LABEL = "Large type (a projector): ② to ④ at twice the size"
LARGE_JS = "(on) => { document.body.classList.toggle('ee-explore-large', on); }"


def run_label(mode: str) -> str:
    return DETECT_LABEL if mode == "detect" else RUN_LABEL
