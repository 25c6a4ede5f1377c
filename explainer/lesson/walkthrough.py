"""The walk-through as data: RTD's four steps (mask -> propose -> swap -> detect) on one sentence.

Each state is derived from the same `Explanation` the Explore tab shows, so both tabs agree for the
same sentence and seed. Swap and Detect state ELECTRA's labelling rule (paper, section 2;
`_get_fake_data` in the official code): a masked position where the generator drew the original
token back is labelled original (0), not replaced; `drawn_back` lists those positions.
Each step's paragraph speaks to a student, with this sentence's own numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer.core.pipeline import Explanation, MaskedPosition
from explainer.lesson.supervision import MASK, PRETRAINING_RATE, TOY_SETTINGS, TOY_TEXT

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
                 f"{masked}; the generator drew a different token at every masked position, so {_of(chosen, chosen)} "
                 "count as replaced (label 1).")
    else:
        where = "there" if chosen == 1 else f"at {_of(k, chosen)} of them" if k == chosen else f"at {k} of them"
        which = "that position counts" if k == 1 else "those positions count"
        left = "no token is really replaced" if really == 0 else f"{_plural(really, 'token', 'is')} really replaced"
        count = (f"{masked}; the generator drew the original token back {where} ({_name_tokens(explanation, back)}), "
                 f"so {which} as original (label 0): {left}.")
    return f"{rule} {count}"


def _of(k: int, n: int) -> str:
    """How many of `n` things (n >= 2; a sentence about one thing says "it"): "both", "all 5", "neither of the 2",
    "none of the 5", "3 of the 5". Never "all 2" or "2 of the 2"."""
    if k == n:
        return "both" if n == 2 else f"all {n}"
    if k == 0:
        return "neither of the 2" if n == 2 else f"none of the {n}"
    return f"{k} of the {n}"


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


def _mask_paragraph(explanation: Explanation) -> str:
    """Step 1: who chose the tokens, how many are hidden behind [MASK], and who sees the masked copy."""
    n = sum(not t.special for t in explanation.tokens)
    chosen = tuple(m.position for m in explanation.masked)
    hidden = sum(m.shown_as_mask for m in explanation.masked)
    kept = len(chosen) - hidden
    if hidden == len(chosen):
        hid = f"{'It is' if hidden == 1 else 'They are'} hidden behind {MASK}."
    else:
        hid = f"{hidden} of them {'is' if hidden == 1 else 'are'} hidden behind {MASK}." if hidden else ""
    kept_note = (f"{_plural(kept, 'chosen token', 'is')} left unmasked (ELECTRA's official code leaves about 15% "
                 f"of the chosen tokens as they are; the paper replaces them all with {MASK}), but the generator "
                 f"must still guess {'it' if kept == 1 else 'them'}." if kept else "")
    return " ".join(part for part in (
        _picked(explanation, len(chosen), n), hid, kept_note,
        f"This masked copy goes to the generator only: the discriminator never sees a {MASK}.") if part)


def _propose_paragraph(vocab_size: int, generator: str = "electra") -> str:
    """Step 2: what the generator is and what it outputs, and which of the two generators this is."""
    which = ("This is ELECTRA's own generator, the one the discriminator trained against. Explore, the game and "
             "the live class also offer a stronger one, whose top guess is right more often: the same discriminator "
             "judges its fakes." if generator == "electra" else
             "This is the stronger generator, not the one the discriminator trained against: its top guess is right "
             "more often, and the same discriminator judges its fakes.")
    return (f"The generator is a small masked language model. At every chosen position it gives a probability "
            f"to each of the {vocab_size:,} tokens in its vocabulary (a softmax), trained like BERT to put the "
            "most on the original word. It is not trying to fool anyone: it just guesses as well as it can. "
            f"The bars show its top guesses. {which}")


def _swap_paragraph(explanation: Explanation, back: tuple[int, ...]) -> str:
    """Step 3: the draws, how many differ from the original, and the drawn-back positions' label."""
    chosen = tuple(m.position for m in explanation.masked)
    swapped = tuple(m.position for m in explanation.masked if m.position not in back)
    if not swapped:
        differ = ("The draw is the original token, so nothing is labelled replaced." if len(chosen) == 1 else
                  f"{_of(0, len(chosen)).capitalize()} draws differs from the original, so nothing is labelled "
                  "replaced.")
    elif len(swapped) == len(chosen) == 1:
        differ = "The draw differs from the original: that position is now labelled replaced (1)."
    else:
        one = len(swapped) == 1
        differ = (f"{_of(len(swapped), len(chosen)).capitalize()} draws {'differs' if one else 'differ'} from the "
                  f"original: {'that position is' if one else 'those positions are'} now labelled replaced (1).")
    same_note = ""
    if back and len(chosen) == 1:
        same_note = (f" By ELECTRA's rule that position ({_name_tokens(explanation, back)}) is labelled original (0), "
                     "not replaced: the generator happened to draw the original token back, so nothing changed there.")
    elif back:
        which = "that position is" if len(back) == 1 else "those positions are"
        same_note = (f" At {_plural(len(back), 'position')} ({_name_tokens(explanation, back)}) the generator "
                     f"happened to draw the original token back: by ELECTRA's rule {which} labelled original (0), "
                     "not replaced, since nothing changed there.")
    return (f"One token is drawn at random from each of those distributions (a sample, not the top guess) and "
            f"written into the sentence. {differ}{same_note} The discriminator reads only this corrupted sentence.")


def _detect_paragraph(explanation: Explanation, back: tuple[int, ...]) -> str:
    """Step 4: the discriminator's loss covers every position; the labels' rule; how it did on this sentence."""
    tokens = explanation.tokens
    chosen = len(explanation.masked)
    score = explanation.score()
    ranked = sorted((t for t in tokens if not t.special), key=lambda t: -t.p_replaced)[:max(1, score["replaced"])]
    hits = sum(bool(t.replaced) for t in ranked)
    named = ", ".join(f"“{t.corrupted}” ({t.p_replaced:.0%})" for t in ranked)
    suspects = (f"its most suspicious token is {named}, which {'was' if hits else 'was not'} really replaced."
                if len(ranked) == 1 else
                f"its {len(ranked)} most suspicious tokens are {named}: {hits} of them were really replaced.")
    masked = "the masked one" if chosen == 1 else f"the {chosen} masked ones"
    return (f"The discriminator, a full-size encoder, reads the corrupted sentence and gives every token one "
            f"number: the probability that it was replaced. Its loss covers all {len(tokens)} positions ([CLS] "
            f"and [SEP] included), not only {masked}: that is why ELECTRA learns more from "
            f"each sentence than BERT. {_label_rule(explanation, back)} {_flagged(score)} (P > 50%) and raised "
            f"{_plural(score['false_alarms'], 'false alarm')}; {suspects} After "
            "pretraining the generator is thrown away and this discriminator is fine-tuned.")


def _flagged(score: dict) -> str:
    """How many replacements the discriminator flagged, in words: "Here it flagged both replacements"."""
    caught, replaced = score["caught"], score["replaced"]
    if replaced == 0:
        return "Nothing here was really replaced, so there was nothing to flag"
    if replaced == 1:
        return f"Here it {'flagged' if caught else 'did not flag'} the one replacement"
    return f"Here it flagged {_of(caught, replaced)} replacements"


def walkthrough(explanation: Explanation, vocab_size: int) -> tuple[WalkStep, ...]:
    """The four states of RTD on one sentence, taken from `explanation` (nothing is recomputed)."""
    if explanation.settings.mode == "detect" or not explanation.masked:
        raise ValueError("the walk-through needs masked positions: use automatic or manual masking")
    tokens = explanation.tokens
    chosen = tuple(m.position for m in explanation.masked)
    masked_tokens = tuple(MASK if any(m.position == t.position and m.shown_as_mask for m in explanation.masked)
                          else t.original for t in tokens)
    corrupted = tuple(t.corrupted for t in tokens)
    truth = tuple(bool(t.replaced) for t in tokens)
    back = drawn_back(explanation)
    swapped = tuple(m.position for m in explanation.masked if m.position not in back)
    return (
        WalkStep(1, "mask", "Mask", _mask_paragraph(explanation), masked_tokens, chosen),
        WalkStep(2, "propose", "Propose", _propose_paragraph(vocab_size, explanation.settings.generator), masked_tokens,
                 chosen, explanation.masked),
        WalkStep(3, "swap", "Swap", _swap_paragraph(explanation, back), corrupted, swapped, explanation.masked, truth,
                 drawn_back=back),
        WalkStep(4, "detect", "Detect", _detect_paragraph(explanation, back), corrupted,
                 tuple(t.position for t in tokens if not t.special), explanation.masked, truth,
                 tuple(t.p_replaced for t in tokens), back),
    )
