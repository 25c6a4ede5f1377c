"""The app's command line: `python app.py [options]`, and the `electra-explainer` command a `pip install` gives.

    python app.py                          # the web app, as a Hugging Face Space runs it (GRADIO_SERVER_* apply)
    python app.py --port 8000              # ... on another port; --host 0.0.0.0 serves the whole network
    python app.py --classroom              # a live class: served on the room's network, the students' link printed
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

from explainer.core.addresses import CLASSROOM_PORT, bracketed, is_local_only
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
    parser.add_argument("--classroom", action="store_true", help="a live class: serve the app on this "
                        "computer's network addresses (as --host 0.0.0.0) so that students' phones on the same "
                        "network can join, and print the students' link at start; with --desktop, the window's "
                        "server too")
    parser.add_argument("--port", type=int, help="the port to serve on (default 7860; with --desktop, a free one)")
    parser.add_argument("--install-launcher", action="store_true", help="add a menu entry that opens the desktop "
                        "window (Linux: a freedesktop .desktop file and the icon, under ~/.local/share) and exit")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    args = parser.parse_args(argv)
    if args.port is not None and not 0 < args.port < 65536:
        parser.error(f"--port {args.port}: a port is a number from 1 to 65535")
    if args.classroom and args.host and is_local_only(args.host):
        parser.error(f"--host {args.host} --classroom: a class needs the network; leave out --host (every "
                     "interface) or name one of this computer's network addresses")
    if args.host:
        args.host = bracketed(args.host)  # an IPv6 literal as gradio and uvicorn take it: ::1 -> [::1]
    if args.desktop and args.host and not is_local_only(args.host):
        parser.error(f"--host {args.host}: the desktop window serves the app on 127.0.0.1 only, never on the network; "
                     "for a live class, --desktop --classroom serves it to the room's phones too")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.install_launcher:
        from explainer.menu_entry import install

        print(install())
        return 0
    if args.desktop:
        from explainer.desktop import run

        return run(port=args.port, classroom=args.classroom)
    from explainer.core import memory

    memory.limit_arenas()  # before the app's threads start: a freed heatmap's pages serve the next request
    from explainer.ui import app  # builds the app: torch, the default model, gradio

    options = dict(app.LAUNCH)
    if args.host or args.classroom:
        options["server_name"] = args.host or "0.0.0.0"
    if args.port or args.classroom:
        options["server_port"] = args.port or CLASSROOM_PORT
    from explainer.ui import reachable

    with reachable.patient():  # a cold first page on a busy machine can take longer than gradio waits
        app.demo.launch(prevent_thread_lock=True, **options)
    print(class_banner(app.demo.server_name, app.demo.server_port), flush=True)
    app.demo.block_thread()
    return 0


def class_banner(host: str | None, port: int, argv: list[str] | None = None) -> str:
    """What the terminal says at start about a live class: where students join, or the command that lets them."""
    from explainer.core import addresses

    try:
        found = addresses.reach(host, port, "", addresses.machine_addresses(host),
                                addresses.restart_command(sys.argv if argv is None else argv), addresses.space_base(),
                                addresses.configured_base())
    except ValueError as error:
        return f"Live class: {error}"
    if not found.bases:
        return f"Live class: {found.line}"
    others = "".join(f"\n  or {base}/class  ({label})" for label, base in found.bases[1:])
    students = f"Live class: students join at {found.bases[0][1]}/class  ({found.bases[0][0]}){others}"
    if addresses.space_base():
        return students
    here = "127.0.0.1" if addresses.is_local_only(host) or host in ("0.0.0.0", "[::]") else host
    return f"{students}\nThe teacher starts the class at http://{here}:{port}/class"


if __name__ == "__main__":
    sys.exit(main())
