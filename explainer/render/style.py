"""The look shared by every view: the palette, the escaping, the word chips, the P(replaced) colour
scale and its legend, messages. No gradio, no torch.

Every string that came from the user or a vocabulary passes through `esc` (HTML escaping plus
removal of invisible and direction-changing characters), in HTML and in plotly labels alike
(plotly reads a few HTML tags in its labels).
"""

from __future__ import annotations

import html

from explainer.core.text import visible

RTD_COLOUR = "#e6550d"  # ELECTRA's replaced-token detection, in every chart and table
MLM_COLOUR = "#2166ac"  # BERT's masked language modelling
MUTED = "#767676"  # the lightest grey that keeps 4.5:1 contrast on white: floors, guides, the paper's LMs
FONT = "font-family: ui-sans-serif, system-ui, sans-serif; color: #111"
RED = (215, 48, 31)  # P(replaced) = 1
BLUE = (33, 102, 172)  # most negative attribution


def esc(text: str) -> str:
    return html.escape(visible(text), quote=True)


def mix(colour: tuple[int, int, int], amount: float) -> str:
    """White blended towards `colour` by `amount` in [0, 1]."""
    a = min(max(amount, 0.0), 1.0)
    r, g, b = (round(255 + (c - 255) * a) for c in colour)
    return f"rgb({r}, {g}, {b})"


def p_colour(p: float) -> str:
    return mix(RED, p)


def chip(text: str, background: str, below: str, title: str, border: str, dark: bool) -> str:
    colour = "#fff" if dark else "#111"
    return (
        f'<span class="ee-chip" title="{title}" style="display: inline-flex; flex-direction: column; '
        f'align-items: center; margin: 3px 2px; vertical-align: top">'
        f'<span class="ee-token" style="background: {background}; color: {colour}; border: {border}; '
        f'border-radius: 6px; padding: 2px 7px; font-size: 1.25em; line-height: 1.5; white-space: pre">'
        f'<bdi style="color: {colour}">{text}</bdi></span>'  # inline: gradio's `.prose *` recolours children
        f'<span style="font-size: 0.75em; color: #555; line-height: 1.3; white-space: nowrap">{below}</span></span>'
    )


def legend_html() -> str:
    stops = ", ".join(p_colour(i / 4) for i in range(5))
    return (
        f'<div class="ee-legend" style="{FONT}; font-size: 0.85em; margin-top: 8px; display: flex; '
        f'flex-wrap: wrap; gap: 6px 18px; align-items: center">'
        f'<span>looks original <span style="display: inline-block; width: 140px; height: 12px; '
        f'vertical-align: middle; border: 1px solid #999; background: linear-gradient(to right, {stops})"></span> '
        f"looks replaced &nbsp;(the number under a word is the discriminator's P(replaced))</span>"
        f'<span><span style="border: 3px solid #111; border-radius: 4px; padding: 0 6px">word</span> '
        f"the generator really replaced it</span>"
        f'<span><span style="border: 2px dashed #777; border-radius: 4px; padding: 0 6px">word</span> '
        f"masked, but the generator drew the original back</span></div>"
    )


def message_html(message: str) -> str:
    return (f'<div class="ee-error" role="alert" style="{FONT}; background: #fde8e8; border: 1px solid #d66; '
            f'border-radius: 6px; padding: 8px 12px">{esc(message)}</div>')


def pct(p: float) -> str:
    """A probability for a label: 12%, 1.6%, 0.041% (small ones keep two significant digits)."""
    return f"{p:.0%}" if p >= 0.1 else f"{p:.1%}" if p >= 0.01 else f"{p * 100:.2g}%"
