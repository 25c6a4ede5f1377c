"""The teacher's card of a live class (explainer/lesson/live_class/session.py) as escaped HTML: the class code, the
students' link and its QR code, the projector's view-only link, the notes on the address and the round's length;
and the /class page's CSS and frame (`class_html`), which a phone's screens (explainer/render/live_class/phone.py)
share. No gradio, no torch. The projector's stage is explainer/render/live_class/projector.py.

Everything wraps to one column at 420 px. Every text passes through `esc`. The QR code is drawn by segno (a
maintained QR library), as inline SVG: nothing is fetched.
"""

from __future__ import annotations

import segno

from explainer.render.style import FONT, esc

CLASS_CSS = """
.ee-class { line-height: 1.4; }
.ee-class .ee-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 230px), 1fr)); gap: 10px; }
.ee-class .ee-code { font-family: ui-monospace, Consolas, monospace; font-size: 1.6em; font-weight: 700;
  letter-spacing: .08em; overflow-wrap: anywhere; }
.ee-class .ee-sentence { font-size: 1.15em; margin: 4px 0; overflow-wrap: anywhere; }
.ee-class .ee-qr svg { width: 100%; max-width: 240px; height: auto; background: #fff; display: block; margin: auto; }
.ee-class .ee-muted { color: #555; }
#class-wait { font-size: 1.15em; padding: 8px 0; }
#class-b-sentence input { padding-right: 2em; text-overflow: ellipsis; }
"""


def class_html(inner: str, element_id: str, extra: str = "") -> str:
    """`inner` in the /class page's frame (its CSS class, font) as element `element_id`."""
    return f'<div class="ee-class{extra}" id="{element_id}" style="{FONT}">{inner}</div>'


def pretty_code(code: str) -> str:
    """ABCDEF -> ABC-DEF: easier to read out and to type (the dash is optional when typed)."""
    return f"{code[:3]}-{code[3:]}" if len(code) == 6 else code


def qr_svg(link: str) -> str:
    """The link as a QR code (segno, error correction M), inline SVG sized by its container."""
    svg = segno.make(link, error="m").svg_inline(scale=4, border=2, omitsize=True, dark="#000", light="#fff")
    return f'<div class="ee-qr" role="img" aria-label="QR code of the class link">{svg}</div>'


def address_note_html(note: str, command: str = "") -> str:
    """One line for the teacher when phones cannot open the students' link (a server on this computer only), and
    the command that lets them in, in code type."""
    if not note:
        return ""
    said = f"{esc(note)}: <code>{esc(command)}</code>" if command else esc(note)
    return f'<p id="class-address-note" role="status" style="margin:4px 0 6px;font-weight:600">⚠ {said}</p>'


def plays_note_html(played: int, chosen: int) -> str:
    """When a teacher's own sentences set the round's length: how many the class plays ("" when as chosen)."""
    if played == chosen:
        return ""
    return (f'<p id="class-plays" role="status" style="margin:4px 0">Your own sentences: this class plays '
            f"{played} sentence{'s' if played != 1 else ''} per round (your {played}), not the {chosen} chosen "
            "with the slider.</p>")


def links_card_html(code: str, student_link: str, view_link: str, note: str = "", command: str = "") -> str:
    """The teacher's two links: the students' (with its QR code) and the projector's, view-only, and `note` (with
    `command`) when phones cannot open them (explainer/core/addresses.py). The teacher key is in neither: it stays
    in this browser's storage."""
    return class_html(
        f'<div class="ee-grid" style="align-items:center"><div>'
        f'<p style="margin:0">Class code <span class="ee-code" id="class-code">{esc(pretty_code(code))}</span></p>'
        f'{address_note_html(note, command)}'
        f'<p style="margin:4px 0 0">Students join at</p><p style="margin:2px 0 8px;overflow-wrap:anywhere">'
        f'<a id="class-student-link" href="{esc(student_link)}" target="_blank" rel="noopener">'
        f'{esc(student_link)}</a></p>'
        f'<p style="margin:0">Open this on the projector (it shows the class and moves nothing):</p>'
        f'<p style="margin:2px 0 8px;overflow-wrap:anywhere"><a id="class-view-link" href="{esc(view_link)}" '
        f'target="_blank" rel="noopener">{esc(view_link)}</a></p>'
        f'<p class="ee-muted" style="margin:0">Your controls are below; only this browser holds the key that moves '
        f"the class, and no page or address shows it.</p></div>{qr_svg(student_link)}</div>", "class-join-card")
