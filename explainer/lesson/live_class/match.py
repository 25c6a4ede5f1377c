"""Who won a live class: the class against ELECTRA over both rounds, by one rule the results state in words.

- Round A, spot the fakes: the class's points are the sum of every student's answer (one point per fake caught,
  minus one per false alarm); ELECTRA's are its own points on each sentence, counted once per answer, so the
  two sums compare the same answers (`TeacherView.class_total`, `electra_total`).
- Round B, fool ELECTRA: a duel per edit. An edit ELECTRA did not flag (P(replaced) not above 50%, the line every
  screen shows) is a point for the class; an edit it flagged is a point for ELECTRA. Students' bets are shown,
  not scored: they are a prediction about ELECTRA, not a move against it.

The winner is who has more points over both rounds. Pure: it reads the teacher's view
(explainer/lesson/live_class/teacher_view.py); the projector (explainer/render/live_class/projector.py) and the
results files show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explainer.lesson.live_class.teacher_view import TeacherView

RULE_A = "Round A: a point per fake caught, minus one per false alarm; ELECTRA judged on the same answers."
RULE_B = "Round B: a point for the class per edit that fooled ELECTRA, a point for ELECTRA per edit it flagged."


@dataclass(frozen=True)
class Match:
    class_a: int
    electra_a: int
    class_b: int  # edits that fooled ELECTRA
    electra_b: int  # edits ELECTRA flagged

    @property
    def class_points(self) -> int:
        return self.class_a + self.class_b

    @property
    def electra_points(self) -> int:
        return self.electra_a + self.electra_b

    @property
    def winner(self) -> str:
        """"class", "electra" or "level"."""
        lead = self.class_points - self.electra_points
        return "class" if lead > 0 else "electra" if lead < 0 else "level"

    def as_dict(self) -> dict:
        return {"round_a": {"class": self.class_a, "electra": self.electra_a, "rule": RULE_A},
                "round_b": {"class": self.class_b, "electra": self.electra_b, "rule": RULE_B},
                "total": {"class": self.class_points, "electra": self.electra_points}, "winner": self.winner}


def match(view: TeacherView) -> Match:
    """The class against ELECTRA over round A's revealed answers and round B's edits so far."""
    return Match(view.class_total.points, view.electra_total.points, view.fool_fooled,
                 view.fool_tries - view.fool_fooled)
