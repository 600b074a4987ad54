"""A SQLite store of queries and answers, so that discovery runs resume.

Why SQLite (standard library, one file, atomic commits): every answer is committed as soon
as the agent gives it, so killing the process loses at most the query in flight, and a
re-run with the same store asks the agent nothing it has already answered. Runs are
deterministic, so a resumed run poses the same queries in the same order and finds their
answers here.

A store remembers what run it belongs to (game, grid, seed, agent...); opening it for a
different run is refused, because the answers would be about another world.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from xaip.capabilities.queries import Answer, StoredTrace
from xaip.errors import InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    capability TEXT NOT NULL,
    status TEXT NOT NULL,
    reached INTEGER,
    seconds REAL NOT NULL,
    reason TEXT NOT NULL,
    created REAL NOT NULL,
    member INTEGER
);
CREATE TABLE IF NOT EXISTS traces (
    key TEXT PRIMARY KEY,
    actions TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL
);
"""

FORMAT = "xaip-capabilities-store-2"


class SQLiteStore:
    """Answers and traces in a SQLite file (see the module docstring).

    ``run`` describes the run (any JSON-serialisable dict); a store created for another
    run raises :class:`~xaip.errors.InputError`.
    """

    def __init__(self, path: str | Path, run: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        if self.path.exists() and self.path.is_dir():
            raise InputError(f"store {self.path} is a directory, not a file")
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None)
            self._db.executescript(SCHEMA)
            found = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as error:
            raise InputError(f"{self.path} is not a query store: {error}") from None
        if found and found.get("format") != FORMAT:
            raise InputError(f"{self.path} was written by another version of xaip "
                             f"({found.get('format')}, this one reads {FORMAT}); "
                             "use a new store file")
        if run is not None:
            wanted = json.dumps(run, sort_keys=True)
            if "run" in found and found["run"] != wanted:
                raise InputError(
                    f"store {self.path} holds answers of another run ({found['run']}); "
                    "use a new file for this one")
            if "run" not in found:
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('run', ?)", (wanted,))
        if "format" not in found:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (FORMAT,))

    # ----------------------------------------------------------------- AnswerStore

    def get_answer(self, key: str) -> Answer | None:
        row = self._db.execute(
            "SELECT status, reached, seconds, reason, member FROM answers WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        status, reached, seconds, reason, member = row
        return Answer(status, None if reached is None else bool(reached), seconds, reason,
                      member)

    def put_answer(self, key: str, capability: str, answer: Answer) -> None:
        reached = None if answer.reached is None else int(answer.reached)
        self._db.execute(
            "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (key, capability, answer.status, reached, answer.seconds, answer.reason,
             time.time(), answer.member),
        )

    def get_trace(self, key: str) -> StoredTrace | None:
        row = self._db.execute(
            "SELECT actions, status, reason FROM traces WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return StoredTrace(tuple(json.loads(row[0])), row[1], row[2])

    def put_trace(self, key: str, trace: StoredTrace) -> None:
        self._db.execute("INSERT OR REPLACE INTO traces VALUES (?, ?, ?, ?)",
                         (key, json.dumps(list(trace.actions)), trace.status, trace.reason))

    # ----------------------------------------------------------------- inspection

    def count(self) -> int:
        """How many answers the store holds."""
        return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def run(self) -> dict[str, Any] | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
