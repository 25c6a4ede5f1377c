"""The app deploys as it is: Hugging Face Spaces front matter that agrees with requirements.txt, and
`python app.py` as a Space runs it: on GRADIO_SERVER_NAME / GRADIO_SERVER_PORT, with gradio's upload
limit, and with no outbound connection at start-up or on a request for a local model.

The served app runs in a subprocess whose sockets refuse any non-loopback address (a
`sitecustomize` that wraps `socket.socket.connect` and `getaddrinfo` and logs each attempt), with
the hub NOT marked offline and analytics NOT switched off from outside: app.py must do it itself.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml
from conftest import free_port

from training.project import PROJECT

SERVER_NAME = "127.0.0.2"  # loopback, but not gradio's default 127.0.0.1: proves the variable is read


def front_matter() -> tuple[dict, str]:
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    match = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL)
    assert match, "README.md must open with a --- front matter block (Hugging Face Spaces reads it)"
    return yaml.safe_load(match.group(1)), text[match.end():]


def pins(name: str) -> dict[str, str]:
    found = {}
    for line in (PROJECT / name).read_text(encoding="utf-8").splitlines():
        if m := re.match(r"^([A-Za-z0-9_.-]+)==([^\s#;]+)", line.strip()):
            found[m.group(1).lower()] = m.group(2)
    return found


def test_the_space_front_matter_matches_the_requirements():
    meta, _ = front_matter()
    assert meta["sdk"] == "gradio"
    assert meta["sdk_version"] == pins("requirements.txt")["gradio"]  # the Space installs this gradio
    assert meta["app_file"] == "app.py" and (PROJECT / meta["app_file"]).is_file()
    assert isinstance(meta["python_version"], str) and meta["python_version"] == "3.11"  # quoted: 3.10 != 3.1
    assert f"{sys.version_info.major}.{sys.version_info.minor}" == meta["python_version"]  # what the tests ran on
    assert meta["title"] == "ELECTRA Explainer" and meta["emoji"] and meta["pinned"] is False
    assert len(meta.get("short_description", "")) <= 60  # the hub's limit
    assert "license" not in meta or meta["license"]
    assert set(meta) <= {"title", "emoji", "colorFrom", "colorTo", "sdk", "sdk_version", "app_file", "python_version",
                         "pinned", "license", "short_description", "models", "datasets", "tags"}


def test_the_readme_still_opens_with_the_title_and_the_two_commands():
    _, body = front_matter()
    lines = [line for line in body.splitlines() if line.strip()]
    assert lines[0] == "# ELECTRA Explainer"
    assert lines[1] == "```bash" and lines[4] == "```"
    assert lines[2].endswith("pip install -r requirements.txt && python app.py")
    assert lines[3].endswith("pip install -r requirements-dev.txt && lint-imports && ruff check . && python -m pytest")
    ci = [line.split("#")[0].strip() for line in (PROJECT / ".ci" / "run").read_text().splitlines()]
    assert ci[-3:] == ["lint-imports", "ruff check .", "python -m pytest"]  # CI runs the README's test command


def test_the_dev_requirements_pin_what_the_tests_import():
    dev, app = pins("requirements-dev.txt"), pins("requirements.txt")
    assert {"pytest", "hypothesis", "playwright", "gradio_client"} <= set(dev)
    assert "psutil" in app  # the app lists the network's addresses with it (the live class's link)
    assert "-r requirements.txt" in (PROJECT / "requirements-dev.txt").read_text()
    assert not set(dev) & set(app)  # one pin per package


@pytest.mark.slow
def test_the_app_cleans_gradios_cache_and_caps_uploads(app_url):
    from explainer.ui import app
    from explainer.ui.races import MANAGER

    assert app.demo.delete_cache == (app.CACHE_MAX_AGE_S, app.CACHE_MAX_AGE_S)  # uploads and downloads: an hour
    assert app.LAUNCH["max_file_size"] == MANAGER.max_upload_bytes == 50 * 2**20  # gradio's route, the tab: one limit


GUARD = '''
import ipaddress, json, os, socket

_LOG = os.environ["SOCKET_GUARD_LOG"]


def _local(host) -> bool:
    host = host.decode() if isinstance(host, bytes) else str(host or "")
    if host in ("", "localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _check(what, host):
    if not _local(host):
        with open(_LOG, "a") as log:
            log.write(json.dumps([what, str(host)]) + "\\n")
        raise OSError(f"test: no outbound connection allowed ({what} {host})")


_connect, _connect_ex, _getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo


def connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check("connect", address[0])
    return _connect(self, address)


def connect_ex(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check("connect", address[0])
    return _connect_ex(self, address)


def getaddrinfo(host, *args, **kwargs):
    _check("getaddrinfo", host)
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = connect, connect_ex, getaddrinfo
'''



@pytest.fixture(scope="module")
def space(tmp_path_factory, tiny_pair_dir):
    """`python app.py` as a Space starts it, on a free port of 127.0.0.2, in a guarded subprocess."""
    folder = tmp_path_factory.mktemp("space")
    (folder / "sitecustomize.py").write_text(GUARD)
    log, output = folder / "outbound.jsonl", folder / "server.log"
    log.touch()
    port = free_port(SERVER_NAME)
    keep = ("PATH", "HOME", "LANG", "ELECTRA_CACHE", "TMPDIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(PYTHONPATH=f"{folder}{os.pathsep}{PROJECT}", SOCKET_GUARD_LOG=str(log), OMP_NUM_THREADS="1",
               GRADIO_SERVER_NAME=SERVER_NAME, GRADIO_SERVER_PORT=str(port), ELECTRA_MAX_UPLOAD_MB="1",
               ELECTRA_MODEL=str(tiny_pair_dir), ELECTRA_MODEL_ROOTS=str(tiny_pair_dir),
               ELECTRA_RACE_DIR=str(folder / "races"), HF_HOME=str(folder / "hf"))
    with open(output, "wb") as out:
        server = subprocess.Popen([sys.executable, "app.py"], cwd=PROJECT, env=env, stdout=out,
                                  stderr=subprocess.STDOUT)
    url = f"http://{SERVER_NAME}:{port}/"
    deadline = time.monotonic() + 180
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            pytest.fail(f"app.py did not serve {url}:\n{output.read_text()[-3000:]}")
        time.sleep(0.5)
    yield url, log, output
    server.terminate()  # this fixture's own child, by its pid
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        server.kill()


def outbound(log: Path) -> list[str]:
    return log.read_text().splitlines()


@pytest.mark.slow
def test_app_py_serves_on_the_configured_name_and_port_and_explains_offline(space):
    from gradio_client import Client

    url, log, _ = space
    result = Client(url, verbose=False).predict("The chef cooked a delicious meal.", seed=1, api_name="/explain")
    assert result["tokens"][0]["original"] == "[CLS]" and result["masked"]
    assert outbound(log) == []  # neither start-up nor a local model's first request called out


@pytest.mark.slow
def test_gradio_refuses_an_upload_over_the_limit(space):
    import httpx

    url, log, _ = space
    too_big = httpx.post(f"{url}gradio_api/upload", files={"files": ("big.txt", b"a film\n" * 200_000, "text/plain")})
    assert too_big.status_code == 413 and "maximum allowed size" in too_big.text, too_big.text
    fine = httpx.post(f"{url}gradio_api/upload", files={"files": ("small.txt", b"a film\n" * 10, "text/plain")})
    assert fine.status_code == 200 and fine.json()[0].endswith("small.txt")
    assert outbound(log) == []


@pytest.mark.slow
def test_only_a_hub_model_asked_for_tries_the_network_and_fails_fast(space):
    from gradio_client import Client
    from gradio_client.exceptions import AppError

    url, log, _ = space
    with pytest.raises(AppError, match="The Hugging Face hub is unreachable"):
        Client(url, verbose=False).predict("a meal", model="google/electra-small", api_name="/explain")
    attempts = [json.loads(line) for line in outbound(log)]
    assert attempts == [["getaddrinfo", "huggingface.co"]], attempts  # asked for, only then, and once: no retries


# --- python -m explainer.deploy: exactly the files a Space runs (no hub call here) ------------------
def test_a_deploy_uploads_the_app_and_nothing_from_runs_caches_or_tests():
    from explainer.deploy import space_files, tracked_files

    files = space_files(tracked_files())
    assert {"app.py", "README.md", "requirements.txt"} <= set(files)
    tops = {name.split("/")[0] for name in files}
    assert tops == {"app.py", "README.md", "requirements.txt", "explainer", "training", "assets", "docs"}
    assert "assets/model/discriminator/model.safetensors" in files and "explainer/ui/explore.py" in files
    assert not [n for n in files if "__pycache__" in n or n.endswith(".pyc")]
    # a stray file in an excluded place, or an untracked one in an included place, never goes
    candidates = ["runs/x/checkpoint.pt", ".venv/lib/site.py", ".cache/a.npy", "tests/test_app.py",
                  "bench/load.py", "explainer/__pycache__/x.pyc", "assets/model/README.md"]
    assert space_files(candidates) == ["assets/model/README.md"]


def test_the_weights_are_plain_git_blobs_and_the_attributes_say_so():
    """A clone is clean with or without git-lfs (tests/test_clone.py), so nothing is marked for LFS; the weights
    are over the 10 MiB a Space takes from git, which is why the deploy uploads them through the Hub's API."""
    from explainer.deploy import space_files, tracked_files

    attributes = (PROJECT / ".gitattributes").read_text(encoding="utf-8")
    assert not [line for line in attributes.splitlines() if "filter=lfs" in line and not line.startswith("#")]
    assert "python -m explainer.deploy" in attributes and "10 MiB" in attributes
    large = [n for n in space_files(tracked_files()) if (PROJECT / n).stat().st_size > 10 * 2**20]
    assert {"assets/model/discriminator/model.safetensors", "assets/model/generator/model.safetensors"} <= set(large)
    for name in large:  # the blob itself is the weights, not an LFS pointer
        blob = subprocess.run(["git", "cat-file", "-s", f"HEAD:{name}"], cwd=PROJECT, capture_output=True, text=True)
        assert blob.returncode == 0 and int(blob.stdout) == (PROJECT / name).stat().st_size


def test_the_deploy_command_checks_the_space_name_and_lists_files_in_a_dry_run(capsys):
    from explainer.deploy import main

    with pytest.raises(SystemExit) as exit_info:
        main(["not-a-space-name"])
    assert "OWNER/SPACE" in str(exit_info.value)
    main(["someone/electra-explainer", "--dry-run"])
    out = capsys.readouterr().out.splitlines()
    assert "app.py" in out and out[-1].endswith("would go to the Space someone/electra-explainer")
    assert not any(line.startswith(("tests/", "runs/", "bench/")) for line in out)


def test_every_setting_the_code_reads_is_in_the_hosting_guides_settings_table():
    """Each `ELECTRA_*` environment variable named in the app's and the trainer's code has a row in the hosting
    guide's "Settings for hosting" table, so that whoever hosts the app can find every knob in one place."""
    text = (PROJECT / "docs" / "hosting.md").read_text(encoding="utf-8")
    table = text[text.index("## Settings for hosting"):]
    table = table.split("\n## ")[0]  # to the next section, or the end of the page
    sources = [PROJECT / "app.py", *(PROJECT / "explainer").rglob("*.py"), *(PROJECT / "training").rglob("*.py")]
    read = {name for path in sources for name in re.findall(r'"(ELECTRA_[A-Z_]+)"', path.read_text(encoding="utf-8"))}
    assert len(read) >= 15  # the scan finds the settings at all
    assert sorted(name for name in read if f"`{name}`" not in table) == []
