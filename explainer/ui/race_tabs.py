"""Which of the Training tab's two views each visitor opens on (explainer.core.race_opening decides), and the
switch to it, which never overrides a visitor's own choice.

The view is set when the page is built and again for each visitor when the page loads, since a race may have
started or ended since. The load's answer can come seconds later on a busy server: a visitor who has clicked a
view by then keeps it (a click marks the tab bar; the switch happens in the browser and looks for that mark).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import gradio as gr

from explainer.core.race_opening import opening_view
from explainer.ui import races

LABELS = {"live": "Race live", "replay": "Replay a race"}  # the two views' tab names, by id
# In the browser: mark the tab bar once the visitor clicks one of its tabs (a script's click is not trusted).
WATCH_JS = """() => { document.addEventListener('click', e => {
  const bar = document.querySelector('#race-tabs');
  if (e.isTrusted && bar && e.target.closest?.('#race-tabs button[role=tab]')) bar.dataset.chosen = '1';
}, true); }"""
# ... and open the view the server named, unless the visitor has chosen one.
SWITCH_JS = f"""(view) => {{ const bar = document.querySelector('#race-tabs');
  if (!bar || bar.dataset.chosen) return;
  const name = {json.dumps(LABELS)}[view];
  [...bar.querySelectorAll('button[role=tab]')]
    .find(b => b.innerText.trim() === name && b.getAttribute('aria-selected') !== 'true')?.click(); }}"""


def opening(live: bool) -> str:
    """The view this visitor opens on: the live race while one runs, or just ended at a size that means
    something; otherwise the replay of the headline's recorded race. `live`: whether this server runs races."""
    race = races.MANAGER.race
    facts = (None, None, None) if race is None else (race.status, race.settings.preset, race.ended_at)
    return opening_view(*facts, datetime.now(timezone.utc), live)


def open_for_each_visitor(demo: gr.Blocks, live: bool) -> None:
    """On each page load, switch to `opening(live)` unless the visitor has already picked a view."""
    view = gr.Textbox(visible=False)
    demo.load(lambda: opening(live), None, [view], js=WATCH_JS, api_visibility="private").then(
        None, [view], None, js=SWITCH_JS, api_visibility="private")
