"""The two databases a study store runs on: SQLite (one server process) and PostgreSQL
(several server processes on one database).

Why a thin backend and not an ORM: the store's statements are few and plain SQL; what
differs between the two databases is only how a connection is opened, how a transaction is
begun so that concurrent writers serialise, two column types, and the parameter marker.
:class:`~xaip.userstudy.store.StudyStore` writes every statement once, with ``?`` markers,
and a backend runs it.

* SQLite: one connection guarded by a lock, WAL mode, ``synchronous=FULL``; a write
  transaction is ``BEGIN IMMEDIATE`` (it takes the write lock at once, so a read-then-write
  never races another writer).
* PostgreSQL (psycopg 3, the ``study`` extra): a few connections per process; a write
  transaction locks the rows it reads (``SELECT ... FOR UPDATE``) and creating participants
  takes a transaction-level advisory lock, so two server processes never hand out the same
  participant index nor store one page twice. ``synchronous_commit`` is forced on: a
  committed page is on the server's disk before the participant sees the next one.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from xaip.errors import InputError, XaipError

#: The tables, with ``{real}`` (a float column) and ``{id}`` (an auto-numbered key) filled
#: in per database: SQLite's ``REAL`` is 8 bytes, PostgreSQL's is 4 (too coarse for
#: timestamps), hence ``DOUBLE PRECISION`` there.
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS participants (
    code TEXT PRIMARY KEY, idx INTEGER NOT NULL UNIQUE, condition_order TEXT NOT NULL,
    created {real} NOT NULL, started {real}, stage INTEGER NOT NULL DEFAULT 0,
    shown_at {real}, finished {real}, completion_code TEXT);
CREATE TABLE IF NOT EXISTS responses (
    id {id}, code TEXT NOT NULL REFERENCES participants(code),
    condition TEXT NOT NULL, position INTEGER NOT NULL, question TEXT NOT NULL,
    kind TEXT NOT NULL, answer TEXT NOT NULL, correct INTEGER, shown_at {real},
    answered_at {real} NOT NULL, seconds {real}, over_time INTEGER NOT NULL DEFAULT 0,
    timed_out INTEGER NOT NULL DEFAULT 0,
    UNIQUE (code, condition, question));
CREATE TABLE IF NOT EXISTS shown_answers (
    condition TEXT PRIMARY KEY, explainer TEXT, status TEXT, verified INTEGER,
    payload TEXT NOT NULL, text TEXT NOT NULL, computed_at {real} NOT NULL);
"""

#: The advisory-lock key PostgreSQL writers take to create participants or the schema.
_LOCK_KEY = 27_2026
#: Connections one server process keeps open to PostgreSQL at most.
POOL_SIZE = 4
#: Seconds a pooled PostgreSQL connection may sit idle before it is probed (``SELECT 1``)
#: on its next use: a database restarted meanwhile leaves only dead connections behind,
#: and a probe that fails costs a reconnect, not a participant's page.
IDLE_PROBE = 5.0


class StoreUnavailable(XaipError):
    """The study's database cannot be reached right now (the participant's page says to
    try again; nothing was half-stored)."""


class Run(Protocol):
    """Runs one statement inside a transaction (or alone): the rows it returns."""

    def __call__(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...


class Backend(Protocol):
    """What :class:`~xaip.userstudy.store.StudyStore` needs from a database."""

    #: How the store is named in messages (a path, or a URL without its password).
    where: str
    #: Appended to a ``SELECT`` in a write transaction to lock the rows it reads.
    for_update: str

    def write(self) -> Any:
        """A context manager: one write transaction, yielding a :class:`Run`."""

    def read(self) -> Any:
        """A context manager: consistent reads, yielding a :class:`Run`."""

    def lock_participants(self, run: Run) -> None:
        """Serialise creating participants with every other writer of the database."""

    def close(self) -> None: ...


def redact(url: str) -> str:
    """``url`` without its password (for messages and logs)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


class SqliteBackend:
    """A SQLite file (see the module docstring)."""

    for_update = ""

    def __init__(self, path: Path) -> None:
        self.where = str(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None,
                                       check_same_thread=False, timeout=30.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA.format(
                real="REAL", id="INTEGER PRIMARY KEY AUTOINCREMENT"))
            self._migrate()
        except sqlite3.DatabaseError as error:
            raise InputError(f"--study-db {path}: not a usable SQLite database "
                             f"({error})") from None

    def _migrate(self) -> None:
        """Add ``responses.timed_out`` to a database made before time limits were
        enforced (its rows were never cut by a limit: 0)."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(responses)")}
        if "timed_out" not in columns:
            self._db.execute("ALTER TABLE responses ADD COLUMN timed_out INTEGER NOT NULL "
                             "DEFAULT 0")

    def _run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._db.execute(sql, tuple(params)).fetchall()

    @contextmanager
    def write(self) -> Iterator[Run]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._run
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[Run]:
        with self._lock:
            yield self._run

    def lock_participants(self, run: Run) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already excludes every other writer."""

    def close(self) -> None:
        with self._lock:
            self._db.close()


class PostgresBackend:
    """A PostgreSQL database named by a ``postgresql://`` URL (see the module docstring)."""

    for_update = " FOR UPDATE"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise InputError("--study-db: PostgreSQL needs the psycopg driver: install "
                             "xaip[study]") from None
        self._psycopg = psycopg
        self._url = url
        self.where = redact(url)
        self._idle: queue.LifoQueue[tuple[Any, float]] = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(POOL_SIZE)
        try:
            with self.write() as run:
                run(f"SELECT pg_advisory_xact_lock({_LOCK_KEY})")
                for statement in SCHEMA.format(
                        real="DOUBLE PRECISION",
                        id="BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY").split(";"):
                    if statement.strip():
                        run(statement)
        except StoreUnavailable as error:
            raise InputError(f"--study-db {self.where}: cannot use this PostgreSQL "
                             f"database ({error})") from None
        except psycopg.Error as error:  # e.g. no right to create the tables
            raise InputError(f"--study-db {self.where}: "
                             f"{_first_line(error, 'cannot create the tables')}") from None

    def _connect(self) -> Any:
        try:
            return self._psycopg.connect(self._url, autocommit=True, connect_timeout=10,
                                         options="-c synchronous_commit=on")
        except self._psycopg.Error as error:
            raise StoreUnavailable(_first_line(error, "cannot connect")) from None

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """A connection of the pool (at most :data:`POOL_SIZE` in use at once); one idle
        for long is probed first, and a broken one is dropped for a new one."""
        with self._slots:
            connection = self._checkout()
            try:
                yield connection
            finally:
                if connection.closed or connection.broken:
                    connection.close()
                else:
                    self._idle.put((connection, time.monotonic()))

    def _checkout(self) -> Any:
        while True:
            try:
                connection, since = self._idle.get_nowait()
            except queue.Empty:
                return self._connect()
            if time.monotonic() - since < IDLE_PROBE:
                return connection
            try:
                connection.execute("SELECT 1")
                return connection
            except self._psycopg.Error:
                connection.close()  # dead (the server restarted): try the next one

    def _runner(self, connection: Any) -> Run:
        def run(sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
            cursor = connection.execute(sql.replace("?", "%s"), tuple(params))
            return cursor.fetchall() if cursor.description is not None else []

        return run

    @contextmanager
    def write(self) -> Iterator[Run]:
        with self._connection() as connection:
            try:
                with connection.transaction():
                    yield self._runner(connection)
            except self._psycopg.OperationalError as error:
                raise StoreUnavailable(_first_line(error, "the database went away")) from None

    @contextmanager
    def read(self) -> Iterator[Run]:
        with self._connection() as connection:
            try:
                yield self._runner(connection)
            except self._psycopg.OperationalError as error:
                raise StoreUnavailable(_first_line(error, "the database went away")) from None

    def lock_participants(self, run: Run) -> None:
        """A transaction-level advisory lock: participants' indexes (the Latin square's
        rows) stay dense and unique across server processes."""
        run(f"SELECT pg_advisory_xact_lock({_LOCK_KEY})")

    def close(self) -> None:
        while True:
            try:
                self._idle.get_nowait()[0].close()
            except queue.Empty:
                return


def _first_line(error: BaseException, default: str) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text and text[0] else default


__all__ = ["IDLE_PROBE", "POOL_SIZE", "SCHEMA", "Backend", "PostgresBackend", "Run",
           "SqliteBackend", "StoreUnavailable", "redact"]
