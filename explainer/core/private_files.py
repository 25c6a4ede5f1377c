"""The live classes' folder and files, readable by the server's own user only, whatever the umask.

The class store holds student ids, which are bearer tokens (whoever has one answers as that student), and
the browser key decrypts what a student's browser remembers. So the folder is 0700 and every file in it
0600: made so with os.open's mode and then fchmod (a umask of 0o000 would otherwise leave 0666), and put
right on open when an older version left them wider. SQLite makes its -wal and -shm files with the
database file's own mode, so a 0600 database gets 0600 companions.

Not here: what the files hold (explainer/core/live_class/store.py).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

FOLDER_MODE, FILE_MODE = 0o700, 0o600


def data_dir() -> Path:
    return Path(os.environ.get("ELECTRA_CLASS_DIR", Path.home() / ".cache" / "electra-explainer" / "classes"))


def private_folder(folder: Path) -> Path:
    """`folder` (and its missing parents) made, the folder itself 0700."""
    folder = Path(folder)
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    os.chmod(folder, FOLDER_MODE)
    return folder


def private_file(path: Path) -> Path:
    """`path` made empty if missing, and 0600 either way."""
    fd = os.open(path, os.O_CREAT | os.O_RDWR, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
    return Path(path)


def tighten(paths) -> None:
    """0600 for those of `paths` that exist (a store's -wal and -shm left by an older version)."""
    for path in paths:
        try:
            os.chmod(path, FILE_MODE)
        except FileNotFoundError:
            pass


def browser_secret(folder: Path | None = None) -> str:
    """A random key kept in the data folder (made once): the app encrypts what a student's browser remembers
    (their id in each class they joined) with it, so a restarted server still reads it."""
    folder = private_folder(Path(folder) if folder is not None else data_dir())
    path = folder / "browser-key"
    try:  # the first server to get here writes it; the rest read it
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            os.fchmod(f.fileno(), FILE_MODE)
            f.write(secrets.token_urlsafe(24))
    text = path.read_text(encoding="ascii").strip()
    return text or secrets.token_urlsafe(24)  # a half-written file: this run's own key (students rejoin)
