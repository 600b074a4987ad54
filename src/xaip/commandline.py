"""What every ``xaip`` sub-command shares: budget options, ``--json``, safe output files.

Why one module: each explainer family registers its own sub-command (``add_parser``), and
all of them must validate budgets the same way, print JSON the same way and never
overwrite an input or crash on a full disk. The sub-commands import these helpers instead
of keeping copies.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.runtime import Budget


class OutputError(InputError):
    """An output file cannot be written (a directory, a full disk, an input file)."""


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text[:40]!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, not {value}")
    return value


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
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_output(path: str | Path, inputs: Iterable[str | Path | None] = ()) -> Path:
    """Refuse an output path that is an input file or a directory, before any work."""
    out = Path(path)
    if out.is_dir():
        raise OutputError(f"cannot write {out}: it is a directory")
    for given in inputs:
        if given is not None and _same_file(out, Path(given)):
            raise OutputError(f"refusing to overwrite the input file {given} with output "
                              f"(choose another file name)")
    return out


def write_output(path: str | Path, content: str | bytes,
                 inputs: Iterable[str | Path | None] = ()) -> None:
    """Write ``content`` to ``path``, never over an input file; errors become one line."""
    out = check_output(path, inputs)
    try:
        if isinstance(content, bytes):
            out.write_bytes(content)
        else:
            out.write_text(content, encoding="utf-8")
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise OutputError(f"cannot write {out}: {reason}") from None
