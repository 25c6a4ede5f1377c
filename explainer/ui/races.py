"""What the Training tab's two views (the live race, explainer/ui/training_tab.py, and the replays,
explainer/ui/replay.py) share: this process's one race `MANAGER`, and the help under their charts.

Handlers read `races.MANAGER` at call time, so a test (or a host) can swap the manager here.
"""

from __future__ import annotations

import os

from training.corpus import races_dir
from training.race.manager import RaceManager
from training.race.settings import RaceLimits


def _limits() -> RaceLimits:
    """The server's bound on one race; a host can lower (or raise) it with environment variables."""
    default = RaceLimits()
    return RaceLimits(max_minutes=float(os.environ.get("ELECTRA_RACE_MAX_MINUTES", default.max_minutes)),
                      max_steps=int(os.environ.get("ELECTRA_RACE_MAX_STEPS", default.max_steps)),
                      max_flops=float(os.environ.get("ELECTRA_RACE_MAX_FLOPS", default.max_flops)))


MAX_UPLOAD_MB = float(os.environ.get("ELECTRA_MAX_UPLOAD_MB", 50))  # app.py gives gradio's upload route the same limit
MANAGER = RaceManager(races_dir(), _limits(),
                      max_upload_bytes=int(MAX_UPLOAD_MB * 2**20))

CURVES_HELP = ("**The upper chart:** how well each model guesses hidden words; ELECTRA's generator is smaller, and its "
               "job is only to make plausible replacements. **The lower chart:** the discriminator's own loss, not "
               "comparable with the upper one. The grey dotted line is what it would score by calling every token "
               "“original”: it has only learned something once its loss drops below that line and its AUC rises above "
               "0.5. Under equal FLOPs the MLM baseline takes more steps than ELECTRA (its steps are cheaper: there is "
               "no generator), so its curve is longer against *step*; switch the x-axis to *FLOPs* to line them up.")
PAYOFF_HELP = ("**The payoff.** Each point freezes an encoder checkpoint, averages its word vectors per sentence and "
               "fits a logistic regression that reads positive or negative from them, on short movie-review sentences "
               "never used for pretraining (a *linear probe*, seconds per checkpoint); the score is its accuracy on "
               "other such sentences, and 50% is a coin toss. The dashed line is the same encoder with random weights: "
               "pretraining has helped only above it. Below it, for scale only: the paper's published GLUE scores, a "
               "different benchmark measured with far more compute. Compare the two objectives with each other, not "
               "with the paper.")

# The charts' x-axis choices, (label, the events' field).
X_AXES = [("step", "step"), ("wall-clock", "wall_time"), ("FLOPs", "flops"), ("tokens seen", "tokens")]
