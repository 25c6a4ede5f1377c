"""Every third-party import in the code is pinned in the requirements file of the code that imports it.

Derived from the code itself (ast), not from a hand-kept list: app.py, explainer/ and training/ need
requirements.txt; tests/ requirements-dev.txt; bench/ requirements-bench.txt (each file includes the
one before with `-r`). An import inside `try: ... except ImportError` is optional (e.g. `spaces`, which
only a ZeroGPU Space provides) and needs no pin.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import sys

import pytest

from training.project import PROJECT

FIRST_PARTY = {"app", "explainer", "training", "tests", "conftest", "bench"}
SCOPES = {  # code -> the requirements file that must pin its imports
    "requirements.txt": ["app.py", "explainer", "training"],
    "requirements-desktop.txt": ["explainer/desktop.py"],  # an optional extra: its own file, not requirements.txt
    "requirements-dev.txt": ["tests"],
    "requirements-bench.txt": ["bench"],
}
NARROWER = {"requirements.txt": ["explainer/desktop.py"]}  # files another scope's requirements file pins for
ALSO = {"requirements-bench.txt": ["requirements-bench-nodeps.txt"]}  # installed beside it, with --no-deps


def pinned(name: str) -> set[str]:
    """Distributions pinned (==) by a requirements file and the files it includes with -r."""
    found = set()
    for line in (PROJECT / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("-r "):
            found |= pinned(line[3:].strip())
        elif m := re.match(r"^([A-Za-z0-9_.-]+)==[^\s;]+\s*(;.*)?$", line):  # a pin, maybe with a platform marker
            found.add(normal(m.group(1)))
    return found


def normal(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


def _optional(node: ast.AST, parents: dict) -> bool:
    """Inside a try whose handlers catch ImportError (or ModuleNotFoundError)."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.Try):
            names = {ast.unparse(h.type) for h in node.handlers if h.type is not None}
            if any("ImportError" in n or "ModuleNotFoundError" in n for n in names):
                return True
    return False


def third_party_imports(paths: list[str]) -> dict[str, set[str]]:
    """{top-level module: files importing it} for absolute imports that are not stdlib nor ours."""
    files = [p for item in paths
             for p in ([PROJECT / item] if item.endswith(".py") else (PROJECT / item).rglob("*.py"))]
    local = {p.stem for item in paths if not item.endswith(".py") for p in (PROJECT / item).rglob("*.py")}
    found: dict[str, set[str]] = {}
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top in sys.stdlib_module_names or top in FIRST_PARTY or top in local or _optional(node, parents):
                    continue
                found.setdefault(top, set()).add(str(path.relative_to(PROJECT)))
    return found


@functools.lru_cache(maxsize=1)
def _installed() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()  # reads every installed package's metadata: once


# Import names whose distribution is named otherwise, for when it is not installed here (the desktop extras are
# optional: the README's test command does not install them, so their metadata cannot tell).
NOT_INSTALLED = {"webview": "pywebview", "qtpy": "qtpy", "spellchecker": "pyspellchecker"}


def distribution(module: str) -> str:
    """The distribution that provides an import name (installed), else the known name, else the name itself."""
    candidates = _installed().get(module, [])
    return normal(candidates[0]) if candidates else normal(NOT_INSTALLED.get(module, module))


@pytest.mark.slow
@pytest.mark.parametrize("requirements", list(SCOPES))
def test_every_third_party_import_is_pinned(requirements):
    imports = third_party_imports(SCOPES[requirements])
    skip = set(NARROWER.get(requirements, []))
    imports = {m: files - skip for m, files in imports.items() if files - skip}
    assert imports, "the scan found no imports at all: the paths are wrong"
    pins = pinned(requirements).union(*(pinned(other) for other in ALSO.get(requirements, [])))
    missing = {m: sorted(files)[:3] for m, files in imports.items() if distribution(m) not in pins}
    assert not missing, f"imported but not pinned in {requirements} (or a file it includes): {missing}"


def test_the_scan_sees_what_it_should():
    app = third_party_imports(SCOPES["requirements.txt"])
    assert {"torch", "transformers", "gradio", "plotly", "captum", "better_profanity", "huggingface_hub"} <= set(app)
    assert "spaces" not in app  # optional: imported under `except ImportError`
    assert "electra_pytorch" in third_party_imports(SCOPES["requirements-bench.txt"])
    assert distribution("sklearn") == "scikit-learn" and distribution("yaml") == "pyyaml"
    assert distribution("webview") == "pywebview"  # installed or not
