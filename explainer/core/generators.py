"""Which generator forges the fakes: ELECTRA's own, or a stronger one. One discriminator judges both.

- "electra" (the default): the pair's own generator, the one its discriminator trained against.
- "stronger": the generator shipped in `assets/stronger-generator/` (or the folder $ELECTRA_STRONGER_GENERATOR
  names): a plain ElectraForMaskedLM with its own embeddings, on the bundled pair's vocabulary. It can forge for
  any pair whose tokenizer has the very same vocabulary (token for token); for any other pair it is refused with
  a message, as it is when the folder is absent (this checkout, or a copy of the app without it).

The stronger generator is loaded once and shared, read-only, by every pair it suits (inference only: nothing
hooks it). Its weights may be stored in fp16; it runs in float32 on the CPU, as the pair does.
Left out: generators from the hub or from other folders (the Explore tab's model box names whole pairs).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from training.project import ASSETS

ELECTRA, STRONGER = "electra", "stronger"
LABELS = {ELECTRA: "ELECTRA's generator", STRONGER: "A stronger generator"}  # the choice as the pages offer it
STRONGER_FOLDER = ASSETS / "stronger-generator"
FOLDER_ENV = "ELECTRA_STRONGER_GENERATOR"  # another folder for the stronger generator (tests, a trial model)

_loaded: dict[Path, tuple[object, dict]] = {}  # folder -> (model, vocabulary)
_fits: dict[tuple[Path, int, int], bool] = {}  # (folder, id(tokenizer), len(tokenizer)) -> same vocabulary
_lock = threading.Lock()


def check(key: object) -> str:
    """A generator's key as given, or ValueError naming the choices."""
    if key not in LABELS:
        raise ValueError(f"The generator is one of {', '.join(LABELS)}, not {str(key)[:20]!r}.")
    return str(key)


def label(key: str, in_sentence: bool = False) -> str:
    """The generator's name as the pages offer it, or (`in_sentence`) inside a sentence ("a stronger generator")."""
    text = LABELS.get(key, str(key))
    return text[0].lower() + text[1:] if in_sentence and text.startswith("A ") else text


def other(key: str) -> str:
    """The generator that is not `key`: the one a typed blank's card shows beside it."""
    return STRONGER if key == ELECTRA else ELECTRA


def stronger_folder() -> Path:
    return Path(os.environ.get(FOLDER_ENV) or STRONGER_FOLDER)


def installed() -> bool:
    """Whether this copy of the app has the stronger generator's files."""
    folder = stronger_folder()
    return (folder / "config.json").exists() and any(folder.glob("model*.safetensors"))


def _load(folder: Path) -> tuple[object, dict]:
    import torch
    from transformers import AutoConfig, AutoTokenizer, ElectraForMaskedLM

    with _lock:
        if folder not in _loaded:
            config = AutoConfig.from_pretrained(folder, trust_remote_code=False)
            architectures = getattr(config, "architectures", None) or []
            if config.model_type != "electra" or (architectures and "ElectraForMaskedLM" not in architectures):
                raise ValueError("The stronger generator's folder holds no ELECTRA generator (ElectraForMaskedLM).")
            model = ElectraForMaskedLM.from_pretrained(folder, dtype=torch.float32).eval().requires_grad_(False)
            vocabulary = AutoTokenizer.from_pretrained(folder, trust_remote_code=False).get_vocab()
            _loaded[folder] = (model, vocabulary)
        return _loaded[folder]


def generator_for(pair, key: str):
    """The generator `key` names, ready to forge for `pair` (an explainer.core.models.ModelPair); ValueError
    with a message for people when it cannot."""
    key = check(key)
    if key == ELECTRA:
        if pair.generator is None:
            raise ValueError(f"{pair.name} has no generator: only detect-only mode works with it")
        return pair.generator
    if not installed():
        raise ValueError("The stronger generator is not installed in this copy of the app (assets/stronger-generator "
                         "is missing): choose ELECTRA's generator.")
    folder = stronger_folder()
    model, vocabulary = _load(folder)
    key_fit = (folder, id(pair.tokenizer), len(pair.tokenizer))
    if key_fit not in _fits:
        _fits[key_fit] = pair.tokenizer.get_vocab() == vocabulary
    if not _fits[key_fit]:
        raise ValueError(f"The stronger generator reads the bundled pair's vocabulary, and {pair.name}'s tokenizer "
                         "has another one, so it cannot forge for this model: choose ELECTRA's generator.")
    if model.config.max_position_embeddings < pair.max_tokens:
        raise ValueError(f"The stronger generator reads at most {model.config.max_position_embeddings} tokens, fewer "
                         f"than {pair.name} reads: choose ELECTRA's generator.")
    return model


def available(pair) -> tuple[str, ...]:
    """The generators that can forge for `pair`, the default first (none for a lone discriminator)."""
    keys = []
    for key in LABELS:
        try:
            generator_for(pair, key)
        except (ValueError, OSError):
            continue
        keys.append(key)
    return tuple(keys)
