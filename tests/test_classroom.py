"""Classroom data on the tiny seeded pair: supervised positions, walk-through, sweep, efficiency, rendering."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import re
from html.parser import HTMLParser

import plotly.graph_objects as go
import pytest
import torch

from explainer.core.models import ModelPair
from explainer.core.pipeline import Settings, explain
from explainer.lesson import classroom, difficulty
from explainer.lesson import walkthrough as walk
from explainer.render import classroom as view
from explainer.render import difficulty as sweep_view
from explainer.render import efficiency
from explainer.render import walkthrough as walk_view
from training import paper
from training.objectives import ELECTRA_MASKING, mask_tokens, masked_lm_logits
from training.words import readable_ids
from training.project import PROJECT as ROOT

SENTENCE = "The chef cooked a delicious meal for the guests at the restaurant and they loved it."
SEEDS = (0, 1, 7)


@pytest.fixture(scope="module")
def vocab(tiny_pair) -> int:
    return len(tiny_pair.tokenizer)


@pytest.mark.parametrize("seed", SEEDS)
def test_supervised_counts_match_the_masking(tiny_pair, vocab, seed):
    explanation = explain(tiny_pair, SENTENCE, Settings(seed=seed))
    data = classroom.supervised_positions(explanation, vocab)
    non_special = sum(not t.special for t in explanation.tokens)
    # MLM = the masked count: round(15%) of the non-special tokens, as training.objectives.mask_tokens selects.
    assert data.mlm_count == len(explanation.masked) == round(0.15 * non_special) > 0
    assert {p.position for p in data.positions if p.mlm} == {m.position for m in explanation.masked}
    # RTD = every non-padding position ([CLS] and [SEP] included), as training logs supervised_positions.
    assert data.rtd_count == len(explanation.tokens) == len(explanation.original_ids)
    assert data.vocab_size == vocab and data.rtd_outputs == 1
    for p, t in zip(data.positions, explanation.tokens):
        assert p.rtd_input == t.corrupted and p.replaced == bool(t.replaced) and p.original == t.original
        assert (p.mlm_input == classroom.MASK) == any(m.position == p.position and m.shown_as_mask
                                                      for m in explanation.masked)
        assert not (p.special and p.mlm)


def test_supervised_counts_agree_with_training_masking(tiny_pair, vocab):
    """The same selection as training's mask_tokens with the same seeded generator (one row, no padding)."""
    explanation = explain(tiny_pair, SENTENCE, Settings(seed=3))
    ids = torch.tensor(explanation.original_ids)[None]
    special = torch.tensor([t.special for t in explanation.tokens])[None].long()
    batch = mask_tokens(ids, special, torch.ones_like(ids), tiny_pair.tokenizer.mask_token_id, vocab,
                        ELECTRA_MASKING, torch.Generator().manual_seed(3))
    data = classroom.supervised_positions(explanation, vocab)
    assert [p.mlm for p in data.positions] == batch.is_masked[0].tolist()
    assert data.rtd_count == int(batch.attention_mask.sum())


def test_toy_preset_masks_the_papers_two_words(tiny_pair, vocab):
    explanation = explain(tiny_pair, classroom.TOY_TEXT, classroom.TOY_SETTINGS)
    data = classroom.supervised_positions(explanation, vocab)
    words = [w.text for w in explanation.words]
    assert words == ["the", "chef", "cooked", "the", "meal"]
    masked_words = {explanation.tokens[p.position].word for p in data.positions if p.mlm}
    assert masked_words == {0, 2}
    assert data.rtd_count == len(explanation.tokens)


def test_detect_only_has_no_supervised_positions_view(tiny_pair, vocab):
    explanation = explain(tiny_pair, SENTENCE, Settings(mode="detect"))
    with pytest.raises(ValueError, match="detect-only"):
        classroom.supervised_positions(explanation, vocab)
    with pytest.raises(ValueError):
        walk.walkthrough(explanation, vocab)


@pytest.mark.parametrize("seed", SEEDS)
def test_walkthrough_states_match_the_explore_pipeline(tiny_pair, vocab, seed):
    steps = walk.walkthrough(explain(tiny_pair, SENTENCE, Settings(seed=seed)), vocab)
    reference = explain(tiny_pair, SENTENCE, Settings(seed=seed))  # what Explore computes for this seed
    mask, propose, swap, detect = steps
    assert [s.name for s in steps] == list(walk.STEP_NAMES) and [s.number for s in steps] == [1, 2, 3, 4]
    chosen = tuple(m.position for m in reference.masked)
    assert mask.focus == propose.focus == chosen
    for position, token in enumerate(mask.tokens):
        m = next((m for m in reference.masked if m.position == position), None)
        expected = classroom.MASK if m is not None and m.shown_as_mask else reference.tokens[position].original
        assert token == expected
    assert propose.proposals == reference.masked  # the same top-k and the same draws
    assert swap.tokens == tuple(t.corrupted for t in reference.tokens)
    assert list(swap.tokens) == readable_ids(tiny_pair.tokenizer, reference.corrupted_ids)  # pieces read "-ing"
    assert swap.focus == tuple(m.position for m in reference.masked if m.replaced)
    assert swap.replaced == tuple(bool(t.replaced) for t in reference.tokens)
    assert detect.p_replaced == tuple(t.p_replaced for t in reference.tokens)
    back = tuple(m.position for m in reference.masked if not m.replaced)  # drew the original: label 0
    assert swap.drawn_back == detect.drawn_back == walk.drawn_back(reference) == back
    assert all(not reference.tokens[p].replaced for p in back)
    assert "a masked position where the generator happened to draw the original token back is labelled " \
           "original (0)" in detect.paragraph
    score = reference.score()
    assert f"flagged {score['caught']} of the {score['replaced']}" in detect.paragraph
    assert str(len(reference.tokens)) in detect.paragraph and f"{vocab:,}" in propose.paragraph


def test_a_different_seed_gives_a_different_game(tiny_pair, vocab):
    a, b = (walk.walkthrough(explain(tiny_pair, SENTENCE, Settings(seed=s)), vocab) for s in (0, 1))
    assert a[0].focus != b[0].focus or a[2].tokens != b[2].tokens


def test_sweep_replaces_more_when_hotter_and_reports_sane_metrics(tiny_pair):
    sentences = difficulty.heldout_sentences(8)
    assert len(sentences) == 8 and all(8 <= len(s.split()) <= 30 for s in sentences)
    assert difficulty.heldout_sentences(8) == sentences  # fixed
    sweep = difficulty.temperature_sweep(tiny_pair, sentences, temperatures=(0.05, 1.0, 5.0))
    assert {p.generator for p in sweep.points} == {"full", difficulty.WEAKER}  # the tiny generator has 2 layers
    assert len(sweep.points) == 6 and sweep.sentences == 8
    assert 0 < sweep.masked < sweep.tokens
    for p in sweep.points:
        assert 0 <= p.replaced_fraction <= sweep.masked / sweep.tokens + 1e-9  # only masked tokens can change
        assert 0 <= p.accuracy <= 1 and 0 <= p.generator_top1 <= 1
    full = [p.replaced_fraction for p in sweep.points if p.generator == "full"]
    assert full[0] <= full[-1]  # random weights: a hot softmax almost never redraws the original
    again = difficulty.temperature_sweep(tiny_pair, sentences, temperatures=(0.05, 1.0, 5.0))
    assert again == sweep  # seeded: the chart is the same every time


def test_weaker_generator_reads_the_first_layer(tiny_pair):
    """The weaker generator is the LM head on hidden_states[1]; on hidden_states[-1] it is the full one."""
    generator = tiny_pair.generator
    ids = tiny_pair.tokenizer("the film was long", return_tensors="pt")["input_ids"]
    attention = torch.ones_like(ids)
    is_masked = torch.zeros_like(ids, dtype=torch.bool)
    is_masked[0, 2] = True
    with torch.no_grad():
        full, _ = masked_lm_logits(generator, ids, attention, is_masked)
        hidden = generator.electra(ids, attention_mask=attention, output_hidden_states=True).hidden_states
        assert len(hidden) == generator.config.num_hidden_layers + 1
        torch.testing.assert_close(generator.generator_lm_head(generator.generator_predictions(hidden[-1][is_masked])), full)


def test_the_sweeps_weaker_generator_is_the_first_layer_with_the_same_mask(tiny_pair):
    sentences = difficulty.heldout_sentences(6)
    sweep = difficulty.temperature_sweep(tiny_pair, sentences, temperatures=(1.0,), seed=4)
    tokenizer, generator = tiny_pair.tokenizer, tiny_pair.generator
    enc = tokenizer(list(sentences), padding=True, truncation=True, max_length=64, return_special_tokens_mask=True,
                    return_tensors="pt")
    special = enc["special_tokens_mask"].bool() | ~enc["attention_mask"].bool()
    batch = mask_tokens(enc["input_ids"], special.long(), enc["attention_mask"], tokenizer.mask_token_id,
                        len(tokenizer), ELECTRA_MASKING, torch.Generator().manual_seed(4))
    with torch.no_grad():
        hidden = generator.electra(batch.masked, attention_mask=enc["attention_mask"], output_hidden_states=True)
        first = generator.generator_lm_head(generator.generator_predictions(hidden.hidden_states[1][batch.is_masked]))
    shown = batch.masked[batch.is_masked] == tokenizer.mask_token_id  # counted where it saw [MASK] only
    assert 0 < shown.sum() < len(shown) or len(shown) < 8  # ELECTRA keeps ~15% of the selected as they were
    top1 = (first.argmax(-1) == enc["input_ids"][batch.is_masked])[shown].float().mean().item()
    (weak,) = [p for p in sweep.points if p.generator == difficulty.WEAKER]
    assert weak.generator_top1 == pytest.approx(top1) and sweep.masked == int(batch.is_masked.sum())


def test_heldout_sentences_never_come_from_training_text():
    from training.data import load_imdb

    train = load_imdb().train
    sentences = difficulty.heldout_sentences(5)
    assert not any(s in doc for s in sentences for doc in train[:2000])


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


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)


HOSTILE = "<img src=x onerror=alert(1)> <script>alert(2)</script> {{7*7}}"


def test_rendering_escapes_user_text(tiny_pair, vocab):
    """Tokens are vocabulary strings, which may hold anything a tokenizer learned: all of it stays text."""
    explanation = explain(tiny_pair, SENTENCE, Settings(seed=0, mask_rate=0.5))
    data = classroom.supervised_positions(explanation, vocab)
    data = dataclasses.replace(data, positions=tuple(
        dataclasses.replace(p, original=HOSTILE, rtd_input=HOSTILE, mlm_input=p.mlm_input if p.mlm else HOSTILE)
        for p in data.positions))
    steps = [dataclasses.replace(s, tokens=tuple(HOSTILE if t != classroom.MASK else t for t in s.tokens),
                                 paragraph=HOSTILE)
             for s in walk.walkthrough(explanation, vocab)]
    markup = view.supervised_html(data) + "".join(walk_view.walk_step_html(s) for s in steps)
    parser = _Tags()
    parser.feed(markup)
    assert parser.tags <= {"div", "span", "bdi", "b", "p", "h3", "table", "tr", "th", "td", "br"}
    assert "&lt;img src=x onerror=alert(1)&gt;" in markup and "<img" not in markup and "<script" not in markup


def test_rendered_views_name_the_counts(tiny_pair, vocab):
    explanation = explain(tiny_pair, SENTENCE, Settings(seed=0))
    data = classroom.supervised_positions(explanation, vocab)
    markup = view.supervised_html(data)
    assert f"<b>{data.mlm_count}</b> of {data.rtd_count} positions" in markup
    assert f"<b>{data.rtd_count}</b> of {data.rtd_count} positions" in markup
    assert f"{vocab:,}" in markup
    steps = walk.walkthrough(explanation, vocab)
    assert all(f"Step {s.number} of 4" in walk_view.walk_step_html(s) for s in steps)
    assert "← drawn" not in walk_view.walk_step_html(steps[1])  # proposing: nothing drawn yet
    in_top_k = [any(p.token_id == m.sampled_id for p in m.proposals) for m in steps[2].proposals]
    swap = walk_view.walk_step_html(steps[2])
    assert swap.count("← drawn") == sum(in_top_k) and swap.count("outside the top guesses") == in_top_k.count(False)


def test_sweep_figure_draws_both_generators(tiny_pair):
    sweep = difficulty.temperature_sweep(tiny_pair, difficulty.heldout_sentences(4), temperatures=(0.5, 2.0))
    figure = sweep_view.sweep_figure(sweep)
    assert len(figure.data) == 6  # replaced, AUC, accuracy for each generator
    # Stacked for a 420-px phone: replaced fractions on top, the discriminator below, both full width.
    assert [t.yaxis for t in figure.data] == ["y", "y2", "y2"] * 2
    assert figure.layout.xaxis.domain == figure.layout.xaxis2.domain == (0.0, 1.0)
    assert figure.layout.yaxis2.domain[1] < figure.layout.yaxis.domain[0] and figure.layout.height == 880
    assert "AUC" in sweep_view.sweep_summary_html(sweep)
    assert dataclasses.asdict(sweep)["points"][0]["temperature"] == 0.5


# --- the teaching text says what happened, and what the paper and the official code say ------------

def _mask_paragraph(tiny_pair, vocab, text, settings) -> tuple[str, object]:
    explanation = explain(tiny_pair, text, settings)
    return walk.walkthrough(explanation, vocab)[0].paragraph, explanation


@pytest.mark.parametrize("seed", SEEDS)
def test_mask_step_says_electra_picked_at_random_in_automatic_mode(tiny_pair, vocab, seed):
    paragraph, explanation = _mask_paragraph(tiny_pair, vocab, SENTENCE, Settings(seed=seed))
    n = sum(not t.special for t in explanation.tokens)
    assert paragraph.startswith(f"ELECTRA picked {len(explanation.masked)} of the {n} tokens at random (about 15%).")
    assert "You picked" not in paragraph


def test_mask_step_says_you_picked_in_manual_mode(tiny_pair, vocab):
    paragraph, explanation = _mask_paragraph(tiny_pair, vocab, SENTENCE, Settings(mode="manual", mask_words=(1, 2, 4)))
    n, chosen = sum(not t.special for t in explanation.tokens), len(explanation.masked)
    assert paragraph.startswith(f"You picked {chosen} of {n} tokens ({chosen / n:.0%}); in pretraining ELECTRA "
                                "picks about 15% at random.")
    assert "at random (about" not in paragraph and "Figure" not in paragraph


def test_mask_step_on_the_toy_sentence_names_figure_2_and_the_real_share(tiny_pair, vocab):
    paragraph, explanation = _mask_paragraph(tiny_pair, vocab, classroom.TOY_TEXT, classroom.TOY_SETTINGS)
    # the tiny vocabulary splits the words into several tokens each
    n, chosen = sum(not t.special for t in explanation.tokens), len(explanation.masked)
    assert paragraph.startswith(f"You picked {chosen} of {n} tokens ({chosen / n:.0%}), as in the paper's Figure 2; "
                                "in pretraining ELECTRA picks about 15% at random. They are hidden behind [MASK].")


def test_mask_step_on_the_toy_sentence_with_the_bundled_model():
    """With the bundled model's vocabulary each toy word is one token: 2 of 5 hand-picked, 40%, not 15%."""
    from explainer.core import models

    pair = models.load(str(models.BUNDLED))
    paragraph, explanation = _mask_paragraph(pair, len(pair.tokenizer), classroom.TOY_TEXT, classroom.TOY_SETTINGS)
    assert [t.original for t in explanation.tokens if not t.special] == classroom.TOY_TEXT.split()
    assert paragraph.startswith("You picked 2 of 5 tokens (40%), as in the paper's Figure 2; in pretraining "
                                "ELECTRA picks about 15% at random. They are hidden behind [MASK].")


def test_mask_step_with_another_rate_gives_it_and_the_pretraining_rate(tiny_pair, vocab):
    paragraph, explanation = _mask_paragraph(tiny_pair, vocab, SENTENCE, Settings(seed=0, mask_rate=0.5))
    n = sum(not t.special for t in explanation.tokens)
    assert paragraph.startswith(f"ELECTRA picked {len(explanation.masked)} of the {n} tokens at random (about 50%; "
                                "in pretraining ELECTRA picks about 15%).")


def test_kept_tokens_are_attributed_to_the_official_code_not_the_paper(tiny_pair, vocab):
    """Section 2 of the paper replaces every selected token with [MASK]; keeping 15% of them unchanged is
    `pretrain_helpers.mask` in google-research/electra (and this app's ELECTRA_MASKING)."""
    for seed in range(60):
        paragraph, explanation = _mask_paragraph(tiny_pair, vocab, SENTENCE, Settings(seed=seed, mask_rate=0.5))
        if any(not m.shown_as_mask for m in explanation.masked):
            break
    else:
        pytest.fail("no seed kept a selected token")
    assert "ELECTRA's official code leaves about 15% of the chosen tokens as they are" in paragraph
    assert "the paper replaces them all with [MASK]" in paragraph
    assert ELECTRA_MASKING.mask_frac == 0.85 and ELECTRA_MASKING.random_frac == 0.0


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


TEACHING_FILES = ("explainer/lesson/classroom.py", "explainer/lesson/walkthrough.py", "explainer/lesson/difficulty.py",
                  "training/paper.py", "explainer/lesson/quiz.py", "explainer/render/classroom.py",
                  "explainer/render/walkthrough.py", "explainer/render/difficulty.py", "explainer/render/efficiency.py",
                  "explainer/ui/classroom.py", "training/downstream/probe.py")


@pytest.mark.parametrize("path", TEACHING_FILES)
def test_no_wrong_figure_or_outside_documents_in_the_teaching_files(path):
    source = (ROOT / path).read_text(encoding="utf-8")
    assert "Figure 1" not in source  # the toy sentence is the paper's Figure 2 (Figure 1: GLUE vs FLOPs)
    for outside in ("FINDINGS", "CEO", "shared/", "20-minute", "days of accelerator"):
        assert outside not in source, outside


def test_the_probes_split_sizes_are_the_real_ones():
    """training/downstream/probe.py names the sentiment split's sizes; they are load_sentiment's (6,805 / 1,725), not the
    6,824 / 1,706 once written down."""
    from training.data import load_sentiment

    task = load_sentiment()
    source = (ROOT / "training/downstream/probe.py").read_text(encoding="utf-8")
    assert f"(of the split's {len(task.train):,})" in source and f"(of the split's {len(task.test):,})" in source
    assert "6,824" not in source and "1,706" not in source


def test_mask_step_on_a_short_sentence_says_one_was_picked(tiny_pair, vocab):
    """15% of a few tokens rounds to none; the pipeline masks one, and the text says so instead of "about 15%"."""
    paragraph, explanation = _mask_paragraph(tiny_pair, vocab, "the film", Settings(seed=0))
    n = sum(not t.special for t in explanation.tokens)
    assert round(0.15 * n) == 0 and len(explanation.masked) == 1
    assert paragraph.startswith(f"ELECTRA picked 1 of the {n} tokens at random (15% of {n} rounds to none, so one "
                                "was picked).")


# --- ELECTRA's label rule: a masked position where the generator drew the original back is label 0 ------

def _forcing(pair, token: str) -> ModelPair:
    """A copy of `pair` whose generator always draws `token` (its output bias dominates)."""
    generator = copy.deepcopy(pair.generator)
    with torch.no_grad():
        generator.generator_lm_head.bias.fill_(-1e4)
        generator.generator_lm_head.bias[pair.tokenizer.convert_tokens_to_ids(token)] = 1e4
    return ModelPair(generator, pair.discriminator, pair.tokenizer, pair.name)


def _forced_walk(tiny_pair, vocab, token: str, text: str, words: tuple[int, ...]):
    explanation = explain(_forcing(tiny_pair, token), text, Settings(mode="manual", mask_words=words))
    return explanation, walk.walkthrough(explanation, vocab)


RULE = ("The labels follow ELECTRA's rule: a token is labelled replaced (1) only if it differs from the original, so "
        "a masked position where the generator happened to draw the original token back is labelled original (0).")


def test_a_drawn_back_position_is_counted_named_and_labelled_original(tiny_pair, vocab):
    """Figure 2's masking with a generator that always draws "the": "the" comes back, "cooked" (4 pieces here) changes."""
    explanation, (_, _, swap, detect) = _forced_walk(tiny_pair, vocab, "the", classroom.TOY_TEXT, (0, 2))
    the = explanation.words[0].tokens[0]
    assert [explanation.tokens[p].original for p in explanation.words[2].tokens] == ["co", "-o", "-ke", "-d"]
    assert len(explanation.masked) == 5 and explanation.tokens[the].masked
    assert swap.drawn_back == detect.drawn_back == walk.drawn_back(explanation) == (the,)
    assert explanation.tokens[the].replaced is False and detect.replaced[the] is False  # label 0
    assert explanation.corrupted_ids[the] == explanation.original_ids[the]
    assert explanation.score()["replaced"] == 4 and the not in swap.focus
    assert (f"{RULE} 5 tokens were masked; the generator drew the original token back at 1 of them (“the”), so that "
            "position counts as original (label 0): 4 tokens are really replaced. Here it flagged") in detect.paragraph
    assert ("4 of the 5 draws differ from the original: those positions are now labelled replaced (1). At 1 position "
            "(“the”) the generator happened to draw the original token back: by ELECTRA's rule that position is "
            "labelled original (0), not replaced, since nothing changed there.") in swap.paragraph
    assert "gave back" not in swap.paragraph


def test_a_drawn_back_piece_is_named_with_its_word(tiny_pair, vocab):
    explanation, (_, _, swap, detect) = _forced_walk(tiny_pair, vocab, "##d", classroom.TOY_TEXT, (2,))  # "-d" to people
    last = explanation.words[2].tokens[-1]
    assert detect.drawn_back == (last,) and explanation.tokens[last].original == "-d"
    assert ("4 tokens were masked; the generator drew the original token back at 1 of them (“-d” in “cooked”), so "
            "that position counts as original (label 0): 3 tokens are really replaced.") in detect.paragraph


@pytest.mark.parametrize("token, words, count", [
    ("movie", (0, 2), "5 tokens were masked; the generator drew a different token at every masked position, so all 5 "
                      "count as replaced (label 1)."),
    ("movie", (0,), "1 token was masked; the generator drew a different token there, so it counts as replaced "
                    "(label 1)."),
    ("the", (0, 3), "2 tokens were masked; the generator drew the original token back at both of them (“the”, "
                    "“the”), so those positions count as original (label 0): no token is really replaced."),
    ("the", (0,), "1 token was masked; the generator drew the original token back there (“the”), so that position "
                  "counts as original (label 0): no token is really replaced."),
])
def test_the_detect_step_counts_drawn_back_positions(tiny_pair, vocab, token, words, count):
    explanation, (_, _, swap, detect) = _forced_walk(tiny_pair, vocab, token, classroom.TOY_TEXT, words)
    back = tuple(m.position for m in explanation.masked if m.sampled == m.original)
    assert detect.drawn_back == swap.drawn_back == back and (len(back) > 0) == (token == "the")
    assert f"{RULE} {count}" in detect.paragraph
    if not back:
        assert "happened to draw the original token back:" not in swap.paragraph
        assert ("the draw differs" if len(words) == 1 else "5 of the 5 draws differ") in swap.paragraph.lower()
    else:
        assert "nothing is labelled replaced" in swap.paragraph and "labelled original (0)" in swap.paragraph


def _drawn_back_chips(markup: str) -> list[str]:
    """The token text inside each chip the renderer marks as drawn back."""
    return re.findall(r'<span class="ee-drawn-back" role="group" aria-label="masked, but the generator drew the '
                      r'original back: label 0"[^>]*>.*?<bdi[^>]*>(.*?)</bdi>', markup)


def test_rendered_steps_mark_the_drawn_back_position(tiny_pair, vocab):
    explanation, (_, _, swap, detect) = _forced_walk(tiny_pair, vocab, "the", classroom.TOY_TEXT, (0, 2))
    for step in (swap, detect):
        markup = walk_view.walk_step_html(step)
        assert _drawn_back_chips(markup) == ["the"]  # one position, marked apart from replaced and untouched
        assert 'title="masked, but the generator drew the original back: label 0"' in markup
    markup = walk_view.walk_step_html(detect)
    assert markup.count("3px solid #111") == 4 + 2  # the replaced pieces, and both legends' samples
    assert 'class="ee-label-legend"' in markup and "not replaced" in markup  # the legend entry
    assert "looks replaced" in markup  # Explore's colour scale, kept
    zero = _forced_walk(tiny_pair, vocab, "movie", classroom.TOY_TEXT, (0, 2))[1]
    assert all(_drawn_back_chips(walk_view.walk_step_html(s)) == [] for s in zero)


def test_a_hostile_drawn_back_word_is_escaped(tiny_pair, vocab):
    """“<i>x</i>” is seven words here (its marks are words of their own); all masked, the generator draws "i", so
    its two "i" come back, and no mark reaches the page unescaped."""
    explanation, (_, _, swap, detect) = _forced_walk(tiny_pair, vocab, "i", "the <i>x</i> meal", tuple(range(1, 8)))
    assert [w.text for w in explanation.words] == ["the", "<", "i", ">", "x", "</", "i", ">", "meal"]
    assert len(detect.drawn_back) == 2
    assert all(explanation.tokens[p].original == "i" and not detect.replaced[p] for p in detect.drawn_back)
    assert "(“i”, “i”)" in detect.paragraph
    markup = walk_view.walk_step_html(swap) + walk_view.walk_step_html(detect)
    assert "<i>" not in markup and "</i>" not in markup
    assert _drawn_back_chips(walk_view.walk_step_html(detect)) == ["i", "i"]
    parser = _Tags()
    parser.feed(markup)
    assert parser.tags <= {"div", "span", "bdi", "b", "p", "h3", "table", "tr", "th", "td", "br"}


def test_the_positions_table_scrolls_in_a_box_the_keyboard_can_reach(tiny_pair, vocab):
    from explainer.render.classroom import supervised_html

    html = supervised_html(classroom.supervised_positions(explain(tiny_pair, SENTENCE, Settings(seed=3)), vocab))
    box = re.search(r'<div style="overflow-x: auto"([^>]*)>', html).group(1)
    assert 'tabindex="0"' in box and 'role="region"' in box and 'aria-label="' in box
