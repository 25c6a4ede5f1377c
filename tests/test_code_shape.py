"""The shape a newcomer can change, read from the source (no app is built): the live class in one `live_class`
package per layer, no function in explainer/ui/ over 80 lines (a tab is a layout, handlers at module level and its
wiring), and no private name imported into or out of the live class or the ui. The layers themselves:
.importlinter (`lint-imports`)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXPLAINER = ROOT / "explainer"
LAYERS = ("core", "lesson", "render", "ui")
MAX_UI_FUNCTION = 80  # lines


def _trees(folder: Path):
    for path in sorted(folder.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_the_live_class_is_one_package_in_each_layer_and_no_layer_keeps_an_older_name():
    for layer in LAYERS:
        assert (EXPLAINER / layer / "live_class" / "__init__.py").is_file(), layer
        leftover = sorted(p.name for p in (EXPLAINER / layer).glob("*.py")
                          if p.name.startswith("class_") or p.name in ("classroom.py", "game.py"))
        assert leftover == [], (layer, leftover)


def test_no_function_in_the_ui_is_over_80_lines():
    long = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path, tree in _trees(EXPLAINER / "ui") for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_UI_FUNCTION]
    assert long == []


def test_no_private_name_crosses_into_or_out_of_the_live_class_or_the_ui():
    crossing = []
    for path, tree in _trees(EXPLAINER):
        importer = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("explainer")):
                continue
            watched = any(".live_class" in name or name.startswith("explainer.ui") for name in (importer, node.module))
            crossing += [f"{importer}: {node.module}.{alias.name}" for alias in node.names
                         if watched and alias.name.startswith("_") and not alias.name.startswith("__")]
    assert crossing == []
