"""Where the project lives, and whether the Hugging Face hub may be reached: one answer for every module.

The data (the bundled pair, its card and measurements, the sentence sets, race records, the icon) sits in the
repository's top-level `assets/`. A wheel carries that folder inside this package, as `training/assets`
(pyproject.toml maps it there), and `importlib.resources` finds it: so the code reads one `ASSETS` whether it
runs from a clone, a Space's copy of one, an installed package or a stand-alone build.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent  # a clone: the repository root (app.py, assets/, runs/)
PACKAGED = Path(str(resources.files("training") / "assets"))  # the data as a wheel installs it
INSTALLED = PACKAGED.is_dir()  # an installed package (or a stand-alone build), not a clone
ASSETS = PACKAGED if INSTALLED else PROJECT / "assets"
TRUE = {"1", "ON", "YES", "TRUE"}


def offline() -> bool:
    """Whether the hub is off limits: HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE set to a true value, in the
    environment as it is now (a test or a host may set it after import) or as huggingface_hub read it."""
    if any((os.environ.get(name) or "").strip().upper() in TRUE for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")):
        return True
    try:
        from huggingface_hub import constants
    except ImportError:
        return False
    return bool(constants.HF_HUB_OFFLINE)
