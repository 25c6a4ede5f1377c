"""`python -m explainer "some text"`: the Explore tab's result in a terminal, as a table or JSON.

    python -m explainer "the chef cooked a delicious meal" --seed 3
    python -m explainer "the chef ate the car" --detect --json
    python -m explainer "I drank a cup of [MASK] before work." --generator stronger   # a typed blank, filled
    python -m explainer "the chef cooked a meal" --mask-words 1 4 --attribute
    python -m explainer "..." --model runs/rtd          # any folder with generator/ + discriminator/
    python -m explainer --sentences assets/check_sentences.json --seeds 5   # the classroom measure
    python -m explainer --sentences assets/game_sentences.json --misses    # ... and the scenes it gets wrong

The local user owns the machine, so any local folder may be named here (the web app limits
folders to assets/, runs/ and $ELECTRA_MODEL_ROOTS). Exit status 2 on a user error.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m explainer", description=__doc__.split("\n\n")[0])
    parser.add_argument("text", nargs="?", help="the sentence; '-' reads standard input")
    parser.add_argument("--sentences", metavar="FILE", help="instead of one text: a JSON list of sentences (or an "
                        "object with a 'sentences' list), each played under --seeds seeds; prints the classroom "
                        "measure (explainer.lesson.measure)")
    parser.add_argument("--misses", action="store_true", help="with --sentences: also list each scene whose top-rated "
                        "word is an original one, with the word blamed and the replaced ones")
    parser.add_argument("--seeds", type=int, default=5, help="with --sentences: seeds SEED, SEED+1, ... (default 5)")
    parser.add_argument("--model", default=None, help="bundled (default), a hub id like google/electra-small, or a folder")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--detect", action="store_true", help="detect only: judge the text as it is")
    mode.add_argument("--mask-words", type=int, nargs="+", metavar="I", help="mask these words (0-based)")
    parser.add_argument("--mask-rate", type=float, default=0.15, help="fraction of tokens masked (automatic mode)")
    parser.add_argument("--seed", type=int, default=0, help="masking and sampling seed")
    parser.add_argument("--temperature", type=float, default=1.0, help="generator sampling temperature")
    parser.add_argument("--top-k", type=int, default=5, help="proposals listed per masked position")
    parser.add_argument("--generator", default="electra", choices=["electra", "stronger"],
                        help="who forges: the pair's own generator (default) or the stronger one "
                             "(assets/stronger-generator)")
    parser.add_argument("--attribute", nargs="?", type=int, const=-1, default=None, metavar="POSITION",
                        help="also attribute a token's replaced-logit (default: the most suspicious token)")
    parser.add_argument("--method", default="integrated_gradients", choices=["integrated_gradients", "gradient_x_input"])
    parser.add_argument("--n-steps", type=int, default=50, help="integration steps")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    args = parser.parse_args(argv)
    if (args.text is None) == (args.sentences is None):
        parser.error("give one text, or --sentences FILE")
    if args.misses and args.sentences is None:
        parser.error("--misses goes with --sentences FILE")
    return args


def read_sentences(path: str) -> list[str]:
    """A JSON list of strings, or an object whose 'sentences' is one; a clear error otherwise."""
    try:
        data = json.loads(open(path, encoding="utf-8").read())
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON ({error.msg}, line {error.lineno})") from None
    sentences = data.get("sentences") if isinstance(data, dict) else data
    if not isinstance(sentences, list) or not sentences or not all(isinstance(s, str) for s in sentences):
        raise ValueError(f"{path} must hold a non-empty list of sentences (strings), or an object with one under 'sentences'")
    return sentences


def measure_table(measure) -> str:
    m = measure
    return "\n".join([
        f"{m.sentences} sentences x {len(m.seeds)} seeds = {m.scenes} scenes ({m.scenes_with_fakes} with a replaced word)",
        f"replaced words flagged (P > 50%):   {m.recall:7.1%}  of {m.replaced_words}",
        f"false alarms (original flagged):    {m.false_alarm_rate:7.1%}  of {m.original_words}",
        f"top-rated word is a replaced one:   {m.top_word_replaced:7.1%}  of {m.scenes_with_fakes} scenes",
        f"draws outside the generator's top 5: {m.draws_outside_top5:6.1%}",
        f"mean P(replaced): replaced words {m.mean_p_replaced:.1%}, original words {m.mean_p_original:.1%}",
    ])


def misses_table(misses) -> str:
    """Each miss on two lines, after a count of where the blamed words stand."""
    near, last = sum(m.next_to_fake for m in misses), sum(m.last_word for m in misses)
    head = (f"\n{len(misses)} scenes rate an original word highest: {near} of those words stand next to a replaced "
            f"one, {last} are the sentence's last word")
    return "\n".join([head, *(m.line() for m in misses)])


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
        rows.append(f"{t.position:>3}  {t.corrupted:<16.16} {t.original:<16.16} {t.p_replaced:>7.1%}  {truth:<9} {guesses}{share}")
    lines = [*rows, ""]
    lines += [f"note: {n}" for n in explanation.notices]
    score = explanation.score()
    if score:
        lines.append(f"replaced {score['replaced']} of {score['tokens']} tokens; flagged {score['caught']} of them "
                     f"(P > 50%); {score['false_alarms']} false alarm(s)")
    if attribution is not None:
        delta = "" if attribution.delta is None else f", convergence delta {attribution.delta:.1e}"
        lines.append(f"attribution of token {attribution.target}'s replaced-logit ({attribution.settings.method}{delta})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import torch
    from transformers.utils import logging as hf_logging

    from explainer.core import bounds, models
    from explainer.core.attributions import AttributionSettings, attribute
    from explainer.core.pipeline import Settings, explain
    from explainer.core.text import InputError

    hf_logging.disable_progress_bar()  # no "Loading weights" bars in a terminal tool
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.sentences is not None:
        return run_measure(args)
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


def run_measure(args: argparse.Namespace) -> int:
    """--sentences: the classroom measure at the given settings, as a table or JSON."""
    from explainer.core import bounds, models
    from explainer.core.pipeline import Settings
    from explainer.core.text import InputError
    from explainer.lesson.measure import find_misses, play, score_scenes

    try:
        if args.seeds < 1:
            raise ValueError("--seeds must be 1 or more")
        v = bounds.check(mask_rate=args.mask_rate, seed=args.seed, temperature=args.temperature, top_k=args.top_k,
                         generator=args.generator)
        sentences = read_sentences(args.sentences)
        pair = models.load(args.model or "")
        settings = Settings("auto", v["mask_rate"], v["seed"], v["temperature"], max(v["top_k"], 5),
                            generator=v["generator"])
        seeds = range(args.seed, args.seed + args.seeds)
        scenes = play(pair, sentences, seeds, settings)
    except (models.ModelLoadError, InputError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    measure = score_scenes(scenes, len(sentences), tuple(seeds))
    misses = find_misses(scenes) if args.misses else None
    if args.json:
        out = {"model": pair.name, **measure.to_dict()}
        if misses is not None:
            out["misses"] = [dataclasses.asdict(m) for m in misses]
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return 0
    print(measure_table(measure))
    if misses is not None:
        print(misses_table(misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
