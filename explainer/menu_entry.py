"""A menu entry that opens the desktop window: `python app.py --install-launcher` (or `electra-explainer
--install-launcher`).

Linux: a freedesktop `.desktop` file in $XDG_DATA_HOME/applications (~/.local/share/applications) and the
icon in the hicolor theme beside it, for this user only; GNOME, KDE, Xfce and the other freedesktop menus
list it without a restart. It runs this very Python (the virtual environment it was installed in) on this
very app.py, or the stand-alone build's own executable. Windows and macOS: docs/hosting.md, "Desktop", says how.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from training.project import ASSETS, INSTALLED, PROJECT

NAME = "electra-explainer"  # the file names: electra-explainer.desktop, and the icon's theme name
ICON = ASSETS / "icon.png"  # 256 x 256


def command() -> list[str]:
    """What the menu entry runs: this interpreter on a clone's app.py or on the installed package's command
    line, or a stand-alone build's executable."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--desktop"]
    if INSTALLED:
        return [sys.executable, "-m", "explainer.launch", "--desktop"]
    return [sys.executable, str(PROJECT / "app.py"), "--desktop"]


def exec_quote(argument: str) -> str:
    """One argument of a .desktop file's Exec key (the Desktop Entry Specification's quoting rules)."""
    argument = argument.replace("%", "%%")  # field codes start with %
    if not any(c in argument for c in ' \t\n"\'\\><~|&;$*?#()`'):
        return argument
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in argument)
    # The key's value is a string too, whose escapes are read first: each backslash of the quoting is doubled
    # (a literal backslash in a quoted argument is four in the file).
    return f'"{escaped}"'.replace("\\", "\\\\")


def desktop_entry(argv: list[str]) -> str:
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.4",
        "Name=ELECTRA Explainer",
        "GenericName=Language model explainer",
        "Comment=See ELECTRA's replaced-token detection at work",
        "Exec=" + " ".join(exec_quote(a) for a in argv),
        f"Icon={NAME}",
        "Terminal=false",
        "Categories=Education;ComputerScience;",
        "Keywords=ELECTRA;BERT;transformer;NLP;machine learning;",
        "",
    ])


def install(data_home: Path | None = None) -> str:
    """Write the entry and its icon; a line saying where (or why not, off Linux)."""
    if not sys.platform.startswith("linux"):
        return ("The menu entry is written for Linux (freedesktop) only; docs/hosting.md, \"Desktop\", says how to "
                "make a shortcut on Windows and macOS.")
    home = data_home or Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    entry = home / "applications" / f"{NAME}.desktop"
    icon = home / "icons" / "hicolor" / "256x256" / "apps" / f"{NAME}.png"
    for path in (entry, icon):
        path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ICON, icon)
    entry.write_text(desktop_entry(command()), encoding="utf-8")
    return f"Added 'ELECTRA Explainer' to the applications menu: {entry} (icon: {icon}). Delete both to remove it."
