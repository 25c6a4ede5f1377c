"""Shared test setup: offline, single-threaded, one tokenization cache for the whole session.

The environment is set at import time, before transformers or gradio are imported by any test,
and inherited by the subprocesses the CLI and distributed tests start.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
from pathlib import Path

ONLINE = os.environ.get("ELECTRA_TEST_ONLINE") == "1"  # opt in to the `online` tests

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
if not ONLINE:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Live classes (explainer/core/live_class/store.py) go to a fresh folder, never a user's own store.
os.environ["ELECTRA_CLASS_DIR"] = tempfile.mkdtemp(prefix="electra-classes-")
# Every test client is 127.0.0.1: one visitor. Their shares are wide here; tests/test_quotas.py sets its own.
os.environ.setdefault("ELECTRA_CLASS_START_RATE", "10000/hour")
os.environ.setdefault("ELECTRA_CLASS_JOIN_RATE", "10000/minute")
os.environ.setdefault("ELECTRA_CLASS_JOIN_CLASS_RATE", "10000/minute")
os.environ.setdefault("ELECTRA_CLASS_MAX_PER_VISITOR", "10000")
# The class page's rhythm (a phone checks the phase every 3 s, the projector redraws every 2 s) is 1 s here: a test
# walking a class through its phases waits on these timers, and the rhythm changes nothing the tests check.
os.environ.setdefault("ELECTRA_CLASS_REFRESH_S", "1")
os.environ.setdefault("ELECTRA_CLASS_FOLLOW_S", "1")

import pytest  # noqa: E402 - after the environment above, which torch and tokenizers read at import
import torch  # noqa: E402 - likewise

torch.set_num_threads(1)  # the machine is shared with long training runs; keep tests light


def pytest_configure(config: pytest.Config) -> None:
    # Always a folder under .pytest_cache (never a user's own cache), so tokenizers and token
    # streams are cached across tests and sessions; the cache is keyed by content, never stale.
    cache = getattr(config, "cache", None)  # absent under `-p no:cacheprovider`
    folder = cache.mkdir("electra-cache") if cache else tempfile.mkdtemp(prefix="electra-cache-")
    os.environ["ELECTRA_CACHE"] = str(folder)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "browser" in item.keywords:  # a real browser against a served app: seconds each
            item.add_marker(pytest.mark.slow)
    if not ONLINE:
        skip = pytest.mark.skip(reason="needs the network; set ELECTRA_TEST_ONLINE=1 to run")
        for item in items:
            if "online" in item.keywords:
                item.add_marker(skip)


N_DOCUMENTS = 200  # IMDB training documents the small corpora use (~60k tokens)
WORDPIECE = "wordpiece:1000"  # a small trained vocabulary: tiny embedding tables, fast steps


@pytest.fixture(scope="session")
def imdb_texts() -> tuple[str, ...]:
    from training.data import load_imdb

    return load_imdb().train[:N_DOCUMENTS]


@pytest.fixture(scope="session")
def wordpiece(imdb_texts):
    """The same tokenizer `TrainConfig(tokenizer=WORDPIECE, max_documents=N_DOCUMENTS)` uses."""
    from training.data import cache_dir
    from training.tokenizer import load_tokenizer

    return load_tokenizer(WORDPIECE, imdb_texts, cache_dir())


# --- the Explore tab: a tiny seeded generator+discriminator pair on disk ---------

@pytest.fixture(scope="session")
def tiny_pair_dir(tmp_path_factory, wordpiece):
    """A folder with generator/ and discriminator/ (+ tokenizer in each), like a training run's.

    Random weights from `build_electra(PRESETS["tiny"])` (seed 0) on the session's 1,000-token
    WordPiece vocabulary (`train_wordpiece` on 200 IMDB reviews, cached on disk, numbered the same on every
    machine: its draws are too); loads in well under a second.
    """
    from training.models import PRESETS, build_electra

    generator, discriminator = build_electra(PRESETS["tiny"], len(wordpiece), wordpiece.pad_token_id, seed=0)
    folder = tmp_path_factory.mktemp("tiny-pair")
    for name, model in (("generator", generator), ("discriminator", discriminator)):
        model.save_pretrained(folder / name)
        wordpiece.save_pretrained(folder / name)
    return folder


@pytest.fixture(scope="session")
def tiny_pair(tiny_pair_dir):
    """The tiny pair loaded through the explainer's cache (shared, read-only: copy before editing)."""
    from explainer.core import models

    return models.load(str(tiny_pair_dir))


@pytest.fixture(scope="session")
def app_url(tiny_pair_dir, tiny_stronger_dir):
    """The Gradio app, launched once on a free port with the tiny pair as its default model (and a tiny stronger
    generator on its vocabulary)."""
    previous = {key: os.environ.get(key)
                for key in ("ELECTRA_MODEL", "ELECTRA_MODEL_ROOTS", "ELECTRA_STRONGER_GENERATOR")}
    os.environ["ELECTRA_MODEL"] = str(tiny_pair_dir)
    os.environ["ELECTRA_MODEL_ROOTS"] = str(tiny_pair_dir)
    os.environ["ELECTRA_STRONGER_GENERATOR"] = str(tiny_stronger_dir)
    from explainer.ui import app, reachable  # app is built at import: reads the default model set just above

    with reachable.patient():  # gradio's launch check, given a loaded machine's time
        _, url, _ = app.demo.launch(prevent_thread_lock=True, quiet=True, server_name="127.0.0.1", **app.LAUNCH)
    yield url
    app.demo.close()
    for key, value in previous.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def bundle(tmp_path_factory):
    """A token bundle (training/bundle.py) written once from the tests' IMDB slice, for the bundle's and the GPU
    race's tests (read only: a test that tears one copies it first)."""
    from training.bundle import write_bundle

    folder = tmp_path_factory.mktemp("bundle") / "imdb"
    write_bundle("imdb", WORDPIECE, folder, max_documents=N_DOCUMENTS)
    return folder


CHROMIUM = Path("/usr/bin/chromium")  # Debian's; Playwright drives it (never `playwright install`)
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every browser test of the session."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium: apt-get install -y chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


# Every text the page ever shows or announces that is a bare translation key of gradio's ("common.complete": the
# screen-reader line after each call, which gradio 6.31's English strings lack): kept in window.rawKeys.
RAW_KEYS = """window.rawKeys = [];
new MutationObserver(changes => changes.forEach(change => {
  const text = (change.target.textContent || '').trim();
  if (/^(common|errors|blocks|upload_text)\\.[a-z_]+$/.test(text)) window.rawKeys.push(text);
})).observe(document, {subtree: true, childList: true, characterData: true});"""


def _raw_keys(page) -> list[str]:
    try:
        return page.evaluate("() => window.rawKeys || []")
    except Exception:  # noqa: BLE001 - a page that crashed or is navigating has none to show
        return []


@pytest.fixture(autouse=True)
def _pages_close_with_their_test(request):
    """Every browser context a test opened (each `browser.new_page` is one) closes when the test ends, after a check
    that none of its pages showed a bare translation key: an open page goes on polling the server and drawing for
    the rest of the session. Pages of a module's shared fixture, opened before the test began, stay."""
    if "browser" not in request.fixturenames:
        yield
        return
    browser = request.getfixturevalue("browser")
    before = set(browser.contexts)
    yield
    opened = [context for context in browser.contexts if context not in before]
    raw = sorted({key for context in opened for page in context.pages if not page.is_closed()
                  for key in _raw_keys(page)})
    for context in opened:
        context.close()
    assert not raw, f"the pages showed gradio's untranslated keys {raw} (explainer/ui/app.py's TRANSLATIONS)"


@pytest.fixture(scope="module")
def new_page(browser):
    """Open the app in a fresh 1280x900 page: `new_page(url)`; pages close with the test that opened them (a
    module's shared page with the module), after a check that none showed or announced a bare translation key."""
    pages = []

    def open_page(url: str, record_requests: bool = False):
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        pages.append(page)
        if record_requests:  # every URL the page asks for, in page.requested
            page.requested = []
            page.on("request", lambda request: page.requested.append(request.url))
        page.add_init_script(RAW_KEYS)
        page.goto(url)
        return page

    yield open_page
    raw = sorted({key for page in pages if not page.is_closed() for key in _raw_keys(page)})
    for page in pages:
        page.close()
    assert not raw, f"the pages showed gradio's untranslated keys {raw} (explainer/ui/app.py's TRANSLATIONS)"


# --- helpers shared by the tests ---------------------------------------------------------------------

def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now, on `host`."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_for_text(page, selector: str, text: str, timeout: float = 30_000) -> None:
    """Wait until the element at `selector` shows `text` (in its rendered text)."""
    page.wait_for_function(
        f"() => document.querySelector({json.dumps(selector)})?.innerText.includes({json.dumps(text)})",
        timeout=timeout)


IDLE = ("(sel) => { const root = document.querySelector(sel || 'body'); if (!root) return false;"
        " return !root.closest('.pending') && !root.querySelector('.pending, .progress-text, .eta-bar'); }")


def wait_until_idle(page, selector: str | None = None, timeout: float = 30_000) -> None:
    """Wait until no gradio progress overlay ("queue: 1/1", a timer) and no faded pending output is left in
    `selector` (the whole page when None): what is read or checked then is the settled page, not a redraw."""
    page.wait_for_function(IDLE, arg=selector, timeout=timeout)


def screenshot_if_asked(page, variable: str, full_page: bool = True) -> None:
    """A screenshot at the path in the environment variable `variable`, when it is set (a record for people)."""
    if os.environ.get(variable):
        page.screenshot(path=os.environ[variable], full_page=full_page)



@pytest.fixture(scope="session")
def tiny_stronger_dir(tmp_path_factory, wordpiece):
    """A second tiny generator on the tiny pair's vocabulary, with its own weights (seed 1): the stand-in for the
    stronger generator (explainer.core.generators) wherever a test needs one."""
    from training.models import PRESETS, build_electra

    generator, _ = build_electra(PRESETS["tiny"], len(wordpiece), wordpiece.pad_token_id, seed=1)
    folder = tmp_path_factory.mktemp("tiny-stronger")
    generator.save_pretrained(folder)
    wordpiece.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def rtd_run(tmp_path_factory):
    """20 uninterrupted RTD steps on the tiny preset (tests/trainer_base.py), events every 5, checkpoints at 10 and
    20: once per test process, for the trainer's tests and the generator's."""
    from trainer_base import BASE

    from training.trainer import train

    out = tmp_path_factory.mktemp("rtd")
    return out, list(train(BASE, out))


@pytest.fixture
def network_attempts(monkeypatch) -> list:
    """Every outbound connection or name lookup the test's code tries; each is refused, so none is made.

    "Refused at once" is asserted with this, not with a clock: no attempt means no network wait.
    """
    attempts: list = []

    def refuse(what):
        def call(*args, **kwargs):
            attempts.append((what, args[1] if what != "getaddrinfo" else args[0]))
            raise OSError(f"test: no network ({what})")
        return call

    monkeypatch.setattr(socket.socket, "connect", refuse("connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("connect_ex"))
    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    # huggingface_hub refuses by itself under HF_HUB_OFFLINE, before any socket: its own call counts too
    monkeypatch.setattr("huggingface_hub.HfApi.model_info", lambda self, repo, **_: refuse("model_info")(self, repo))
    return attempts


@pytest.fixture
def rows_judged(tiny_pair_dir) -> list:
    """The batch size of every forward pass of the tiny pair's discriminator while the test runs.

    An explanation is one row; an attribution runs tens. So `sum(rows_judged) <= 1` says a request was
    refused before any attribution work, whatever the machine's speed.
    """
    from explainer.core import models

    rows: list = []
    discriminator = models.load(str(tiny_pair_dir), roots=(tiny_pair_dir,)).discriminator
    hook = discriminator.register_forward_hook(lambda module, args, kwargs, out: rows.append(
        (args[0] if args else kwargs["input_ids"] if "input_ids" in kwargs else kwargs["inputs_embeds"]).shape[0]),
        with_kwargs=True)
    yield rows
    hook.remove()


@pytest.fixture
def classes(tmp_path, monkeypatch, tiny_pair_dir):
    """The API on the tiny pair, with a fresh live-class store (returned); a test file may narrow it (quotas)."""
    from explainer.core.live_class.store import ClassStore
    from explainer.lesson.live_class import session

    monkeypatch.setenv("ELECTRA_MODEL", str(tiny_pair_dir))
    monkeypatch.setenv("ELECTRA_MODEL_ROOTS", str(tiny_pair_dir))
    monkeypatch.setattr(session, "_store", ClassStore(tmp_path))
    return session._store
