"""Where a study's data lives: participants, responses and every shown answer, in SQLite.

Why SQLite in WAL mode with one transaction per submitted page: a study server may be
killed at any moment (a reboot, an out-of-memory kill), and what a participant submitted
must not be lost nor half-stored. Each page a participant submits is one ``BEGIN
IMMEDIATE ... COMMIT``: its answers and the participant's next stage land together or not
at all, and ``synchronous=FULL`` makes a committed page survive the process dying. A
participant who comes back after a restart resumes at the stage the database holds.

PostgreSQL (several server processes on one database) is named by a ``postgresql://`` URL;
it needs a driver this install does not ship, so such a URL is a one-line error for now
(see docs/userstudy.md).

One connection per store, guarded by a lock: the workbench handles requests in threads, and
SQLite serialises writers anyway.
"""

from __future__ import annotations

import importlib.util
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xaip.errors import InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS participants (
    code TEXT PRIMARY KEY, idx INTEGER NOT NULL UNIQUE, condition_order TEXT NOT NULL,
    created REAL NOT NULL, started REAL, stage INTEGER NOT NULL DEFAULT 0,
    shown_at REAL, finished REAL, completion_code TEXT);
CREATE TABLE IF NOT EXISTS responses (
    id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT NOT NULL REFERENCES participants(code),
    condition TEXT NOT NULL, position INTEGER NOT NULL, question TEXT NOT NULL,
    kind TEXT NOT NULL, answer TEXT NOT NULL, correct INTEGER, shown_at REAL,
    answered_at REAL NOT NULL, seconds REAL, over_time INTEGER NOT NULL DEFAULT 0,
    UNIQUE (code, condition, question));
CREATE TABLE IF NOT EXISTS shown_answers (
    condition TEXT PRIMARY KEY, explainer TEXT, status TEXT, verified INTEGER,
    payload TEXT NOT NULL, text TEXT NOT NULL, computed_at REAL NOT NULL);
"""

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
        drivers = [m for m in ("psycopg", "psycopg2") if importlib.util.find_spec(m)]
        if not drivers:
            raise InputError("--study-db: PostgreSQL needs the psycopg driver, which is not "
                             "installed; give a SQLite file instead")
        raise InputError("--study-db: PostgreSQL stores are not supported yet; give a "
                         "SQLite file (one server process)")
    path = Path(text)
    if path.exists() and not path.is_file():
        raise InputError(f"--study-db {text}: exists and is not a file")
    if not path.parent.is_dir():
        raise InputError(f"--study-db {text}: directory {path.parent} does not exist")
    return StudyStore(path)


class StudyStore:
    """Participants, responses and shown answers of one study (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None,
                                       check_same_thread=False, timeout=30.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as error:
            raise InputError(f"--study-db {path}: not a usable SQLite database "
                             f"({error})") from None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -------------------------------------------------------------- study identity

    def bind(self, title: str, conditions: list[Any]) -> None:
        """Tie the database to a study; a database of another study is refused, so two
        studies' data never mix in one file."""
        identity = json.dumps({"title": title, "conditions": conditions})
        with self._transaction() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'study'").fetchone()
            if row is None:
                db.execute("INSERT INTO meta VALUES ('study', ?)", (identity,))
            elif row[0] != identity:
                raise InputError(f"--study-db {self.path}: holds another study's data "
                                 f"({json.loads(row[0])['title']!r}); use another file")

    # -------------------------------------------------------------- participants

    def create_participants(self, orders: Any, count: int) -> list[str]:
        """``count`` new participants; ``orders(index, code)`` gives each one's order."""
        codes = []
        with self._transaction() as db:
            start = db.execute("SELECT COALESCE(MAX(idx) + 1, 0) FROM participants").fetchone()[0]
            for index in range(start, start + count):
                code = secrets.token_urlsafe(9)
                order = json.dumps(orders(index, code))
                db.execute("INSERT INTO participants (code, idx, condition_order, created, "
                           "stage) VALUES (?, ?, ?, ?, ?)",
                           (code, index, order, time.time(), CONSENT))
                codes.append(code)
        return codes

    def participant(self, code: str) -> Participant | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM participants WHERE code = ?",
                                   (code,)).fetchone()
        return None if row is None else _participant(row)

    def participants(self) -> list[Participant]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM participants ORDER BY idx").fetchall()
        return [_participant(row) for row in rows]

    def advance(self, code: str, stage: int) -> int:
        """Move past consent or instructions (only from ``stage``); the stage now held."""
        with self._transaction() as db:
            now = time.time()
            db.execute("UPDATE participants SET stage = stage + 1, shown_at = NULL, "
                       "started = COALESCE(started, ?) WHERE code = ? AND stage = ?",
                       (now, code, stage))
            found: int = db.execute("SELECT stage FROM participants WHERE code = ?",
                                    (code,)).fetchone()[0]
        return found

    def mark_shown(self, code: str, stage: int) -> float:
        """When the participant first saw the condition at ``stage`` (kept across reloads,
        so a reload does not reset the timer)."""
        with self._transaction() as db:
            db.execute("UPDATE participants SET shown_at = COALESCE(shown_at, ?) "
                       "WHERE code = ? AND stage = ?", (time.time(), code, stage))
            row = db.execute("SELECT shown_at FROM participants WHERE code = ?",
                             (code,)).fetchone()
        return float(row[0]) if row and row[0] is not None else time.time()

    def submit(self, code: str, stage: int, condition: str, rows: list[dict[str, Any]],
               last: bool, time_limit: float | None) -> int:
        """The answers to one condition's questions, and the move to the next stage, in one
        transaction. A page submitted twice (a double click, a resent form) stores nothing
        the second time. Returns the stage now held."""
        with self._transaction() as db:
            now = time.time()
            current = db.execute("SELECT stage, shown_at FROM participants WHERE code = ?",
                                 (code,)).fetchone()
            if current is None or current[0] != stage:
                return int(current[0]) if current else stage
            shown = current[1]
            seconds = None if shown is None else now - shown
            over = int(time_limit is not None and seconds is not None and seconds > time_limit)
            for row in rows:
                db.execute("INSERT INTO responses (code, condition, position, question, kind, "
                           "answer, correct, shown_at, answered_at, seconds, over_time) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (code, condition, stage + 1, row["question"], row["kind"],
                            row["answer"], row["correct"], shown, now, seconds, over))
            if last:
                completion = secrets.token_hex(4).upper()
                db.execute("UPDATE participants SET stage = stage + 1, shown_at = NULL, "
                           "finished = ?, completion_code = ? WHERE code = ?",
                           (now, completion, code))
            else:
                db.execute("UPDATE participants SET stage = stage + 1, shown_at = NULL "
                           "WHERE code = ?", (code,))
            return stage + 1

    def responses(self) -> list[dict[str, Any]]:
        """Every response, oldest first, with the participant's index."""
        with self._lock:
            cursor = self._db.execute(
                "SELECT r.code, p.idx, r.condition, r.position, r.question, r.kind, r.answer, "
                "r.correct, r.shown_at, r.answered_at, r.seconds, r.over_time "
                "FROM responses r JOIN participants p ON p.code = r.code ORDER BY r.id")
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    # -------------------------------------------------------------- shown answers

    def shown_answer(self, condition: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT explainer, status, verified, payload, text "
                                   "FROM shown_answers WHERE condition = ?",
                                   (condition,)).fetchone()
        if row is None:
            return None
        return {"explainer": row[0], "status": row[1], "verified": bool(row[2]),
                "payload": json.loads(row[3]), "text": row[4]}

    def save_answer(self, condition: str, explainer: str | None, payload: dict[str, Any],
                    text: str) -> None:
        """Keep a condition's answer (the first one kept wins: every participant of the
        condition sees the same answer)."""
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO shown_answers VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (condition, explainer, payload.get("status"),
                        int(payload.get("verified") is True), json.dumps(payload), text,
                        time.time()))


def _participant(row: tuple[Any, ...]) -> Participant:
    return Participant(code=row[0], index=row[1], order=tuple(json.loads(row[2])),
                       created=row[3], started=row[4], stage=row[5], shown_at=row[6],
                       finished=row[7], completion_code=row[8])


__all__ = ["CONSENT", "INSTRUCTIONS", "Participant", "StudyStore", "open_store"]
