"""Classroom views as data: what each objective learns from, RTD's four steps, and how hard the generator
makes the discriminator's job.

- `supervised_positions`: from one `Explanation`, position by position, what MLM (BERT) is trained
  on — the masked subset, target = the original token, a softmax over the whole vocabulary — against
  what RTD (ELECTRA) is trained on — every non-padding position, target = original/replaced, one
  logit. The counts are the ones training logs as `supervised_positions`.
- `walkthrough`: the states mask -> propose -> swap -> detect, each derived from the same
  `Explanation` the Explore tab shows, so both tabs agree for the same sentence and seed. Swap and
  Detect state ELECTRA's labelling rule (paper, section 2; `_get_fake_data` in the official code):
  a masked position where the generator drew the original token back is labelled original (0), not
  replaced; `drawn_back` lists those positions.
- `temperature_sweep`: held-out sentences corrupted by the pair's own generator at several
  temperatures (and by a weaker generator: the same one cut after its first layer); the fraction
  of tokens really replaced, and the discriminator's accuracy and ROC-AUC.
- `HF_SNIPPET`: the code the "Use it in Hugging Face" panel shows; a test runs exactly this text.

Pure apart from the models handed in and `heldout_sentences`, which reads the built-in corpus.
Left out: a stronger generator (the hub's full-size one needs the network).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from explainer.core.pipeline import Explanation, MaskedPosition, Settings
from training.metrics import binary_metrics
from training.objectives import ELECTRA_MASKING, corrupt, detect, mask_tokens, masked_lm_logits

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


# --- walk-through -----------------------------------------------------------------------------

STEP_NAMES = ("mask", "propose", "swap", "detect")


@dataclass(frozen=True)
class WalkStep:
    number: int  # 1-4
    name: str  # one of STEP_NAMES
    title: str
    paragraph: str  # for a student, with this sentence's own numbers
    tokens: tuple[str, ...]  # the sequence as this step leaves it, one entry per token ([CLS]/[SEP] too)
    focus: tuple[int, ...]  # token positions this step acted on
    proposals: tuple[MaskedPosition, ...] = ()  # propose/swap: the generator's guesses and the draw
    replaced: tuple[bool, ...] = ()  # swap/detect: the truth per token (1 = replaced)
    p_replaced: tuple[float, ...] = ()  # detect: the discriminator's verdict per token
    drawn_back: tuple[int, ...] = ()  # swap/detect: masked positions where the draw was the original (label 0)


def drawn_back(explanation: Explanation) -> tuple[int, ...]:
    """Masked positions where the generator sampled the original token back: labelled original (0), not replaced.

    ELECTRA's rule (paper, section 2; `_get_fake_data` in google-research/electra's run_pretraining.py labels
    a masked position 1 only where the updated id differs from the input id): the same comparison the
    pipeline's truth uses, read from the ids the discriminator saw.
    """
    return tuple(m.position for m in explanation.masked
                 if explanation.corrupted_ids[m.position] == explanation.original_ids[m.position])


MAX_NAMED = 4  # drawn-back tokens named in a paragraph; the rest are counted


def _name_tokens(explanation: Explanation, positions: tuple[int, ...]) -> str:
    """“the”, “##d” in “cooked”, …: each token as the walk-through shows it, with its word when it is a piece."""
    names = []
    for position in positions[:MAX_NAMED]:
        token = explanation.tokens[position]
        word = explanation.words[token.word] if token.word is not None else None
        name = f"“{token.corrupted}”"
        if word is not None and len(word.tokens) > 1:
            name += f" in “{word.text}”"
        names.append(name)
    if len(positions) > MAX_NAMED:
        names.append(f"{len(positions) - MAX_NAMED} more")
    return ", ".join(names)


def _label_rule(explanation: Explanation, back: tuple[int, ...]) -> str:
    """The Detect step's statement of the rule and this sentence's count of drawn-back positions."""
    chosen = len(explanation.masked)
    k, really = len(back), len(explanation.masked) - len(back)
    rule = ("The labels follow ELECTRA's rule: a token is labelled replaced (1) only if it differs from the "
            "original, so a masked position where the generator happened to draw the original token back is "
            "labelled original (0).")
    masked = f"{_plural(chosen, 'token')} {'was' if chosen == 1 else 'were'} masked"
    if k == 0:
        count = (f"{masked}; the generator drew a different token there, so it counts as replaced (label 1)."
                 if chosen == 1 else
                 f"{masked}; the generator drew a different token at every masked position, so all {chosen} count "
                 "as replaced (label 1).")
    else:
        where = ("there" if chosen == 1 else "at both of them" if k == chosen == 2 else
                 f"at all {chosen} of them" if k == chosen else f"at {k} of them")
        which = "that position counts" if k == 1 else "those positions count"
        left = "no token is really replaced" if really == 0 else f"{_plural(really, 'token', 'is')} really replaced"
        count = (f"{masked}; the generator drew the original token back {where} ({_name_tokens(explanation, back)}), "
                 f"so {which} as original (label 0): {left}.")
    return f"{rule} {count}"


def _plural(n: int, word: str, verb: str = "") -> str:
    """'1 token is', '3 tokens are' (verb "is" or "") ."""
    noun = word if n == 1 else f"{word}s"
    return f"{n} {noun}" + ("" if not verb else " is" if n == 1 else " are")


def _picked(explanation: Explanation, chosen: int, n: int) -> str:
    """Who chose the masked tokens and how many: at random (automatic) or by hand (manual, the toy sentence)."""
    settings = explanation.settings
    if settings.mode == "manual":
        figure = (", as in the paper's Figure 2" if explanation.text.strip() == TOY_TEXT
                  and tuple(settings.mask_words) == TOY_SETTINGS.mask_words else "")
        return (f"You picked {chosen} of {n} tokens ({chosen / n:.0%}){figure}; in pretraining ELECTRA picks about "
                f"{PRETRAINING_RATE:.0%} at random.")
    rate = f"about {settings.mask_rate:.0%}"
    if round(n * settings.mask_rate) == 0:  # a short sentence: the pipeline masks one token instead of none
        rate = f"{settings.mask_rate:.0%} of {n} rounds to none, so one was picked"
    if round(settings.mask_rate, 6) != PRETRAINING_RATE:
        rate += f"; in pretraining ELECTRA picks about {PRETRAINING_RATE:.0%}"
    return f"ELECTRA picked {chosen} of the {n} tokens at random ({rate})."


def walkthrough(explanation: Explanation, vocab_size: int) -> tuple[WalkStep, ...]:
    """The four states of RTD on one sentence, taken from `explanation` (nothing is recomputed)."""
    if explanation.settings.mode == "detect" or not explanation.masked:
        raise ValueError("the walk-through needs masked positions: use automatic or manual masking")
    tokens = explanation.tokens
    n = sum(not t.special for t in tokens)
    chosen = tuple(m.position for m in explanation.masked)
    hidden = sum(m.shown_as_mask for m in explanation.masked)
    kept = len(chosen) - hidden
    masked_tokens = tuple(MASK if any(m.position == t.position and m.shown_as_mask for m in explanation.masked)
                          else t.original for t in tokens)
    corrupted = tuple(t.corrupted for t in tokens)
    truth = tuple(bool(t.replaced) for t in tokens)
    back = drawn_back(explanation)
    swapped = tuple(m.position for m in explanation.masked if m.position not in back)
    score = explanation.score()

    if hidden == len(chosen):
        hid = f"{'It is' if hidden == 1 else 'They are'} hidden behind {MASK}."
    else:
        hid = f"{hidden} of them {'is' if hidden == 1 else 'are'} hidden behind {MASK}." if hidden else ""
    kept_note = (f"{_plural(kept, 'chosen token', 'is')} left unmasked (ELECTRA's official code leaves about 15% "
                 f"of the chosen tokens as they are; the paper replaces them all with {MASK}), but the generator "
                 f"must still guess {'it' if kept == 1 else 'them'}." if kept else "")
    mask = " ".join(part for part in (
        _picked(explanation, len(chosen), n), hid, kept_note,
        f"This masked copy goes to the generator only: the discriminator never sees a {MASK}.") if part)
    propose = (f"The generator is a small masked language model. At every chosen position it gives a probability "
               f"to each of the {vocab_size:,} tokens in its vocabulary (a softmax), trained like BERT to put the "
               "most on the original word. It is not trying to fool anyone: it just guesses as well as it can. "
               "The bars show its top guesses.")
    if not swapped:
        differ = ("The draw is the original token, so nothing is labelled replaced." if len(chosen) == 1 else
                  f"None of the {len(chosen)} draws differs from the original, so nothing is labelled replaced.")
    elif len(swapped) == len(chosen) == 1:
        differ = "The draw differs from the original: that position is now labelled replaced (1)."
    else:
        differ = (f"{len(swapped)} of the {len(chosen)} draws {'differs' if len(swapped) == 1 else 'differ'} from "
                  f"the original: {'that position is' if len(swapped) == 1 else 'those positions are'} now labelled "
                  "replaced (1).")
    same_note = ""
    if back and len(chosen) == 1:
        same_note = (f" By ELECTRA's rule that position ({_name_tokens(explanation, back)}) is labelled original (0), "
                     "not replaced: the generator happened to draw the original token back, so nothing changed there.")
    elif back:
        which = "that position is" if len(back) == 1 else "those positions are"
        same_note = (f" At {_plural(len(back), 'position')} ({_name_tokens(explanation, back)}) the generator "
                     f"happened to draw the original token back: by ELECTRA's rule {which} labelled original (0), "
                     "not replaced, since nothing changed there.")
    swap = (f"One token is drawn at random from each of those distributions (a sample, not the top guess) and "
            f"written into the sentence. {differ}{same_note} The discriminator reads only this corrupted sentence.")
    ranked = sorted((t for t in tokens if not t.special), key=lambda t: -t.p_replaced)[:max(1, score["replaced"])]
    hits = sum(bool(t.replaced) for t in ranked)
    named = ", ".join(f"“{t.corrupted}” ({t.p_replaced:.0%})" for t in ranked)
    suspects = (f"its most suspicious token is {named}, which {'was' if hits else 'was not'} really replaced."
                if len(ranked) == 1 else
                f"its {len(ranked)} most suspicious tokens are {named}: {hits} of them were really replaced.")
    detect = (f"The discriminator, a full-size encoder, reads the corrupted sentence and gives every token one "
              f"number: the probability that it was replaced. Its loss covers all {len(tokens)} positions ([CLS] "
              f"and [SEP] included), not only the {len(chosen)} masked ones: that is why ELECTRA learns more from "
              f"each sentence than BERT. {_label_rule(explanation, back)} Here it flagged {score['caught']} of the "
              f"{score['replaced']} replacements "
              f"(P > 50%) and raised {_plural(score['false_alarms'], 'false alarm')}; {suspects} After "
              "pretraining the generator is thrown away and this discriminator is fine-tuned.")
    return (
        WalkStep(1, "mask", "Mask", mask, masked_tokens, chosen),
        WalkStep(2, "propose", "Propose", propose, masked_tokens, chosen, explanation.masked),
        WalkStep(3, "swap", "Swap", swap, corrupted, swapped, explanation.masked, truth, drawn_back=back),
        WalkStep(4, "detect", "Detect", detect, corrupted, tuple(t.position for t in tokens if not t.special),
                 explanation.masked, truth, tuple(t.p_replaced for t in tokens), back),
    )


# --- generator quality sets the difficulty ------------------------------------------------------

TEMPERATURES = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)  # 1.0 = how the pair was trained
WEAKER = "first layer only"  # the weaker generator: its LM head reads the output of its first layer
N_SENTENCES = 32  # held-out sentences in the sweep: a few seconds on the bundled pair, one thread
SENTENCE_WORDS = (8, 30)  # short, whole sentences: min and max words


@dataclass(frozen=True)
class SweepPoint:
    generator: str  # "full" or WEAKER
    temperature: float
    generator_top1: float  # the generator's top guess = the original, over masked positions
    replaced_fraction: float  # of all non-special tokens, really replaced
    accuracy: float  # discriminator, P > 0.5, over all non-special tokens
    auc: float  # discriminator's ROC-AUC: 0.5 = guessing, 1 = perfect


@dataclass(frozen=True)
class Sweep:
    model: str
    sentences: int
    tokens: int  # non-special tokens judged per point
    masked: int  # positions masked (the same ones at every point)
    points: tuple[SweepPoint, ...]


def heldout_sentences(n: int = N_SENTENCES, words: tuple[int, int] = SENTENCE_WORDS) -> tuple[str, ...]:
    """The first short sentence of each held-out IMDB review, until `n` (fixed: the split is by hash)."""
    from training.data import load_imdb

    found = []
    for document in load_imdb().heldout:
        for sentence in re.split(r"(?<=[.!?])\s+", document):
            if words[0] <= len(sentence.split()) <= words[1] and sentence[:1].isupper():
                found.append(sentence)
                break
        if len(found) == n:
            break
    return tuple(found)


@torch.no_grad()
def temperature_sweep(pair, sentences: tuple[str, ...], temperatures: tuple[float, ...] = TEMPERATURES,
                      seed: int = 0, max_tokens: int = 64) -> Sweep:
    """Corrupt `sentences` once per (generator, temperature) with the same mask; score the discriminator.

    The mask and the generator's logits do not depend on the temperature, so they are computed once;
    only the sampling and the discriminator run per point. The weaker generator is the same network
    cut after its first layer (its LM head reads that layer's output), when it has two layers or more
    (on the bundled 3-layer generator, 32 held-out IMDB sentences: top-1 44% and the discriminator's
    AUC 0.80 at temperature 1 for the full generator, 23% and 0.92 for its first layer alone: the
    paper's Figure 3 trade-off, against one discriminator).
    """
    if pair.generator is None:
        raise ValueError(f"{pair.name} has no generator: the sweep needs one")
    tokenizer = pair.tokenizer
    with pair.lock:  # the tokenizer's padding/truncation settings are shared state too (see pipeline.explain)
        enc = tokenizer(list(sentences), padding=True, truncation=True, max_length=max_tokens,
                        return_special_tokens_mask=True, return_tensors="pt")
        ids, attention = enc["input_ids"], enc["attention_mask"]  # (B, T)
        special = enc["special_tokens_mask"].bool() | ~attention.bool()
        batch = mask_tokens(ids, special.long(), attention, tokenizer.mask_token_id, len(tokenizer),
                            ELECTRA_MASKING, torch.Generator().manual_seed(seed))
        targets = ids[batch.is_masked]  # (M,)
        generator = pair.generator
        logits, _ = masked_lm_logits(generator, batch.masked, attention, batch.is_masked)  # (M, V)
        variants = {"full": logits}
        if generator.config.num_hidden_layers >= 2:
            hidden = generator.electra(batch.masked, attention_mask=attention, output_hidden_states=True).hidden_states
            first = hidden[1][batch.is_masked]  # (M, H): the output of the first layer
            variants[WEAKER] = generator.generator_lm_head(generator.generator_predictions(first))
        points = []
        for name, gen_logits in variants.items():
            top1 = (gen_logits.argmax(-1) == targets).float().mean().item()
            for temperature in temperatures:
                rng = torch.Generator().manual_seed(seed + 1)  # the same draws' randomness at each point
                fake = corrupt(ids, batch.is_masked, gen_logits, temperature, rng)
                disc, _ = detect(pair.discriminator, fake.ids, attention)  # (B, T)
                labels = fake.labels
                metrics = binary_metrics(disc[~special], labels[~special])
                points.append(SweepPoint(name, temperature, top1, labels[~special].float().mean().item(),
                                         metrics["accuracy"], metrics["auc"]))
    return Sweep(pair.name, len(sentences), int((~special).sum()), int(batch.is_masked.sum()), tuple(points))


# --- use it in Hugging Face ----------------------------------------------------------------------

BUNDLED_DISCRIMINATOR = "assets/model/discriminator"
HUB_DISCRIMINATOR = "google/electra-small-discriminator"
HF_SNIPPET = f'''\
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

folder = "{BUNDLED_DISCRIMINATOR}"  # run from the project folder
tokenizer = AutoTokenizer.from_pretrained(folder)
model = AutoModelForSequenceClassification.from_pretrained(folder, num_labels=2)
# Only the discriminator is loaded: the generator is not needed any more. Its replaced-token
# head is dropped (the warning lists it) and a new, untrained classifier reads the [CLS] token.
print(type(model).__name__)

texts = ["A warm, funny and beautifully acted film.", "Dull, slow and far too long."]
labels = torch.tensor([1, 0])  # 1 = positive
batch = tokenizer(texts, padding=True, return_tensors="pt")
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
model.train()
loss = model(**batch, labels=labels).loss  # one fine-tuning step: loop over your own data
loss.backward()
optimizer.step()

model.eval()
with torch.no_grad():
    print(model(**batch).logits.softmax(-1))  # P(negative), P(positive) for each text'''


def hub_snippet() -> str:
    """The same code for the hub's discriminator (needs the network the first time)."""
    return HF_SNIPPET.replace(f'"{BUNDLED_DISCRIMINATOR}"  # run from the project folder',
                              f'"{HUB_DISCRIMINATOR}"  # downloaded once, then cached')
