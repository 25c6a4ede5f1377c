"""Load generator+discriminator pairs for the app. For now: the bundled pair, offline, cached.

Hub ids and local folders arrive with the Explore tab (issue #3).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

BUNDLED = Path(__file__).resolve().parent.parent / "assets" / "model"
_lock = threading.Lock()


@lru_cache(maxsize=4)
def _load(folder: str):
    from transformers import AutoTokenizer

    from training.models import load_pair

    generator, discriminator = load_pair(folder)
    tokenizer = AutoTokenizer.from_pretrained(Path(folder) / "discriminator")
    return generator.eval(), discriminator.eval(), tokenizer


def load_bundled():
    """(generator, discriminator, tokenizer) of assets/model, loaded once and shared read-only."""
    if not (BUNDLED / "discriminator" / "config.json").exists():
        raise FileNotFoundError("the bundled model is missing from assets/model")
    with _lock:  # two first requests at once load it once
        return _load(str(BUNDLED))
