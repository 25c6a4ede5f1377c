"""A race recorded on a borrowed machine (a GPU), in words: the hardware, the budget in FLOPs, the wall time, the
achieved FLOP/s as a share of the machine's measured peak, and the downstream gap with its spread beside the
paper's point. The figures: training.race.device_record.device_run_summary. Escaped Markdown out: no gradio.
"""

from __future__ import annotations

from explainer.render.style import esc
from training.paper import PAPER_POINTS
from training.race.device_record import DeviceRunSummary
from training.race.sizing import flops_text


def _paper_small() -> str:
    glue = {p.model: p for p in PAPER_POINTS}
    electra, bert = glue["ELECTRA-Small"], glue["BERT-Small"]
    return (f"ELECTRA-Small {electra.glue - bert.glue:+.1f} GLUE points over BERT-Small at "
            f"{flops_text(electra.train_flops)} FLOPs")


def _throughput(summary: DeviceRunSummary) -> str:
    if summary.flops_per_second is None:
        return ""
    rate = f"{summary.flops_per_second / 1e12:.3g} TFLOP/s while training"
    if summary.share_of_peak is None or summary.peak_flops_per_second is None:
        return f", {rate}"
    return (f", {rate}: {100 * summary.share_of_peak:.0f}% of its measured {esc(summary.peak_dtype)} peak "
            f"({summary.peak_flops_per_second / 1e12:.3g} TFLOP/s, one large matrix product)")


def device_run_markdown(summary: DeviceRunSummary) -> str:
    """One paragraph on the machine a recorded race ran on and what it showed there."""
    spent = flops_text(summary.spent_flops)
    budget = (f"{spent} training FLOPs per objective" if summary.budget_reached >= 1 else
              f"{spent} training FLOPs per objective ({100 * summary.budget_reached:.0f}% of its planned "
              f"{flops_text(summary.budget_flops)}: the call's deadline stopped both, level)")
    spread = f" ± {100 * summary.gap_spread:.1f}" if summary.gap_spread is not None else ""
    why = " (± the probe's sampling error: one seed)" if spread else " (one seed)"
    return (f"**On one {esc(summary.hardware)}:** {budget} in {summary.wall_seconds / 60:.1f} minutes"
            f"{_throughput(summary)}. ELECTRA − BERT-style: **{100 * summary.gap:+.1f}{spread} points** of probe "
            f"accuracy{why}, ELECTRA {100 * summary.rtd_accuracy:.1f}% against {100 * summary.mlm_accuracy:.1f}%; "
            f"the paper's point, on another benchmark with far more compute: {_paper_small()}.")
