"""The live classes' files are the server user's alone, whatever the umask: the store, its WAL and shared
memory 0600, the folder 0700 (student ids are bearer tokens); the browser key too; a store an older version
left world-readable is tightened when it opens."""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest

from explainer.core.live_class.phases import Stage
from explainer.core.live_class.store import ClassStore
from explainer.core.private_files import browser_secret


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture(params=[0o022, 0o000], ids=["umask-022", "umask-000"])
def umask(request):
    previous = os.umask(request.param)
    yield request.param
    os.umask(previous)


def test_the_store_its_wal_and_its_folder_are_private(tmp_path, umask):
    folder = tmp_path / "deep" / "classes"
    store = ClassStore(folder)
    # SQLite removes -wal and -shm when its last connection closes; a server's reader holds them open.
    reader = sqlite3.connect(store.path)
    reader.execute("SELECT COUNT(*) FROM classes").fetchone()
    new = store.create_class(1, 2)
    store.move(new.info.code, new.teacher_key, Stage("round_a"))
    student = store.join(new.info.code, "Ana")
    store.submit(new.info.code, student.student_id, "A", 0, [1], {})
    files = {path.name: mode(path) for path in folder.iterdir()}
    reader.close()
    assert {"classes.sqlite3", "classes.sqlite3-wal", "classes.sqlite3-shm"} <= set(files)
    assert files == {name: 0o600 for name in files}
    assert mode(folder) == 0o700


def test_the_browser_key_is_private(tmp_path, umask):
    key = browser_secret(tmp_path / "classes")
    assert len(key) >= 20 and browser_secret(tmp_path / "classes") == key  # made once, then read
    assert mode(tmp_path / "classes" / "browser-key") == 0o600 and mode(tmp_path / "classes") == 0o700


def test_a_store_left_world_readable_is_tightened_on_open(tmp_path):
    folder = tmp_path / "classes"
    ClassStore(folder).create_class(1, 2)
    for path in [folder, *folder.iterdir()]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    ClassStore(folder)
    assert mode(folder) == 0o700 and {mode(p) for p in folder.iterdir()} == {0o600}
