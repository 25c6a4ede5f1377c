"""Home tab: what ELECTRA is, and a first look at the bundled discriminator judging a sentence."""

from __future__ import annotations

import html

import gradio as gr

INTRO = """
# ELECTRA Explainer
ELECTRA pretrains a text encoder by **replaced-token detection**: a small generator fills a few
masked words with plausible guesses, and a discriminator labels **every** word as *original* or
*replaced*. BERT's masked language modelling learns only from the ~15% of words it masked;
ELECTRA learns from all of them.

Type a sentence with one odd word in it. The discriminator shades each word by how likely it
thinks that word was replaced.
"""


def judge(text: str) -> str:
    """Escaped HTML: each word shaded by the bundled discriminator's P(replaced)."""
    from explainer.models import load_bundled
    from training.evaluate import word_scores

    text = (text or "").strip()
    if not text:
        return "<p>Type a sentence first.</p>"
    _, discriminator, tokenizer = load_bundled()
    spans = []
    for word, p in word_scores(discriminator, tokenizer, text[:2000]):
        spans.append(
            f'<span title="P(replaced) = {p:.2f}" style="background: rgba(220, 50, 32, {p:.2f}); '
            f'padding: 2px 4px; margin: 1px; border-radius: 4px; display: inline-block">{html.escape(word)}</span>'
        )
    legend = '<p style="font-size: 0.85em">white = judged original, red = judged replaced (hover for the probability)</p>'
    return f'<div style="font-size: 1.3em; line-height: 2">{" ".join(spans)}</div>{legend}'


def build_home() -> None:
    gr.Markdown(INTRO)
    with gr.Row():
        text = gr.Textbox(value="the chef ate the meal", label="Sentence", scale=4)
        button = gr.Button("Judge every word", variant="primary", scale=1)
    out = gr.HTML()
    gr.Examples(["the chef ate the meal", "she drank a cup of hot shoes", "the plot was predictable and yellow"], text)
    button.click(judge, text, out, api_name="judge")
    text.submit(judge, text, out)
