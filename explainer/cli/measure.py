"""`measure`: the classroom measure (explainer.lesson.measure) on sentence files, as a table or JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import textwrap

HELP = "the classroom measure: sentence files, each played under several seeds"
DESCRIPTION = ("The classroom measure: each sentence played as Explore plays it, under --seeds seeds; replaced words "
               "flagged, false alarms, the top-rated word.")
EXAMPLES = """examples:
    python -m explainer measure assets/check_sentences.json --seeds 5   # the classroom measure
    python -m explainer measure assets/game_sentences.json --misses     # ... and the scenes it gets wrong
    python -m explainer --sentences FILE ...                            # the older spelling, the same"""


def add_measure(sub, parents: list[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("measure", parents=parents, help=HELP, description=textwrap.fill(DESCRIPTION, 100),
                       epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sentences", nargs="+", metavar="FILE", help="JSON files: a list of sentences, or an object with "
                   "a 'sentences' list; pooled in order")
    p.add_argument("--seeds", type=int, default=5, help="seeds SEED, SEED+1, ... (default 5)")
    p.add_argument("--misses", action="store_true", help="also list each scene whose top-rated word is an original "
                   "one, with the word blamed and the replaced ones")
    p.set_defaults(run=run_measure)


def measure_table(measure) -> str:
    m = measure
    return "\n".join([
        f"{m.sentences} sentences x {len(m.seeds)} seeds = {m.scenes} scenes "
        f"({m.scenes_with_fakes} with a replaced word)",
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


def run_measure(args: argparse.Namespace) -> int:
    from explainer.core import bounds, models
    from explainer.core.pipeline import Settings
    from explainer.core.text import InputError
    from explainer.lesson.measure import find_misses, play, score_scenes
    from training.sentences import read_sentence_files

    try:
        if args.seeds < 1:
            raise ValueError("--seeds must be 1 or more")
        v = bounds.check(mask_rate=args.mask_rate, seed=args.seed, temperature=args.temperature, top_k=args.top_k,
                         generator=args.generator)
        sentences = read_sentence_files(args.sentences)
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
