"""The store of a live class session: classes, their students and the students' answers, in one SQLite file.

A class has a short readable code (6 characters, no 0/O/1/I/L), a teacher key (kept as a hash, compared in
constant time), a view-only token for the projector (derived from that hash: it shows the class, moves nothing),
a game seed, a number of sentences and a stage (explainer/core/class_phases.py: only the teacher key moves it,
one stage at a time, checked in the transaction that writes it); a student joins with an optional nickname and gets a
random id; a submission is one student's answer to one sentence of round "A" or "B" and the result the
*server* computed, both JSON, unique per (class, student, round, sentence): a replay changes nothing and
returns the answer stored first. An answer is taken only while its round is open (checked in the transaction
that stores it, so none slips in as the teacher closes the round). Every query is scoped by the class's code.

- File: `$ELECTRA_CLASS_DIR/classes.sqlite3` (default ~/.cache/electra-explainer/classes), WAL mode with
  synchronous NORMAL, one connection and one transaction per call (safe from the server's threads); a restart,
  even after SIGKILL, loses nothing committed.
- Expiry: `$ELECTRA_CLASS_HOURS` (24) after the start a class is invisible, and purged with its students and
  answers by the next write. Reads take no write lock (WAL lets them run beside a writer). Bounds (ValueError,
  a message for people): `$ELECTRA_CLASS_MAX_CLASSES` live classes (200), `$ELECTRA_CLASS_MAX_STUDENTS` per
  class (200), one answer per sentence and round, 8 KB.
  Messages quote at most 20 characters of what was sent, as plain text (the page showing them escapes it).
- A file made before classes had phases gains the columns on open; each of its classes starts in the phase its
  answers imply (round B if it has round-B answers, else round A if it has answers, else the lobby).

Not here: models and scores (explainer/lesson/class_session.py), the pages, the QR code, the projector view.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from explainer.core.class_phases import PHASES, Stage, answer_refusal, check_move
from training.offensive import is_offensive

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # 31 symbols nobody misreads: 31**6 ~ 9e8 codes
CODE_LENGTH = 6
MAX_NICKNAME = 24
MAX_JSON = 8192  # bytes of one answer or one result
MAX_ROUND_SENTENCES = 100
ROUNDS = ("A", "B")
DEFAULT_HOURS, DEFAULT_MAX_CLASSES, DEFAULT_MAX_STUDENTS = 24.0, 200, 200

SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, seed INTEGER NOT NULL, n_sentences INTEGER NOT NULL,
    model TEXT NOT NULL DEFAULT '', created REAL NOT NULL, expires REAL NOT NULL,
    phase TEXT NOT NULL DEFAULT 'lobby', reveal INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS classes_expires ON classes (expires);
CREATE TABLE IF NOT EXISTS students (
    class_code TEXT NOT NULL, student_id TEXT NOT NULL, nickname TEXT NOT NULL, number INTEGER NOT NULL,
    joined REAL NOT NULL, PRIMARY KEY (class_code, student_id));
CREATE TABLE IF NOT EXISTS submissions (
    class_code TEXT NOT NULL, student_id TEXT NOT NULL, round TEXT NOT NULL CHECK (round IN ('A', 'B')),
    sentence_index INTEGER NOT NULL, answer TEXT NOT NULL, result TEXT NOT NULL, created REAL NOT NULL,
    UNIQUE (class_code, student_id, round, sentence_index));
"""


def quote(value: object, limit: int = 20) -> str:
    """At most `limit` characters of what was sent, as a repr (control characters shown as escapes), "…" when
    cut. Plain text: the page that shows a message escapes it, as it escapes every user text."""
    if isinstance(value, str):
        return repr(value[:limit]) + ("…" if len(value) > limit else "")
    text = repr(value)[:limit + 1]
    return text[:limit] + ("…" if len(text) > limit else "")


def clean_text(text: object, limit: int, what: str) -> str:
    """NFKC, control and format characters dropped, whitespace runs made one space; ValueError past `limit`."""
    if not isinstance(text, str):
        raise ValueError(f"The {what} must be text, not {quote(text)}.")
    text = unicodedata.normalize("NFKC", text[:limit * 8])
    text = " ".join("".join(c for c in text if not unicodedata.category(c).startswith("C") or c.isspace()).split())
    if len(text) > limit:
        raise ValueError(f"The {what} has at most {limit} characters: {quote(text)} is longer.")
    return text


def _env(name: str, default: float, kind: type) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        value = kind(raw) if raw else default
    except ValueError:
        raise ValueError(f"{name} must be a positive number, not {quote(raw)}.") from None
    if not value > 0:
        raise ValueError(f"{name} must be a positive number, not {quote(raw)}.")
    return value


def data_dir() -> Path:
    return Path(os.environ.get("ELECTRA_CLASS_DIR", Path.home() / ".cache" / "electra-explainer" / "classes"))


def browser_secret(folder: Path | None = None) -> str:
    """A random key kept in the data folder (made once): the app encrypts what a student's browser remembers
    (their id in each class they joined) with it, so a restarted server still reads it."""
    folder = Path(folder) if folder is not None else data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "browser-key"
    try:
        with open(path, "x", encoding="ascii") as f:  # the first server to get here writes it; the rest read it
            os.chmod(path, 0o600)
            f.write(secrets.token_urlsafe(24))
    except FileExistsError:
        pass
    text = path.read_text(encoding="ascii").strip()
    return text or secrets.token_urlsafe(24)  # a half-written file: this run's own key (students rejoin)


def _hash(code: str, secret: str) -> str:
    return hashlib.sha256(f"{code}:{secret}".encode()).hexdigest()


def _view_token(secret_hash: str) -> str:
    """The projector's token: derived from the stored hash (so a class made before there were tokens has one),
    and of no use for the teacher key: nothing leads from it back to the key."""
    digest = hmac.new(secret_hash.encode(), b"projector view", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")


def _same(stored: str, given: object) -> bool:
    return isinstance(given, str) and len(given) <= 200 and hmac.compare_digest(stored.encode(), given.encode())


@dataclass(frozen=True)
class ClassInfo:
    """A live class as anyone with its code may see it (no teacher key, not even its hash)."""

    code: str
    seed: int
    n_sentences: int
    model: str
    created: float
    expires: float
    phase: str = "lobby"  # explainer/core/class_phases.py
    reveal: int = 0  # in the reveal, the sentence shown (from 0)
    generator: str = "electra"  # who forges round A's fakes (explainer.core.generators)

    @property
    def stage(self) -> Stage:
        return Stage(self.phase, self.reveal if self.phase == "reveal" else 0)


@dataclass(frozen=True)
class NewClass:
    info: ClassInfo
    secret: str  # the teacher key: given once, to the teacher only; the store keeps its hash


@dataclass(frozen=True)
class Student:
    code: str
    student_id: str  # the student's own token: never shown to others
    nickname: str  # "" when none was given; plain text, escape it when drawing it
    number: int  # 1, 2, ... in the order they joined

    @property
    def display_name(self) -> str:
        return self.nickname or f"Student {self.number}"


@dataclass(frozen=True)
class Submission:
    code: str
    student_id: str
    round: str  # "A" or "B"
    sentence_index: int
    answer: object  # what the student sent, decoded from JSON
    result: dict  # what the server computed, decoded from JSON
    created: float
    new: bool = False  # True only for the call that stored it


class ClassStore:
    """The classes, students and answers in one SQLite file; `now` (seconds) can be injected for tests."""

    def __init__(self, folder: Path | str | None = None, *, now: Callable[[], float] = time.time,
                 hours: float | None = None, max_classes: int | None = None, max_students: int | None = None):
        self.folder = Path(folder) if folder is not None else data_dir()
        self.now = now
        self.hours = float(hours if hours is not None else _env("ELECTRA_CLASS_HOURS", DEFAULT_HOURS, float))
        self.max_classes = int(max_classes or _env("ELECTRA_CLASS_MAX_CLASSES", DEFAULT_MAX_CLASSES, int))
        self.max_students = int(max_students or _env("ELECTRA_CLASS_MAX_STUDENTS", DEFAULT_MAX_STUDENTS, int))
        if not (self.hours > 0 and self.max_classes > 0 and self.max_students > 0):
            raise ValueError("A class store needs positive hours and bounds.")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / "classes.sqlite3"
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(SCHEMA)
            self._migrate(conn)

    @staticmethod
    def _migrate(conn: sqlite3.Connection) -> None:
        """Give a file made before classes had phases its phase columns, and every file the generator column,
        once (two servers opening it at once: the write lock lets one add them, the other then finds them)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            columns = {row[1] for row in conn.execute("PRAGMA table_info(classes)")}
            if "phase" not in columns:
                conn.execute("ALTER TABLE classes ADD COLUMN phase TEXT NOT NULL DEFAULT 'lobby'")
                conn.execute("ALTER TABLE classes ADD COLUMN reveal INTEGER NOT NULL DEFAULT 0")
                # Before phases both rounds were open at once: keep open the round its students had reached.
                conn.execute("UPDATE classes SET phase = CASE "
                             "WHEN EXISTS (SELECT 1 FROM submissions WHERE class_code = code AND round = 'B') THEN 'round_b' "
                             "WHEN EXISTS (SELECT 1 FROM submissions WHERE class_code = code) THEN 'round_a' "
                             "ELSE 'lobby' END")
            if "generator" not in columns:  # added on open, new files too: ELECTRA's own forged the older classes
                conn.execute("ALTER TABLE classes ADD COLUMN generator TEXT NOT NULL DEFAULT 'electra'")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        # WAL with NORMAL: a commit is safe from a crash of the server (SIGKILL included) without an fsync; only
        # losing power may undo the last commits. The profile of a class answering at once showed the fsyncs.
        conn.execute("PRAGMA synchronous=NORMAL")
        try:
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A read: no write lock and no purge (a reader never waits for a writer in WAL mode); `_class` hides
        an expired class, which the next write purges."""
        with self._connect() as conn:
            conn.execute("BEGIN")  # one snapshot for the call's queries
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write-locked transaction; expired classes are purged first, and stay purged if the rest fails."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            expired = [(r[0],) for r in conn.execute("SELECT code FROM classes WHERE expires <= ?", (self.now(),))]
            for table, column in (("submissions", "class_code"), ("students", "class_code"), ("classes", "code")):
                conn.executemany(f"DELETE FROM {table} WHERE {column} = ?", expired)
            conn.execute("SAVEPOINT call")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK TO call")
                raise
            finally:
                conn.execute("COMMIT")

    # --- classes -----------------------------------------------------------------------------------------

    def create_class(self, seed: int, n_sentences: int, model: str = "", generator: str = "electra") -> NewClass:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"A class's seed is a whole number from 0, not {quote(seed)}.")
        if isinstance(n_sentences, bool) or not isinstance(n_sentences, int) or not 1 <= n_sentences <= MAX_ROUND_SENTENCES:
            raise ValueError(f"A class plays 1 to {MAX_ROUND_SENTENCES} sentences, not {quote(n_sentences)}.")
        secret = secrets.token_urlsafe(16)
        with self._transaction() as conn:
            (live,) = conn.execute("SELECT COUNT(*) FROM classes").fetchone()
            if live >= self.max_classes:
                raise ValueError(f"This server already runs {self.max_classes} classes, its most: try again when "
                                 f"one has ended (a class lasts {self.hours:g} hours).")
            now = self.now()
            while True:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                try:
                    conn.execute("INSERT INTO classes (code, secret_hash, seed, n_sentences, model, created, expires, "
                                 "generator) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                 (code, _hash(code, secret), seed, n_sentences, str(model), now,
                                  now + self.hours * 3600, str(generator)))
                    break
                except sqlite3.IntegrityError:  # the code is taken: draw another
                    continue
        return NewClass(ClassInfo(code, seed, n_sentences, str(model), now, now + self.hours * 3600,
                                  generator=str(generator)), secret)

    @staticmethod
    def normalise_code(code: object) -> str:
        """"abc-def" -> "ABCDEF"; ValueError (quoting a short part of it) for anything that is no code."""
        text = code.strip().upper().replace("-", "").replace(" ", "") if isinstance(code, str) else None
        if text is None or len(text) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in text):
            raise ValueError(f"No class has the code {quote(code)}: check the code your teacher gave "
                             f"({CODE_LENGTH} letters and digits).")
        return text

    def _class(self, conn: sqlite3.Connection, code: object) -> ClassInfo:
        key = self.normalise_code(code)
        row = conn.execute("SELECT code, seed, n_sentences, model, created, expires, phase, reveal, generator "
                           "FROM classes "
                           "WHERE code = ? AND expires > ?", (key, self.now())).fetchone()
        if row is None:
            raise ValueError(f"No class has the code {quote(code)}, or it has ended: check the code your teacher gave.")
        return ClassInfo(*row)

    def get_class(self, code: object) -> ClassInfo:
        with self._read() as conn:
            return self._class(conn, code)

    def check_teacher(self, code: object, secret: object) -> ClassInfo:
        """The class, when `secret` is its teacher key; ValueError otherwise (the key is never quoted)."""
        with self._read() as conn:
            return self._teacher(conn, code, secret)

    def _teacher(self, conn: sqlite3.Connection, code: object, secret: object) -> ClassInfo:
        info = self._class(conn, code)
        (stored,) = conn.execute("SELECT secret_hash FROM classes WHERE code = ?", (info.code,)).fetchone()
        given = _hash(info.code, secret) if isinstance(secret, str) and len(secret) <= 200 else ""
        if not _same(stored, given):
            raise ValueError("Wrong teacher key for this class.")
        return info

    def check_viewer(self, code: object, token: object) -> tuple[ClassInfo, bool]:
        """(the class, True) for its teacher key, (the class, False) for its view-only token; ValueError otherwise."""
        with self._read() as conn:
            info = self._class(conn, code)
            (stored,) = conn.execute("SELECT secret_hash FROM classes WHERE code = ?", (info.code,)).fetchone()
        if _same(_view_token(stored), token):
            return info, False
        given = _hash(info.code, token) if isinstance(token, str) and len(token) <= 200 else ""
        if not _same(stored, given):
            raise ValueError("Wrong key for this class's view.")
        return info, True

    def view_token(self, code: object, secret: object) -> str:
        """The projector's view-only token, for the holder of the teacher key."""
        with self._read() as conn:
            info = self._teacher(conn, code, secret)
            (stored,) = conn.execute("SELECT secret_hash FROM classes WHERE code = ?", (info.code,)).fetchone()
        return _view_token(stored)

    def move(self, code: object, secret: object, target: Stage) -> ClassInfo:
        """Move the class to `target`, for the holder of its teacher key, when that is the next stage (or a
        shortcut: class_phases.next_stages); ValueError with a short message, and no change, otherwise."""
        if not isinstance(target, Stage) or target.phase not in PHASES:
            raise ValueError("A phase change names a stage.")
        with self._transaction() as conn:
            info = self._teacher(conn, code, secret)
            check_move(info.stage, target, info.n_sentences)
            conn.execute("UPDATE classes SET phase = ?, reveal = ? WHERE code = ?", (target.phase, target.sentence, info.code))
        return dataclasses.replace(info, phase=target.phase, reveal=target.sentence)

    # --- students ----------------------------------------------------------------------------------------

    def join(self, code: object, nickname: object = None) -> Student:
        name = "" if nickname is None else clean_text(nickname, MAX_NICKNAME, "nickname")
        if name and is_offensive(name):
            raise ValueError("Please choose another nickname.")
        student_id = secrets.token_urlsafe(16)
        with self._transaction() as conn:
            info = self._class(conn, code)
            if info.phase == "ended":
                raise ValueError("This class has ended: it takes no one new. Ask your teacher for a new code.")
            (joined,) = conn.execute("SELECT COUNT(*) FROM students WHERE class_code = ?", (info.code,)).fetchone()
            if joined >= self.max_students:
                raise ValueError(f"This class is full: {self.max_students} students have joined, its most.")
            conn.execute("INSERT INTO students VALUES (?, ?, ?, ?, ?)", (info.code, student_id, name, joined + 1, self.now()))
        return Student(info.code, student_id, name, joined + 1)

    def _student(self, conn: sqlite3.Connection, code: str, student_id: object) -> Student:
        row = None
        if isinstance(student_id, str) and len(student_id) <= 64:
            row = conn.execute("SELECT nickname, number FROM students WHERE class_code = ? AND student_id = ?",
                               (code, student_id)).fetchone()
        if row is None:
            raise ValueError("This class does not know you (yet): join it again with its code.")
        return Student(code, student_id, *row)

    def get_student(self, code: object, student_id: object) -> Student:
        with self._read() as conn:
            return self._student(conn, self._class(conn, code).code, student_id)

    def students(self, code: object) -> tuple[Student, ...]:
        with self._read() as conn:
            info = self._class(conn, code)
            rows = conn.execute("SELECT student_id, nickname, number FROM students WHERE class_code = ? ORDER BY number",
                                (info.code,)).fetchall()
        return tuple(Student(info.code, *row) for row in rows)

    # --- submissions -------------------------------------------------------------------------------------

    def _key(self, conn: sqlite3.Connection, code: object, student_id: object, round_: object, index: object
             ) -> tuple[str, str, str, int]:
        info = self._class(conn, code)
        self._student(conn, info.code, student_id)
        if round_ not in ROUNDS:
            raise ValueError(f"The round is \"A\" or \"B\", not {quote(round_)}.")
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < info.n_sentences:
            raise ValueError(f"This class's sentences are numbered 0 to {info.n_sentences - 1}, not {quote(index)}.")
        return info.code, str(student_id), str(round_), index

    _COLUMNS = "class_code, student_id, round, sentence_index, answer, result, created"

    def _find(self, conn: sqlite3.Connection, key: tuple[str, str, str, int]) -> Submission | None:
        row = conn.execute(f"SELECT {self._COLUMNS} FROM submissions WHERE class_code = ? AND student_id = ? AND "
                           "round = ? AND sentence_index = ?", key).fetchone()
        return None if row is None else _submission(row)

    def find(self, code: object, student_id: object, round_: object, index: object) -> Submission | None:
        """The stored answer to that sentence, or None; ValueError when the class, student, round or index is wrong."""
        with self._read() as conn:
            return self._find(conn, self._key(conn, code, student_id, round_, index))

    def submit(self, code: object, student_id: object, round_: object, index: object, answer: object, result: dict
               ) -> Submission:
        """Store an answer and its result, once: a second call for the same sentence returns the first, unchanged."""
        texts = []
        for what, value in (("answer", answer), ("result", result)):
            try:
                text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
            except (TypeError, ValueError):
                raise ValueError(f"The {what} cannot be stored: {quote(value)}.") from None
            if len(text.encode()) > MAX_JSON:
                raise ValueError(f"The {what} is too long to store ({MAX_JSON} bytes at most).")
            texts.append(text)
        with self._transaction() as conn:
            key = self._key(conn, code, student_id, round_, index)
            stored = self._find(conn, key)
            if stored is not None:  # a replay, even once the round has closed: the first answer, unchanged
                return stored
            refusal = answer_refusal(self._class(conn, key[0]).stage, key[2])
            if refusal:
                raise ValueError(refusal)
            conn.execute(f"INSERT INTO submissions ({self._COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", (*key, *texts, self.now()))
            stored = self._find(conn, key)
        return dataclasses.replace(stored, new=True)

    def submissions(self, code: object, round_: str | None = None, student_id: str | None = None
                    ) -> tuple[Submission, ...]:
        """Every stored answer of this class (one round's, or both; one student's, or everyone's), in the order
        they came."""
        with self._read() as conn:
            info = self._class(conn, code)
            rows = conn.execute(f"SELECT {self._COLUMNS} FROM submissions WHERE class_code = ? AND (? IS NULL OR round = ?) "
                                "AND (? IS NULL OR student_id = ?) ORDER BY rowid",
                                (info.code, round_, round_, student_id, student_id)).fetchall()
        return tuple(_submission(row) for row in rows)

    def live_classes(self) -> int:
        with self._read() as conn:
            return conn.execute("SELECT COUNT(*) FROM classes WHERE expires > ?", (self.now(),)).fetchone()[0]


def _submission(row: tuple) -> Submission:
    code, student_id, round_, index, answer, result, created = row
    return Submission(code, student_id, round_, index, json.loads(answer), json.loads(result), created)
