"""``xaip study``: run a study file, list the bundled ones, export a study's store.

    xaip study STUDY.toml [--executor serial|processes|ray] [--workers N]
                          [--address auto|HOST:PORT] [--store FILE] [--data DIR]
                          [--max-seconds S] [--json]
    xaip study list [--json]
    xaip study export STORE [--csv FILE] [--parquet FILE] [--json]

Exit codes: 0 every cell ran and every cell's command verified its answer; 1 the study
stopped at its budget or some cell's answer is unverified (the table says which); 2 bad
input (the study file, a store of something else, an output over an input).
"""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path
from typing import Any

from xaip.commandline import (
    add_json_arg,
    check_outputs,
    emit,
    non_negative_float,
    positive_int,
    write_output,
)
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError
from xaip.runtime.executors import EXECUTORS

ACTIONS = ("list", "export")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``study`` on the ``xaip`` parser."""
    parser = sub.add_parser(
        "study", help="run explainers x instances x parameters from a study file",
        description="Run a study (a TOML file, or a bundled study's name from 'xaip study "
                    "list'): every cell is one run of an xaip command, kept in the study's "
                    "store as soon as it is answered; running again skips the cells already "
                    "answered. 'xaip study export STORE' writes the cells as CSV or Parquet "
                    "and prints the summary.")
    parser.add_argument("study", metavar="STUDY",
                        help="a study file, a bundled study's name, 'list' or 'export'")
    parser.add_argument("store_file", nargs="?", metavar="STORE",
                        help="with 'export': the study's store (SQLite)")
    parser.add_argument("--store", default=None, metavar="FILE",
                        help="the store to use (default: study.store, else ./NAME.sqlite)")
    parser.add_argument("--data", default=None, metavar="DIR",
                        help="the folder {data} names in the study's file templates")
    parser.add_argument("--executor", choices=EXECUTORS, default="serial",
                        help="run cells one after another (serial, default), on local "
                             "processes, or on Ray")
    parser.add_argument("--workers", type=positive_int, default=None, metavar="N",
                        help="processes or Ray workers (default: this machine's cores; "
                             "with --address, the cluster's CPUs)")
    parser.add_argument("--address", default=None, metavar="auto|HOST:PORT",
                        help="join an existing Ray cluster (with --executor ray): 'auto' for "
                             "the one 'ray start' started here, or its head's HOST:PORT")
    # dest is not max_seconds: the CLI would make that a reading deadline of the whole
    # process, which a serial study's cells would inherit (and then be kept as answered)
    parser.add_argument("--max-seconds", type=non_negative_float, default=None, metavar="S",
                        dest="study_seconds",
                        help="start no new cell after S seconds (the answers so far are "
                             "kept; run again to go on)")
    parser.add_argument("--csv", default=None, metavar="FILE", help="with export: write CSV")
    parser.add_argument("--parquet", default=None, metavar="FILE",
                        help="with export: write Parquet (needs the xaip[study] extra)")
    add_json_arg(parser)
    parser.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    if args.study == "list":
        return _list(args)
    if args.study == "export":
        return _export(args)
    if args.store_file is not None:
        raise InputError(f"unexpected argument {args.store_file!r} (a store is given with "
                         f"--store, or to 'xaip study export STORE')")
    if args.csv or args.parquet:
        raise InputError("--csv and --parquet belong to 'xaip study export STORE'")
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    from xaip.studies import load_study
    from xaip.studies.runner import run_study

    if args.address is not None and args.executor != "ray":
        raise InputError(f"--address joins a Ray cluster: use it with --executor ray, "
                         f"not {args.executor}")
    if args.workers is not None and args.executor == "serial":
        raise InputError("--workers is for --executor processes or ray (serial runs one "
                         "cell at a time)")
    study = load_study(args.study, data=args.data, store=args.store)
    result = run_study(study, args.executor, args.workers, args.address,
                       args.study_seconds)
    emit(args, result, _run_text(result))
    return EXIT_OK if result["verified"] else EXIT_NEGATIVE


def _run_text(result: dict[str, Any]) -> str:
    from xaip.studies.export import render_summary

    where = f"{result['executor']}, {result['workers']} worker" + \
        ("s" if result["workers"] != 1 else "")
    if result["executor"] == "ray":
        where += f", {result['nodes']} node" + ("s" if result["nodes"] != 1 else "")
    lines = [
        f"study {result['study']} (xaip {result['command']}): {result['cells']} cells, "
        f"{result['ran']} run now, {result['done_before']} from an earlier run, "
        f"{result['remaining']} not run; {result['verified_cells']}/{result['cells']} "
        f"verified",
        f"{where}; {result['seconds']:.2f} s; store {result['store']}",
    ]
    if result["stopped_by_budget"]:
        lines.append("stopped: --max-seconds passed (run again to go on)")
    if result["failed_cells"]:
        lines.append(f"{result['failed_cells']} cell(s) failed (bad input or internal error; "
                     f"'xaip study export' shows each cell's error)")
    lines += ["", render_summary(result["summary"])]
    return "\n".join(lines)


def _list(args: argparse.Namespace) -> int:
    from xaip.studies import bundled_studies, load_study

    entries: list[dict[str, Any]] = []
    for name in bundled_studies():
        study = load_study(name, check=False)
        entries.append({"name": name, "command": study.command,
                        "cells": study.cell_count(), "description": study.description})
    width = max((len(e["name"]) for e in entries), default=4)
    text = [f"{'name':<{width}}  {'command':<10} {'cells':>5}  what"]
    text += [f"{e['name']:<{width}}  {e['command']:<10} {e['cells']:>5}  {e['description']}"
             for e in entries]
    text += ["", "Run one with 'xaip study NAME' (the full ones need --data DIR)."]
    emit(args, {"status": "found", "studies": entries}, "\n".join(text))
    return EXIT_OK


def _export(args: argparse.Namespace) -> int:
    from xaip.studies.export import (
        check_export_names,
        render_summary,
        rows,
        summarise,
        to_csv,
        to_parquet,
    )
    from xaip.studies.runner import CELLS, DEFINITION, STORE_KIND

    if args.store_file is None:
        raise InputError("export needs the study's store: xaip study export STORE "
                         "[--csv FILE] [--parquet FILE]")
    for given, option in ((args.executor != "serial", "--executor"),
                          (args.workers is not None, "--workers"),
                          (args.address is not None, "--address"),
                          (args.data is not None, "--data"), (args.store is not None, "--store"),
                          (args.study_seconds is not None, "--max-seconds")):
        if given:
            raise InputError(f"{option} is for running a study, not for export")
    check_export_names(args.csv, args.parquet)
    check_outputs((args.csv, args.parquet), (args.store_file,))
    store = _open_existing(Path(args.store_file), STORE_KIND)
    with store:
        definition = store.get(DEFINITION, "definition") or {}
        records = [record for _, record in store.items(CELLS)]
    parameters = list(definition.get("parameters", {}))
    metrics = list(definition.get("metrics", {}).items())
    tags = list(definition.get("tags", []))
    header, table = rows(records, parameters, metrics, tags)
    if args.parquet:
        data = to_parquet(header, table)  # refused before any file is written
    if args.csv:
        write_output(args.csv, to_csv(header, table), (args.store_file,))
    if args.parquet:
        write_output(args.parquet, data, (args.store_file,))
    summary = summarise(records, parameters, metrics, tags)
    payload = {"status": "complete", "study": definition.get("name"),
               "command": definition.get("command"), "store": args.store_file,
               "cells": len(records), "columns": header, "csv": args.csv,
               "parquet": args.parquet, "summary": summary}
    written = [f"{len(records)} rows to {path}" for path in (args.csv, args.parquet) if path]
    text = (f"study {definition.get('name')} (xaip {definition.get('command')}): "
            f"{len(records)} cells in {args.store_file}"
            + (f"; wrote {', '.join(written)}" if written else "")
            + "\n\n" + render_summary(summary))
    emit(args, payload, text)
    return EXIT_OK


def _open_existing(path: Path, kind: str) -> Any:
    """An existing study store, opened for the run it belongs to (never created)."""
    import json

    from xaip.runtime.store import RunStore

    if not path.exists():
        raise InputError(f"no such study store: {path}")
    if path.is_dir():
        raise InputError(f"study store {path} is a directory, not a file")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path} is not a study store ({exc})") from None
    if meta.get("kind") != kind:
        raise InputError(f"{path} is not a study store (it holds {meta.get('kind')!r} data)")
    return RunStore(path, kind, json.loads(meta.get("run", "{}")))
