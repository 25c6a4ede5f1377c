"""What the shipped measurements found, in words and one chart: the verdict above the race, the campaign's
table (every setting tried, with seeds), and ELECTRA − BERT-style against FLOPs across every budget measured,
beside the paper's same-compute pairs. No gradio, no torch.
"""

from __future__ import annotations

import plotly.graph_objects as go

from explainer.render.style import FONT, MLM_COLOUR, RTD_COLOUR, esc
from explainer.render.training import FLOOR_COLOUR, figure_layout
from training.paper import PAPER_POINTS
from training.race.campaign import (
    MIN_SEEDS_FOR_A_CLAIM,
    budget_label,
    campaign_verdict,
    same_budget,
    separated,
    standing,
)
from training.race.settings import CPU_RACE_FLOPS, CPU_RACE_MINUTES, DEFAULTS_MEASURED, matches_defaults

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
                   f"every word “original” and learns next to nothing (AUC {auc:.2f}, where 0.5 is guessing; in the "
                   f"discriminator's chart its loss stays on the grey dotted line)." if auc < 0.6 else ".")


def _against_floor(record: dict) -> str:
    """Both encoders against the untrained one (the floor), in one sentence; a difference is called
    only beyond two standard errors of its per-seed values (separated)."""
    mean = lambda k: 100 * record["mean"][k]["mean"]
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
    pct = lambda k: f"{100 * ft[k]['mean']:.1f}%" + (f" ± {100 * ft[k]['sd']:.1f}" if n > 1 else "")
    standing = separated([s["finetune"]["rtd_minus_mlm"] for s in record["seeds"] if s.get("finetune")])
    verdict = {"ahead": "ELECTRA ahead", "behind": "ELECTRA behind",
               "level": "no clear difference" if n > 1 else "one seed: no verdict"}[standing]
    return (f"Fine-tuned in full on the sentiment task ({ft['epochs']} epochs, lr {ft['lr']:g}; {n} seed"
            f"{'s' if n > 1 else ''}), a slower and noisier test than the probe: ELECTRA {pct('rtd')}, BERT-style "
            f"{pct('mlm')}, an untrained encoder {pct('untrained')} "
            f"({verdict}, ELECTRA ahead in {ft['rtd_wins']} of {n}).")


def _longer_races(campaign: dict, mine: dict) -> str:
    """The defaults' settings measured on other budgets (3 seeds or more), in one sentence."""
    budget, amount = mine["settings"].get("budget"), mine["settings"]["amount"]
    others = [r for r in campaign["settings"] if len(r["seeds"]) >= MIN_SEEDS_FOR_A_CLAIM
              and r["settings"].get("budget") == budget and r["settings"]["amount"] > amount
              and matches_defaults({**r["settings"], "amount": amount})]
    gap = lambda r: f"{100 * r['mean']['rtd_minus_mlm']['mean']:+.1f} ± {100 * r['mean']['rtd_minus_mlm']['sd']:.1f}"
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
            f"<td style='text-align:right'>{budget_label(r['settings'])}</td>"
            f"<td style='text-align:right'>{len(r['seeds'])}</td>"
            f"<td style='text-align:right'>{pct(r, 'rtd_probe')}</td>"
            f"<td style='text-align:right'>{pct(r, 'mlm_probe')}</td>"
            f"<td style='text-align:right'>{pct(r, 'floor_probe')}</td>"
            f"<td style='text-align:right;color:{colour}'><b>{100 * gap:+.1f}</b></td>"
            f"<td style='text-align:right'>{r['rtd_wins']} of {len(r['seeds'])}</td>"
            f"<td style='text-align:right'>{'–' if auc is None else f'{auc:.2f}'}</td></tr>")
    head = ("<tr><th style='text-align:left'>setting</th><th>budget per objective</th><th>seeds</th>"
            "<th>ELECTRA probe %</th><th>BERT-style probe %</th><th>untrained %</th><th>ELECTRA − BERT (points)</th>"
            "<th>ELECTRA ahead</th><th>discriminator AUC at the end</th></tr>")
    caption = (f"{verdict['races']} races, {verdict['settings']} settings; each objective trained on the budget "
               "shown (minutes: a race with 2 threads on a 2-core CPU); probe accuracy on 1,706 held-out sentiment "
               "sentences (50% = coin toss; ▾ = below the "
               "untrained encoder: pretraining hurt); an AUC of 0.5 means the discriminator cannot tell replaced "
               "words from original ones.")
    return (f'<div style="{FONT}" id="race-campaign"><table style="border-collapse:collapse;font-size:0.92em">'
            f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
            f'<p style="color:#555;margin:4px 0 0">{esc(caption)}</p></div>')


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
    def where(group: dict) -> str:  # a race on a borrowed GPU says which (its recipe is the one sized for it)
        machines = [s.removeprefix("a race on ") for s in group.get("sources", []) if s.startswith("a race on ")]
        return f" ({', '.join(machines)})" if machines else ""

    parts = [f"{g['flops']:.1e} FLOPs{where(g)}: {100 * g['mean']:+.1f}".replace("e+", "e")
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
    figure.update_layout(title=dict(text="Where does ELECTRA pull ahead?<br>The gap at each budget measured",
                                    font_size=15))
    figure = figure_layout(figure, height)
    figure.update_layout(legend=dict(orientation="h", y=-0.25))
    return figure
