"""What a student's phone says in a live class, phase by phase (explainer/render/live_class/phone.py), and round B
on the phone (explainer/ui/live_class/student.py) on the tiny seeded pair: the verdict of an edit takes the form's
place until "Next sentence →", a bet is the student's own choice (none is made for them), and the teacher's armed
"Yes, end the class" goes back by itself or on Cancel. The projector's lobby tells a student what to type."""

from __future__ import annotations

import pytest

from explainer.lesson.live_class import session
from explainer.render.live_class import phone

N = 5


def mine(phase: str, reveal: int = 0, answered: tuple[int, ...] = (0, 1, 2, 3, 4), points: int = -5,
         answered_b: tuple[int, ...] = ()) -> session.StudentRound:
    return session.StudentRound("ABCDEF", "Ana", phase, reveal, N, (("a", "b"),) * N, (), (), answered, answered_b,
                                (), points)


@pytest.mark.parametrize(("phase", "reveal", "answered", "points", "said"), [
    ("lobby", 0, (), 0, "Round A: 0 of 5 sentences answered.</p>"),
    ("round_a", 0, (0, 1), 0, "Round A: 2 of 5 sentences answered.</p>"),
    ("reveal", 1, (0, 1, 2, 3, 4), -1, "answered, <b>-1</b> point so far (2 of 5 sentences revealed)."),
    ("reveal", 0, (), 0, "Round A: 0 of 5 sentences answered.</p>"),  # nothing answered: no points to speak of
    ("round_b", 0, (0, 1, 2, 3, 4), -5, "5 of 5 sentences answered, <b>-5</b> points in all. Round B: 0 of 5"),
    ("results", 0, (0, 2), 2, "2 of 5 sentences answered, <b>+2</b> points in all. Round B: 0 of 5"),
    ("ended", 0, (0,), 0, "1 of 5 sentences answered, <b>+0</b> points in all. Round B: 0 of 5"),
])
def test_the_score_line_says_what_its_points_count_in_every_phase(phase, reveal, answered, points, said):
    """Round B opened after 2 reveals scores all 5 sentences: the line never says "on the 5 revealed"."""
    html = phone.student_status_html(mine(phase, reveal, answered, points))
    assert said in html and "on the" not in html
