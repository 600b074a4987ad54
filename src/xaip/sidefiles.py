"""One reader with limits for every file a user hands to xaip.

Why one module: besides PDDL and plan files, the families read vocabularies, Sokoban levels,
action lists, annotations, foils, grids, labels, policies, observation and goal files,
design specs, learned weights and models. Each used to read its file whole with
``Path.read_text``: ``--vocabulary /dev/zero`` read until the memory budget, a FIFO with no
writer blocked forever, and a file that was not UTF-8 ended as an internal error. Every
file now goes through :func:`read_bytes` (the PDDL reader too), which

* refuses directories, devices (``/dev/zero``, a terminal) and sockets before reading;
* opens a FIFO without blocking: a FIFO that no process writes to is refused at once
  ("no writer"), one whose writer stays silent is refused after :data:`FIFO_IDLE_SECONDS`;
* reads at most the size cap of the file's kind (:data:`KINDS`) and refuses a larger file
  without reading the rest;
* remembers which files this command read (:func:`files_read`), so that
  :mod:`xaip.commandline` can refuse an output that would overwrite any of them -- files
  named inside a spec or a store included, whoever read them.

On top: :func:`read_text` (strict UTF-8; an error names the file, line and column),
:func:`read_json` (JSON errors with line:column; ``NaN``/``Infinity``, integers of more
than :data:`MAX_JSON_DIGITS` digits and nesting deeper than :data:`MAX_JSON_DEPTH` are
refused) and small checks of JSON types (:func:`expect`) so that a spec with a list where
an object belongs gives one line, not a traceback.

This module depends only on :mod:`xaip.errors` and the standard library, so every layer
(the PDDL reader included) can use it.
"""

from __future__ import annotations

import json
import os
import select
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from xaip.errors import InputError

MB = 1 << 20


@dataclass(frozen=True)
class Kind:
    """What a file is for the user (used in messages) and how large it may be."""

    description: str
    max_bytes: int


#: Every kind of input file and its size cap. The largest real files are far smaller (the
#: bundled vocabularies, levels and specs are under 2 kB; IPC PDDL files a few MB).
KINDS: dict[str, Kind] = {
    "pddl": Kind("PDDL file", 64 * MB),
    "plan": Kind("plan file", 64 * MB),
    "vocabulary": Kind("vocabulary file", 16 * MB),
    "level": Kind("level file", 4 * MB),
    "actions": Kind("action list", 16 * MB),
    "annotations": Kind("annotation file", 16 * MB),
    "foil": Kind("foil file", 4 * MB),
    "grid": Kind("grid file", 4 * MB),
    "labels": Kind("label file", 16 * MB),
    "policy": Kind("policy file", 64 * MB),
    "observations": Kind("observation file", 16 * MB),
    "goals": Kind("goal file", 4 * MB),
    "spec": Kind("design spec", 4 * MB),
    "weights": Kind("weights file", 16 * MB),
    "model": Kind("model file", 64 * MB),
    "text": Kind("text file", 16 * MB),
}

#: A FIFO whose writer sends nothing for this long is refused (a writer that is still
#: producing data, e.g. a shell's ``<(command)``, may take as long as it needs between
#: chunks up to this).
FIFO_IDLE_SECONDS = 30.0
#: How long an empty FIFO with no writer waits for one to connect before it is refused.
FIFO_GRACE_SECONDS = 0.2
#: JSON integers with more digits than this are refused (no side file needs them; Python
#: would otherwise spend quadratic time converting them).
MAX_JSON_DIGITS = 30
#: JSON nested deeper than this is refused (no side file nests more than a few levels).
MAX_JSON_DEPTH = 100

_CHUNK = 1 << 16

# (device, inode) and resolved path of every file read by the current command, or None
# outside a command (the library, the workbench): see :func:`recording`.
_reads: dict[tuple[int, int], str] | None = None


def kind_of(kind: str) -> Kind:
    try:
        return KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown kind of input file {kind!r}") from None


@contextmanager
def recording() -> Iterator[dict[tuple[int, int], str]]:
    """Remember every file read inside the block (one command of the CLI)."""
    global _reads
    previous, _reads = _reads, {}
    try:
        yield _reads
    finally:
        _reads = previous


def files_read() -> list[str]:
    """The files read so far by the current command (empty outside :func:`recording`)."""
    return list(_reads.values()) if _reads is not None else []


def was_read(path: str | Path) -> bool:
    """Is ``path`` (or another name of the same file) one the current command read?"""
    if not _reads:
        return False
    try:
        info = os.stat(path)
    except OSError:
        return False
    return (info.st_dev, info.st_ino) in _reads


def _remember(path: str | Path, info: os.stat_result) -> None:
    if _reads is not None and stat.S_ISREG(info.st_mode):
        _reads[(info.st_dev, info.st_ino)] = str(path)


def _refuse(name: str, what: str, reason: str) -> InputError:
    article = "an" if what[:1] in "aeiou" else "a"
    return InputError(f"{name}: {reason}, expected {article} {what}")


def read_bytes(path: str | Path, kind: str = "text") -> bytes:
    """The bytes of a user's file of ``kind``, read with every check of this module.

    Raises :class:`~xaip.errors.InputError` with one line naming the file for a missing
    file, a directory, a device or socket, a FIFO with no (or a silent) writer, a file over
    the kind's size cap, or a read error.
    """
    spec = kind_of(kind)
    name, what, cap = str(path), spec.description, spec.max_bytes
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except OSError as error:
        raise InputError(f"{name}: cannot read ({error.strerror or error})") from None
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise _refuse(name, what, "is a directory")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
        raise _refuse(name, what, "is a device or socket")
    if stat.S_ISREG(mode) and info.st_size > cap:
        raise InputError(f"{name}: {info.st_size} bytes is larger than the "
                         f"{_size(cap)} limit for a {what}")
    fifo = stat.S_ISFIFO(mode)
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | (os.O_NONBLOCK if fifo else 0)
    try:
        # O_NONBLOCK: opening a FIFO for reading then never waits for a writer.
        handle = os.open(path, flags)
    except IsADirectoryError:
        raise _refuse(name, what, "is a directory") from None
    except OSError as error:
        raise InputError(f"{name}: cannot read ({error.strerror or error})") from None
    try:
        opened = os.fstat(handle)
        if stat.S_ISCHR(opened.st_mode) or stat.S_ISBLK(opened.st_mode):
            raise _refuse(name, what, "is a device or socket")  # swapped after the stat
        data = _read_fifo(handle, name, what, cap) if fifo else _read_file(handle, name, cap)
    except InputError:
        raise
    except OSError as error:
        raise InputError(f"{name}: cannot read ({error.strerror or error})") from None
    finally:
        os.close(handle)
    if len(data) > cap:
        raise InputError(f"{name}: larger than the {_size(cap)} limit for a {what}")
    _remember(path, opened)
    return data


def _read_file(handle: int, name: str, cap: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while total <= cap:
        chunk = os.read(handle, min(_CHUNK * 16, cap + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _read_fifo(handle: int, name: str, what: str, cap: int) -> bytes:
    """Read a FIFO opened non-blocking. End of file before any data means no process has it
    open for writing; a writer that is just starting gets :data:`FIFO_GRACE_SECONDS` to
    appear (Linux reports nothing on a FIFO that never had a writer, so the wait ends)."""
    chunks: list[bytes] = []
    total = 0
    graced = False
    while total <= cap:
        try:
            chunk = os.read(handle, min(_CHUNK, cap + 1 - total))
        except BlockingIOError:  # a writer is connected but has sent nothing yet
            ready, _, _ = select.select([handle], [], [], FIFO_IDLE_SECONDS)
            if not ready:
                raise _refuse(name, what, f"is a FIFO whose writer sent nothing for "
                                          f"{FIFO_IDLE_SECONDS:g} s") from None
            continue
        except InterruptedError:  # pragma: no cover - a signal during the read
            continue
        if chunk:
            chunks.append(chunk)
            total += len(chunk)
            continue
        if chunks or graced:
            break
        graced = True
        ready, _, _ = select.select([handle], [], [], FIFO_GRACE_SECONDS)
        if not ready:
            raise _refuse(name, what, "is a FIFO with no writer (nothing to read)")
    if not chunks:
        raise _refuse(name, what, "is a FIFO with no writer (nothing to read)")
    return b"".join(chunks)


def _size(count: int) -> str:
    return f"{count // MB} MB" if count >= MB else f"{count} bytes"


def decode(data: bytes, path: str | Path) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark dropped); an error names the file,
    line and column of the first bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(f"{path}:{line}:{column}: not UTF-8 text (byte "
                         f"0x{data[error.start]:02x})") from None
    return text[1:] if text.startswith("\ufeff") else text


def read_text(path: str | Path, kind: str = "text") -> str:
    """The UTF-8 text of a user's file of ``kind`` (see :func:`read_bytes`)."""
    return decode(read_bytes(path, kind), path)


class _Refused(ValueError):
    """A JSON number refused by a hook; ``token`` is its text, to find its place."""

    def __init__(self, message: str, token: str) -> None:
        super().__init__(message)
        self.token = token


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a number xaip accepts", name)


def _bounded_int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > MAX_JSON_DIGITS:
        raise _Refused(f"an integer of {len(digits)} digits is out of range", text)
    return int(text)


def _bounded_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _Refused(f"{text[:40]} is out of range", text)
    return value


def _place_of(text: str, token: str) -> str:
    """``line:column`` of the first ``token`` outside JSON strings (``?:?`` if not found)."""
    in_string = escaped = False
    line, start = 1, 0
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "\n":
            line, start = line + 1, index + 1
        elif text.startswith(token, index):
            return f"{line}:{index - start + 1}"
    return "?:?"


def parse_json(text: str, path: str | Path = "<string>") -> Any:
    """JSON text as Python values, with the limits of :func:`read_json`."""
    depth = 0
    deepest = 0
    for char in text:  # a cheap upper bound on nesting, before the recursive decoder
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    if deepest > MAX_JSON_DEPTH:
        _check_depth(text, path)
    try:
        return json.loads(text, parse_constant=_no_constant, parse_int=_bounded_int,
                          parse_float=_bounded_float)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}:{error.lineno}:{error.colno}: invalid JSON: "
                         f"{error.msg}") from None
    except _Refused as error:
        raise InputError(f"{path}:{_place_of(text, error.token)}: invalid JSON: "
                         f"{error}") from None
    except ValueError as error:  # pragma: no cover - int() of a checked digit string
        raise InputError(f"{path}: invalid JSON: {error}") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply") from None


def _check_depth(text: str, path: str | Path) -> None:
    """Refuse JSON nested deeper than :data:`MAX_JSON_DEPTH` (brackets in strings skipped)."""
    depth = 0
    in_string = escaped = False
    line, column = 1, 0
    for char in text:
        column += 1
        if char == "\n":
            line, column = line + 1, 0
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise InputError(f"{path}:{line}:{column}: JSON nested deeper than "
                                 f"{MAX_JSON_DEPTH} levels")
        elif char in "]}":
            depth -= 1


def read_json(path: str | Path, kind: str = "text") -> Any:
    """The JSON value in a user's file of ``kind``: errors name the file, line and column;
    ``NaN``/``Infinity``, integers over :data:`MAX_JSON_DIGITS` digits and nesting over
    :data:`MAX_JSON_DEPTH` levels are refused."""
    return parse_json(read_text(path, kind), path)


T = TypeVar("T")

_TYPE_NAMES = {dict: "an object", list: "a list", str: "a string", bool: "true or false",
               int: "a whole number", float: "a number"}


def expect(value: Any, expected: type[T] | tuple[type, ...], where: str) -> T:
    """``value`` when it has the ``expected`` JSON type, else one-line bad input.

    ``where`` names the place for the message (``"spec.json: 'weights'"``). ``bool`` is
    never accepted as a number, and ``int`` is accepted where a ``float`` is expected.
    """
    kinds = expected if isinstance(expected, tuple) else (expected,)
    if float in kinds and int not in kinds:
        kinds = (*kinds, int)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        names = " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds if k is not int
                            or float not in kinds)
        raise InputError(f"{where}: expected {names}, not {_json_type(value)}")
    return value


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    for kind in (bool, dict, list, str, int, float):
        if isinstance(value, kind):
            return _TYPE_NAMES[kind]
    return type(value).__name__


def is_input_path(path: str | Path) -> bool:
    """Does ``path`` name an existing file that is not a directory? (For commands that
    accept either a file name or a bundled name.)"""
    try:
        return not Path(path).is_dir() and Path(path).exists()
    except OSError:
        return False
