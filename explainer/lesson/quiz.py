"""The knowledge check: questions in this project's own words, a grader, and a seeded shuffle.

Three kinds of question: multiple choice and true/false (graded by the choice picked) and short
answer (graded after normalising: lower case, punctuation and leading articles dropped). A short
answer is right when it equals an accepted answer, or contains one of its keywords as a whole word
and none of its rejected words ("not the generator" is wrong for "generator"). Every question names
its topic, so a test can check that the quiz covers every topic the lesson promises. The one explanation
that quotes this app's own measurements (`efficiency_budget_explanation`) is computed from the races
it ships (assets/race_campaign.json), so it cannot drift from the Training tab's table.
Left out: partial credit, free-text essays.
"""

from __future__ import annotations

import dataclasses
import random
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from training.race.campaign import CAMPAIGN_FILE, load_campaign  # noqa: F401 (CAMPAIGN_FILE: the tests' path)

Kind = Literal["choice", "true_false", "short"]
TRUE_FALSE = ("True", "False")

TOPICS = {
    "rtd": "what replaced-token detection is",
    "positions": "which positions are supervised under each objective",
    "density": "why the signal is denser",
    "generator_size": "the generator's size relative to the discriminator",
    "kept": "which network is kept for fine-tuning",
    "not_gan": "why it is not a GAN",
    "encoder": "the discriminator is an encoder only",
    "efficiency": "compute efficiency against BERT",
    "generative": "when a generative objective is still the better choice",
}


@dataclass(frozen=True)
class Question:
    id: str
    topic: str  # a key of TOPICS
    kind: Kind
    prompt: str
    answer: str  # the right choice; for short answers, the model answer shown after grading
    explanation: str  # shown after every attempt, right or wrong
    choices: tuple[str, ...] = ()  # choice: the options; true_false: TRUE_FALSE; short: none
    accepted: tuple[str, ...] = ()  # short: other answers accepted as they are (after normalising)
    keywords: tuple[str, ...] = ()  # short: an answer holding one of these words is right...
    rejected: tuple[str, ...] = ()  # short: ...unless it also holds one of these
    wrong_examples: tuple[str, ...] = ()  # short: answers the grader must refuse (the tests pin them)


@dataclass(frozen=True)
class Grade:
    correct: bool
    answered: bool  # False for an empty answer: no attempt, no score change
    answer: str  # the right answer
    explanation: str


def normalise(text: str) -> str:
    """'  The Discriminator!' -> 'discriminator'; 'encoder-decoder' -> 'encoder decoder'; '15%' -> '15'."""
    text = unicodedata.normalize("NFKC", text or "").casefold()
    words = re.sub(r"[^\w\s]|_", " ", text).split()
    while words and words[0] in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words)


def grade(question: Question, response: str | None) -> Grade:
    given = normalise(response or "")
    if not given:
        return Grade(False, False, question.answer, question.explanation)
    if question.kind != "short":
        correct = given == normalise(question.answer)
    else:
        words = set(given.split())
        exact = given in {normalise(a) for a in (question.answer, *question.accepted)}
        keyword = any(k in words for k in question.keywords) and not any(r in words for r in question.rejected)
        correct = exact or keyword
    return Grade(correct, True, question.answer, question.explanation)


def shuffled(questions: tuple[Question, ...], seed: int) -> tuple[Question, ...]:
    """Questions and their choices in a seeded order (true/false keeps True first)."""
    rng = random.Random(seed)
    order = list(questions)
    rng.shuffle(order)
    out = []
    for q in order:
        if q.kind == "choice":
            choices = list(q.choices)
            rng.shuffle(choices)
            q = dataclasses.replace(q, choices=tuple(choices))
        out.append(q)
    return tuple(out)


def to_revisit(questions: tuple[Question, ...], results) -> tuple[str, ...]:
    """The topics (TOPICS' words, in TOPICS' order, each once) of the questions whose first try was wrong;
    `results` holds (question id, right on the first try) pairs."""
    wrong = {id for id, right in results if not right}
    missed = {q.topic for q in questions if q.id in wrong}
    return tuple(words for topic, words in TOPICS.items() if topic in missed)


# --- what this app's own races measured (the efficiency question's explanation) --------------------

PAPER_BUDGET = ("The paper's gains were measured over hours to days of GPU time (1e17 FLOPs and more; its "
                "ELECTRA-Small runs in Table 1 took 6 hours to 4 days on one GPU).")
NOT_A_GUARANTEE = "Efficiency is a trend over real budgets, not a guarantee at tiny ones."


def measured_budget_note(campaign: dict | None) -> str:
    """What the app's own CPU races measured with the default settings, every number from `campaign`
    (assets/race_campaign.json: the table the Training tab shows). The earlier from-scratch and
    warm-start runs are in docs/pretraining-at-cpu-scale.md."""
    from training.race.campaign import budget_label, separated
    from training.race.settings import matches_defaults

    try:
        records = [r for r in (campaign or {}).get("settings") or [] if matches_defaults(r["settings"])]
        if not records:
            return ""
        mine = max(records, key=lambda r: len(r["seeds"]))
        seeds = mine["seeds"]
        n = len(seeds)
        gap = 100 * mine["mean"]["rtd_minus_mlm"]["mean"]
        sd = 100 * mine["mean"]["rtd_minus_mlm"]["sd"]
        standing = separated([s["rtd_minus_mlm"] for s in seeds])
        above = [side for side in ("rtd", "mlm")
                 if separated([s[f"{side}_probe"] - s["floor_probe"] for s in seeds]) == "ahead"]
        temperature = mine["settings"].get("temperature", 1.0)
        papers = [r for r in campaign["settings"] if r["name"] == "temp1" and r is not mine
                  and r["settings"].get("amount") == mine["settings"].get("amount")]
    except (AttributeError, KeyError, TypeError, ValueError):
        return ""
    verdict = {"level": "level, no clear difference", "ahead": "ELECTRA ahead", "behind": "ELECTRA behind"}[standing]
    note = (f"This app's own races (the Training tab's table) train each objective from scratch on a CPU for "
            f"{budget_label(mine['settings'])}: ELECTRA's encoder minus the BERT-style one came to "
            f"{gap:+.1f} ± {sd:.1f} points of probe accuracy over {n} seed{'s' if n != 1 else ''} ({verdict})")
    if n > 1:
        note += {0: ", and neither clearly beat an untrained encoder",
                 1: f", and only the {'ELECTRA' if above == ['rtd'] else 'BERT-style'} encoder clearly beat an "
                    "untrained one",
                 2: ", both clearly ahead of an untrained encoder"}[len(above)]
    note += "."
    if temperature != 1.0:
        note += f" That is with the generator sampling at temperature {temperature:g}"
        auc = papers[0]["mean"].get("disc_auc", {}).get("mean") if papers else None
        note += (f"; at the paper's temperature 1 the discriminator learned next to nothing (AUC {auc:.2f}, "
                 "where 0.5 is guessing)." if auc is not None and auc < 0.6 else ", not the paper's 1.")
    return note


def efficiency_budget_explanation(campaign: dict | None) -> str:
    """The explanation of the "any budget" question: the paper's budgets, then the app's measurements."""
    note = measured_budget_note(campaign)
    return " ".join(part for part in (PAPER_BUDGET, note or "This app's own CPU races are in the Training tab.",
                                      NOT_A_GUARANTEE) if part)


def _choice(id, topic, prompt, right, wrong, explanation) -> Question:
    choices = [right, *wrong]
    random.Random(id).shuffle(choices)  # a fixed order per question, so the right answer is not always first
    return Question(id, topic, "choice", prompt, right, explanation, tuple(choices))


def _true_false(id, topic, statement, truth: bool, explanation) -> Question:
    return Question(id, topic, "true_false", f"True or false? {statement}", TRUE_FALSE[not truth], explanation,
                    TRUE_FALSE)


QUESTIONS: tuple[Question, ...] = (
    _choice(
        "rtd-what", "rtd", "In replaced-token detection, what does the discriminator predict?",
        "For every token: was it replaced by the generator, or is it the original?",
        ("The original word behind each [MASK]",
         "The next word of the sentence",
         "Whether the whole text was written by a person or by a model"),
        "RTD is a yes/no question asked at every token. Guessing the original word behind a [MASK] is the "
        "generator's job (and BERT's); the discriminator never sees a [MASK] at all."),
    Question(
        "rtd-label", "rtd", "short",
        "Fill in the one missing word: the discriminator labels each token as “original” or “______”.",
        "replaced", "Label 1 = replaced, 0 = original. The loss is a binary cross-entropy at each position.",
        accepted=("replaced token",), keywords=("replaced", "replacement", "fake", "corrupted", "substituted"),
        rejected=("original", "masked", "mask", "not"), wrong_examples=("original", "masked", "not replaced")),
    _true_false(
        "rtd-same-sample", "rtd",
        "If the generator happens to draw the original word at a masked position, that token is labelled "
        "“replaced”, because it was masked.", False,
        "Labels compare the corrupted sentence with the original one. A draw equal to the original leaves the "
        "sentence unchanged, so the token is labelled original: there is nothing to detect."),
    _choice(
        "positions-20", "positions",
        "A 20-token sentence (no padding) is masked at 15%, so 3 tokens are chosen. At how many positions does "
        "each objective compute a loss?",
        "MLM at 3, RTD at 20",
        ("MLM at 20, RTD at 3", "Both at 3", "Both at 20"),
        "MLM can only be scored where something was hidden: the 3 chosen positions. The discriminator answers "
        "“replaced or original?” at every one of the 20 positions."),
    Question(
        "positions-128", "positions", "short",
        "A batch row of 128 real tokens is masked at 15% (19 tokens). At how many positions does the RTD "
        "discriminator get a loss? (a number)",
        "128", "Every non-padding position carries an RTD label, masked or not: 128 targets against MLM's 19.",
        accepted=("all 128", "all", "all of them", "every position", "every token", "all positions", "all tokens"),
        keywords=("128",), rejected=("19", "15", "not", "only"),
        wrong_examples=("19", "15%", "only the masked ones", "109")),
    _choice(
        "density-why", "density", "Why does ELECTRA learn more from each sentence than BERT does?",
        "Its loss covers every token, so one sentence gives about 6–7 times as many training targets",
        ("Its discriminator predicts over a larger vocabulary",
         "It masks half the tokens instead of 15%",
         "It skips the generator, so each step is cheaper"),
        "With 15% masking, MLM learns from 15 targets per 100 tokens; RTD learns from all 100. The generator "
        "still runs (it is small), and the vocabulary is the same."),
    _true_false(
        "density-mismatch", "density",
        "The paper's ablations found that most of ELECTRA's gain comes from learning from all tokens, and a "
        "smaller part from never showing the discriminator artificial [MASK] tokens.", True,
        "Clark et al. compared variants (MLM on all tokens, replacing instead of masking): most of the gap closes "
        "when a model learns from every token; removing the [MASK] mismatch between pretraining and fine-tuning "
        "helps a little too."),
    _choice(
        "generator-size", "generator_size", "How large should the generator be, compared with the discriminator?",
        "Smaller: about 1/4 to 1/2 of its width, with the same depth",
        ("Exactly the same size", "Twice as large, so that its replacements are realistic",
         "It makes no difference"),
        "The paper found generators 1/4 to 1/2 the discriminator's size work best. A generator that is too good "
        "leaves the discriminator too few, too subtle replacements (and costs compute); google/electra-small-"
        "generator on the hub is full-size, which its model card warns about."),
    _true_false(
        "generator-stronger", "generator_size", "The stronger the generator, the better the discriminator.", False,
        "Too strong a generator often draws the original word (few real replacements) or near-perfect ones: the "
        "task gets too hard to learn from. Too weak, and replacements are nonsense words that are trivial to "
        "spot. See the “Generator difficulty” chart. In Explore you can choose a stronger generator: the "
        "discriminator, trained against ELECTRA's own, judges its fakes too. That shows how hard they are to "
        "catch, not what a discriminator trained against it would learn."),
    Question(
        "kept-network", "kept", "short",
        "After pretraining, which of the two networks do you fine-tune on your own task?",
        "the discriminator", "The generator only exists to make training examples; it is thrown away. The "
        "discriminator is an ordinary encoder and is fine-tuned like BERT.",
        keywords=("discriminator",), rejected=("generator", "both", "neither", "not"),
        wrong_examples=("the generator", "both", "generator and discriminator", "not the discriminator")),
    _choice(
        "kept-class", "kept", "Which Hugging Face class fine-tunes ELECTRA for sentiment classification?",
        "ElectraForSequenceClassification, loaded from the discriminator",
        ("ElectraForMaskedLM, loaded from the generator", "ElectraForPreTraining, loaded from both networks",
         "GPT2LMHeadModel"),
        "AutoModelForSequenceClassification picks ElectraForSequenceClassification: the discriminator's encoder "
        "plus a new classifier on [CLS]. The generator folder is never loaded (see “Use it in Hugging Face”)."),
    _choice(
        "not-gan-why", "not_gan", "ELECTRA has a generator and a discriminator. Why is it not a GAN?",
        "The generator is trained to guess the original words (maximum likelihood), not to fool the discriminator",
        ("The discriminator is thrown away after pretraining", "The generator is larger than the discriminator",
         "GANs cannot be built from transformers"),
        "In a GAN the generator is rewarded for fooling the discriminator. ELECTRA's generator just does MLM. "
        "Sampling words is not differentiable, so the discriminator's loss could not train it anyway; the "
        "paper's adversarial variant (trained with reinforcement learning) did worse."),
    _true_false(
        "not-gan-gradient", "not_gan",
        "The discriminator's loss is back-propagated through the sampled words into the generator.", False,
        "Drawing a token is not differentiable: no gradient flows from the discriminator's loss into the "
        "generator (only the shared embeddings receive both losses)."),
    _choice(
        "encoder-kind", "encoder", "What kind of network is ELECTRA's discriminator?",
        "A bidirectional Transformer encoder, like BERT: every token sees the whole sentence",
        ("A left-to-right decoder, like GPT", "An encoder-decoder, like T5", "A recurrent network"),
        "ELECTRA changes the pretraining task, not the architecture: the discriminator is a BERT-style encoder "
        "with a one-logit head per token."),
    Question(
        "encoder-word", "encoder", "short",
        "One word: is the discriminator an encoder or a decoder?",
        "encoder", "An encoder only: it reads a whole sentence at once and outputs a vector (and a score) per "
        "token. It has no way to write text token by token.",
        keywords=("encoder",), rejected=("decoder", "not", "both"),
        wrong_examples=("decoder", "encoder-decoder", "not an encoder")),
    _choice(
        "efficiency-small", "efficiency",
        "In the paper, at the same pretraining compute as BERT-Small (1.4e18 FLOPs), what GLUE score did "
        "ELECTRA-Small reach?",
        "79.9: ahead of BERT-Small (75.1) and even GPT (78.8), which used about 30 times more compute",
        ("75.1, the same as BERT-Small", "71.2, the same as ELMo", "The paper never compared them at equal compute"),
        "Table 1 of Clark et al. (2020); the “Efficiency” chart plots it. The Base models show the same at "
        "6.4e19 FLOPs: ELECTRA-Base 85.1, BERT-Base 82.2."),
    _true_false(
        "efficiency-budget", "efficiency",
        "Because ELECTRA is more compute-efficient, it beats MLM at any budget, even a few minutes on a laptop.",
        False,
        efficiency_budget_explanation(load_campaign())),
    _choice(
        "generative-when", "generative",
        "When is a generative objective (MLM, or next-word prediction like GPT) still the better choice?",
        "When the model must produce text: fill in blanks, continue, translate, summarise, chat",
        ("When you want to classify the sentiment of reviews", "When compute for pretraining is limited",
         "When you need a label for every token, such as named entities"),
        "The discriminator outputs one replaced/original score per token, not words. Classification and token "
        "labelling are exactly what it is good at; writing needs a model trained to predict words."),
    _true_false(
        "generative-fill", "generative",
        "ELECTRA's discriminator can fill in a [MASK] with the most likely word.", False,
        "It has no vocabulary output: one number per token. The generator could fill masks, but it is small "
        "and is thrown away after pretraining."),
)
