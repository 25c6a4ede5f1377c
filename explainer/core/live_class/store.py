"""The store of a live class session: classes, their students and the students' answers, in one SQLite file.

A class has a short readable code (6 characters, no 0/O/1/I/L), a teacher key (kept as a hash, compared in
constant time), a view-only token for the projector (derived from that hash: it shows the class, moves nothing),
a game seed, a number of sentences and a stage (explainer/core/live_class/phases.py: only the teacher key moves it,
one stage at a time, checked in the transaction that writes it); a student joins with an optional nickname and gets a
random id; a submission is one student's answer to one sentence of round "A" or "B" and the result the
*server* computed, both JSON, unique per (class, student, round, sentence): a replay changes nothing and
returns the answer stored first. An answer is taken only while its round is open (checked in the transaction
that stores it, so none slips in as the teacher closes the round). Every query is scoped by the class's code.

- File: `$ELECTRA_CLASS_DIR/classes.sqlite3` (default ~/.cache/electra-explainer/classes), WAL mode with
  synchronous NORMAL, one connection and one transaction per call (safe from the server's threads); a restart,
  even after SIGKILL, loses nothing committed. The folder is 0700, the file and its -wal and -shm 0600 whatever
  the umask (explainer/core/private_files.py): student ids are bearer tokens.
- Expiry: `$ELECTRA_CLASS_HOURS` (24) after the start a class is invisible, and purged with its students and
  answers by the next write; so is a lobby nobody joined, untouched for `$ELECTRA_CLASS_LOBBY_MINUTES` (30).
  Reads take no write lock (WAL lets them run beside a writer). Bounds (ValueError, a message for people):
  `$ELECTRA_CLASS_MAX_CLASSES` classes running (200; an ended class runs no more, and at most 5 times as many
  are kept in all), `$ELECTRA_CLASS_MAX_STUDENTS` per class (200), one answer per sentence and round, 8 KB.
  Messages quote at most 20 characters of what was sent, as plain text (the page showing them escapes it).
  A visitor's share of starts and joins is explainer/core/quotas.py's, checked before the store is called; the
  classes one visitor has running at once are bounded here (`$ELECTRA_CLASS_MAX_PER_VISITOR`, 10), by a hash of
  their network kept with each class (never the address).
- The teacher (with the key) can lock the class (a join is then refused; the students in it play on) and remove a
  student (their answers go with them; a locked class keeps them out).
- A class may play the teacher's own sentences (checked before they get here), kept with it as JSON.
- A file made before classes had phases gains the columns on open; each of its classes starts in the phase its
  answers imply (round B if it has round-B answers, else round A if it has answers, else the lobby).

Not here: the records it hands out and the key checks (explainer/core/live_class/records.py), models and scores
(explainer/lesson/live_class/session.py), the pages, the QR code, the projector view.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from explainer.core import quotas
from explainer.core.live_class.phases import PHASES, Stage, answer_refusal, check_move
from explainer.core.live_class.schema import SCHEMA, migrate
from explainer.core.live_class.records import (ClassInfo, NewClass, Student, Submission, same, secret_hash,
                                               submission_from)
from explainer.core.live_class.records import view_token as _view_token
from explainer.core.private_files import data_dir, private_file, private_folder, tighten
from explainer.core.user_text import clean_text, quote
from training.offensive import hides_offensive

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # 31 symbols nobody misreads: 31**6 ~ 9e8 codes
CODE_LENGTH = 6
MAX_NICKNAME = 24
MAX_JSON = 8192  # bytes of one answer or one result
MAX_ROUND_SENTENCES = 100
ROUNDS = ("A", "B")
KEPT_PER_RUNNING = 5  # classes kept in all (ended ones too, until they expire) per class that may run at once

class ClassStore:
    """The classes, students and answers in one SQLite file; `now` (seconds) can be injected for tests."""

    def __init__(self, folder: Path | str | None = None, *, now: Callable[[], float] = time.time,
                 hours: float | None = None, max_classes: int | None = None, max_students: int | None = None,
                 lobby_minutes: float | None = None, max_per_visitor: int | None = None):
        self.folder = Path(folder) if folder is not None else data_dir()
        self.now = now
        def given_or_set(value, name: str, default, kind):  # 0 is a value (and refused below), not "unset"
            return kind(value if value is not None else quotas.setting(name, default, kind))

        self.hours = given_or_set(hours, "ELECTRA_CLASS_HOURS", quotas.DEFAULT_HOURS, float)
        self.max_classes = given_or_set(max_classes, "ELECTRA_CLASS_MAX_CLASSES", quotas.DEFAULT_MAX_CLASSES, int)
        self.max_students = given_or_set(max_students, "ELECTRA_CLASS_MAX_STUDENTS", quotas.DEFAULT_MAX_STUDENTS, int)
        self.lobby_minutes = given_or_set(lobby_minutes, "ELECTRA_CLASS_LOBBY_MINUTES", quotas.DEFAULT_LOBBY_MINUTES,
                                          float)
        self.max_per_visitor = given_or_set(max_per_visitor, "ELECTRA_CLASS_MAX_PER_VISITOR",
                                            quotas.DEFAULT_MAX_PER_VISITOR, int)
        if not (self.hours > 0 and self.max_classes > 0 and self.max_students > 0 and self.lobby_minutes > 0
                and self.max_per_visitor > 0):
            raise ValueError("A class store needs positive hours and bounds.")
        private_folder(self.folder)
        self.path = private_file(self.folder / "classes.sqlite3")  # 0600 before SQLite opens it: -wal, -shm follow
        tighten(self.folder / f"classes.sqlite3{end}" for end in ("-wal", "-shm", "-journal"))
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(SCHEMA)
            migrate(conn)

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
        """One write-locked transaction; expired classes, and lobbies nobody joined in `lobby_minutes`, are purged
        first, and stay purged if the rest fails."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            now = self.now()
            expired = [(r[0],) for r in conn.execute(
                "SELECT code FROM classes WHERE expires <= ? OR (phase = 'lobby' AND created <= ? AND NOT EXISTS "
                "(SELECT 1 FROM students WHERE class_code = code))", (now, now - self.lobby_minutes * 60))]
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

    def create_class(self, seed: int, n_sentences: int, model: str = "", sentences: tuple[str, ...] = (),
                     generator: str = "electra", visitor: str | None = None) -> NewClass:
        """A new class in its lobby. `sentences`: the teacher's own (checked by the caller), n_sentences of them;
        `generator`: who forges round A's fakes (checked by the caller); `visitor`: who starts it
        (explainer/core/visitors.py; None: the local user, who has no share to keep)."""
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"A class's seed is a whole number from 0, not {quote(seed)}.")
        if (isinstance(n_sentences, bool) or not isinstance(n_sentences, int)
                or not 1 <= n_sentences <= MAX_ROUND_SENTENCES):
            raise ValueError(f"A class plays 1 to {MAX_ROUND_SENTENCES} sentences, not {quote(n_sentences)}.")
        if sentences and (len(sentences) != n_sentences or not all(isinstance(t, str) for t in sentences)):
            raise ValueError(f"A class on its own sentences plays each of them: {n_sentences} sentences.")
        own = json.dumps(list(sentences), ensure_ascii=False) if sentences else ""
        if len(own.encode()) > MAX_JSON:
            raise ValueError(f"The sentences are too long to store ({MAX_JSON} bytes at most).")
        teacher_key = secrets.token_urlsafe(16)
        with self._transaction() as conn:
            (running,) = conn.execute("SELECT COUNT(*) FROM classes WHERE phase != 'ended'").fetchone()
            (kept,) = conn.execute("SELECT COUNT(*) FROM classes").fetchone()
            if running >= self.max_classes or kept >= self.max_classes * KEPT_PER_RUNNING:
                raise ValueError(f"This server already runs {self.max_classes} classes, its most: try again when "
                                 f"one has ended (a class lasts {self.hours:g} hours; a lobby nobody joined ends after "
                                 f"{self.lobby_minutes:g} minutes).")
            owner = _owner(visitor)
            if owner:
                (mine,) = conn.execute("SELECT COUNT(*) FROM classes WHERE owner = ? AND phase != 'ended'",
                                       (owner,)).fetchone()
                if mine >= self.max_per_visitor:
                    raise ValueError(f"Your network already runs {mine} classes, the most this server allows one "
                                     "network at once: end one (its teacher's page, \"End the class\") and start "
                                     "again.")
            now = self.now()
            while True:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                try:
                    conn.execute("INSERT INTO classes (code, secret_hash, seed, n_sentences, model, created, expires, "
                                 "sentences, generator, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                 (code, secret_hash(code, teacher_key), seed, n_sentences, str(model), now,
                                  now + self.hours * 3600, own, str(generator), owner))
                    break
                except sqlite3.IntegrityError:  # the code is taken: draw another
                    continue
        return NewClass(ClassInfo(code, seed, n_sentences, str(model), now, now + self.hours * 3600,
                                  sentences=tuple(sentences), generator=str(generator)), teacher_key)

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
        row = conn.execute("SELECT code, seed, n_sentences, model, created, expires, phase, reveal, sentences, "
                           "generator, locked FROM classes WHERE code = ? AND expires > ?",
                           (key, self.now())).fetchone()
        if row is None:
            raise ValueError(f"No class has the code {quote(code)}, or it has ended: check the code your teacher gave.")
        return ClassInfo(*row[:8], sentences=tuple(json.loads(row[8])) if row[8] else (), generator=row[9],
                         locked=bool(row[10]))

    def get_class(self, code: object) -> ClassInfo:
        with self._read() as conn:
            return self._class(conn, code)

    def check_teacher(self, code: object, teacher_key: object) -> ClassInfo:
        """The class, when `teacher_key` is its teacher key; ValueError otherwise (the key is never quoted)."""
        with self._read() as conn:
            return self._teacher(conn, code, teacher_key)[0]

    def _keyed(self, conn: sqlite3.Connection, code: object) -> tuple[ClassInfo, str]:
        """The class and the hash of its teacher key: the one query that reads the hash."""
        info = self._class(conn, code)
        (stored,) = conn.execute("SELECT secret_hash FROM classes WHERE code = ?", (info.code,)).fetchone()
        return info, stored

    @staticmethod
    def _is_key(info: ClassInfo, stored: str, given: object) -> bool:
        return same(stored, secret_hash(info.code, given) if isinstance(given, str) and len(given) <= 200 else "")

    def _teacher(self, conn: sqlite3.Connection, code: object, teacher_key: object) -> tuple[ClassInfo, str]:
        """The class and its key's hash, when `teacher_key` is its teacher key; ValueError otherwise."""
        info, stored = self._keyed(conn, code)
        if not self._is_key(info, stored, teacher_key):
            raise ValueError("Wrong teacher key for this class.")
        return info, stored

    def check_viewer(self, code: object, token: object) -> tuple[ClassInfo, bool]:
        """(the class, True) for its teacher key, (the class, False) for its view-only token; ValueError otherwise."""
        with self._read() as conn:
            info, stored = self._keyed(conn, code)
        if same(_view_token(stored), token):
            return info, False
        if not self._is_key(info, stored, token):
            raise ValueError("Wrong key for this class's view.")
        return info, True

    def view_token(self, code: object, teacher_key: object) -> str:
        """The projector's view-only token, for the holder of the teacher key."""
        with self._read() as conn:
            return _view_token(self._teacher(conn, code, teacher_key)[1])

    def move(self, code: object, teacher_key: object, target: Stage) -> ClassInfo:
        """Move the class to `target`, for the holder of its teacher key, when that is the next stage (or a
        shortcut: phases.next_stages); ValueError with a short message, and no change, otherwise."""
        if not isinstance(target, Stage) or target.phase not in PHASES:
            raise ValueError("A phase change names a stage.")
        with self._transaction() as conn:
            info, _ = self._teacher(conn, code, teacher_key)
            check_move(info.stage, target, info.n_sentences)
            conn.execute("UPDATE classes SET phase = ?, reveal = ? WHERE code = ?",
                         (target.phase, target.sentence, info.code))
        return dataclasses.replace(info, phase=target.phase, reveal=target.sentence)

    # --- students ----------------------------------------------------------------------------------------

    def join(self, code: object, nickname: object = None) -> Student:
        name = "" if nickname is None else clean_text(nickname, MAX_NICKNAME, "nickname")
        if name and (hides_offensive(name) or hides_offensive(str(nickname))):  # as shown, and as typed
            raise ValueError("Please choose another nickname.")
        student_id = secrets.token_urlsafe(16)
        with self._transaction() as conn:
            info = self._class(conn, code)
            if info.phase == "ended":
                raise ValueError("This class has ended: it takes no one new. Ask your teacher for a new code.")
            if info.locked:
                raise ValueError("This class is locked: its teacher lets nobody new in. Ask your teacher.")
            (joined,) = conn.execute("SELECT COUNT(*) FROM students WHERE class_code = ?", (info.code,)).fetchone()
            (last,) = conn.execute("SELECT last_number FROM classes WHERE code = ?", (info.code,)).fetchone()
            if joined >= self.max_students:
                raise ValueError(f"This class is full: {joined} students have joined, its most. Tell your teacher.")
            # Numbers are never reused: a removed student's number stays theirs, so "Student 7" is one person.
            conn.execute("INSERT INTO students VALUES (?, ?, ?, ?, ?)",
                         (info.code, student_id, name, last + 1, self.now()))
            conn.execute("UPDATE classes SET last_number = ? WHERE code = ?", (last + 1, info.code))
        return Student(info.code, student_id, name, last + 1)

    def set_locked(self, code: object, teacher_key: object, locked: bool) -> ClassInfo:
        """Lock the class (no one new may join) or open it again, for the holder of its teacher key."""
        with self._transaction() as conn:
            info, _ = self._teacher(conn, code, teacher_key)
            conn.execute("UPDATE classes SET locked = ? WHERE code = ?", (int(bool(locked)), info.code))
        return dataclasses.replace(info, locked=bool(locked))

    def remove_student(self, code: object, teacher_key: object, number: object) -> Student:
        """Remove student number `number` and their answers, for the holder of the teacher key; the removed
        student. Their phone is told the class does not know them; in a locked class they cannot join again."""
        if isinstance(number, bool) or not isinstance(number, int) or not 0 < number <= 10 * self.max_students:
            raise ValueError(f"A student is named by their number (1, 2, ...), not {quote(number)}.")
        with self._transaction() as conn:
            info, _ = self._teacher(conn, code, teacher_key)
            row = conn.execute("SELECT student_id, nickname FROM students WHERE class_code = ? AND number = ?",
                               (info.code, number)).fetchone()
            if row is None:
                raise ValueError(f"This class has no student {number} (any more).")
            conn.execute("DELETE FROM submissions WHERE class_code = ? AND student_id = ?", (info.code, row[0]))
            conn.execute("DELETE FROM students WHERE class_code = ? AND student_id = ?", (info.code, row[0]))
        return Student(info.code, row[0], row[1], number)

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
            rows = conn.execute("SELECT student_id, nickname, number FROM students WHERE class_code = ? "
                                "ORDER BY number", (info.code,)).fetchall()
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
        return None if row is None else submission_from(row)

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
            conn.execute(f"INSERT INTO submissions ({self._COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (*key, *texts, self.now()))
            stored = self._find(conn, key)
        return dataclasses.replace(stored, new=True)

    def submissions(self, code: object, round_: str | None = None, student_id: str | None = None
                    ) -> tuple[Submission, ...]:
        """Every stored answer of this class (one round's, or both; one student's, or everyone's), in the order
        they came."""
        with self._read() as conn:
            info = self._class(conn, code)
            rows = conn.execute(f"SELECT {self._COLUMNS} FROM submissions "
                                "WHERE class_code = ? AND (? IS NULL OR round = ?) "
                                "AND (? IS NULL OR student_id = ?) ORDER BY rowid",
                                (info.code, round_, round_, student_id, student_id)).fetchall()
        return tuple(submission_from(row) for row in rows)

    def live_classes(self) -> int:
        """Classes running now (not ended, not expired): what ELECTRA_CLASS_MAX_CLASSES bounds."""
        with self._read() as conn:
            return conn.execute("SELECT COUNT(*) FROM classes WHERE expires > ? AND phase != 'ended'",
                                (self.now(),)).fetchone()[0]

    def joined(self, code: object) -> int:
        with self._read() as conn:
            info = self._class(conn, code)
            return conn.execute("SELECT COUNT(*) FROM students WHERE class_code = ?", (info.code,)).fetchone()[0]


def _owner(visitor: str | None) -> str:
    """What the store keeps of who started a class: a hash of their network (explainer/core/visitors.py), enough
    to count their live classes; "" for the local user."""
    return hashlib.sha256(f"class owner:{visitor}".encode()).hexdigest()[:32] if visitor else ""
