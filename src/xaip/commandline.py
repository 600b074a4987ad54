"""What every ``xaip`` sub-command shares: budget options, ``--json``, safe output files.

Why one module: each explainer family registers its own sub-command (``add_parser``), and
all of them must validate budgets the same way, print JSON the same way and never
overwrite an input or crash on a full disk. The sub-commands import these helpers instead
of keeping copies.

Whole numbers given on the command line (node counts, cost bounds, workers, samples) are
at most :data:`MAX_COUNT` (2**63 - 1, the compiled core's 64-bit integers); larger values
are refused by the argparse types with one line, never passed on to overflow in C.

Outputs: :func:`check_output` and :func:`check_outputs` refuse, before any work, an output
that is a directory, that is the same file as an input the command names, that is the same
file as any file this command has read so far (:func:`xaip.sidefiles.files_read`: files
named inside a spec or a store included), or that is also another output of the command
(one path, one write). :func:`write_output` checks again at write time, when every input
has been read. :func:`check_output_dir` does the same for each file a command writes into
a directory.
"""

from __future__ import annotations

import argparse
import errno
import json
import math
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.runtime.budget import Budget
from xaip.sidefiles import files_read

#: The largest whole number an option accepts: the compiled core's 64-bit signed integers.
#: No search expands that many nodes, so refusing larger counts loses nothing.
MAX_COUNT = 2**63 - 1


class OutputError(InputError):
    """An output file cannot be written (a directory, a full disk, an input file)."""


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number from 0 to :data:`MAX_COUNT` (node counts, cost
    bounds, rechecks, memory)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text[:40]!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, not {value}")
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_COUNT} (2**63 - 1), not "
                                         f"{text[:40]}")
    return value


#: The argparse type of node counts and cost bounds (``--max-nodes``, ``--cost-bound``).
count = non_negative_int


def positive_int(text: str) -> int:
    """An argparse type: a whole number, 1 or more (counts of workers, samples, nodes)."""
    value = non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def non_negative_float(text: str) -> float:
    """An argparse type: a finite number, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text[:40]!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, not {text[:40]!r}")
    return value


def unit_float(text: str) -> float:
    """An argparse type: a number from 0 to 1 (a weight or a probability)."""
    value = non_negative_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, not {text[:40]!r}")
    return value


def add_budget_args(parser: argparse.ArgumentParser, nodes: bool = True) -> None:
    """``--max-nodes N`` and ``--max-seconds S`` (validated: finite, not negative)."""
    if nodes:
        parser.add_argument("--max-nodes", type=non_negative_int, default=None, metavar="N",
                            help="give up after expanding N nodes")
    parser.add_argument("--max-seconds", type=non_negative_float, default=None, metavar="S",
                        help="give up after S seconds (covers reading, grounding and search)")


def add_json_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def budget_from(args: argparse.Namespace) -> Budget:
    """The budget the user asked for (unlimited where not given)."""
    return Budget(getattr(args, "max_nodes", None), getattr(args, "max_seconds", None))


def emit(args: argparse.Namespace, payload: dict[str, Any], text: str) -> None:
    """Print ``payload`` as JSON with ``--json``, else ``text``."""
    if getattr(args, "json", False):
        print(json.dumps(payload, indent=2, sort_keys=False))
    else:
        print(text)


def _same_file(a: Path, b: Path) -> bool:
    """Do ``a`` and ``b`` name one file (links included), or, when one does not exist yet
    (a store or output still to be created), one resolved path?"""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def check_output(path: str | Path, inputs: Iterable[str | Path | None] = ()) -> Path:
    """Refuse an output path that is a directory, an input of the command or a file the
    command has read so far, before any work."""
    out = Path(path)
    if out.is_dir():
        raise OutputError(f"cannot write {out}: it is a directory")
    for given in (*inputs, *files_read()):
        if given is not None and str(given) != "" and _same_file(out, Path(given)):
            raise OutputError(f"refusing to overwrite the input file {given} with output "
                              f"(choose another file name)")
    return out


def check_outputs(outputs: Iterable[str | Path | None],
                  inputs: Iterable[str | Path | None] = ()) -> list[Path]:
    """:func:`check_output` for every output of a command, and no two outputs on one path
    (``summarize --dot x.svg`` would write the DOT and then the SVG over it)."""
    given = tuple(inputs)
    checked: list[Path] = []
    for path in outputs:
        if path is None or str(path) == "":
            continue
        out = check_output(path, given)
        for earlier in checked:
            if _same_file(out, earlier):
                raise OutputError(f"two outputs would be written to one file, {out} "
                                  f"(choose a separate name for each)")
        checked.append(out)
    return checked


def check_output_dir(directory: str | Path, names: Iterable[str],
                     inputs: Iterable[str | Path | None] = ()) -> list[Path]:
    """The files ``names`` a command writes into ``directory``, each checked as by
    :func:`check_outputs` (``balance --write-compiled .`` must not replace an input)."""
    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"cannot write into {folder}: it is not a directory")
    return check_outputs((folder / name for name in names), inputs)


def write_output(path: str | Path, content: str | bytes,
                 inputs: Iterable[str | Path | None] = ()) -> None:
    """Write ``content`` to ``path``, never over an input file (those the command names and
    those it has read); errors become one line."""
    out = check_output(path, inputs)
    data = content if isinstance(content, bytes) else content.encode("utf-8")
    try:
        if _is_fifo(out):
            _write_fifo(out, data)
        else:
            out.write_bytes(data)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise OutputError(f"cannot write {out}: {reason}") from None


def _is_fifo(path: Path) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def _write_fifo(path: Path, data: bytes) -> None:
    """Write to a FIFO (``-o >(gzip > plan.gz)``) without waiting forever for a reader:
    opened non-blocking, a FIFO nobody reads is refused at once."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as error:
        if error.errno == errno.ENXIO:
            raise OutputError(f"cannot write {path}: a FIFO that no process reads") from None
        raise
    try:
        os.set_blocking(handle, True)  # a reader is there: wait for it as a pipe does
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view):]
    finally:
        os.close(handle)
