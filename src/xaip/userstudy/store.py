"""Where a study's data lives: participants, responses and every shown answer, in SQLite
or PostgreSQL.

Why one transaction per submitted page: a study server may be killed at any moment (a
reboot, an out-of-memory kill), and what a participant submitted must not be lost nor
half-stored. Each page a participant submits is one transaction: its answers and the
participant's next stage land together or not at all, and a committed page survives the
process dying (SQLite ``synchronous=FULL``; PostgreSQL ``synchronous_commit=on``). A
participant who comes back after a restart resumes at the stage the database holds.

The statements are written once here; :mod:`xaip.userstudy.backends` runs them on a SQLite
file (one server process) or a PostgreSQL database named by a ``postgresql://`` URL
(several server processes at once: every read-then-write locks what it read, so two
processes never store one page twice nor give two participants the same index).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.userstudy.backends import Backend, PostgresBackend, SqliteBackend, StoreUnavailable

#: Stages of a participant before the conditions; a stage >= 0 is a condition's position,
#: and ``len(conditions)`` means finished.
CONSENT, INSTRUCTIONS = -2, -1


@dataclass(frozen=True)
class Participant:
    """One row of ``participants``."""

    code: str
    index: int
    order: tuple[str, ...]
    created: float
    started: float | None
    stage: int
    shown_at: float | None
    finished: float | None
    completion_code: str | None


def open_store(where: str | Path) -> StudyStore:
    """The store at ``where``: a SQLite file path, or a ``postgresql://`` URL."""
    text = str(where)
    if text.startswith(("postgres://", "postgresql://")):
        return StudyStore(PostgresBackend(text))
    path = Path(text)
    if path.exists() and not path.is_file():
        raise InputError(f"--study-db {text}: exists and is not a file")
    if not path.parent.is_dir():
        raise InputError(f"--study-db {text}: directory {path.parent} does not exist")
    return StudyStore(SqliteBackend(path))


@dataclass(frozen=True)
class Submitted:
    """What :meth:`StudyStore.submit` did: the stage the participant is now at, and whether
    the answers were refused because the condition's time (with its grace) had run out."""

    stage: int
    refused: bool = False


class StudyStore:
    """Participants, responses and shown answers of one study (see the module docstring)."""

    def __init__(self, backend: Backend | Path) -> None:
        self._db: Backend = SqliteBackend(backend) if isinstance(backend, Path) else backend

    @property
    def path(self) -> str:
        """Where the data is: the SQLite file, or the PostgreSQL URL without its password."""
        return self._db.where

    def close(self) -> None:
        self._db.close()

    # -------------------------------------------------------------- study identity

    def bind(self, title: str, conditions: list[Any]) -> None:
        """Tie the database to a study; a database of another study is refused, so two
        studies' data never mix in one file. Two server processes binding one empty
        database at once agree: the first insert wins, the second compares with it."""
        identity = json.dumps({"title": title, "conditions": conditions})
        with self._db.write() as run:
            run("INSERT INTO meta (key, value) VALUES ('study', ?) ON CONFLICT DO NOTHING",
                (identity,))
            held = run("SELECT value FROM meta WHERE key = 'study'")[0][0]
        if held != identity:
            raise InputError(f"--study-db {self.path}: holds another study's data "
                             f"({json.loads(held)['title']!r}), or this study with a "
                             "condition changed; use another database")

    # -------------------------------------------------------------- participants

    def create_participants(self, orders: Any, count: int) -> list[str]:
        """``count`` new participants; ``orders(index, code)`` gives each one's order."""
        codes = []
        with self._db.write() as run:
            self._db.lock_participants(run)
            start = run("SELECT COALESCE(MAX(idx) + 1, 0) FROM participants")[0][0]
            for index in range(start, start + count):
                code = secrets.token_urlsafe(9)
                order = json.dumps(orders(index, code))
                run("INSERT INTO participants (code, idx, condition_order, created, stage) "
                    "VALUES (?, ?, ?, ?, ?)", (code, index, order, time.time(), CONSENT))
                codes.append(code)
        return codes

    def participant(self, code: str) -> Participant | None:
        with self._db.read() as run:
            rows = run(f"SELECT {_PEOPLE} FROM participants WHERE code = ?", (code,))
        return _participant(rows[0]) if rows else None

    def participants(self) -> list[Participant]:
        with self._db.read() as run:
            rows = run(f"SELECT {_PEOPLE} FROM participants ORDER BY idx")
        return [_participant(row) for row in rows]

    def advance(self, code: str, stage: int) -> int:
        """Move past consent or instructions (only from ``stage``); the stage now held."""
        with self._db.write() as run:
            run("UPDATE participants SET stage = stage + 1, shown_at = NULL, "
                "started = COALESCE(started, ?) WHERE code = ? AND stage = ?",
                (time.time(), code, stage))
            found: int = run("SELECT stage FROM participants WHERE code = ?", (code,))[0][0]
        return found

    def mark_shown(self, code: str, stage: int) -> float:
        """When the participant first saw the condition at ``stage`` (kept across reloads,
        so a reload does not reset the timer)."""
        with self._db.write() as run:
            run("UPDATE participants SET shown_at = COALESCE(shown_at, ?) "
                "WHERE code = ? AND stage = ?", (time.time(), code, stage))
            rows = run("SELECT shown_at FROM participants WHERE code = ?", (code,))
        return float(rows[0][0]) if rows and rows[0][0] is not None else time.time()

    def submit(self, code: str, stage: int, condition: str, rows: list[dict[str, Any]],
               last: bool, time_limit: float | None, grace: float = 0.0,
               timed_out: bool = False) -> Submitted:
        """The answers to one condition's questions, and the move to the next stage, in one
        transaction. A page submitted twice (a double click, a resent form) stores nothing
        the second time.

        Time limits are enforced here, on the database's record of when the condition was
        first shown: answers submitted more than ``grace`` seconds after ``time_limit`` are
        refused -- each question is stored with an empty answer and ``timed_out = 1`` and
        the participant moves on -- so a late page cannot slip in however it is sent.
        ``timed_out`` marks a page sent because the time ran out (the countdown sends it by
        itself at zero; its answers are kept, and its unanswered questions may be empty)."""
        with self._db.write() as run:
            now = time.time()
            current = run("SELECT stage, shown_at FROM participants WHERE code = ?"
                          + self._db.for_update, (code,))
            if not current or current[0][0] != stage:
                return Submitted(int(current[0][0]) if current else stage)
            shown = current[0][1]
            seconds = None if shown is None else now - shown
            over = time_limit is not None and seconds is not None and seconds > time_limit
            refused = over and seconds is not None and time_limit is not None and (
                seconds > time_limit + grace)
            for row in rows:
                answer, correct = ("", None) if refused else (row["answer"], row["correct"])
                run("INSERT INTO responses (code, condition, position, question, kind, "
                    "answer, correct, shown_at, answered_at, seconds, over_time, timed_out) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (code, condition, stage + 1, row["question"], row["kind"], answer,
                     correct, shown, now, seconds, int(over),
                     int(refused or timed_out)))
            if last:
                run("UPDATE participants SET stage = stage + 1, shown_at = NULL, "
                    "finished = ?, completion_code = ? WHERE code = ?",
                    (now, secrets.token_hex(4).upper(), code))
            else:
                run("UPDATE participants SET stage = stage + 1, shown_at = NULL "
                    "WHERE code = ?", (code,))
            return Submitted(stage + 1, refused)

    def responses(self) -> list[dict[str, Any]]:
        """Every response, oldest first, with the participant's index."""
        with self._db.read() as run:
            rows = run("SELECT r.code, p.idx, r.condition, r.position, r.question, r.kind, "
                       "r.answer, r.correct, r.shown_at, r.answered_at, r.seconds, "
                       "r.over_time, r.timed_out FROM responses r "
                       "JOIN participants p ON p.code = r.code ORDER BY r.id")
        return [dict(zip(_RESPONSE_COLUMNS, row, strict=True)) for row in rows]

    # -------------------------------------------------------------- shown answers

    def shown_answer(self, condition: str) -> dict[str, Any] | None:
        with self._db.read() as run:
            rows = run("SELECT explainer, status, verified, payload, text "
                       "FROM shown_answers WHERE condition = ?", (condition,))
        if not rows:
            return None
        row = rows[0]
        return {"explainer": row[0], "status": row[1], "verified": bool(row[2]),
                "payload": json.loads(row[3]), "text": row[4]}

    def save_answer(self, condition: str, explainer: str | None, payload: dict[str, Any],
                    text: str) -> None:
        """Keep a condition's answer (the first one kept wins: every participant of the
        condition sees the same answer, also when two server processes computed it)."""
        with self._db.write() as run:
            run("INSERT INTO shown_answers (condition, explainer, status, verified, payload, "
                "text, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (condition, explainer, payload.get("status"),
                 int(payload.get("verified") is True), json.dumps(payload), text,
                 time.time()))


_PEOPLE = ("code, idx, condition_order, created, started, stage, shown_at, finished, "
           "completion_code")
_RESPONSE_COLUMNS = ("code", "idx", "condition", "position", "question", "kind", "answer",
                     "correct", "shown_at", "answered_at", "seconds", "over_time",
                     "timed_out")


def _participant(row: tuple[Any, ...]) -> Participant:
    return Participant(code=row[0], index=row[1], order=tuple(json.loads(row[2])),
                       created=row[3], started=row[4], stage=row[5], shown_at=row[6],
                       finished=row[7], completion_code=row[8])


__all__ = ["CONSENT", "INSTRUCTIONS", "Participant", "StoreUnavailable", "StudyStore",
           "Submitted", "open_store"]
