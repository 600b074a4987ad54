"""``xaip serve``: start the workbench on this machine.

Why FastAPI is imported only in :func:`run`: ``xaip --help`` imports every command module,
and the base install has no ``web`` extra. Without it, ``xaip serve`` says what to install
and exits 2 (bad input: a missing optional part), never with a traceback.

The server binds to 127.0.0.1 by default: the workbench has no accounts, so exposing it
on other interfaces is a deliberate choice (``--host 0.0.0.0``), and the command says so.
"""

from __future__ import annotations

import argparse
import importlib.util
import socket
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from xaip.commandline import non_negative_float, positive_int
from xaip.errors import EXIT_BAD_INPUT, EXIT_NEGATIVE, EXIT_OK, InputError
from xaip.web.settings import Settings  # no FastAPI in there

#: What the ``web`` extra provides; all must be importable for ``xaip serve``.
NEEDED = ("fastapi", "uvicorn", "jinja2", "multipart")


def missing_extra() -> list[str]:
    """The modules of the ``web`` extra that are not installed."""
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 0 to 65535, not {text!r}")
    return int(text)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``serve`` on the ``xaip`` sub-command parser."""
    parser = sub.add_parser(
        "serve", help="start the workbench in the browser (needs the xaip[web] extra)",
        description="Start the xaip workbench: models, plans, explanations with vetoes, "
                    "summaries and capability discovery in the browser; every page's data "
                    "is also a JSON endpoint (see /api/openapi.json).")
    parser.add_argument("--port", type=_port, default=8000, help="port (default 8000)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="interface to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--max-seconds", type=non_negative_float, default=None, metavar="S",
                        help="seconds of work one request may use (default 20)")
    parser.add_argument("--max-nodes", type=positive_int, default=None, metavar="N",
                        help="search nodes one request may use (default 2000000)")
    parser.add_argument("--workers", type=positive_int, default=None, metavar="N",
                        help="requests that work at once (default 4; more wait, then 503)")
    parser.add_argument("--runs", default=None, metavar="DIR",
                        help="directory for capability-discovery stores (default: a "
                             "directory in the system's temporary directory)")
    parser.add_argument("--study", default=None, metavar="STUDY",
                        help="also run a user study: a study file (TOML/JSON) or a bundled "
                             "one (fetch, concepts); see docs/userstudy.md")
    parser.add_argument("--study-db", default=None, metavar="FILE|URL",
                        help="the study's database: a SQLite file (default "
                             "./xaip-study-NAME.sqlite) or a postgresql:// URL, which "
                             "several server processes can share")
    parser.add_argument("--study-token", default=None, metavar="TOKEN",
                        help="the researcher pages' token (default: a new random one)")
    parser.set_defaults(handler=run)


def settings_from(args: argparse.Namespace) -> Settings:
    """The server's :class:`~xaip.web.settings.Settings` from the command line."""
    settings = Settings()
    changes: dict[str, Any] = {}
    if args.max_seconds is not None:
        if args.max_seconds <= 0:
            raise InputError("--max-seconds must be more than 0")
        changes["max_seconds"] = args.max_seconds
    if args.max_nodes is not None:
        changes["max_nodes"] = args.max_nodes
    if args.workers is not None:
        changes["workers"] = args.workers
    if args.runs is not None:
        runs = Path(args.runs)
        if runs.exists() and not runs.is_dir():
            raise InputError(f"--runs {args.runs}: exists and is not a directory")
        changes["runs_dir"] = runs
    return replace(settings, **changes)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted (Ctrl-C ends it with exit 0)."""
    missing = missing_extra()
    if missing:
        print(f"xaip serve: the workbench needs the web extra: install xaip[web] "
              f"(missing: {', '.join(missing)})", file=sys.stderr)
        return EXIT_BAD_INPUT
    import uvicorn

    from xaip.web.app import create_app

    settings = settings_from(args)
    _check_address(args.host, args.port)
    study = None
    if args.study is not None:
        from xaip.userstudy.answers import UnverifiedAnswer
        from xaip.userstudy.serving import start_study

        try:
            study = start_study(args.study, args.study_db, args.study_token)
        except UnverifiedAnswer as error:
            print(f"xaip serve: {error}", file=sys.stderr)
            return EXIT_NEGATIVE
        print(f"xaip serve: study {study.study.title!r}, data in {study.store.path}; "
              f"researcher pages: http://{args.host}:{args.port}/study/admin?token="
              f"{study.token}", file=sys.stderr, flush=True)
    elif args.study_db is not None or args.study_token is not None:
        raise InputError("--study-db and --study-token go with --study")
    app = create_app(settings, study)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"xaip serve: listening on {args.host}: anyone who can reach this machine "
              "can use the workbench (it has no accounts)", file=sys.stderr)
    print(f"xaip workbench on http://{args.host}:{args.port}/ (Ctrl-C stops it)",
          file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return EXIT_OK


def _check_address(host: str, port: int) -> None:
    """Bad input when ``host:port`` cannot be listened on (uvicorn would exit 1 itself)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise InputError(f"--host {host}: {error.strerror or error}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:  # the port is taken, or the address is not this machine's
            raise InputError(f"cannot listen on {host}:{port}: "
                             f"{error.strerror or error}") from None


__all__ = ["add_parser", "missing_extra", "run", "settings_from"]
