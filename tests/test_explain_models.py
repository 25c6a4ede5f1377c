"""Loading pairs: local folders, the cache, and every way a load must fail at once with a reason."""

from __future__ import annotations

import json
import shutil
from unittest import mock

import pytest

from explainer.core import models
from explainer.core.models import ModelLoadError


def test_a_training_run_folder_loads_with_shared_embeddings(tiny_pair_dir):
    pair = models.load(str(tiny_pair_dir))
    assert pair.generator.electra.embeddings is pair.discriminator.electra.embeddings  # re-tied by load_pair
    assert not pair.discriminator.training and not pair.generator.training
    assert not any(p.requires_grad for p in pair.discriminator.parameters())
    assert pair.max_tokens == 128  # the tiny preset's position table
    assert models.load(str(tiny_pair_dir)) is pair  # cached and shared


def test_a_lone_discriminator_folder_loads_for_detect_only(tiny_pair_dir):
    pair = models.load(str(tiny_pair_dir / "discriminator"))
    assert pair.generator is None


def test_hub_ids_resolve_to_generator_and_discriminator_pairs():
    for name in ("google/electra-small", "google/electra-small-discriminator", "google/electra-small-generator"):
        source = models.resolve(name)
        assert (source.kind, source.discriminator, source.generator) == (
            "hub", "google/electra-small-discriminator", "google/electra-small-generator")


@pytest.mark.parametrize("name", ["google/electra-small", "someone/electra-pair"])
def test_offline_hub_ids_fail_at_once_with_a_clear_message(name, network_attempts):
    assert models.hub_offline()  # conftest sets HF_HUB_OFFLINE=1
    with pytest.raises(ModelLoadError, match="offline"):
        models.load(name)
    assert network_attempts == []  # from the local cache alone: nothing to wait for


def test_an_unreachable_hub_is_asked_once_and_reported(monkeypatch):
    import httpx

    monkeypatch.setattr(models, "hub_offline", lambda: False)
    calls = []

    def model_info(self, repo, timeout=None, **kwargs):
        calls.append(timeout)
        raise httpx.ConnectError("no route to host")

    monkeypatch.setattr("huggingface_hub.HfApi.model_info", model_info)
    with pytest.raises(ModelLoadError, match="unreachable"):
        models.load("google/electra-base")
    assert calls == [models.HUB_TIMEOUT_S]  # one request with a short timeout, no retry loop


def test_an_unknown_hub_id_is_reported(monkeypatch):
    from huggingface_hub.errors import RepositoryNotFoundError

    monkeypatch.setattr(models, "hub_offline", lambda: False)

    def model_info(self, repo, **kwargs):
        raise RepositoryNotFoundError("404", response=mock.MagicMock())

    monkeypatch.setattr("huggingface_hub.HfApi.model_info", model_info)
    with pytest.raises(ModelLoadError, match="No model 'nobody/nothing-discriminator'"):
        models.load("nobody/nothing")


@pytest.mark.parametrize("name", ["not a model id!", "a/b/c", "owner/na--me", "x" * 200 + "/y", "owner/name."])
def test_malformed_ids_are_refused(name):
    with pytest.raises(ModelLoadError, match="valid hub id|No folder"):
        models.resolve(name)


@pytest.mark.parametrize("name", ["../../etc", "/etc", "~", "assets/../../"])
def test_folders_outside_the_allowed_roots_are_refused(name):
    with pytest.raises(ModelLoadError, match="outside the folders"):
        models.resolve(name, roots=models.allowed_roots())


def test_a_symlink_out_of_an_allowed_root_is_refused(tmp_path, tiny_pair_dir):
    root = tmp_path / "root"
    root.mkdir()
    (root / "escape").symlink_to(tiny_pair_dir)
    with pytest.raises(ModelLoadError, match="outside the folders"):
        models.resolve(str(root / "escape"), roots=(root.resolve(),))


def test_extra_roots_come_from_the_environment(monkeypatch, tiny_pair_dir):
    monkeypatch.setenv(models.ROOTS_ENV, str(tiny_pair_dir))
    assert models.resolve(str(tiny_pair_dir), roots=models.allowed_roots()).generator.endswith("generator")


def test_a_model_that_is_not_an_electra_discriminator_is_refused(tmp_path, tiny_pair_dir):
    folder = tmp_path / "not-electra"
    shutil.copytree(tiny_pair_dir, folder)
    # A generator where the discriminator should be: right family, wrong head.
    shutil.rmtree(folder / "discriminator")
    shutil.copytree(tiny_pair_dir / "generator", folder / "discriminator")
    with pytest.raises(ModelLoadError, match="not an ELECTRA discriminator"):
        models.load(str(folder))
    config = json.loads((folder / "discriminator" / "config.json").read_text())
    config.update(model_type="bert", architectures=["BertForMaskedLM"])
    (folder / "discriminator" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelLoadError, match="model_type='bert'"):
        models.load(str(folder / "discriminator"))


def test_a_missing_bundled_model_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr(models, "BUNDLED", tmp_path / "absent")
    with pytest.raises(ModelLoadError, match="bundled model is missing"):
        models.load("bundled")


def test_remote_code_is_never_trusted(tiny_pair_dir, monkeypatch):
    seen = []
    import transformers

    original = transformers.AutoTokenizer.from_pretrained

    def spy(*args, **kwargs):
        seen.append(kwargs.get("trust_remote_code"))
        return original(*args, **kwargs)

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", spy)
    monkeypatch.setattr(models, "_cache", type(models._cache)())  # force a fresh load
    models.load(str(tiny_pair_dir))
    assert seen and all(flag is False for flag in seen)
