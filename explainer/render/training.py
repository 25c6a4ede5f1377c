"""A race snapshot (training.race.Race.snapshot) -> plotly figures and escaped HTML for the Training tab.

No gradio here: every view renders without a server, so tests call these functions directly.
- `curves_figure`: the masked-word losses (MLM baseline, ELECTRA's generator) | the discriminator
  (raw RTD loss, accuracy, AUC, and what a discriminator that always answers "original" would score);
- `supervised_figure`: cumulative supervised positions, the "denser signal" made visible;
- `payoff_figure`: linear-probe accuracy vs pretraining FLOPs for both objectives and the untrained
  floor, beside the paper's published points, labelled as the paper's;
- `status_html`, `finetune_html`: one line of where the race is, and the fine-tune results.
Curves are moving averages over the last few steps (per-step losses on small batches are noisy).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explainer.render.style import FONT, MLM_COLOUR, MUTED, RTD_COLOUR, esc
from training.paper import PAPER_POINTS, SHORT_SOURCE
from training.project import PROJECT
from training.race.campaign import (
    MIN_SEEDS_FOR_A_CLAIM,
    budget_label,
    budget_text,
    campaign_verdict,
    same_budget,
    separated,
    standing,
)
from training.race.settings import CPU_RACE_FLOPS, CPU_RACE_MINUTES, DEFAULTS_MEASURED, matches_defaults

FLOOR_COLOUR = MUTED  # the untrained encoder, guides
NAMES = {"rtd": "ELECTRA (RTD)", "mlm": "BERT-style (MLM)"}
X_AXES = {  # x-axis choice -> (event key, axis title)
    "step": ("step", "training step"),
    "wall_time": ("wall_time", "wall-clock time since the start (s)"),
    "flops": ("flops", "training FLOPs used"),
    "tokens": ("tokens", "tokens seen"),
}
MAX_POINTS = 400  # per curve: enough for the eye, small enough to send every second
SMOOTH = 10  # steps in the moving average


def _thin(xs: list, ys: list) -> tuple[list, list]:
    """At most MAX_POINTS evenly spaced points, always keeping the last."""
    if len(xs) <= MAX_POINTS:
        return xs, ys
    keep = sorted(set(np.linspace(0, len(xs) - 1, MAX_POINTS).round().astype(int).tolist()))
    return [xs[i] for i in keep], [ys[i] for i in keep]


def _series(events: list[dict], x_key: str, y_key: str, smooth: bool = True) -> tuple[list, list]:
    points = [(e[x_key], e[y_key]) for e in events if e.get(y_key) is not None and e.get(x_key) is not None]
    if not points:
        return [], []
    xs, ys = map(list, zip(*points))
    if smooth and len(ys) > 1:
        cumulative = np.cumsum(np.insert(np.asarray(ys, dtype=float), 0, 0.0))
        window = np.minimum(np.arange(1, len(ys) + 1), SMOOTH)
        ys = ((cumulative[1:] - cumulative[np.arange(len(ys)) + 1 - window]) / window).tolist()  # trailing mean
    return _thin(xs, ys)


def _empty(figure: go.Figure, text: str) -> go.Figure:
    figure.add_annotation(text=text, xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False, font=dict(size=15))
    return figure


def _base_rate_loss(p: float) -> float:
    """BCE of a discriminator that always outputs the replaced fraction p (= calls every token original)."""
    return -(p * math.log(p) + (1 - p) * math.log(1 - p)) if 0 < p < 1 else 0.0


def curves_figure(snapshot: dict | None, x_axis: str = "step") -> go.Figure:
    x_key, x_title = X_AXES.get(x_axis, X_AXES["step"])
    figure = make_subplots(rows=1, cols=2, horizontal_spacing=0.12, specs=[[{}, {"secondary_y": True}]],
                           subplot_titles=("Masked-word loss (lower = better guesses)",
                                           "ELECTRA's discriminator: replaced or original?"))
    events = (snapshot or {}).get("events") or {}
    rtd, mlm = events.get("rtd") or [], events.get("mlm") or []
    if not rtd and not mlm:
        return _layout(_empty(figure, "No race yet: start one above."), 430)
    for name, data, colour, dash in (("MLM baseline (BERT-style)", mlm, MLM_COLOUR, "solid"),
                                     ("ELECTRA's generator (its MLM loss)", rtd, RTD_COLOUR, "dash")):
        xs, ys = _series(data, x_key, "mlm_loss")
        figure.add_trace(go.Scatter(x=xs, y=ys, name=name, mode="lines", line=dict(color=colour, dash=dash, width=2.5)), 1, 1)
    xs, ys = _series(rtd, x_key, "disc_loss")
    figure.add_trace(go.Scatter(x=xs, y=ys, name="discriminator loss (raw BCE, not ×50)", mode="lines",
                                line=dict(color=RTD_COLOUR, width=2.5)), 1, 2)
    replaced = [e["replaced_fraction"] for e in rtd[-50:] if e.get("replaced_fraction") is not None]
    if replaced and xs:
        guess = _base_rate_loss(sum(replaced) / len(replaced))
        figure.add_trace(go.Scatter(x=[xs[0], xs[-1]], y=[guess, guess], mode="lines", line=dict(color=FLOOR_COLOUR, dash="dot"),
                                    name="loss of always answering “original”", hoverinfo="skip"), 1, 2)
    for key, name, colour in (("disc_accuracy", "discriminator accuracy", "#1b7837"), ("disc_auc", "discriminator AUC", "#762a83")):
        xs, ys = _series(rtd, x_key, key)
        figure.add_trace(go.Scatter(x=xs, y=ys, name=name, mode="lines", line=dict(color=colour, width=1.8)), 1, 2,
                         secondary_y=True)
    figure.update_xaxes(title_text=x_title)
    figure.update_yaxes(title_text="cross-entropy on masked words", row=1, col=1)
    figure.update_yaxes(title_text="loss (BCE per token)", row=1, col=2, secondary_y=False, rangemode="tozero")
    figure.update_yaxes(title_text="accuracy, AUC", row=1, col=2, secondary_y=True, range=[0, 1.02], showgrid=False)
    return _layout(figure, 430)


def supervised_figure(snapshot: dict | None, x_axis: str = "step") -> go.Figure:
    x_key, x_title = X_AXES.get(x_axis, X_AXES["step"])
    figure = go.Figure()
    events = (snapshot or {}).get("events") or {}
    if not any(events.values()):
        return _layout(_empty(figure, "No race yet."), 320)
    totals = {}
    for objective, colour in (("rtd", RTD_COLOUR), ("mlm", MLM_COLOUR)):
        xs, ys = _series(events.get(objective) or [], x_key, "supervised_positions", smooth=False)
        totals[objective] = ys[-1] if ys else 0
        figure.add_trace(go.Scatter(x=xs, y=ys, name=NAMES[objective], mode="lines", line=dict(color=colour, width=2.5)))
    ratio = f" — {totals['rtd'] / totals['mlm']:.1f}× as many for RTD" if totals["mlm"] else ""
    figure.update_layout(title=f"Positions that gave a learning signal, so far{ratio}")
    figure.update_xaxes(title_text=x_title)
    figure.update_yaxes(title_text="supervised positions (cumulative)", rangemode="tozero")
    return _layout(figure, 320)


def payoff_figure(snapshot: dict | None) -> go.Figure:
    """Left: this race's probes (and full fine-tunes) vs FLOPs. Right: the paper's points, for scale."""
    figure = make_subplots(rows=1, cols=2, column_widths=[0.6, 0.4], horizontal_spacing=0.12, subplot_titles=(
        "This race: what each encoder is worth downstream", "For scale only: the paper's published results"))
    snapshot = snapshot or {}
    probes, floor = snapshot.get("probes") or [], snapshot.get("floor")
    if probes:
        for objective, colour in (("rtd", RTD_COLOUR), ("mlm", MLM_COLOUR)):
            mine = sorted((p for p in probes if p["objective"] == objective), key=lambda p: p["step"])
            figure.add_trace(go.Scatter(
                x=[p["flops"] for p in mine], y=[100 * p["accuracy"] for p in mine], mode="lines+markers",
                name=f"{NAMES[objective]}, linear probe", line=dict(color=colour, width=2.5), customdata=[p["step"] for p in mine],
                hovertemplate="step %{customdata}: %{x:.2e} FLOPs, %{y:.1f}%<extra></extra>"), 1, 1)
        if floor:
            xs = [p["flops"] for p in probes if p["flops"] > 0]
            figure.add_trace(go.Scatter(x=[min(xs), max(xs)], y=[100 * floor["accuracy"]] * 2, mode="lines",
                                        line=dict(color=FLOOR_COLOUR, dash="dash"), name="untrained encoder (the floor)"), 1, 1)
        tuned = ((snapshot.get("extras") or {}).get("finetune") or {}).get("results") or {}
        for objective, colour in (("rtd", RTD_COLOUR), ("mlm", MLM_COLOUR)):
            last = max((p for p in probes if p["objective"] == objective), key=lambda p: p["step"], default=None)
            if objective in tuned and last:
                figure.add_trace(go.Scatter(x=[last["flops"]], y=[100 * tuned[objective]["accuracy"]], mode="markers",
                                            marker=dict(color=colour, symbol="star", size=15),
                                            name=f"{NAMES[objective]}, full fine-tune"), 1, 1)
        figure.update_xaxes(type="log", title_text="pretraining FLOPs (log scale)", row=1, col=1, exponentformat="power")
        figure.update_yaxes(title_text="accuracy on held-out review sentences (%)", row=1, col=1)
    else:
        figure.add_annotation(text="The probe scores appear here during the race.", xref="x domain", yref="y domain",
                              x=0.5, y=0.5, showarrow=False, font=dict(size=14))
        figure.update_xaxes(visible=False, row=1, col=1)
        figure.update_yaxes(visible=False, row=1, col=1)
    for objective, colour, label in (("RTD", RTD_COLOUR, "the paper's ELECTRA"), ("MLM", MLM_COLOUR, "the paper's BERT")):
        points = [p for p in PAPER_POINTS if p.objective == objective]
        figure.add_trace(go.Scatter(
            x=[p.train_flops for p in points], y=[p.glue for p in points], mode="markers+text", name=label,
            text=[p.model for p in points], textposition=["middle right" if p.train_flops < 1e19 else "middle left" for p in points],
            marker=dict(color=colour, size=12, symbol="diamond-open" if objective == "RTD" else "circle-open", line=dict(width=2)),
            hovertemplate="%{text} (paper): %{x:.1e} FLOPs, GLUE %{y}<extra></extra>"), 1, 2)
    figure.update_xaxes(type="log", title_text="pretraining FLOPs (log scale)", row=1, col=2, range=[17.7, 20.5],
                        exponentformat="power")
    figure.update_yaxes(title_text="GLUE dev score (the paper's benchmark)", row=1, col=2, range=[72, 88])
    figure.add_annotation(text=f"{esc(SHORT_SOURCE)}<br>not measured by this app", xref="x2 domain", yref="y2 domain",
                          x=0.02, y=0.02, xanchor="left", yanchor="bottom", showarrow=False, font=dict(size=11, color=FLOOR_COLOUR))
    return _layout(figure, 440)


def _layout(figure: go.Figure, height: int) -> go.Figure:
    figure.update_layout(height=height, template="plotly_white", margin=dict(l=10, r=10, t=60, b=10),
                         legend=dict(orientation="h", y=-0.22), uirevision="race")  # keep the user's zoom on refresh
    return figure


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else f"{seconds // 60}:{seconds % 60:02d}"


def _rate(events: list[dict]) -> float | None:
    """Tokens per second over this objective's last 20 steps, its own compute time only."""
    recent = [e for e in events[-21:] if e.get("compute_seconds") is not None]
    if len(recent) < 2 or recent[-1]["compute_seconds"] <= recent[0]["compute_seconds"]:
        return recent[-1].get("tokens_per_second") if recent else None
    return (recent[-1]["tokens"] - recent[0]["tokens"]) / (recent[-1]["compute_seconds"] - recent[0]["compute_seconds"])


def _shown_folder(folder: str) -> str:
    """The race folder as a visitor may see it: relative to the project (runs/races/...), else its
    name alone; never the server's absolute path."""
    path, project = Path(folder), PROJECT
    return str(path.relative_to(project)) if path.is_relative_to(project) else path.name


def status_html(snapshot: dict | None) -> str:
    if not snapshot:
        return f'<p style="{FONT}" id="race-status-line">No race yet on this server.</p>'
    events, settings = snapshot["events"], snapshot["settings"]
    parts = []
    for objective in ("rtd", "mlm"):
        last = (events.get(objective) or [None])[-1]
        if last:
            rate = _rate(events[objective])
            parts.append(f"{objective.upper()} step {last['step']:,}" + (f" ({rate:,.0f} tokens/s)" if rate else ""))
    where = " · ".join(parts) or "loading data and building the models…"
    elapsed, progress = snapshot["elapsed"], snapshot.get("progress") or 0.0
    status = snapshot["status"]
    if status in ("waiting", "running"):
        head = "⏹ Stopping after the current step…" if snapshot["stopping"] else "● Running"
        eta = f" · about {_clock(elapsed * (1 - progress) / progress)} left" if progress > 0.02 else ""
        text = f"{head} · {where} · elapsed {_clock(elapsed)}{eta}"
    elif status == "failed":
        text = f"✗ The race failed: {esc(snapshot['error'] or 'unknown error')}"
    elif status == "interrupted":  # the server restarted mid-race: what reached the disk, read-only
        text = (f"⚠ Interrupted: the server stopped during this race · {where} (as saved) · "
                f"models as last checkpointed in {esc(_shown_folder(snapshot['folder']))}")
    else:
        head = "■ Stopped" if status == "stopped" else "✓ Finished"
        text = f"{head} after {_clock(elapsed)} · {where} · models saved in {esc(_shown_folder(snapshot['folder']))}"
    budget = f"{settings['amount']:g} {settings['budget']}" + (" per objective" if settings["budget"] != "minutes" else "")
    detail = f"{esc(settings['preset'])} preset, seed {settings['seed']}, budget {budget}, on {esc(snapshot['device'])}"
    return (f'<div style="{FONT}" id="race-status"><p id="race-status-line" style="font-size: 1.05em; margin: 0">'
            f"<b>{text}</b></p><p style=\"margin: 2px 0 0; color: #555\">{detail}</p></div>")


def finetune_html(snapshot: dict | None) -> str:
    state = ((snapshot or {}).get("extras") or {}).get("finetune")
    if not state:
        return ""
    rows = "".join(f"<li>{esc(name)}: <b>{100 * r['accuracy']:.1f}%</b> ({r['seconds'] / 60:.1f} min)</li>"
                   for name, r in state.get("results", {}).items())
    head = {"running": "Fine-tuning… (the encoders one after the other)", "finished": "Full fine-tune finished",
            "failed": f"Fine-tune failed: {esc(state.get('error', ''))}",
            "interrupted": "Fine-tune interrupted: the server stopped while it ran"}.get(state.get("status"), "")
    return f'<div style="{FONT}" id="race-finetune"><p><b>{head}</b></p><ul>{rows}</ul></div>'


# --- the measurement campaign behind the defaults (assets/race_campaign.json, bench/race_search.py) ---

# --- the verdict above the race: what the shipped measurements found ----------------------------------

PROVISIONAL = """
> **These CPU settings are provisional: no race on a CPU has yet been measured to favour ELECTRA.**
> The paper's advantage was measured at 1.4e18 training FLOPs; the payoff chart below puts this race's
> FLOPs beside that. Watch whether the discriminator's loss drops below the grey dotted line: until it
> does, it has learned nothing.
"""

def _paper_contrast(campaign: dict, shown: dict | None) -> str:
    """One sentence on the race at the paper's temperature 1 (a "temp1" record, on the budget of `shown`
    when there is one), unless that is the record already described or was not measured."""
    papers = [r for r in campaign["settings"] if r["name"] == "temp1"]
    if shown is not None:
        papers.sort(key=lambda r: not same_budget(r, shown))
    paper = papers[0] if papers else None
    if paper is None or paper is shown:
        return ""
    gap, sd = (100 * paper["mean"]["rtd_minus_mlm"][k] for k in ("mean", "sd"))
    n, auc = len(paper["seeds"]), paper["mean"]["disc_auc"]["mean"]
    text = (f"At temperature 1 (the paper's), ELECTRA − BERT is {gap:+.1f}" + (f" ± {sd:.1f}" if n > 1 else "")
            + f" points over {n} seed{'s' if n > 1 else ''}")
    return text + (f": its discriminator, trained from scratch, finds the replacements too plausible to spot, calls "
                   f"every word “original” and learns next to nothing (AUC {auc:.2f}, where 0.5 is guessing; on the "
                   f"right-hand chart its loss stays on the grey dotted line)." if auc < 0.6 else ".")


def _against_floor(record: dict) -> str:
    """Both encoders against the untrained one (the floor), in one sentence; a difference is called
    only beyond two standard errors of its per-seed values (separated)."""
    mean = lambda k: 100 * record["mean"][k]["mean"]  # noqa: E731
    text = (f"Probe accuracy: ELECTRA {mean('rtd_probe'):.1f}%, BERT-style {mean('mlm_probe'):.1f}%, an untrained "
            f"encoder {mean('floor_probe'):.1f}%")
    above = {side: separated([s[f"{side}_probe"] - s["floor_probe"] for s in record["seeds"]]) == "ahead"
             for side in ("rtd", "mlm")}
    if len(record["seeds"]) < 2:
        return text + "."
    if above["rtd"] and above["mlm"]:
        return text + ": both pretrained encoders beat an untrained one."
    if above["rtd"]:
        return text + ": at this budget only ELECTRA's encoder is clearly better than an untrained one."
    if above["mlm"]:
        return text + ": at this budget only the BERT-style encoder is clearly better than an untrained one."
    return text + ": at this budget neither pretrained encoder is clearly better than an untrained one."


def _finetuned(record: dict) -> str:
    """The full fine-tune (`race --finetune`) of the record's encoders, when some seeds have one."""
    ft = record.get("finetune")
    if not ft:
        return ""
    n = ft["seeds"]
    pct = lambda k: f"{100 * ft[k]['mean']:.1f}%" + (f" ± {100 * ft[k]['sd']:.1f}" if n > 1 else "")  # noqa: E731
    standing = separated([s["finetune"]["rtd_minus_mlm"] for s in record["seeds"] if s.get("finetune")])
    verdict = {"ahead": "ELECTRA ahead", "behind": "ELECTRA behind",
               "level": "no clear difference" if n > 1 else "one seed: no verdict"}[standing]
    return (f"Fine-tuned in full on the sentiment task ({ft['epochs']} epochs, lr {ft['lr']:g}; {n} seed"
            f"{'s' if n > 1 else ''}), a slower and noisier test than the probe: ELECTRA {pct('rtd')}, BERT-style "
            f"{pct('mlm')}, an untrained encoder {pct('untrained')} ({verdict}, ELECTRA ahead in {ft['rtd_wins']} of {n}).")


def _longer_races(campaign: dict, mine: dict) -> str:
    """The defaults' settings measured on other budgets (3 seeds or more), in one sentence."""
    budget, amount = mine["settings"].get("budget"), mine["settings"]["amount"]
    others = [r for r in campaign["settings"] if len(r["seeds"]) >= MIN_SEEDS_FOR_A_CLAIM
              and r["settings"].get("budget") == budget and r["settings"]["amount"] > amount
              and matches_defaults({**r["settings"], "amount": amount})]
    gap = lambda r: f"{100 * r['mean']['rtd_minus_mlm']['mean']:+.1f} ± {100 * r['mean']['rtd_minus_mlm']['sd']:.1f}"  # noqa: E731
    parts = [f"on {budget_label(r['settings'])}, {gap(r)} over {len(r['seeds'])} seeds (ahead in {r['rtd_wins']})"
             for r in sorted(others, key=lambda r: r["settings"]["amount"])]
    return " The same settings in a longer race: " + "; ".join(parts) + "." if parts else ""


def _quote(header: str, points: list[str]) -> str:
    """The verdict as a block quote: a bold headline, then one bullet per finding (empty ones dropped)."""
    bullets = "".join(f"\n> - {p.strip()}" for p in points if p.strip())
    return f"> **Measured on this CPU: {header}**\n>{bullets}"


def verdict_markdown(campaign: dict | None) -> str:
    """What the measurements say about RTD vs MLM on a CPU, in plain words, from the campaign's numbers."""
    verdict = campaign_verdict(campaign)
    if verdict is None or not DEFAULTS_MEASURED:
        return PROVISIONAL
    best = verdict["best"]
    gap, sd = (100 * best["mean"]["rtd_minus_mlm"][k] for k in ("mean", "sd"))
    n = len(best["seeds"])
    tried = f"We tried {verdict['settings']} settings in {verdict['races']} races: the table below lists them all."
    if verdict["shown"]:
        temperature = best["settings"].get("temperature", 1.0)
        why = (f"What makes the difference: ELECTRA's generator samples its replacements at temperature "
               f"{temperature:g}, which makes them less plausible: a discriminator trained from scratch needs "
               f"replacements it can learn to catch before it can learn subtle ones." if temperature != 1.0
               else f"The setting: {best['change']}.")
        where = "with these defaults" if matches_defaults(best["settings"]) else f"with one setting ({best['change']})"
        return _quote(f"{where} ELECTRA's encoder beats the BERT-style one at equal compute.", [
            f"By {gap:+.1f} ± {sd:.1f} points of probe accuracy, ahead in all {n} seeds.", _against_floor(best),
            _finetuned(best), why,
            _paper_contrast(campaign, best), _longer_races(campaign, best),
            f"The paper's gap (79.9 vs 75.1 GLUE) was measured with {1.4e18 / best['settings']['amount']:,.0f}× "
            f"this race's compute.", tried])
    mine = [r for r in campaign["settings"] if matches_defaults(r["settings"])]
    race = f"in a race of {CPU_RACE_MINUTES} minutes"
    header = f"{race} ELECTRA does not clearly beat the BERT-style baseline."
    points = []
    if mine:  # the defaults' own record: the race a visitor starts
        mine = max(mine, key=lambda r: len(r["seeds"]))
        gap, sd = (100 * mine["mean"]["rtd_minus_mlm"][k] for k in ("mean", "sd"))
        n, wins = len(mine["seeds"]), mine["rtd_wins"]
        side = standing(mine)
        if side == "ahead":
            header = (f"{race} ELECTRA's encoder comes out ahead of the BERT-style one on average, by a small "
                      f"margin, though not in every seed.")
        level = {"ahead": "ahead", "level": "level with it", "behind": "behind"}[side]
        headline = (f"With these defaults ELECTRA is {level}: {gap:+.1f} ± {sd:.1f} points of probe accuracy over "
                    f"{n} seeds (ahead in {wins} of {n}).")
        temperature = mine["settings"].get("temperature", 1.0)
        if temperature != 1.0:
            headline += (f" Getting there took one change from the paper's recipe: the generator samples its "
                         f"replacements at temperature {temperature:g}, which makes them easier to spot.")
        points = [headline, _against_floor(mine), _finetuned(mine), _longer_races(campaign, mine)]
    else:
        auc = best["mean"]["disc_auc"]["mean"]
        points = [f"The best setting for ELECTRA ({best['change']}) left it {gap:+.1f} ± {sd:.1f} points from the "
                  f"baseline (ahead in {best['rtd_wins']} of {n} seeds; discriminator AUC {auc:.2f})."]
    scale = f"{1.4e18 / (mine or best)['settings']['amount']:,.0f}"
    return _quote(header, [
        *points, _paper_contrast(campaign, mine or None),
        f"{tried} The paper's advantage was measured with {scale}× this race's compute.",
        "What the race does show at any scale: ELECTRA gets a training signal from every token, the baseline from "
        "~15%. To see a trained discriminator at work, use the Explore tab: its bundled model was warm-started from "
        "a pretrained encoder."])


def campaign_html(campaign: dict | None) -> str:
    """The campaign as a table: each setting tried, its seeds, both probes, the floor, the gap."""
    verdict = campaign_verdict(campaign)
    if verdict is None:
        return f'<p style="{FONT}">No measurements recorded yet (run bench/race_search.py).</p>'

    def pct(record: dict, key: str) -> str:
        m = record["mean"][key]
        sd = f" ± {100 * m['sd']:.1f}" if len(record["seeds"]) > 1 else ""
        below = key != "floor_probe" and m["mean"] < record["mean"]["floor_probe"]["mean"]
        return f"{100 * m['mean']:.1f}{sd}" + (" ▾" if below else "")

    def order(r: dict) -> tuple:  # the default's budget first, then larger budgets; best gap first
        amount = r["settings"].get("amount") or 0
        return (amount != CPU_RACE_FLOPS, amount, -r["mean"]["rtd_minus_mlm"]["mean"])

    rows = []
    for r in sorted(campaign["settings"], key=order):
        gap = r["mean"]["rtd_minus_mlm"]["mean"]
        colour = RTD_COLOUR if gap > 0 else MLM_COLOUR
        auc = r["mean"].get("disc_auc", {}).get("mean")
        rows.append(
            f"<tr><td>{esc(r.get('change') or r['name'])}"
            f"{' <b>(the default)</b>' if matches_defaults(r['settings']) else ''}</td>"
            f"<td style='text-align:right'>{budget_label(r['settings'])}</td><td style='text-align:right'>{len(r['seeds'])}</td>"
            f"<td style='text-align:right'>{pct(r, 'rtd_probe')}</td><td style='text-align:right'>{pct(r, 'mlm_probe')}</td>"
            f"<td style='text-align:right'>{pct(r, 'floor_probe')}</td>"
            f"<td style='text-align:right;color:{colour}'><b>{100 * gap:+.1f}</b></td>"
            f"<td style='text-align:right'>{r['rtd_wins']} of {len(r['seeds'])}</td>"
            f"<td style='text-align:right'>{'–' if auc is None else f'{auc:.2f}'}</td></tr>")
    head = ("<tr><th style='text-align:left'>setting</th><th>budget per objective</th><th>seeds</th>"
            "<th>ELECTRA probe %</th><th>BERT-style probe %</th><th>untrained %</th><th>ELECTRA − BERT (points)</th>"
            "<th>ELECTRA ahead</th><th>discriminator AUC at the end</th></tr>")
    caption = (f"{verdict['races']} races, {verdict['settings']} settings; each objective trained on the budget "
               f"shown (minutes: a race with 2 threads on a 2-core CPU); probe accuracy on 1,706 held-out sentiment sentences (50% = coin toss; ▾ = below the "
               "untrained encoder: pretraining hurt); an AUC of 0.5 means the discriminator cannot tell replaced "
               "words from original ones.")
    return (f'<div style="{FONT}" id="race-campaign"><table style="border-collapse:collapse;font-size:0.92em">'
            f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
            f'<p style="color:#555;margin:4px 0 0">{esc(caption)}</p></div>')


def replay_status_html(snapshot: dict, record: dict, playing: bool) -> str:
    """Where a replay stands: playing or paused, each objective's step, the race clock, the probes so far."""
    position, events = snapshot["progress"], snapshot["events"]
    parts = [f"{objective.upper()} step {events[objective][-1]['step']:,}" for objective in ("rtd", "mlm")
             if events.get(objective)]
    head = "▶ Replaying" if playing and position < 1 else ("✓ End of the recording" if position >= 1 else "⏸ Paused")
    probes = len(snapshot["probes"])
    clock = f"race clock {_clock(snapshot['elapsed'])} of {_clock(record.get('elapsed') or 0)}"
    line = " · ".join([head, f"{100 * position:.0f}%", *parts, clock,
                       f"{probes} probe{'s' if probes != 1 else ''} so far" if position < 1 else f"{probes} probes"])
    settings = record["settings"]
    when = f" on {esc(str(record['started'])[:10])}" if record.get("started") else ""
    corpus = str(settings.get("corpus") or "")
    corpus = corpus if corpus.replace("+", "").isalpha() else "uploaded"  # never a server path
    detail = (f"Recorded race “{esc(record['title'])}”: {esc(settings['preset'])} preset, {esc(corpus)} text"
              f", seed {settings['seed']}, budget {esc(budget_text(settings))}, pace: equal {esc(settings['pace'])}; "
              f"run on {esc(record.get('device') or 'an unknown device')}{when}")
    about = f'<p style="margin: 2px 0 0; color: #555">{esc(record["description"])}</p>' if record.get("description") else ""
    return (f'<div style="{FONT}" id="replay-status"><p id="replay-status-line" style="font-size: 1.05em; margin: 0">'
            f"<b>{esc(line)}</b></p><p style=\"margin: 2px 0 0; color: #555\">{detail}</p>{about}</div>")


def _paper_gaps() -> list[tuple[str, float, float]]:
    """(label, FLOPs, ELECTRA - BERT in GLUE points) for the paper's same-compute pairs."""
    glue = {p.model: p for p in PAPER_POINTS}
    return [(size, glue[f"ELECTRA-{size}"].train_flops, glue[f"ELECTRA-{size}"].glue - glue[f"BERT-{size}"].glue)
            for size in ("Small", "Base") if f"ELECTRA-{size}" in glue and f"BERT-{size}" in glue]


def gap_traces(groups: list[dict], mine: dict | None = None) -> list[go.Scatter]:
    """This app's races per budget (every seed, and their mean ± sd) and the user's own race (a star)."""
    traces = []
    if groups:
        traces.append(go.Scatter(
            x=[g["flops"] for g in groups for _ in g["gaps"]], y=[100 * v for g in groups for v in g["gaps"]],
            mode="markers", name="one race (one seed)", marker=dict(color=RTD_COLOUR, size=7, opacity=0.45),
            hovertemplate="%{x:.1e} FLOPs: %{y:+.1f} points<extra>one seed</extra>"))
        traces.append(go.Scatter(
            x=[g["flops"] for g in groups], y=[100 * g["mean"] for g in groups], mode="markers",
            name="this app's races: mean ± sd over seeds", marker=dict(color=RTD_COLOUR, size=13, symbol="diamond"),
            error_y=dict(type="data", array=[100 * g["sd"] for g in groups], visible=True, color=RTD_COLOUR),
            customdata=[g["n"] for g in groups],
            hovertemplate="%{x:.1e} FLOPs: %{y:+.1f} points over %{customdata} seeds<extra></extra>"))
    if mine is not None:
        traces.append(go.Scatter(
            x=[mine["flops"]], y=[100 * mine["gap"]], mode="markers", name="your race (Training tab)",
            marker=dict(color="#111", size=16, symbol="star"),
            hovertemplate="your race: %{x:.1e} FLOPs, %{y:+.1f} points<extra></extra>"))
    return traces


def gaps_caption(groups: list[dict]) -> str:
    """The figures behind the gap chart in one sentence (escaped text)."""
    if not groups:
        return ""
    parts = [f"{g['flops']:.1e} FLOPs: {100 * g['mean']:+.1f}".replace("e+", "e")
             + (f" ± {100 * g['sd']:.1f} points over {g['n']} seeds" if g["n"] > 1 else " points (1 seed)")
             for g in groups]
    paper = "; ".join(f"{size} +{gap:.1f}" for size, _, gap in _paper_gaps())
    return esc(f"ELECTRA − BERT-style probe accuracy with the default recipe, by budget per objective: "
               f"{'; '.join(parts)}. The paper's same-compute pairs, on GLUE at 1e18 FLOPs and more: {paper}.")


def gap_figure(groups: list[dict], mine: dict | None = None, height: int = 420) -> go.Figure:
    """ELECTRA − BERT-style against pretraining FLOPs: this app's races per budget (every seed, their
    mean ± sd), the user's own race when there is one, and the paper's same-compute pairs for scale."""
    figure = go.Figure()
    figure.add_hline(y=0, line=dict(color=FLOOR_COLOUR, dash="dot"))
    for trace in gap_traces(groups, mine):
        figure.add_trace(trace)
    paper = _paper_gaps()
    figure.add_trace(go.Scatter(
        x=[f for _, f, _ in paper], y=[g for _, _, g in paper], mode="markers+text",
        name="the paper: ELECTRA − BERT, GLUE points (for scale)", text=[f"{s}: +{g:.1f}" for s, _, g in paper],
        textposition="middle left", marker=dict(color=MLM_COLOUR, size=12, symbol="diamond-open", line=dict(width=2)),
        hovertemplate="the paper, %{text}: %{x:.1e} FLOPs<extra>GLUE dev, not this app's task</extra>"))
    if not groups and mine is None:
        figure.add_annotation(text="No measured race is installed.", xref="paper", yref="paper", x=0.3, y=0.5,
                              showarrow=False, font=dict(size=14, color="#555"))
    figure.update_xaxes(type="log", title_text="pretraining FLOPs per objective (log scale)", exponentformat="power",
                        range=[12.7, 20.3])
    figure.update_yaxes(title_text="ELECTRA − BERT-style (points)", zeroline=False)
    figure.update_layout(title="Where does ELECTRA pull ahead? The gap at each budget measured")
    figure = _layout(figure, height)
    figure.update_layout(legend=dict(orientation="h", y=-0.25))
    return figure
