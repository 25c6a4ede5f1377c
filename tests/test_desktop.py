"""The desktop window (`python app.py --desktop`): under Xvfb, with the tiny pair, one window for the whole
check — it opens, the page inside it is driven until Explore's verdict shows the sentence typed, a download
lands where asked, a second launch is answered by the first, and the closed window leaves no server and no
process. Then what happens without a display, without the extras, with a race running, and the menu entry.

The window needs the desktop extras (requirements-desktop.txt) and Debian's Xvfb; .ci/run installs both. Set
DESKTOP_SCREENSHOT=path.png to keep a screenshot of the window (xwd, from Debian's x11-apps).
"""

from __future__ import annotations

import configparser
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
from conftest import N_DOCUMENTS, WORDPIECE, free_port
from desktop_window import DevTools, close_window, screenshot, start_xvfb, window_titles

from explainer import desktop, menu_entry
from training.project import PROJECT

SENTENCE = "The old sailor told a wonderful story about the sea."
WORDS = [*SENTENCE.rstrip(".").split(), "."]  # as the page reads it: the full stop is a word of its own
EXTRAS = importlib.util.find_spec("webview") is not None and importlib.util.find_spec("qtpy") is not None
WINDOW_SKIP = ("needs the desktop extras (pip install -r requirements-desktop.txt) and Debian's xvfb"
               if not (EXTRAS and shutil.which("Xvfb")) else "")
VERDICT_WORDS = "[...document.querySelectorAll('#explore-verdict .ee-token')].map(e => e.innerText)"


def wait_for_line(path, text: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while text not in path.read_text(errors="replace"):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{text!r} not in {path}:\n{path.read_text(errors='replace')[-3000:]}")
        time.sleep(0.2)


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


@pytest.mark.slow
@pytest.mark.skipif(bool(WINDOW_SKIP), reason=WINDOW_SKIP or "-")
def test_the_window_serves_explore_answers_a_second_launch_and_leaves_nothing_when_closed(tiny_pair_dir, tmp_path):
    import psutil

    xvfb, display = start_xvfb()
    devtools = free_port()
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    env = dict(os.environ, DISPLAY=display, QTWEBENGINE_REMOTE_DEBUGGING=f"127.0.0.1:{devtools}",
               ELECTRA_MODEL=str(tiny_pair_dir), ELECTRA_MODEL_ROOTS=str(tiny_pair_dir),
               ELECTRA_CACHE=str(tmp_path / "cache"), ELECTRA_RACE_DIR=str(tmp_path / "races"),
               ELECTRA_DESKTOP_DOWNLOADS=str(downloads))
    env.pop("WAYLAND_DISPLAY", None)
    log = tmp_path / "app.log"
    with open(log, "wb") as out:
        app = subprocess.Popen([sys.executable, "app.py", "--desktop"], cwd=PROJECT, env=env, stdout=out,
                               stderr=subprocess.STDOUT)
    page = None
    try:
        wait_for_line(log, "in a window", timeout=180)
        url = log.read_text().split("serving ", 1)[1].split()[0]
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        assert url.startswith("http://127.0.0.1:")  # never on the network
        page = DevTools(devtools, url, timeout=120)
        assert page.wait_for("document.title") == "ELECTRA Explainer"
        page.wait_for("document.querySelector('#explore-verdict .ee-chip') !== null")  # the example, on load
        example = page.evaluate(VERDICT_WORDS)
        page.evaluate(f"(() => {{ const box = document.querySelector('#explore-text textarea'); "
                      f"box.value = {json.dumps(SENTENCE)}; box.dispatchEvent(new Event('input', {{bubbles: true}})); "
                      "document.querySelector('#explore-run').click(); })()")
        words = page.wait_for(f"(() => {{ const w = {VERDICT_WORDS}; "
                              f"return w.join() !== {json.dumps(','.join(example))} "
                              f"&& w.length === {len(WORDS)} && w; }})()")
        kept = [word for word in words if word in WORDS]
        assert len(kept) >= len(words) - 4  # the sentence typed, a few words replaced by the generator
        assert "ELECTRA Explainer" in window_titles(display)

        page.evaluate("document.querySelector('#explore-json').click()")  # saved without a dialog: the setting
        deadline = time.monotonic() + 30
        while not list(downloads.glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.2)
        saved = list(downloads.glob("*.json"))
        assert saved and json.loads(saved[0].read_text())["explanation"]["text"] == SENTENCE
        if os.environ.get("DESKTOP_SCREENSHOT"):
            screenshot(display, os.environ["DESKTOP_SCREENSHOT"])

        second = subprocess.run([sys.executable, "app.py", "--desktop"], cwd=PROJECT, env=env, capture_output=True,
                                text=True, timeout=60)
        assert second.returncode == 0, second.stderr
        assert f"already open in a window at {url}, process {app.pid}" in second.stdout
        wait_for_line(log, "a second launch: this window was brought to the front")

        children = psutil.Process(app.pid).children(recursive=True)
        assert any("QtWebEngine" in child.name() for child in children)  # the web engine's own processes
        page.close()
        page = None
        close_window(display, window_titles(display)["ELECTRA Explainer"])  # as a window manager's close button
        assert app.wait(60) == 0
        assert "the window closed; the server at" in log.read_text()
        assert port_is_free(port)
        _, alive = psutil.wait_procs(children, timeout=20)  # the web engine's helpers exit just after the app
        assert not [c.pid for c in alive if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
        assert "Traceback" not in log.read_text()
    finally:
        if page is not None:
            page.close()
        if app.poll() is None:  # this test's own child, by its pid
            app.kill()
            app.wait()
        xvfb.terminate()
        xvfb.wait()


# --- what cannot open a window: a message, status 2, no traceback ----------------------------------

def test_no_display_is_refused_before_the_app_is_built(capsys, monkeypatch):
    monkeypatch.setattr(desktop, "LINUX", True)
    monkeypatch.setattr(desktop, "missing_extras", lambda: None)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert desktop.run() == 2
    err = capsys.readouterr().err
    assert err.startswith("electra-explainer: no display to open a window on") and "without --desktop" in err
    monkeypatch.setenv("DISPLAY", ":4321")  # no X server there
    assert desktop.run() == 2
    assert "the display DISPLAY=:4321 does not answer" in capsys.readouterr().err


@pytest.mark.parametrize("missing", ["webview", "qtpy.QtWebEngineWidgets"])
def test_missing_extras_name_the_command_that_installs_them(missing, capsys, monkeypatch):
    monkeypatch.setattr(desktop, "LINUX", True)
    monkeypatch.setitem(sys.modules, missing, None)  # `import` of it raises ImportError, as when not installed
    if missing != "webview":
        monkeypatch.setitem(sys.modules, "webview", SimpleNamespace())
        if "qtpy" in sys.modules:  # imported before: `from qtpy import X` would find the attribute, not import
            monkeypatch.delattr(sys.modules["qtpy"], "QtWebEngineWidgets", raising=False)
    assert desktop.run() == 2
    err = capsys.readouterr().err
    assert "the desktop window needs its extras, which are not installed" in err
    assert "pip install -r requirements-desktop.txt" in err and "electra-explainer[desktop]" in err


def test_missing_system_libraries_name_the_packages(capsys, monkeypatch):
    monkeypatch.setattr(desktop, "LINUX", True)
    monkeypatch.setattr(desktop, "missing_extras", lambda: None)
    monkeypatch.setattr(desktop, "display_problem", lambda: None)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    import ctypes.util

    found = ctypes.util.find_library
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None if name == "xcb-cursor" else found(name) or name)
    assert desktop.run() == 2
    err = capsys.readouterr().err
    assert "Qt's window needs system libraries that are not installed (libxcb-cursor0)" in err
    assert err.rstrip().endswith("sudo apt-get install libxcb-cursor0")


@pytest.mark.slow
def test_the_real_command_without_a_display_prints_one_line_and_no_traceback():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run([sys.executable, "app.py", "--desktop"], cwd=PROJECT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    if EXTRAS:
        assert done.stderr.startswith("electra-explainer: no display to open a window on")
    else:
        assert "pip install -r requirements-desktop.txt" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


# --- one window per user --------------------------------------------------------------------------

def test_a_second_instance_finds_the_first_and_asks_it_to_come_forward(tmp_path):
    first, second = desktop.SingleInstance(tmp_path), desktop.SingleInstance(tmp_path)
    assert first.acquire()
    first.publish("http://127.0.0.1:5555/")
    assert not second.acquire()
    message = second.announce()
    assert f"already open in a window at http://127.0.0.1:5555/, process {os.getpid()}" in message
    requests = []
    stop = desktop.threading.Event()

    def answer():
        requests.append(1)
        stop.set()

    first.watch(answer, stop, every=0.01)
    assert requests == [1] and not first.raise_path.exists()
    first.release()
    assert second.acquire()  # released with the window
    second.release()


def test_the_lock_goes_with_a_process_that_dies_holding_it(tmp_path):
    """Killed outright (no `release`, no cleanup), the holder leaves no lock behind: the next launch opens."""
    script = ("import pathlib, time\nfrom explainer.desktop import SingleInstance\n"
              f"instance = SingleInstance(pathlib.Path({str(tmp_path)!r}))\nassert instance.acquire()\n"
              "print('held', flush=True)\ntime.sleep(60)")
    holder = subprocess.Popen([sys.executable, "-c", script],
                              cwd=PROJECT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert not desktop.SingleInstance(tmp_path).acquire()
    finally:
        holder.kill()
        holder.wait(timeout=30)
    after = desktop.SingleInstance(tmp_path)
    assert after.acquire()
    after.release()


def test_the_window_fits_a_small_laptop_screen():
    screen = SimpleNamespace
    assert desktop.window_size([screen(width=1366, height=768)]) == (1280, 668)
    assert desktop.window_size([screen(width=2560, height=1440)]) == desktop.SIZE
    assert desktop.window_size([]) == (1280, 680)


def test_a_download_never_overwrites_a_file(tmp_path):
    (tmp_path / "verdict.svg").write_text("x")
    assert desktop.unique_path(tmp_path, "verdict.svg") == tmp_path / "verdict (2).svg"
    assert desktop.unique_path(tmp_path, "card.html") == tmp_path / "card.html"


@pytest.mark.slow
def test_a_window_closed_during_a_race_stops_it_and_keeps_its_models(tmp_path):
    from training.race.manager import RaceManager
    from training.race.settings import RaceLimits, RaceSettings

    manager = RaceManager(tmp_path, RaceLimits(max_minutes=2, max_steps=100_000, max_flops=1e13))
    assert desktop.finish_jobs(manager) == ""  # nothing running: nothing to say
    race = manager.start(RaceSettings(preset="tiny", budget="steps", amount=50_000, tokenizer=WORDPIECE,
                                      max_documents=N_DOCUMENTS, seq_len=64, batch_size=8, probe_every=0,
                                      device="cpu", threads=1))
    deadline = time.monotonic() + 120
    while not all(len(runner.events) >= 2 for runner in race.runners.values()) and time.monotonic() < deadline:
        time.sleep(0.2)
    note = desktop.finish_jobs(manager)
    assert note == f"the window closed during a race: it was stopped and both models saved in {race.folder}"
    assert race.status == "stopped" and not manager.busy()
    assert (race.folder / "rtd" / "checkpoint.pt").exists() and (race.folder / "mlm" / "checkpoint.pt").exists()


# --- the menu entry ----------------------------------------------------------------------------------

def test_the_menu_entry_runs_this_python_on_app_py_with_the_icon(tmp_path, monkeypatch):
    monkeypatch.setattr(menu_entry.sys, "platform", "linux")
    message = menu_entry.install(tmp_path)
    entry = tmp_path / "applications" / "electra-explainer.desktop"
    assert str(entry) in message
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    parser.read_string(entry.read_text())
    fields = parser["Desktop Entry"]
    assert fields["Name"] == "ELECTRA Explainer" and fields["Type"] == "Application" and fields["Terminal"] == "false"
    assert fields["Exec"].endswith(f"{menu_entry.exec_quote(str(PROJECT / 'app.py'))} --desktop")
    assert fields["Exec"].startswith(menu_entry.exec_quote(sys.executable))
    icon = tmp_path / "icons" / "hicolor" / "256x256" / "apps" / f"{fields['Icon']}.png"
    assert icon.read_bytes() == (PROJECT / "assets" / "icon.png").read_bytes()
    if shutil.which("desktop-file-validate"):
        checked = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("argument, quoted", [
    ("/usr/bin/python3", "/usr/bin/python3"),
    ("/home/a b/app.py", '"/home/a b/app.py"'),
    ('/x/"$HOME"`\\', r'"/x/\\"\\$HOME\\"\\`\\\\"'),  # quoted, then each backslash doubled as a string
    ("/x/100%", "/x/100%%"),
])
def test_exec_arguments_are_quoted_as_the_desktop_entry_specification_says(argument, quoted):
    assert menu_entry.exec_quote(argument) == quoted


def test_the_menu_entry_is_for_linux_only(monkeypatch, tmp_path):
    monkeypatch.setattr(menu_entry.sys, "platform", "win32")
    assert "Linux (freedesktop) only" in menu_entry.install(tmp_path)
    assert not (tmp_path / "applications").exists()
