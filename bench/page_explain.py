"""The Explore page's own work per "Corrupt it and judge every word": the server time of the page's
handler, side by side with the way it was before, in one run.

- before: the handler drew the generator's guesses as a plotly chart through plotly's validating
  API (`make_subplots`, `update_xaxes` per chart, the template looked up by name:
  `validating_guesses_figure` below, the app's code as it was) and wrote the download files (the
  results as JSON, the verdict as SVG, the HTML card) on every run, whether anyone downloaded them;
- now: the guesses are HTML bars (`explainer.render.guesses`), and a download file is written when
  its button is pressed (`explainer.ui.explore_share.make_file`).

The server's side only. In the browser the plotly chart also cost the page several seconds on
this machine (plotly's script loaded and drew it before the next update could show: the first run
after a page load took 3.9 s, against 0.7 s with the HTML bars: bench/page_load.py).

Both run the same models on the same sentence and settings (`explainer.ui.explore.run_explain`, the
bundled pair unless `--model`), `--repeats` times each, interleaved, after one warm-up; p50 and p95.
The cost of writing one download on demand is printed too, and the attribution bars built from
plain dicts (`explainer.render.figures`) against the same figure through plotly's validating
constructor. The models' own time is the `explain`
line of bench/explain_latency.py; what is measured here is what the page adds around it.

    PYTHONPATH=. .venv/bin/python bench/page_explain.py
    PYTHONPATH=. .venv/bin/python bench/page_explain.py --model tiny --repeats 5   # a smoke test
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from load import prepare_model  # bench/load.py: "bundled", "tiny", "small" or a folder

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a benchmark never downloads
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

SENTENCE = "The old fisherman repaired his boat before the storm arrived, and the whole village came out to watch."


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def validating_guesses_figure(explanation):
    """The guesses chart as the app built it before `explainer.render.figures` (the baseline)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from explainer.render.guesses import MAX_CARDS
    from explainer.render.style import esc, pct

    def _proposal_title(m) -> str:
        verdict = "= the original → label ORIGINAL" if not m.replaced else "→ label REPLACED"
        return f"was “{esc(m.original)}”, drew “{esc(m.sampled)}” {verdict}"

    shown = explanation.masked[:MAX_CARDS]
    if not shown:
        return None
    cols = min(3, len(shown))
    rows = -(-len(shown) // cols)
    figure = make_subplots(rows=rows, cols=cols, subplot_titles=[_proposal_title(m) for m in shown],
                           horizontal_spacing=0.12, vertical_spacing=min(0.25, 0.6 / rows))
    for i, m in enumerate(shown):
        bars = list(m.proposals)
        labels = [esc(p.token) + (" (original)" if p.is_original else "") for p in bars]
        values = [p.probability for p in bars]
        drawn = [p.token_id == m.sampled_id for p in bars]
        if not any(drawn):
            labels.append(esc(m.sampled) + (" (original)" if not m.replaced else "") + " (outside top-k)")
            values.append(m.sampled_probability)
            drawn.append(True)
        colours = ["#e6550d" if d else "#9ecae1" for d in drawn]
        text = [pct(v) + (" ← drawn" if d else "") for v, d in zip(values, drawn)]
        figure.add_trace(go.Bar(x=values[::-1], y=labels[::-1], orientation="h", marker_color=colours[::-1],
                                text=text[::-1], textposition="auto", hovertemplate="%{y}: %{x:.2%}<extra></extra>",
                                showlegend=False), row=i // cols + 1, col=i % cols + 1)
        figure.update_xaxes(range=[0, min(1.0, max(values) * 1.3)], row=i // cols + 1, col=i % cols + 1)
    figure.update_xaxes(showticklabels=False)
    figure.update_annotations(font_size=12)
    figure.update_layout(height=70 + 190 * rows, margin=dict(l=10, r=10, t=50, b=10), template="plotly_white",
                         title_text="The generator's top guesses at each masked position (orange = the one drawn)",
                         title_font_size=14)
    return figure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bundled",
                        help='"bundled", "tiny", "small", or a folder with generator/ and discriminator/')
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    args = parser.parse_args()

    import plotly.graph_objects as go
    import torch

    from explainer.core import models
    from explainer.ui import explore
    from explainer.ui import explore_share as share

    if args.threads:
        torch.set_num_threads(args.threads)
    model_env, _ = prepare_model(args.model, Path(tempfile.mkdtemp(prefix="electra-page-")))  # as bench/load.py
    os.environ.update(model_env)  # the app's default model and the folder it may open
    model = models.default_model()
    settings = ("auto", 0.15, 0, 1.0, 5, [], True, "standard")

    def now() -> None:
        explore.run_explain(SENTENCE, model, *settings)

    html_guesses = explore.guesses_html

    def before() -> None:  # the handler as it was: a validating chart, every download file written on every run
        explore.guesses_html = validating_guesses_figure
        try:
            out = explore.run_explain(SENTENCE, model, *settings)
        finally:
            explore.guesses_html = html_guesses
        explanation = out["explanation"]
        for kind in ("json", "verdict", "card"):
            share.make_file(kind, explanation, None, True, "standard")

    now(), before()  # warm-up: load the models, first allocations
    times = {"before": [], "now": []}
    for _ in range(args.repeats):
        for name, fn in (("before", before), ("now", now)):
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    explanation = explore.run_explain(SENTENCE, model, *settings)["explanation"]
    charts = {}
    for name, build in (("plotly chart", lambda e: validating_guesses_figure(e).to_json()),  # what gr.Plot sent
                        ("HTML bars", html_guesses)):
        start = time.perf_counter()
        for _ in range(args.repeats):
            build(explanation)
        charts[name] = (time.perf_counter() - start) / args.repeats
    from explainer.core.attributions import AttributionSettings, attribute
    from explainer.render import explore as render

    pair = models.load(model, roots=models.allowed_roots())
    attribution = attribute(pair, explanation, None, AttributionSettings("gradient_x_input"))
    built = {}
    for name, build in (("from dicts", lambda: render.attribution_figure(attribution, explanation)),
                        ("validated", lambda: go.Figure(dict_figure.to_plotly_json()))):
        dict_figure = render.attribution_figure(attribution, explanation)
        start = time.perf_counter()
        for _ in range(args.repeats):
            build().to_json()
        built[name] = (time.perf_counter() - start) / args.repeats
    on_demand = {}
    for kind in ("json", "verdict", "card"):
        start = time.perf_counter()
        for _ in range(args.repeats):
            share.make_file(kind, explanation, None, True, "standard")
        on_demand[kind] = (time.perf_counter() - start) / args.repeats

    print(f"page handler, {len(explanation.tokens)} tokens, model {args.model}, "
          f"torch threads {torch.get_num_threads()}, {args.repeats} runs each")
    print(f"{'handler':<44} {'p50':>9} {'p95':>9}")
    for name, label in (("before", "before (plotly chart, files every run)"),
                        ("now", "now (HTML bars, files on demand)")):
        print(f"{label:<44} {1e3 * statistics.median(times[name]):>7.1f}ms "
              f"{1e3 * percentile(times[name], 0.95):>7.1f}ms")
    saved = statistics.median(times["before"]) - statistics.median(times["now"])
    print(f"saved per run: {1e3 * saved:.1f} ms ({saved / statistics.median(times['before']):.0%} of the handler)")
    print(f"the guesses ({len(explanation.masked)} masked words), built and serialised: "
          + ", ".join(f"{k} {1e3 * v:.1f} ms" for k, v in charts.items()))
    print("the attribution bars, built and serialised: " + ", ".join(f"{k} {1e3 * v:.1f} ms" for k, v in built.items())
          + " (the same figure through plotly's validating constructor)")
    print("one download written on demand: " + ", ".join(f"{k} {1e3 * v:.1f} ms" for k, v in on_demand.items()))


if __name__ == "__main__":
    main()
