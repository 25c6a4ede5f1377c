"""Load a generator+discriminator pair for the explainer: bundled, local folder, or hub id.

- "bundled": `assets/model` (this project's own pair), offline.
- a local folder holding `generator/` and `discriminator/` (a training run's output), or a folder
  that is a lone discriminator (then only "detect only" works);
- "google/electra-small" (or -base, -large): the `-generator` + `-discriminator` hub pair; any
  other hub id "owner/name-discriminator" (or "-generator", or the bare stem) the same way.

A load that cannot succeed says why at once, as a `ModelLoadError`: the hub is offline, the id
is malformed or unknown, the folder is outside the allowed roots, it is not an ELECTRA
discriminator. Hub models are tried from the local cache first and the hub is asked once, with
a short timeout, before any download, so nothing waits on transformers' retry loop (~23 s).
Remote code is never run: concrete Electra classes only, `trust_remote_code=False`.

Loaded pairs are cached (a few at most) and shared read-only across users; `ModelPair.lock`
serialises their use, because captum attaches hooks to the shared modules while it runs.
Left out: revisions, private repos (no tokens), non-Electra architectures.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from training.corpus import races_dir
from training.models import load_pair
from training.project import ASSETS, PROJECT, offline

BUNDLED = ASSETS / "model"
DEFAULT_ROOTS = (ASSETS, PROJECT / "runs")  # local folders the app may load from
ROOTS_ENV = "ELECTRA_MODEL_ROOTS"  # more allowed folders, os.pathsep-separated
HUB_PAIRS = ("google/electra-small", "google/electra-base", "google/electra-large")
HUB_TIMEOUT_S = 1.5  # per phase of the one metadata request asked before any download: keeps an
# unreachable hub under 2 s (a retry is one click away)
CACHE_SIZE = 3  # loaded pairs kept in memory (electra-large alone is ~1.3 GB)

# Hugging Face repo ids: owner/name, letters, digits, "-", "_", "."; no "--" or ".." (hub rules).
_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")


class ModelLoadError(RuntimeError):
    """A model that cannot be loaded; the message is meant for the user, as is."""


@dataclass(frozen=True)
class Source:
    """Where a pair comes from, resolved and validated; hashable, the cache key."""

    kind: str  # "local" or "hub"
    discriminator: str  # folder or hub id
    generator: str | None  # None: detect-only
    label: str  # what the user typed, for messages


@dataclass(frozen=True, eq=False)
class ModelPair:
    generator: object | None  # ElectraForMaskedLM, or None for a lone discriminator
    discriminator: object  # ElectraForPreTraining
    tokenizer: object  # PreTrainedTokenizerFast (offsets are needed)
    name: str
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def max_tokens(self) -> int:
        """Longest input, [CLS] and [SEP] included: the position table or the tokenizer's limit."""
        return min(self.discriminator.config.max_position_embeddings, self.tokenizer.model_max_length)


def default_model() -> str:
    """What the app and the CLI use when no model is named: $ELECTRA_MODEL, else the bundled pair."""
    return os.environ.get("ELECTRA_MODEL") or "bundled"


def hub_offline() -> bool:
    """Whether the hub is off limits (training.project.offline: the one check)."""
    return offline()


def allowed_roots() -> tuple[Path, ...]:
    extra = [Path(p) for p in os.environ.get(ROOTS_ENV, "").split(os.pathsep) if p.strip()]
    return tuple(p.resolve() for p in (*DEFAULT_ROOTS, races_dir(), *extra))  # a race's pair opens in Explore


def public(message: str) -> str:
    """A message for a user of a hosted app: no absolute server paths. Folders under an allowed root
    are named from that root's own name (assets/..., runs/...); the home folder becomes ~."""
    prefixes = sorted({*allowed_roots(), PROJECT, Path.home()}, key=lambda p: len(str(p)), reverse=True)
    for prefix in prefixes:
        if len(prefix.parts) < 2:  # "/" as a home folder: nothing to hide
            continue
        shown = "~" if prefix == Path.home() else "" if prefix == PROJECT else prefix.name
        message = message.replace(str(prefix) + os.sep, f"{shown}{os.sep}" if shown else "")
        message = message.replace(str(prefix), shown or ".")
    return message


def shown_name(name: str) -> str:
    """A model's name for a page: "bundled" and a hub id as they are; a folder as `public` writes it, from its
    allowed root ("races/race-20261205-tiny-seed0/rtd"), and never as an absolute server path (a folder outside
    every root: its last two parts)."""
    shown = public(name)
    return str(Path(*Path(shown).parts[-2:])) if Path(shown).is_absolute() else shown


def resolve(name: str, roots: tuple[Path, ...] | None = None) -> Source:
    """Validate what the user typed. `roots=None` allows any local folder (the CLI's own user)."""
    name = (name or "").strip() or default_model()
    if name == "bundled":
        return Source("local", str(BUNDLED / "discriminator"), str(BUNDLED / "generator"), "bundled")
    path = Path(name).expanduser()
    looks_like_path = name.startswith(("/", ".", "~", "\\")) or ".." in Path(name).parts or path.is_dir()
    if looks_like_path:
        return _resolve_folder(name, path, roots)
    if not _HUB_ID.match(name) or "--" in name or ".." in name or name.endswith("."):
        raise ModelLoadError(
            f"{name!r} is neither a local folder nor a valid hub id (owner/name, letters, digits, '-', '_', '.')."
        )
    stem = re.sub(r"-(generator|discriminator)$", "", name)
    return Source("hub", f"{stem}-discriminator", f"{stem}-generator", name)


def _resolve_folder(name: str, path: Path, roots: tuple[Path, ...] | None) -> Source:
    folder = path.resolve()  # follows symlinks and "..", so the root check sees the real place
    if roots is not None and not any(folder.is_relative_to(root) for root in roots):
        raise ModelLoadError(public(
            f"{name!r} is outside the folders this app may load from ({', '.join(str(r) for r in roots)}); "
            f"set {ROOTS_ENV} to allow another."
        ))
    if not folder.is_dir():
        raise ModelLoadError(f"No folder {name!r}.")
    if (folder / "discriminator" / "config.json").exists():
        generator = folder / "generator"
        return Source("local", str(folder / "discriminator"),
                      str(generator) if (generator / "config.json").exists() else None, name)
    if (folder / "config.json").exists():
        return Source("local", str(folder), None, name)  # a lone discriminator: detect only
    raise ModelLoadError(f"{name!r} holds no config.json and no discriminator/ subfolder.")


def _check_config(where: str, role: str, **kwargs) -> None:
    """Read config.json only (kilobytes) and refuse anything that is not the right Electra head."""
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(where, trust_remote_code=False, **kwargs)
    wanted = {"discriminator": "ElectraForPreTraining", "generator": "ElectraForMaskedLM"}[role]
    architectures = getattr(config, "architectures", None) or []
    if config.model_type != "electra" or (architectures and wanted not in architectures):
        raise ModelLoadError(public(
            f"{where} is not an ELECTRA {role}: its config says model_type={config.model_type!r}, "
            f"architectures={architectures} (expected {wanted})."
        ))


def _load_local(source: Source) -> ModelPair:
    from transformers import AutoTokenizer, ElectraForPreTraining

    _check_config(source.discriminator, "discriminator")
    tokenizer = AutoTokenizer.from_pretrained(source.discriminator, trust_remote_code=False)
    if source.generator is None:
        return ModelPair(None, ElectraForPreTraining.from_pretrained(source.discriminator), tokenizer, source.label)
    _check_config(source.generator, "generator")
    # shared embeddings re-tied, untied kept apart
    generator, discriminator = load_pair(Path(source.discriminator).parent)
    return ModelPair(generator, discriminator, tokenizer, source.label)


def _hub_check(repo: str) -> bool:
    """True if the repo exists, False if the hub says it does not; ModelLoadError if unreachable."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

    try:
        HfApi().model_info(repo, timeout=HUB_TIMEOUT_S)
        return True
    except GatedRepoError as error:
        raise ModelLoadError(f"{repo} is gated on the hub; this app does not log in.") from error
    except RepositoryNotFoundError:
        return False
    except Exception as error:  # DNS, refused, timeout, proxy: one attempt, then say so
        raise ModelLoadError(f"The Hugging Face hub is unreachable ({type(error).__name__}); "
                             f"{repo} cannot be downloaded. Use the bundled model or a local folder instead."
                             ) from error


def _load_hub(source: Source) -> ModelPair:
    from transformers import AutoTokenizer, ElectraForMaskedLM, ElectraForPreTraining

    def load(local_only: bool) -> ModelPair:
        kwargs = {"local_files_only": local_only}
        _check_config(source.discriminator, "discriminator", **kwargs)
        discriminator = ElectraForPreTraining.from_pretrained(source.discriminator, **kwargs)
        tokenizer = AutoTokenizer.from_pretrained(source.discriminator, trust_remote_code=False, **kwargs)
        generator = None
        if source.generator is not None:
            _check_config(source.generator, "generator", **kwargs)
            generator = ElectraForMaskedLM.from_pretrained(source.generator, **kwargs)
        return ModelPair(generator, discriminator, tokenizer, source.label)

    try:
        return load(local_only=True)  # already in the hub cache: no network at all
    except ModelLoadError:
        raise
    except (OSError, ValueError):
        pass
    if hub_offline():
        raise ModelLoadError(
            f"The Hugging Face hub is offline here (HF_HUB_OFFLINE=1) and {source.label} is not in the "
            "local cache. Use the bundled model or a local folder instead."
        )
    if not _hub_check(source.discriminator):
        raise ModelLoadError(f"No model {source.discriminator!r} on the Hugging Face hub.")
    if source.generator is not None and not _hub_check(source.generator):
        source = Source("hub", source.discriminator, None, source.label)  # no generator: detect only
    try:
        return load(local_only=False)
    except ModelLoadError:
        raise
    except (OSError, ValueError) as error:
        raise ModelLoadError(public(f"Could not load {source.label}: {error}")) from error


_cache: OrderedDict[Source, ModelPair] = OrderedDict()
_locks: dict[Source, threading.Lock] = {}
_cache_lock = threading.Lock()


def load(name: str = "", roots: tuple[Path, ...] | None = None) -> ModelPair:
    """The pair `name` names ("" = `default_model()`), loaded once and shared; ModelLoadError says why not."""
    source = resolve(name, roots)
    if source.label == "bundled" and not Path(source.discriminator, "config.json").exists():
        raise ModelLoadError("The bundled model is missing from assets/model (it is being trained, or "
                             "this checkout lacks it). Name a local folder or hub model instead.")
    with _cache_lock:
        if source in _cache:
            _cache.move_to_end(source)
            return _cache[source]
        lock = _locks.setdefault(source, threading.Lock())
    with lock:  # two first requests for the same model load it once; others are not blocked
        with _cache_lock:
            if source in _cache:
                return _cache[source]
        try:
            pair = _load_local(source) if source.kind == "local" else _load_hub(source)
        except ModelLoadError:
            raise
        except (OSError, ValueError, KeyError) as error:
            raise ModelLoadError(public(f"Could not load {source.label}: {error}")) from error
        for model in (pair.generator, pair.discriminator):
            if model is not None:
                model.eval().requires_grad_(False)  # inference only; captum needs no weight grads
        with _cache_lock:
            _cache[source] = pair
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
        return pair
