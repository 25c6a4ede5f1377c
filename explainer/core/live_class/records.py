"""What the class store hands out, and the keys it checks: a class as anyone with its code may see it, a
student, a stored answer; the teacher key's hash, the projector's token derived from it, and the
constant-time comparison. No SQL here: explainer/core/live_class/store.py keeps them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass

from explainer.core.live_class.phases import Stage


def secret_hash(code: str, teacher_key: str) -> str:
    return hashlib.sha256(f"{code}:{teacher_key}".encode()).hexdigest()


def view_token(stored_hash: str) -> str:
    """The projector's token: derived from the stored hash (so a class made before there were tokens has one),
    and of no use for the teacher key: nothing leads from it back to the key."""
    digest = hmac.new(stored_hash.encode(), b"projector view", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")


def same(stored: str, given: object) -> bool:
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
    phase: str = "lobby"  # explainer/core/live_class/phases.py
    reveal: int = 0  # in the reveal, the sentence shown (from 0)
    sentences: tuple[str, ...] = ()  # the teacher's own sentences, in order; () for the bundled set
    generator: str = "electra"  # who forges round A's fakes (explainer.core.generators)
    locked: bool = False  # the teacher has locked it: nobody new may join

    @property
    def stage(self) -> Stage:
        return Stage(self.phase, self.reveal if self.phase == "reveal" else 0)


@dataclass(frozen=True)
class NewClass:
    info: ClassInfo
    teacher_key: str  # the teacher key: given once, to the teacher only; the store keeps its hash


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


def submission_from(row: tuple) -> Submission:
    code, student_id, round_, index, answer, result, created = row
    return Submission(code, student_id, round_, index, json.loads(answer), json.loads(result), created)
