"""One SQLite store for resumable runs: every expensive answer is kept as soon as it exists.

Why SQLite (standard library, one file, atomic commits): a killed run loses at most the call
in flight, and a re-run with the same store recomputes nothing it has already answered.
A store remembers which run it belongs to (a JSON description: game, seed, agent, ...);
opening it for another run is refused, because its answers would be about another world.

Records live in namespaces (``answers``, ``traces``, ``samples``...) as JSON values keyed by
strings. A store that cannot be written, is not a SQLite file, or holds damaged records is
reported as bad input *before* work starts (:meth:`RunStore.open` probes a write), so
hours of work are never lost at the end.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from xaip.errors import InputError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (namespace, key)
);
"""


class RunStore:
    """Namespaced JSON records in one SQLite file for one run (see the module docstring).

    ``kind`` names the format (for example ``"xaip-capabilities-3"``); a file of another
    kind or another ``run`` is refused with an :class:`~xaip.errors.InputError`.
    """

    def __init__(self, path: str | Path, kind: str, run: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        self.kind = kind
        self.run = dict(run or {})
        if self.path.is_dir():
            raise InputError(f"store {self.path} is a directory, not a file")
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None, timeout=30)
            self._db.executescript(_SCHEMA)
            self._claim()
            self._probe_write()
        except sqlite3.DatabaseError as exc:
            raise InputError(f"store {self.path}: not a usable xaip store ({exc})") from exc

    # ------------------------------------------------------------------ set-up checks

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _claim(self) -> None:
        kind = self._meta("kind")
        run = json.dumps(self.run, sort_keys=True)
        if kind is None:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('kind', ?)", (self.kind,))
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('run', ?)", (run,))
            return
        if kind != self.kind:
            raise InputError(f"store {self.path} holds '{kind}' data, not '{self.kind}'")
        stored = self._meta("run")
        if stored != run:
            raise InputError(f"store {self.path} belongs to another run ({stored}); "
                             f"use a new file for {run}")

    def _probe_write(self) -> None:
        try:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('opened', ?)",
                             (repr(time.time()),))
        except sqlite3.OperationalError as exc:
            raise InputError(f"store {self.path} cannot be written ({exc})") from exc

    # ------------------------------------------------------------------ records

    def get(self, namespace: str, key: str) -> Any | None:
        """The value stored under ``key``, or ``None``."""
        try:
            row = self._db.execute(
                "SELECT value FROM records WHERE namespace = ? AND key = ?",
                (namespace, key)).fetchone()
        except sqlite3.DatabaseError as exc:
            raise InputError(f"store {self.path} is damaged ({exc})") from exc
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except ValueError as exc:
            raise InputError(f"store {self.path}: damaged record {namespace}/{key}") from exc

    def put(self, namespace: str, key: str, value: Any) -> None:
        """Keep ``value`` (JSON-serialisable) under ``key``; committed at once."""
        try:
            self._db.execute("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?)",
                             (namespace, key, json.dumps(value), time.time()))
        except sqlite3.DatabaseError as exc:
            raise InputError(f"store {self.path} cannot be written ({exc})") from exc

    def items(self, namespace: str) -> Iterator[tuple[str, Any]]:
        """Every (key, value) of ``namespace``, oldest first."""
        try:
            rows = self._db.execute(
                "SELECT key, value FROM records WHERE namespace = ? ORDER BY created, key",
                (namespace,)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise InputError(f"store {self.path} is damaged ({exc})") from exc
        for key, value in rows:
            try:
                yield str(key), json.loads(value)
            except ValueError as exc:
                raise InputError(f"store {self.path}: damaged record {namespace}/{key}") \
                    from exc

    def count(self, namespace: str) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM records WHERE namespace = ?",
                               (namespace,)).fetchone()
        return int(row[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
