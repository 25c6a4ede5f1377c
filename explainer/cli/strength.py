"""`strength`: several generators against one discriminator (explainer.lesson.strength), the study the Classroom
draws, measured once on a CPU and written beside the bundled model."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

from explainer.lesson import strength as study_of

HELP = "several generators against one discriminator (the paper's Figure 3 trade-off): the study the Classroom draws"
DESCRIPTION = ("Measure several generators against one discriminator (the paper's Figure 3 trade-off) and write the "
               "study the Classroom draws.")
EXAMPLES = f"""example (the shipped study):
    {study_of.MEASURE_COMMAND}"""


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _generator_spec(spec: str) -> str:
    name, _, path = spec.partition("=")
    if not name.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"takes NAME=DIR, not {spec!r}")
    return spec


def add_strength(sub) -> None:
    p = sub.add_parser("strength", help=HELP, description=textwrap.fill(DESCRIPTION, 100), epilog=EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pair", required=True, type=Path, metavar="DIR",
                   help="a folder with generator/ and discriminator/: the discriminator, and its shipped generator")
    p.add_argument("--generator", action="append", default=[], metavar="NAME=DIR", type=_generator_spec,
                   help="another generator: a generator folder, or a run folder holding generator/ (repeatable)")
    p.add_argument("--stronger", type=Path, default=None, metavar="DIR",
                   help=f"the stronger generator that ships beside the pair, as the point {study_of.STRONGER_NAME!r}")
    p.add_argument("--cut", action="extend", nargs="+", type=int, default=[], metavar="N",
                   help="also the pair's generator cut after its first N layers (repeatable)")
    p.add_argument("--blocks", type=_positive, default=200, help=f"held-out {study_of.SEQ_LEN}-token blocks "
                   "(default 200)")
    p.add_argument("--seeds", type=_positive, default=5, help="classroom seeds 0..N-1 (default 5)")
    p.add_argument("--sentences", action="extend", nargs="+", default=None, metavar="FILE",
                   help="classroom sentence files, pooled (default: assets/game_sentences.json and "
                        "assets/check_sentences.json)")
    p.add_argument("--threads", type=_positive, default=2, help="torch CPU threads (default 2)")
    p.add_argument("--keep", type=Path, default=None, metavar="STUDY",
                   help="keep this earlier study's points for generators not measured again (same discriminator, "
                        "blocks, seeds and sentences; its shipped point must come out the same)")
    p.add_argument("--out", type=Path, default=None, help="write the JSON study here (default: print it)")
    p.set_defaults(run=run_strength)


def run_strength(args: argparse.Namespace) -> int:
    import torch
    from transformers import AutoTokenizer, ElectraForMaskedLM

    from training.models import generator_folder, load_pair
    from training.project import ASSETS
    from training.sentences import read_sentence_files

    torch.set_num_threads(args.threads)
    folder = args.pair
    weights = folder / "discriminator" / "model.safetensors"
    if not weights.exists():
        print(f"error: {weights} is missing (--pair needs a folder with generator/ and discriminator/)",
              file=sys.stderr)
        return 2
    try:
        sentences = read_sentence_files(args.sentences or study_of.SENTENCE_FILES)
        kept = None
        if args.keep is not None:
            kept = study_of.load_study(args.keep)
            if kept is None:
                raise ValueError(f"no study at {args.keep} to keep points from")
            study_of.check_keepable(kept, study_of.file_sha256(weights), args.blocks, tuple(range(args.seeds)),
                                    len(sentences))
        generator, discriminator = load_pair(folder)
        cuts = [study_of.cut_generator(generator, n) for n in args.cut]
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    tokenizer = AutoTokenizer.from_pretrained(folder / "discriminator")
    layers = study_of.layers_text
    players = [(f"{layers(generator.config.num_hidden_layers)} x {generator.config.hidden_size} (shipped)", generator,
                "shipped")]
    if args.stronger is not None:
        players.append((study_of.STRONGER_NAME, ElectraForMaskedLM.from_pretrained(generator_folder(args.stronger)),
                        "stronger"))
    players += [(f"cut after {layers(n)}", cut, "") for n, cut in zip(args.cut, cuts)]
    for spec in args.generator:
        name, path = (part.strip() for part in spec.split("=", 1))
        players.append((name, ElectraForMaskedLM.from_pretrained(generator_folder(Path(path))), ""))
    texts, seeds = study_of.heldout_texts(), tuple(range(args.seeds))
    log = sys.stdout if args.out else sys.stderr  # printed JSON stays clean on stdout
    points = []
    for name, model, role in players:
        point = study_of.measure_generator(name, model, discriminator, tokenizer, texts, sentences, seeds=seeds,
                                           blocks=args.blocks, shipped=role == "shipped", stronger=role == "stronger")
        points.append(point)
        print(f"{name}: top-1 at [MASK] {point.top1_at_mask:.1%}, top-5 {point.top5_at_mask:.1%} | AUC "
              f"{point.auc:.3f}, recall {point.recall:.1%}, false alarms {point.false_alarm_rate:.1%} | classroom: "
              f"recall {point.classroom_recall:.1%}, false alarms {point.classroom_false_alarms:.1%}, top word "
              f"{point.classroom_top_word:.1%}", file=log, flush=True)
    d = discriminator.config
    bundled = folder.resolve() == (ASSETS / "model").resolve()
    owner = "the bundled pair's discriminator" if bundled else folder.resolve().name
    study = study_of.StrengthStudy(f"{owner}, {layers(d.num_hidden_layers)} x {d.hidden_size}",
                                   study_of.file_sha256(weights), args.blocks, seeds, len(sentences), tuple(points))
    if kept is not None:
        try:
            moved = study_of.shipped_drift(study, kept)[0]
            study = study_of.merge_studies(study, kept)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        print(f"kept {len(study.points) - len(points)} point(s) from {args.keep} (the shipped generator's figures "
              f"within {moved:.5f} of the kept ones)", file=log)
    text = json.dumps(study.to_dict(), indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=log)
    else:
        print(text)
    return 0
