"""The app in its own window: `python app.py --desktop` (or `electra-explainer --desktop`).

The same Gradio app, served on 127.0.0.1 at a free port (never on the network; `--desktop --classroom`: on the
room's network too, for a live class's phones, the students' link printed) and shown in a native window
by pywebview: Qt's web engine (PySide6, LGPL) on Linux, the system's web view on Windows (Edge WebView2) and
macOS (WebKit). Closing the window stops the server; the process then ends, and with it the web engine's
helper processes.

Before anything heavy is loaded, the situations that cannot open a window are answered with a message and
exit status 2: the desktop extras not installed (the message names the command that installs them), no
display (a terminal over SSH, a server). A second launch while a window is open brings that window to the
front and says where it is served, instead of starting a second server.

Closing the window during a long job: a running race is stopped as its Stop button does (after the current
step, both models saved where they are; the Training tab shows it as stopped next time); a fine-tune in
progress is abandoned (the race's models are kept; start it again from the Training tab); an attribution
or heatmap being computed is dropped with the page that asked for it (nothing is stored by it).

Downloads (the JSON results, the SVG pictures, the HTML card) open a save dialog, so each file goes where
the user chooses; ELECTRA_DESKTOP_DOWNLOADS=FOLDER saves them there without asking (a classroom's shared
machines). Not built: a tray icon, several windows, remembering the window's size.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from training.corpus import cache_dir
from training.project import ASSETS

PROG = "electra-explainer"
TITLE = "ELECTRA Explainer"
ICON = ASSETS / "icon.png"
INSTALL = "pip install -r requirements-desktop.txt (from a source checkout) or pip install 'electra-explainer[desktop]'"
SIZE = (1280, 860)  # the window's largest size; a 1366x768 laptop gets it shrunk to its screen
MARGIN = (60, 100)  # room left on the screen for a taskbar, a title bar, a dock
RACE_STOP_SECONDS = 120  # how long a closed window waits for a stopped race to save its models
LINUX = sys.platform.startswith("linux")


@dataclass(frozen=True)
class Problem:
    """Why the window cannot open, in words for the person who asked for it."""
    message: str


def missing_extras() -> Problem | None:
    """pywebview, and on Linux Qt's web engine through qtpy, importable; else what to install."""
    os.environ.setdefault("QT_API", "pyside6")  # qtpy: PySide6 (LGPL) first, if PyQt is also installed
    try:
        import webview  # noqa: F401 - imported only to learn that it loads
        if LINUX:
            from qtpy import QtWebEngineWidgets  # noqa: F401 - likewise: Qt's web engine loads
    except Exception as error:  # noqa: BLE001 - ImportError, or qtpy's QtBindingsNotFoundError (a RuntimeError)
        return Problem(f"the desktop window needs its extras, which are not installed ({error}). "
                       f"Install them with: {INSTALL}. Or run without --desktop and open the address it prints "
                       "in a browser.")
    return None


# Debian/Ubuntu packages of the X libraries Qt's xcb platform plugin loads when the window opens, by library name.
# Without them Qt aborts with its own message at that moment; checked first, they get this app's.
QT_X_LIBRARIES = {"xcb-cursor": "libxcb-cursor0", "xkbcommon-x11": "libxkbcommon-x11-0", "xcb-icccm": "libxcb-icccm4",
                  "xcb-keysyms": "libxcb-keysyms1", "xcb-image": "libxcb-image0",
                  "xcb-render-util": "libxcb-render-util0"}


def missing_system_libraries() -> Problem | None:
    """Linux on X11: the system libraries Qt's window needs, present; else the command that installs them. A
    stand-alone build carries its own copies (PyInstaller collects them), which the system's list does not show."""
    if not LINUX or os.environ.get("WAYLAND_DISPLAY") or getattr(sys, "frozen", False):
        return None
    import ctypes.util

    missing = [package for name, package in QT_X_LIBRARIES.items() if ctypes.util.find_library(name) is None]
    if not missing:
        return None
    return Problem(f"Qt's window needs system libraries that are not installed ({', '.join(missing)}). "
                   f"Debian/Ubuntu: sudo apt-get install {' '.join(missing)}")


def x_display_answers(display: str, timeout: float = 2.0) -> bool:
    """Whether an X server listens at DISPLAY ("[host]:N[.S]"): its Unix socket, or TCP port 6000 + N."""
    host, _, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not number.isdigit():
        return False
    if host in ("", "unix"):
        for path in (f"/tmp/.X11-unix/X{number}", f"\0/tmp/.X11-unix/X{number}"):  # the file, or Linux's abstract name
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(timeout)
                try:
                    probe.connect(path)
                    return True
                except OSError:
                    continue
        return False
    try:
        with socket.create_connection((host, 6000 + int(number)), timeout=timeout):
            return True
    except OSError:
        return False


def display_problem() -> Problem | None:
    """Linux only (Windows and macOS always have their desktop): a display set and answering."""
    if not LINUX or os.environ.get("WAYLAND_DISPLAY"):
        return None
    display = os.environ.get("DISPLAY")
    advice = "Run without --desktop and open the address it prints in a browser."
    if not display:
        return Problem(f"no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set: a terminal over "
                       f"SSH, or a server). {advice}")
    if not x_display_answers(display):
        return Problem(f"the display DISPLAY={display} does not answer (no X server there). {advice}")
    return None


class SingleInstance:
    """One desktop window per user: a lock file the first launch holds (filelock: the operating system's lock,
    released when the process ends, however it ends), beside a small JSON file saying where it serves. A second
    launch leaves a request that the first one's watcher answers by bringing its window to the front."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.lock, self.info_path = FileLock(folder / "desktop.lock"), folder / "desktop.json"
        self.raise_path = folder / "desktop.raise"

    def acquire(self) -> bool:
        try:
            self.lock.acquire(blocking=False)
        except Timeout:  # another launch holds it
            return False
        self.raise_path.unlink(missing_ok=True)
        self.publish(None)
        return True

    def publish(self, url: str | None) -> None:
        self.info_path.write_text(json.dumps({"pid": os.getpid(), "url": url}), encoding="utf-8")

    def holder(self) -> dict:
        try:
            return json.loads(self.info_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def announce(self) -> str:
        """Ask the running window to come to the front; the message for the second launch."""
        self.raise_path.write_text(str(os.getpid()), encoding="utf-8")
        held = self.holder()
        where = f"at {held['url']}" if held.get("url") else "(still starting)"
        return (f"{TITLE} is already open in a window {where}, process {held.get('pid', '?')}: that window was asked "
                "to come to the front. One window at a time: close it to start another.")

    def watch(self, on_request, stop: threading.Event, every: float = 0.5) -> None:
        """Call `on_request()` whenever a second launch asks (runs until `stop` is set)."""
        while not stop.wait(every):
            if self.raise_path.exists():
                self.raise_path.unlink(missing_ok=True)
                on_request()

    def release(self) -> None:
        if self.lock.is_locked:
            self.info_path.unlink(missing_ok=True)
            self.lock.release()


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now (the system's choice)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def window_size(screens) -> tuple[int, int]:
    """SIZE, shrunk to fit the first screen with MARGIN to spare."""
    if not screens:
        return SIZE[0], SIZE[1] - 180  # no screen known: a size that fits 1366x768
    screen = screens[0]
    return min(SIZE[0], screen.width - MARGIN[0]), min(SIZE[1], screen.height - MARGIN[1])


def unique_path(folder: Path, name: str) -> Path:
    """`folder/name`, or `folder/stem (2).suffix`... when a file of that name exists already."""
    path, n = folder / name, 1
    while path.exists():
        n += 1
        path = folder / f"{Path(name).stem} ({n}){Path(name).suffix}"
    return path


def wire_downloads(window, folder: Path | None) -> None:
    """Qt: every download asks where to save it (or goes to `folder`). pywebview's own handler calls Qt 5's
    `setPath`, which Qt 6's download request no longer has, so the app wires its own."""
    from qtpy.QtWidgets import QFileDialog

    browser = window.native  # pywebview's QMainWindow; `.webview` is its QWebEngineView
    default = Path.home() / "Downloads"

    def save(download) -> None:  # runs in Qt's thread, where the download is requested
        name = Path(download.suggestedFileName() or download.downloadFileName() or "download").name
        if folder is not None:
            target = unique_path(folder, name)
        else:
            chosen, _ = QFileDialog.getSaveFileName(browser, "Save the download", str((default if default.is_dir()
                                                                                      else Path.home()) / name))
            if not chosen:
                download.cancel()
                return
            target = Path(chosen)
        download.setDownloadDirectory(str(target.parent))
        download.setDownloadFileName(target.name)
        download.accept()
        print(f"{PROG}: saving {target}", flush=True)

    browser.webview.page().profile().downloadRequested.connect(save)


def finish_jobs(manager, timeout: float = RACE_STOP_SECONDS) -> str:
    """Stop what the Training tab left running when the window closes; what happened, in words ('' if idle)."""
    if manager.job == "race" and manager.stop():
        folder = manager.race.folder
        if manager.wait(timeout):
            return f"the window closed during a race: it was stopped and both models saved in {folder}"
        return (f"the window closed during a race: it was asked to stop but had not saved its models after "
                f"{timeout:.0f} s; it shows as interrupted next time ({folder})")
    if manager.job == "finetune":
        return ("the window closed during the fine-tune: it was abandoned (the race's models are kept); "
                "start it again from the Training tab")
    return ""


def run(port: int | None = None, classroom: bool = False) -> int:
    """Open the window and serve the app until it closes; the exit status. `classroom`: served on the network
    as well (every interface), so that students' phones can join a live class; the window itself still opens
    the app at 127.0.0.1."""
    problem = missing_extras() or display_problem() or missing_system_libraries()
    if problem is not None:
        print(f"{PROG}: {problem.message}", file=sys.stderr)
        return 2
    instance = SingleInstance(cache_dir())
    if not instance.acquire():
        print(f"{PROG}: {instance.announce()}")
        return 0
    try:
        return _serve_in_window(instance, port, classroom)
    finally:
        instance.release()


def _serve_in_window(instance: SingleInstance, port: int | None, classroom: bool = False) -> int:
    if LINUX:
        os.environ["PYWEBVIEW_GUI"] = "qt"  # the pinned backend (pywebview would try GTK first)
        if os.geteuid() == 0:
            os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")  # Chromium's sandbox refuses to run as root
    import webview

    from explainer.ui import app, races  # builds the app: torch, the default model, gradio

    from explainer.launch import class_banner

    host = "0.0.0.0" if classroom else "127.0.0.1"  # a live class: the room's network, asked for
    port = port or free_port(host)
    from explainer.ui import reachable

    with reachable.patient():  # a cold first page on a busy machine can take longer than gradio waits
        app.demo.launch(server_name=host, server_port=port, prevent_thread_lock=True, quiet=True, inbrowser=False,
                        ssr_mode=False, **app.LAUNCH)
    url = f"http://127.0.0.1:{port}/"
    instance.publish(url)
    print(f"{PROG}: serving {url} in a window; closing the window stops it", flush=True)
    print(f"{PROG}: {class_banner(host, port)}", flush=True)
    downloads = os.environ.get("ELECTRA_DESKTOP_DOWNLOADS")
    width, height = window_size(webview.screens)
    window = webview.create_window(TITLE, url, width=width, height=height, min_size=(720, 480),
                                   text_select=True, zoomable=True)
    if LINUX:
        window.events.before_show += lambda: wire_downloads(window, Path(downloads) if downloads else None)
    else:
        webview.settings["ALLOW_DOWNLOADS"] = True  # Edge WebView2 and WebKit ask where to save

    def to_front() -> None:
        window.restore()
        window.show()
        print(f"{PROG}: a second launch: this window was brought to the front", flush=True)

    stop = threading.Event()
    threading.Thread(target=instance.watch, args=(to_front, stop), daemon=True, name="second-launch").start()
    try:
        webview.start(gui="qt" if LINUX else None, icon=str(ICON), private_mode=True)
    finally:  # the window closed (or the GUI failed): nothing may keep serving
        stop.set()
        note = finish_jobs(races.MANAGER)
        if note:
            print(f"{PROG}: {note}", flush=True)
        app.demo.close()
    print(f"{PROG}: the window closed; the server at {url} stopped", flush=True)
    return 0
