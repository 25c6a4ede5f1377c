"""The app's command line: `python app.py [options]`, and the `electra-explainer` command a `pip install` gives.

    python app.py                          # the web app, as a Hugging Face Space runs it (GRADIO_SERVER_* apply)
    python app.py --port 8000              # ... on another port; --host 0.0.0.0 serves the whole network
    python app.py --desktop                # the same app in its own window, served on 127.0.0.1 only
    python app.py --install-launcher       # a menu entry (Linux, freedesktop) that opens the window
    electra-explainer --version            # the package's version (CHANGELOG.md)

The options are parsed before the app is built (torch, the models, gradio: seconds), so `--help`, a missing
desktop extra or a missing display answer at once. The app itself (the Blocks) is built by importing
explainer/ui/app.py; app.py at the repository root only calls `main` here.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from importlib import metadata

from training.project import PROJECT

PROG = "electra-explainer"
DESCRIPTION = "ELECTRA Explainer: see ELECTRA's replaced-token detection at work (a Gradio app)."


def version() -> str:
    """The installed package's version (its metadata), or pyproject.toml's when run from a clone."""
    try:
        return metadata.version(PROG)
    except metadata.PackageNotFoundError:
        pyproject = PROJECT / "pyproject.toml"
        if not pyproject.is_file():  # a Space's copy of the app: neither installed nor a clone
            return "unknown"
        return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description=DESCRIPTION, epilog="Without --desktop the app is served "
                                     "for a browser; gradio's GRADIO_SERVER_NAME and GRADIO_SERVER_PORT apply when "
                                     "--host and --port are not given (default http://127.0.0.1:7860).")
    parser.add_argument("--desktop", action="store_true", help="open the app in its own window (needs the desktop "
                        "extras: pip install -r requirements-desktop.txt); served on 127.0.0.1 at a free port, "
                        "stopped when the window closes")
    parser.add_argument("--host", help="the address to serve on (default 127.0.0.1; 0.0.0.0: every network "
                        "interface, e.g. for a live class on the room's network); not with --desktop")
    parser.add_argument("--port", type=int, help="the port to serve on (default 7860; with --desktop, a free one)")
    parser.add_argument("--install-launcher", action="store_true", help="add a menu entry that opens the desktop "
                        "window (Linux: a freedesktop .desktop file and the icon, under ~/.local/share) and exit")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    args = parser.parse_args(argv)
    if args.port is not None and not 0 < args.port < 65536:
        parser.error(f"--port {args.port}: a port is a number from 1 to 65535")
    if args.desktop and args.host and args.host not in ("127.0.0.1", "localhost"):
        parser.error(f"--host {args.host}: the desktop window serves the app on 127.0.0.1 only, never on the network; "
                     "run without --desktop to serve it to other machines")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.install_launcher:
        from explainer.menu_entry import install

        print(install())
        return 0
    if args.desktop:
        from explainer.desktop import run

        return run(port=args.port)
    from explainer.core import memory

    memory.limit_arenas()  # before the app's threads start: a freed heatmap's pages serve the next request
    from explainer.ui import app  # builds the app: torch, the default model, gradio

    options = dict(app.LAUNCH)
    if args.host:
        options["server_name"] = args.host
    if args.port:
        options["server_port"] = args.port
    app.demo.launch(**options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
