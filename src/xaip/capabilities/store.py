"""The capabilities' answer store: queries, answers and traces kept in xaip's one run store
(:class:`xaip.runtime.RunStore`), so that discovery runs resume.

Why a thin layer: the run store already commits every record at once (killing the process
loses at most the query in flight), refuses a store of another run, probes that it can
write before any work starts, and turns a damaged file into a clear
:class:`~xaip.errors.InputError`. This module only says how answers and traces become JSON
records (namespaces ``answers`` and ``traces``) and checks that what it reads back has the
right shape. Runs are deterministic, so a resumed run poses the same queries in the same
order and finds their answers here.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from xaip.capabilities.answers import Answer, StoredTrace
from xaip.errors import InputError
from xaip.runtime.store import RunStore

#: The format of capability stores; stores of earlier formats are refused (see
#: :func:`_refuse_old_format`).
FORMAT = "xaip-capabilities-3"


class SQLiteStore:
    """Answers and traces of one discovery run in a SQLite file (see the module docstring).

    ``run`` describes the run (any JSON-serialisable dict); a store created for another
    run, a store of an older format, a damaged file or one that cannot be written raises
    :class:`~xaip.errors.InputError` here, before any work.
    """

    def __init__(self, path: str | Path, run: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        _refuse_old_format(self.path)
        self._store = RunStore(self.path, FORMAT, run)

    # ----------------------------------------------------------------- AnswerStore

    def get_answer(self, key: str) -> Answer | None:
        value = self._store.get("answers", key)
        if value is None:
            return None
        try:
            reached = value["reached"]
            member = value["member"]
            answer = Answer(str(value["status"]), None if reached is None else bool(reached),
                            float(value["seconds"]), str(value["reason"]),
                            None if member is None else int(member))
        except (TypeError, KeyError, ValueError) as exc:
            raise InputError(f"store {self.path}: damaged answer {key} ({exc!r})") from None
        return answer

    def put_answer(self, key: str, capability: str, answer: Answer) -> None:
        self._store.put("answers", key, {
            "capability": capability, "status": answer.status, "reached": answer.reached,
            "seconds": answer.seconds, "reason": answer.reason, "member": answer.member})

    def get_trace(self, key: str) -> StoredTrace | None:
        value = self._store.get("traces", key)
        if value is None:
            return None
        try:
            actions = value["actions"]
            if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
                raise TypeError("actions are not a list of names")
            return StoredTrace(tuple(actions), str(value["status"]), str(value["reason"]))
        except (TypeError, KeyError) as exc:
            raise InputError(f"store {self.path}: damaged trace {key} ({exc})") from None

    def put_trace(self, key: str, trace: StoredTrace) -> None:
        self._store.put("traces", key, {"actions": list(trace.actions),
                                        "status": trace.status, "reason": trace.reason})

    # ----------------------------------------------------------------- inspection

    def count(self) -> int:
        """How many answers the store holds."""
        return self._store.count("answers")

    def run(self) -> dict[str, Any]:
        """The description of the run the store belongs to."""
        return dict(self._store.run)

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _refuse_old_format(path: Path) -> None:
    """Refuse a store written by an earlier xaip (its own ``format`` row, no ``kind``),
    reading it without changing it."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return  # not ours or damaged: the run store says which
    if row is not None:
        raise InputError(f"{path} was written by another version of xaip ({row[0]}, this "
                         f"one reads {FORMAT}); use a new store file")
