"""What each objective is supervised on, as data for the Classroom tab; the lesson's sentence and the names the
other Classroom modules share.

- `supervised_positions`: from one `Explanation`, position by position, what MLM (BERT) is trained
  on — the masked subset, target = the original token, a softmax over the whole vocabulary — against
  what RTD (ELECTRA) is trained on — every non-padding position, target = original/replaced, one
  logit. The counts are the ones training logs as `supervised_positions`.

RTD's four steps on one sentence: explainer/lesson/walkthrough.py. How hard the generator makes the
discriminator's job (the temperature sweep): explainer/lesson/difficulty.py. The Hugging Face snippet:
explainer/lesson/hf_snippet.py. Pure: no model runs here.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer.core.pipeline import Explanation, Settings

MASK = "[MASK]"  # every ELECTRA tokenizer's mask token; the walk-through shows it by name
TOY_TEXT = "the chef cooked the meal"  # the paper's Figure 2 sentence: five tokens
TOY_SETTINGS = Settings(mode="manual", mask_words=(0, 2))  # Figure 2 masks "the" and "cooked"
PRETRAINING_RATE = 0.15  # the share of tokens ELECTRA's pretraining selects at random (the paper's 15%)

# --- supervised positions -------------------------------------------------------------------


@dataclass(frozen=True)
class SupervisedPosition:
    position: int  # token index
    original: str  # the token in the user's sentence
    special: bool  # [CLS]/[SEP]: never masked, still judged by the discriminator
    mlm: bool  # MLM computes a loss here (one of the positions the masking selected)
    mlm_input: str  # what the MLM model reads here: [MASK], or the token itself (unselected, or among the 15%
    # of selected tokens left unchanged: the official code's rule, `pretrain_helpers.mask` in google-research/electra;
    # the paper's section 2 replaces every selected token with [MASK])
    rtd_input: str  # what the discriminator reads here: the corrupted token
    replaced: bool  # the RTD target: 1 = replaced, 0 = original


@dataclass(frozen=True)
class SupervisedPositions:
    text: str
    positions: tuple[SupervisedPosition, ...]
    vocab_size: int  # MLM's output size at each supervised position (softmax over the vocabulary)

    @property
    def mlm_count(self) -> int:
        return sum(p.mlm for p in self.positions)

    @property
    def rtd_count(self) -> int:
        return len(self.positions)  # one sentence, no padding: every position

    @property
    def rtd_outputs(self) -> int:
        return 1  # one logit per position: sigmoid = P(replaced)


def supervised_positions(explanation: Explanation, vocab_size: int) -> SupervisedPositions:
    """What each objective is trained on, for the sentence and masking of `explanation`."""
    if explanation.settings.mode == "detect":
        raise ValueError("detect-only mode masks nothing: choose automatic or manual masking")
    shown = {m.position: m.shown_as_mask for m in explanation.masked}
    positions = tuple(
        SupervisedPosition(
            t.position, t.original, t.special, t.masked,
            MASK if shown.get(t.position) else t.original, t.corrupted, bool(t.replaced),
        )
        for t in explanation.tokens
    )
    return SupervisedPositions(explanation.text, positions, vocab_size)
