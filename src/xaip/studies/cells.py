"""One cell of a study: one run of an ``xaip`` command on one instance with one setting.

Why cells run the command itself (``xaip.cli.main`` with ``--json``, in the worker's
process): the command is what users run and what the families verify, so a study measures
exactly that, budgets, checkers and exit codes included, and a new explainer is usable in
studies the day it has a command. Running in-process (not one Python per cell) saves the
start-up of every cell; the worker writes the cell's files into a private temporary folder,
so cells never share files and a Ray node needs no shared disk.

A cell's key names its instance, setting and run, plus a hash of everything that decides
its answer (command, file contents, arguments, options, budget): a re-run skips exactly
the cells whose answer is already in the store, and a changed file is a new cell.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import socket
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xaip.studies.spec import Instance, Study, Value

Setting = tuple[tuple[str, Value], ...]

#: Exit codes of ``xaip`` (xaip.errors) and the status a cell gets when the command
#: printed no JSON answer.
_NO_ANSWER = {2: "bad_input", 3: "internal_error"}


@dataclass(frozen=True)
class Cell:
    """Everything a worker needs to run one cell (plain data: it is pickled to workers)."""

    key: str
    instance: str
    setting: Setting
    run: int
    command: str
    files: tuple[tuple[str, bytes], ...]
    arguments: tuple[str, ...]  # everything after the file paths
    tags: tuple[tuple[str, Value], ...] = ()  # the instance's vary values

    def record_head(self) -> dict[str, Any]:
        return {"key": self.key, "instance": self.instance, "tags": dict(self.tags),
                "parameters": {option: value for option, value in self.setting},
                "run": self.run}


def _value_text(value: Value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def cell_argv(study: Study, instance: Instance, setting: Setting,
              paths: list[str]) -> list[str]:
    """The command line of a cell whose files were written to ``paths``."""
    argv = [study.command, *paths, *instance.args, *study.options]
    for option, value in setting:
        if value is True:
            argv.append(option)
        elif value is not False:
            argv += [option, _value_text(value)]
    for option, limit in study.budget:
        argv += [option, _value_text(limit)]
    return argv


def setting_text(setting: Setting) -> str:
    """``--type=mce --optimal`` (flags given), or ``defaults`` for the empty setting."""
    parts = [option if value is True else f"{option}={_value_text(value)}"
             for option, value in setting if value is not False]
    return " ".join(parts) or "defaults"


def make_cells(study: Study) -> list[Cell]:
    """Every cell of ``study``: instances x settings x runs, in that order."""
    cells = []
    for instance in study.instances:
        placeholder = [f"f{i}/{name}" for i, (name, _) in enumerate(instance.files)]
        for setting in study.settings():
            tail = cell_argv(study, instance, setting, placeholder)[1 + len(placeholder):]
            sha = hashlib.sha256(json.dumps([study.command, instance.digest(), tail])
                                 .encode()).hexdigest()[:12]
            for run in range(1, study.repeat + 1):
                key = f"{instance.name} | {setting_text(setting)} | run {run} | {sha}"
                cells.append(Cell(key, instance.name, setting, run, study.command,
                                  instance.files, tuple(tail), instance.tags))
    return cells


def run_cell(cell: Cell) -> dict[str, Any]:
    """Run ``cell``'s command in this process and return its record (never raises, except
    ``KeyboardInterrupt`` when the user interrupts: that cell is not done)."""
    from xaip.cli import main

    record = cell.record_head()
    started, cpu = time.perf_counter(), time.process_time()
    out, err = io.StringIO(), io.StringIO()
    try:
        with tempfile.TemporaryDirectory(prefix="xaip-study-") as folder:
            paths = []
            for number, (name, content) in enumerate(cell.files):
                place = Path(folder) / f"f{number}"
                place.mkdir()
                (place / name).write_bytes(content)
                paths.append(str(place / name))
            argv = [cell.command, *paths, *cell.arguments, "--json", "--quiet"]
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
    except OSError as error:  # the temporary folder could not be written
        code, err = 3, io.StringIO(f"xaip: error: cannot write the cell's files: {error}")
    if code == 130:
        raise KeyboardInterrupt
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    payload: dict[str, Any] | None
    try:
        loaded = json.loads(out.getvalue())
        payload = loaded if isinstance(loaded, dict) else {"answer": loaded}
    except ValueError:
        payload = None
    messages = [line for line in err.getvalue().splitlines() if line.strip()]
    status = payload.get("status") if payload else None
    if status is None and code == 1 and any("budget exhausted" in m for m in messages):
        status = "budget_exhausted"  # the memory budget: one line, no JSON answer
    record.update(
        exit=code,
        status=str(status) if status is not None else _NO_ANSWER.get(code, "no_answer"),
        verified=bool(payload and payload.get("verified") is True),
        seconds=round(seconds, 6), cpu_seconds=round(cpu_seconds, 6),
        error=messages[-1] if messages and code != 0 else None,
        host=socket.gethostname(), pid=os.getpid(), payload=payload)
    return record


def metric(payload: Any, path: str) -> Any:
    """The value at dotted ``path`` of a JSON answer (``stats.nodes``); list items by
    number (``edits.0``); ``None`` where the answer has no such value. A list or object
    at the path counts its items (``edits`` -> how many edits)."""
    value = payload
    for part in path.split("."):
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    if isinstance(value, (list, dict)):
        return len(value)
    return value
