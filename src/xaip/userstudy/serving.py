"""``xaip serve --study``: read the study, open its database, compute its answers, and say
where the researcher's pages are.

Why here and not in :mod:`xaip.web.command`: the workbench command only forwards its
``--study`` flags; everything a study needs before the first participant arrives -- a
checked study file, a database tied to that study, every condition's verified answer --
happens in this one function, which fails with a one-line error before the server binds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xaip.errors import InputError

#: Shortest researcher token accepted from ``--study-token``.
MIN_TOKEN = 16


def default_db(study: str) -> Path:
    """Where the responses go without ``--study-db``: beside the researcher, named after
    the study (``xaip-study-fetch.sqlite``)."""
    return Path.cwd() / f"xaip-study-{Path(study).stem}.sqlite"


def start_study(study_file: str, db: str | None, token: str | None, log: Any = None
                ) -> Any:
    """The :class:`~xaip.userstudy.web.StudyServer` to mount (raises InputError on bad
    input, :class:`~xaip.userstudy.answers.UnverifiedAnswer` if an answer is unchecked).
    ``db`` is a SQLite file or a ``postgresql://`` URL (several server processes may
    serve one PostgreSQL database at once)."""
    from xaip.userstudy.answers import prepare
    from xaip.userstudy.spec import load_study
    from xaip.userstudy.store import open_store
    from xaip.userstudy.web import StudyServer, new_token

    if token is not None and (len(token) < MIN_TOKEN or not token.isprintable()
                              or " " in token):
        raise InputError(f"--study-token: at least {MIN_TOKEN} printable characters, "
                         "no spaces")
    study = load_study(study_file)
    store = open_store(db or default_db(study_file))
    # What a condition shows is part of the study's identity: a changed explainer, view or
    # instance under an old name must not reuse the answers kept for the old one.
    # (Parameters join the identity only when given, so databases of studies without
    # parameters stay bound as before.)
    store.bind(study.title, [[c.name, c.explainer, c.show, [list(f) for f in c.files]]
                             + ([[[k, list(v) if isinstance(v, tuple) else v]
                                  for k, v in c.params]] if c.params else [])
                             for c in study.conditions])
    shown = prepare(study, store, log)
    return StudyServer(study=study, store=store, shown=shown, token=token or new_token())


__all__ = ["MIN_TOKEN", "default_db", "start_study"]
