"""The live class store's tables (explainer/core/live_class/store.py keeps them), and the columns a file made by an
older version gains when it is opened (a new file gains them the same way: one path for both)."""

from __future__ import annotations

import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, seed INTEGER NOT NULL, n_sentences INTEGER NOT NULL,
    model TEXT NOT NULL DEFAULT '', created REAL NOT NULL, expires REAL NOT NULL,
    phase TEXT NOT NULL DEFAULT 'lobby', reveal INTEGER NOT NULL DEFAULT 0, sentences TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS classes_expires ON classes (expires);
CREATE TABLE IF NOT EXISTS students (
    class_code TEXT NOT NULL, student_id TEXT NOT NULL, nickname TEXT NOT NULL, number INTEGER NOT NULL,
    joined REAL NOT NULL, PRIMARY KEY (class_code, student_id));
CREATE TABLE IF NOT EXISTS submissions (
    class_code TEXT NOT NULL, student_id TEXT NOT NULL, round TEXT NOT NULL CHECK (round IN ('A', 'B')),
    sentence_index INTEGER NOT NULL, answer TEXT NOT NULL, result TEXT NOT NULL, created REAL NOT NULL,
    UNIQUE (class_code, student_id, round, sentence_index));
"""


def migrate(conn: sqlite3.Connection) -> None:
    """Give a file made before classes had phases (or their own sentences, or a choice of generator) the
    columns, once (two servers opening it at once: the write lock lets one add them, the other then finds them)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(classes)")}
        if "sentences" not in columns:
            conn.execute("ALTER TABLE classes ADD COLUMN sentences TEXT NOT NULL DEFAULT ''")
        if "phase" not in columns:
            conn.execute("ALTER TABLE classes ADD COLUMN phase TEXT NOT NULL DEFAULT 'lobby'")
            conn.execute("ALTER TABLE classes ADD COLUMN reveal INTEGER NOT NULL DEFAULT 0")
            # Before phases both rounds were open at once: keep open the round its students had reached.
            conn.execute("UPDATE classes SET phase = CASE "
                         "WHEN EXISTS (SELECT 1 FROM submissions WHERE class_code = code AND round = 'B') "
                         "THEN 'round_b' "
                         "WHEN EXISTS (SELECT 1 FROM submissions WHERE class_code = code) THEN 'round_a' "
                         "ELSE 'lobby' END")
        if "generator" not in columns:  # ELECTRA's own forged the older classes
            conn.execute("ALTER TABLE classes ADD COLUMN generator TEXT NOT NULL DEFAULT 'electra'")
        if "locked" not in columns:  # older classes: open, nobody's
            conn.execute("ALTER TABLE classes ADD COLUMN locked INTEGER NOT NULL DEFAULT 0")
            conn.execute("ALTER TABLE classes ADD COLUMN owner TEXT NOT NULL DEFAULT ''")
            conn.execute("ALTER TABLE classes ADD COLUMN last_number INTEGER NOT NULL DEFAULT 0")
            conn.execute("UPDATE classes SET last_number = (SELECT COALESCE(MAX(number), 0) FROM students "
                         "WHERE class_code = code)")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
