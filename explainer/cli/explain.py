"""`explain`: one sentence through the pipeline, as the Explore tab shows it, printed as a table or JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import textwrap

HELP = 'one sentence, as the Explore tab shows it (the default: python -m explainer "text")'
DESCRIPTION = ("One sentence, as the Explore tab shows it: each token's P(replaced), the generator's guesses and "
               "draws, as a table or JSON.")
EXAMPLES = """examples:
    python -m explainer "the chef cooked a delicious meal" --seed 3
    python -m explainer "the chef ate the car" --detect --json
    python -m explainer "I drank a cup of [MASK] before work." --generator stronger   # a typed blank, filled
    python -m explainer "the chef cooked a meal" --mask-words 1 4 --attribute
    python -m explainer "..." --model runs/rtd          # any folder with generator/ + discriminator/
    python -m explainer explain "measure"               # a sentence that is also a subcommand's name"""


def pair_flags() -> argparse.ArgumentParser:
    """The flags `explain` and `measure` share: which pair, and how the generator forges."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument("--model", default=None,
                       help="bundled (default), a hub id like google/electra-small, or a folder")
    flags.add_argument("--mask-rate", type=float, default=0.15, help="fraction of tokens masked (automatic mode)")
    flags.add_argument("--seed", type=int, default=0, help="masking and sampling seed")
    flags.add_argument("--temperature", type=float, default=1.0, help="generator sampling temperature")
    flags.add_argument("--top-k", type=int, default=5, help="proposals listed per masked position")
    flags.add_argument("--generator", default="electra", choices=["electra", "stronger"],
                       help="who forges: the pair's own generator (default) or the stronger one "
                            "(assets/stronger-generator)")
    flags.add_argument("--json", action="store_true", help="print JSON instead of a table")
    flags.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    return flags


def add_explain(sub, parents: list[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("explain", parents=parents, help=HELP, description=textwrap.fill(DESCRIPTION, 100),
                       epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("text", help="the sentence; '-' reads standard input")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--detect", action="store_true", help="detect only: judge the text as it is")
    mode.add_argument("--mask-words", type=int, nargs="+", metavar="I",
                      help="mask these words (0-based, as the result numbers them: punctuation is a word of its own, "
                           "so \"arrived.\" is two words)")
    p.add_argument("--attribute", nargs="?", type=int, const=-1, default=None, metavar="POSITION",
                   help="also attribute a token's replaced-logit (default: the most suspicious token)")
    p.add_argument("--method", default="integrated_gradients", choices=["integrated_gradients", "gradient_x_input"])
    p.add_argument("--n-steps", type=int, default=50, help="integration steps")
    p.set_defaults(run=run_explain)


def table(explanation, attribution=None) -> str:
    """A fixed-width table, one row per token."""
    masked = {m.position: m for m in explanation.masked}
    rows = [f"{'#':>3}  {'read':<16} {'original':<16} {'P(repl)':>7}  {'truth':<9} generator's top guesses"]
    for t in explanation.tokens:
        truth = "" if t.special else ("?" if t.replaced is None else "REPLACED" if t.replaced else "original")
        if t.blank and t.corrupted == t.original:
            truth = "blank"  # detect-only: nothing filled it, so nothing to judge
        guesses = ""
        if t.position in masked:
            m = masked[t.position]
            guesses = ", ".join(f"{p.token} {p.probability:.0%}" for p in m.proposals) + f"  -> drew {m.sampled}"
            if m.others:  # a typed blank: the other generator's guesses too
                guesses += f"  | {m.others_generator}: " + ", ".join(f"{p.token} {p.probability:.0%}" for p in m.others)
        share = "" if attribution is None else f"  share {attribution.scores[t.position]:+.4f}"
        rows.append(f"{t.position:>3}  {t.corrupted:<16.16} {t.original:<16.16} {t.p_replaced:>7.1%}  {truth:<9} "
                    f"{guesses}{share}")
    lines = [*rows, ""]
    lines += [f"note: {n}" for n in explanation.notices]
    score = explanation.score()
    if score:
        lines.append(f"replaced {score['replaced']} of {score['tokens']} tokens; flagged {score['caught']} of them "
                     f"(P > 50%); {score['false_alarms']} false alarm(s)")
    if attribution is not None:
        delta = "" if attribution.delta is None else f", convergence delta {attribution.delta:.1e}"
        method = attribution.settings.method
        lines.append(f"attribution of token {attribution.target}'s replaced-logit ({method}{delta})")
    return "\n".join(lines)


def run_explain(args: argparse.Namespace) -> int:
    from explainer.core import bounds, models
    from explainer.core.attributions import AttributionSettings, attribute
    from explainer.core.pipeline import Settings, explain
    from explainer.core.text import InputError

    text = sys.stdin.read() if args.text == "-" else args.text
    mode = "detect" if args.detect else "manual" if args.mask_words else "auto"
    try:
        v = bounds.check(text=text, mode=mode, mask_rate=args.mask_rate, seed=args.seed, temperature=args.temperature,
                         top_k=args.top_k, mask_words=args.mask_words, method=args.method, n_steps=args.n_steps,
                         generator=args.generator, **({} if args.attribute is None else {"target": args.attribute}))
        settings = Settings(mode, v["mask_rate"], v["seed"], v["temperature"], v["top_k"], v["mask_words"],
                            v["generator"])
        pair = models.load(args.model or "")  # roots=None: any local folder
        explanation = explain(pair, v["text"], settings)
        attribution = None
        if args.attribute is not None:
            target = None if v["target"] < 0 else v["target"]
            attribution = attribute(pair, explanation, target, AttributionSettings(v["method"], v["n_steps"]))
    except (models.ModelLoadError, InputError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        out = explanation.to_dict()
        if attribution is not None:
            out["attribution"] = {**dataclasses.asdict(attribution), "p_replaced": attribution.p_replaced}
        print(json.dumps(out, indent=1, ensure_ascii=False))
    else:
        print(table(explanation, attribution))
    return 0
