"""The phases of a live class, which its teacher moves on: lobby -> round A -> the reveal, one sentence at a time
-> round B -> results -> ended. Pure rules, no storage: explainer/core/live_class/store.py keeps a class's stage and
applies `check_move` inside the transaction that changes it.

A stage is a phase and, in the reveal, the sentence shown (from 0). The stages of a class of n sentences run in
one line: lobby, round_a, reveal 0 .. reveal n-1, round_b, results, ended. A move goes one stage on; two
shortcuts skip what a teacher may not want: from any sentence of the reveal straight to round B, and from any
stage to ended. Nothing goes back, so a replayed or late move (one made already, or overtaken) is always refused,
with a message that says where the class is.

What each phase lets through (the server decides, because the projector is public):
- answers: round A's only in round_a, round B's only in round_b; none once the class has ended;
- the truth (which words are fakes, what they replaced, ELECTRA's verdicts, scores): nothing before the reveal;
  in the reveal, the sentences up to the one shown; everything from round B on.
"""

from __future__ import annotations

from dataclasses import dataclass

PHASES = ("lobby", "round_a", "reveal", "round_b", "results", "ended")
LABELS = {"lobby": "the lobby", "round_a": "round A", "reveal": "the reveal", "round_b": "round B",
          "results": "the results", "ended": "the end"}
ANSWERED_IN = {"A": "round_a", "B": "round_b"}  # the one phase in which each round's answers are taken


@dataclass(frozen=True)
class Stage:
    phase: str  # one of PHASES
    sentence: int = 0  # in the reveal, the sentence shown (from 0); 0 in every other phase

    def label(self) -> str:
        return f"the reveal of sentence {self.sentence + 1}" if self.phase == "reveal" else LABELS[self.phase]

    def order(self, n_sentences: int) -> int:
        """The stage's place in the class's line of stages (the reveal takes one place per sentence)."""
        k = PHASES.index(self.phase)
        if self.phase == "reveal":
            return 2 + self.sentence
        return k if k < 2 else k - 1 + n_sentences

    def revealed(self, n_sentences: int) -> int:
        """How many sentences' truth this stage shows: the first `revealed` (0 before the reveal)."""
        if self.phase in ("lobby", "round_a"):
            return 0
        return self.sentence + 1 if self.phase == "reveal" else n_sentences


def stage(phase: object, sentence: object = 0, n_sentences: int | None = None) -> Stage:
    """A stage from what a caller sent; ValueError (short, quoting little) for anything else."""
    if phase not in PHASES:
        shown = repr(phase)[:24] if isinstance(phase, str) else type(phase).__name__
        raise ValueError(f"A phase is one of {', '.join(PHASES)}; not {shown}.")
    if phase != "reveal":
        return Stage(str(phase))
    if isinstance(sentence, bool) or not isinstance(sentence, int) or sentence < 0 or (
            n_sentences is not None and sentence >= n_sentences):
        top = f" to {n_sentences - 1}" if n_sentences else ""
        raise ValueError(f"The reveal shows a sentence numbered from 0{top}, not {repr(sentence)[:24]}.")
    return Stage("reveal", sentence)


def next_stages(current: Stage, n_sentences: int) -> tuple[Stage, ...]:
    """Where the teacher may move the class from `current`, the usual next stage first."""
    if current.phase == "ended":
        return ()
    if current.phase == "lobby":
        ahead = (Stage("round_a"),)
    elif current.phase == "round_a":
        ahead = (Stage("reveal", 0),)
    elif current.phase == "reveal":
        more = (Stage("reveal", current.sentence + 1),) if current.sentence + 1 < n_sentences else ()
        ahead = (*more, Stage("round_b"))
    elif current.phase == "round_b":
        ahead = (Stage("results"),)
    else:
        ahead = ()
    return (*ahead, Stage("ended"))


def check_move(current: Stage, target: Stage, n_sentences: int) -> None:
    """ValueError with a short message unless the teacher may move the class from `current` to `target`."""
    allowed = next_stages(current, n_sentences)
    if target in allowed:
        return
    if current.phase == "ended":
        raise ValueError("This class has ended: its phases no longer change.")
    if target == current:
        raise ValueError(f"The class is already at {current.label()}: nothing changed.")
    if target.order(n_sentences) < current.order(n_sentences):
        raise ValueError(f"The class is past {target.label()} (it is at {current.label()}): nothing changed.")
    options = " or ".join(s.label() for s in allowed)
    raise ValueError(f"Out of order: from {current.label()} the class goes to {options}; nothing changed.")


def answer_refusal(current: Stage, round_: str) -> str | None:
    """None when `current` takes answers to `round_` ("A" or "B"); else the message a student gets."""
    if current.phase == ANSWERED_IN[round_]:
        return None
    if current.phase == "ended":
        return "This class has ended: answers are closed. The results stay readable until the class expires."
    if current.phase == "lobby":
        return "The class has not started yet: wait for your teacher to open round A."
    if current.phase == "reveal":
        return f"Round {round_} is not open: the teacher is showing the answers."
    if PHASES.index(current.phase) < PHASES.index(ANSWERED_IN[round_]):
        return f"Round {round_} is not open yet: wait for your teacher."
    return f"Round {round_} is closed: your teacher has moved the class on."
