"""Where the project lives, and whether the Hugging Face hub may be reached: one answer for every module."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent  # the repository root: app.py, assets/, runs/
ASSETS = PROJECT / "assets"
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
