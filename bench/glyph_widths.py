"""The glyph widths the SVG exports lay text out with (assets/glyph_widths.json), read from real fonts.

The exports name the system's UI font (explainer/render/export.py: `SVG_FONT`), which the viewer's machine
picks, and no font travels with the file. So each character's width is its widest advance among the sans-serif
fonts that stack lands on where metrics are free to read: DejaVu Sans (Linux's default sans-serif) and
Liberation Sans (metric-compatible with Arial and Helvetica), regular and bold, from Debian's fonts-dejavu-core
and fonts-liberation. A word measured so fits its rectangle in any of them. Characters outside the table (CJK,
emoji, other scripts) keep explainer/render/export_text.py's rules.

    python bench/glyph_widths.py                          # each font's width of a sample sentence, and the table's
    python bench/glyph_widths.py --out assets/glyph_widths.json

fontTools (requirements-dev.txt) reads the fonts here; the app only reads the JSON.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from fontTools.ttLib import TTFont

FONTS = {
    "regular": ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"],
    "bold": ["/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
             "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf"],
}
# Basic Latin, Latin-1, Latin Extended-A, and the typographic punctuation a sentence holds (dashes, quotes, "…")
CHARACTERS = [chr(c) for c in (*range(0x20, 0x7F), *range(0xA0, 0x180), *range(0x2010, 0x2027))]
SAMPLE = "The chef cooked a delicious meal for the guests, and everyone asked for more!"


def advances(path: str) -> dict[str, float]:
    """Each character's advance width in em, for the characters the font has."""
    font = TTFont(path)
    per_em, cmap, metrics = font["head"].unitsPerEm, font.getBestCmap(), font["hmtx"].metrics
    return {c: metrics[cmap[ord(c)]][0] / per_em for c in CHARACTERS if ord(c) in cmap}


def table(fonts: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """{weight: {character: the widest advance among the fonts, em, rounded up}}."""
    out = {}
    for weight, paths in fonts.items():
        measured = [advances(path) for path in paths]
        out[weight] = {c: math.ceil(max(m[c] for m in measured if c in m) * 1e4) / 1e4  # up: never narrower
                       for c in CHARACTERS if any(c in m for m in measured)}
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python bench/glyph_widths.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the table as JSON (assets/glyph_widths.json)")
    args = parser.parse_args(argv)
    widths = table(FONTS)
    for weight, paths in FONTS.items():
        for path in paths:
            real = advances(path)
            print(f"{Path(path).name:28s} {len(real):3d} characters; the sample sentence "
                  f"{sum(real[c] for c in SAMPLE):.2f} em")
        print(f"{'the table (' + weight + ')':28s} {len(widths[weight]):3d} characters; the sample sentence "
              f"{sum(widths[weight][c] for c in SAMPLE):.2f} em")
    if args.out:
        args.out.write_text(json.dumps({"fonts": {w: [Path(p).name for p in ps] for w, ps in FONTS.items()},
                                        "em": widths}, ensure_ascii=False, indent=0, sort_keys=True) + "\n",
                            encoding="utf-8")
        print(f"wrote {args.out}: {sum(len(t) for t in widths.values())} widths")


if __name__ == "__main__":
    main()
