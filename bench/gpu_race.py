"""A race recorded on a borrowed GPU: make its token bundle here, then run it there in one call (docs/gpu-race.md).

    # here: the corpus, its 8,000-token WordPiece and the probe's task, pre-tokenized (~25 MB)
    PYTHONPATH=. .venv/bin/python bench/gpu_race.py bundle --out runs/gpu-bundle
    # there (bench/gpu_race.sh does this): peak, calibration, a budget that ends in --minutes, the race, its record
    PYTHONPATH=. python3 bench/gpu_race.py run --bundle runs/gpu-bundle --out "$OUT"
    # here, the CPU dry run the tests make (tiny preset, a given budget)
    PYTHONPATH=. .venv/bin/python bench/gpu_race.py run --bundle B --out O --preset tiny --device cpu --budget-flops 1e9

`run` prints the peak, each objective's calibration, the plan, a progress line every 15 s, then the budget, the
wall time, tokens/s and FLOP/s with their share of the peak, and the probes' gap; training/race/device_run.py
says what it writes.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from training.race.device_run import DeviceRunOptions


def cmd_bundle(args: argparse.Namespace) -> None:
    from training.bundle import write_bundle
    from training.data import _size

    header = write_bundle(args.corpus, args.tokenizer, args.out, args.max_documents)
    size = sum(p.stat().st_size for p in Path(args.out).iterdir())
    print(f"wrote {args.out}: {header['documents']:,} documents, {header['tokens']:,} tokens ({header['dtype']}), "
          f"{header['tokenizer']} ({header['vocab_size']:,} tokens), sentiment {header['sentiment']['train']:,} + "
          f"{header['sentiment']['test']:,} sentences; {_size(size)}")


def cmd_run(args: argparse.Namespace) -> None:
    from training.race.device_run import run_on_device

    names = {f.name for f in dataclasses.fields(DeviceRunOptions)}
    given = {k: tuple(v) if isinstance(v, list) else v for k, v in vars(args).items() if k in names and v is not None}
    result = run_on_device(DeviceRunOptions(**given))
    if result["race"]["status"] != "finished":
        sys.exit(f"the race ended {result['race']['status']}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    bundle = sub.add_parser("bundle", help="pre-tokenize a corpus and the probe's task into a folder that travels")
    bundle.add_argument("--out", required=True, help="the bundle's folder, e.g. runs/gpu-bundle (ignored by git)")
    bundle.add_argument("--corpus", default="imdb", help="a corpus spec, as a race's --corpus (default: imdb)")
    bundle.add_argument("--tokenizer", default="wordpiece:8000", help="the race presets' tokenizer (default)")
    bundle.add_argument("--max-documents", type=int, help="only the first N training documents (tests)")
    bundle.set_defaults(func=cmd_bundle)

    run = sub.add_parser("run", help="peak, calibration, a sized budget, the race and its record, in one process")
    for field in dataclasses.fields(DeviceRunOptions):
        many = str(field.type).startswith("tuple")  # tuple[int, ...]: one or more, in order
        kind = int if many else {"int": int, "float": float, "str": str}[str(field.type).split(" | ")[0]]
        shown = " ".join(map(str, field.default)) if many else field.default
        run.add_argument("--" + field.name.replace("_", "-"), type=kind, default=None, nargs="+" if many else None,
                         required=field.default is dataclasses.MISSING, help=field.metadata["help"]
                         + ("" if field.default in (None, dataclasses.MISSING) else f" (default: {shown})"))
    run.set_defaults(func=cmd_run)
    args = parser.parse_args(argv)
    try:
        args.func(args)
    except (ValueError, FileNotFoundError, RuntimeError) as error:
        sys.exit(f"error: {error}")
    except KeyboardInterrupt as stopped:  # SIGTERM too (a timeout's): the files measured so far are written
        sys.exit(f"{stopped or 'interrupted'}: the files written so far are in --out")


if __name__ == "__main__":
    main()
