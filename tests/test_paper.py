"""The paper's numbers and claims as the classroom states them, and the efficiency figure."""

from __future__ import annotations

import inspect

import plotly.graph_objects as go
import pytest

from explainer.render import efficiency
from training import paper
from training.project import PROJECT as ROOT


def test_paper_points_are_the_papers_table_1():
    by_model = {p.model: p for p in paper.PAPER_POINTS}
    assert set(by_model) == {"ELMo", "GPT", "BERT-Small", "ELECTRA-Small", "BERT-Base", "ELECTRA-Base"}
    assert (by_model["ELECTRA-Small"].glue, by_model["BERT-Small"].glue) == (79.9, 75.1)
    assert by_model["ELECTRA-Small"].train_flops == by_model["BERT-Small"].train_flops == 1.4e18
    assert (by_model["ELECTRA-Base"].glue, by_model["BERT-Base"].glue) == (85.1, 82.2)
    assert "Clark" in paper.SOURCE and "Table 1" in paper.SOURCE


def test_efficiency_figure_without_and_with_a_race():
    empty = efficiency.efficiency_figure(None)
    assert isinstance(empty, go.Figure)
    assert any("No race yet" in (a.text or "") for a in empty.layout.annotations)
    assert any("Clark et al." in (a.text or "") for a in empty.layout.annotations)
    assert empty.layout.xaxis.type == "log"
    # Two panels one above the other (readable on a 420-px phone), not side by side: both full width, the
    # paper's on top, each panel about 300 px high; "No race yet" in the middle of the lower panel.
    assert empty.layout.xaxis.domain == empty.layout.xaxis2.domain == (0.0, 1.0)
    assert empty.layout.yaxis2.domain[1] < empty.layout.yaxis.domain[0]
    assert empty.layout.height == 880
    bottom, top = empty.layout.yaxis2.domain
    no_race = next(a for a in empty.layout.annotations if "No race yet" in (a.text or ""))
    assert (no_race.x, no_race.y) == (0.5, (bottom + top) / 2)
    assert all(t.xaxis == "x" and t.yaxis == "y" for t in empty.data)  # the paper's points, on top
    race = {"rtd": {"flops": 2e15, "accuracy": 0.71}, "mlm": {"flops": 2e15, "accuracy": 69.5},
            "bad": {"flops": "x"}, "<b>x</b>": {"flops": 1e15, "accuracy": 2.0}}
    points = efficiency.race_points(race)
    assert [(p.objective, p.accuracy) for p in points] == [("RTD", 71.0), ("MLM", 69.5), ("<B>X</B>", 2.0)]
    figure = efficiency.efficiency_figure(race)
    assert not any("No race yet" in (a.text or "") for a in figure.layout.annotations)
    assert figure.layout.xaxis2.type == "log"
    assert {(t.xaxis, t.yaxis) for t in figure.data if t.name == "your race (Training tab)"} == {("x2", "y2")}
    assert all("<B>" not in str(t.text) for t in figure.data)  # escaped in labels


def test_paper_comparison_states_same_compute_and_hyperparameters_not_only_the_objective():
    text = paper.COMPARISON
    assert "hyperparameters" in text and "pretraining compute" in text
    assert "BERT-Small trains for 1.5M steps to ELECTRA-Small's 1M" in text  # section 3.3
    by_model = {p.model: p for p in paper.PAPER_POINTS}
    assert f"by {by_model['ELECTRA-Small'].glue - by_model['BERT-Small'].glue:.1f} GLUE points" in text
    assert f"by {by_model['ELECTRA-Base'].glue - by_model['BERT-Base'].glue:.1f}." in text
    assert "about 30× more compute" in text  # 4.0e19 / 1.4e18 = 28.6: the paper's "30x"
    for source in (paper.__doc__, text):
        assert "only in the objective" not in source and "only the objective" not in source


def test_elmo_is_described_as_bidirectional():
    assert "ELMo" in paper.__doc__ and "bidirectional" in paper.__doc__
    assert "ELMo: left-to-right" not in inspect.getsource(paper)


TEACHING_FILES = (
    "explainer/lesson/supervision.py", "explainer/lesson/hf_snippet.py", "explainer/lesson/walkthrough.py",
    "explainer/lesson/difficulty.py", "training/paper.py", "explainer/lesson/quiz.py",
    "explainer/render/classroom_tab.py", "explainer/render/walkthrough.py", "explainer/render/difficulty.py",
    "explainer/render/efficiency.py", "explainer/ui/classroom_tab.py", "training/downstream/probe.py",
)


@pytest.mark.parametrize("path", TEACHING_FILES)
def test_no_wrong_figure_or_outside_documents_in_the_teaching_files(path):
    source = (ROOT / path).read_text(encoding="utf-8")
    assert "Figure 1" not in source  # the toy sentence is the paper's Figure 2 (Figure 1: GLUE vs FLOPs)
    for outside in ("FINDINGS", "CEO", "shared/", "20-minute", "days of accelerator"):
        assert outside not in source, outside


def test_the_probes_split_sizes_are_the_real_ones():
    """training/downstream/probe.py names the sentiment split's sizes; they are load_sentiment's (6,805 / 1,725),
    not the 6,824 / 1,706 once written down."""
    from training.data import load_sentiment

    task = load_sentiment()
    source = (ROOT / "training/downstream/probe.py").read_text(encoding="utf-8")
    assert f"(of the split's {len(task.train):,})" in source and f"(of the split's {len(task.test):,})" in source
    assert "6,824" not in source and "1,706" not in source
