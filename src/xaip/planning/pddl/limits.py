"""Limits that keep the readers safe on hostile or broken input, and one way to quote it.

Why: a reader is the first code that touches a user's file, so it must end quickly with a
one-line message whatever the file holds -- 50 MB of ``(``, ``/dev/zero``, a number with a
billion-digit exponent, a token of ten megabytes of NUL bytes or right-to-left overrides.
Every bound lives here, so the documentation and the tests can name one place:

* :data:`MAX_INPUT_BYTES` -- PDDL and plan files larger than this (64 MB) are refused
  before they are parsed; the largest IPC/IPPC files are a few megabytes.
* :data:`MAX_DEPTH` -- parentheses nested deeper than this (200) are refused by the lexer,
  so every recursive walker over conditions and effects stays far from Python's recursion
  limit. Real domains nest fewer than 20 levels.
* :data:`MAX_MAGNITUDE` and :data:`MAX_SIGNIFICANT_DIGITS` -- numbers must satisfy
  ``|value| <= 1e15`` (and be zero or ``|value| >= 1e-30``) with at most 30 significant
  digits. The bounds are checked on the text, before any conversion, so an exponent is never
  expanded.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction
from pathlib import Path

from xaip.runtime.budget import check_reading
from xaip.sidefiles import KINDS, read_bytes

MAX_INPUT_BYTES = KINDS["pddl"].max_bytes  # the same cap for plan files
MAX_DEPTH = 200
MAX_MAGNITUDE_EXPONENT = 15
MIN_MAGNITUDE_EXPONENT = -30
MAX_MAGNITUDE = 10**MAX_MAGNITUDE_EXPONENT
MAX_SIGNIFICANT_DIGITS = 30
#: Offending text in a message is cut to this many characters.
MAX_SHOWN = 60

_BOM = "\ufeff"
_DECIMAL = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?")
_RATIO = re.compile(r"([+-]?)(\d+)/(\d+)")


def quoted(value: object, limit: int = MAX_SHOWN) -> str:
    """``text`` in single quotes, cut to ``limit`` characters, invisible characters escaped.

    Control characters, NUL, format characters such as the bidirectional overrides
    (U+202E) and unassigned code points are shown as ``\\xNN``/``\\uNNNN`` escapes, so a
    message can neither break a terminal nor display something other than what the file
    holds. Every reader message quotes user text through this one function.
    """
    text = str(value)
    cut = text[:limit]
    out = []
    for char in cut:
        if char == "\\" or char == "'":
            out.append("\\" + char)
        elif char.isprintable() and unicodedata.category(char)[0] != "C":
            out.append(char)
        elif ord(char) < 0x100:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    more = f"... ({len(text)} characters)" if len(text) > limit else ""
    return "'" + "".join(out) + more + "'"


def read_input(path: str | Path, what: str = "PDDL file") -> str:
    """The text of a user's input file, read with a size cap and a clear message per failure.

    The file is read by :func:`xaip.sidefiles.read_bytes`, the one reader of every input
    file: devices (``/dev/zero``), sockets and directories are refused without reading, a
    FIFO with no writer is refused without blocking, a pipe (a shell's ``<(...)``) is read
    up to the cap. Text that is not UTF-8 is read as ISO-8859-1, as Fast Downward reads PDDL
    (so a Latin-1 comment does not stop a run, and binary junk reaches the lexer, which
    reports it escaped at its file, line and column). A leading byte-order mark is dropped.
    """
    data = read_bytes(path, "plan" if what == "plan file" else "pddl")
    check_reading(str(path))  # a slow pipe or disk counts against --max-seconds too
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("iso-8859-1")
    return strip_bom(text)


def strip_bom(text: str) -> str:
    """Text without a leading UTF-8 byte-order mark (invisible, and not PDDL)."""
    return text[1:] if text.startswith(_BOM) else text


def looks_numeric(text: str) -> bool:
    """Is ``text`` written as a number (decimal, exponent or ``p/q``)? Syntax only."""
    match = _DECIMAL.fullmatch(text)
    if match is not None:
        return bool(match.group(2) or match.group(3))
    return _RATIO.fullmatch(text) is not None


def parse_number(text: str) -> Fraction:
    """The exact value of a PDDL number within the bounds above.

    Raises ``ValueError`` with a reason (shown to the user) for text that is not a number
    or is outside the bounds; the digits are counted before any big number is built.
    """
    ratio = _RATIO.fullmatch(text)
    if ratio is not None:
        sign, top, bottom = ratio.groups()
        if len(top.lstrip("0")) > MAX_SIGNIFICANT_DIGITS or \
                len(bottom.lstrip("0")) > MAX_SIGNIFICANT_DIGITS:
            raise ValueError(f"more than {MAX_SIGNIFICANT_DIGITS} significant digits")
        if int(bottom) == 0:
            raise ValueError("division by zero")
        value = Fraction(int(top), int(bottom)) * (-1 if sign == "-" else 1)
        _check_magnitude_of(value)
        return value
    match = _DECIMAL.fullmatch(text)
    if match is None or not (match.group(2) or match.group(3)):
        raise ValueError("not a number")
    sign, whole, fraction, exponent_text = match.groups()
    fraction = fraction or ""
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return Fraction(0)
    if len(exponent_text or "") > 8:
        raise ValueError(f"exponent out of range (|value| must be at most 1e"
                         f"{MAX_MAGNITUDE_EXPONENT})")
    exponent = int(exponent_text or 0) - len(fraction)
    significant = digits.rstrip("0")
    exponent += len(digits) - len(significant)
    if len(significant) > MAX_SIGNIFICANT_DIGITS:
        raise ValueError(f"more than {MAX_SIGNIFICANT_DIGITS} significant digits")
    leading = exponent + len(significant) - 1  # decimal exponent of the leading digit
    if leading >= MAX_MAGNITUDE_EXPONENT + 1 or (
            leading == MAX_MAGNITUDE_EXPONENT and int(significant) > 1):
        raise ValueError(f"out of range (|value| must be at most 1e{MAX_MAGNITUDE_EXPONENT})")
    if leading < MIN_MAGNITUDE_EXPONENT:
        raise ValueError(f"out of range (a non-zero |value| must be at least "
                         f"1e{MIN_MAGNITUDE_EXPONENT})")
    magnitude = Fraction(int(significant)) * Fraction(10) ** exponent
    return -magnitude if sign == "-" else magnitude


def _check_magnitude_of(value: Fraction) -> None:
    if abs(value) > MAX_MAGNITUDE:
        raise ValueError(f"out of range (|value| must be at most 1e{MAX_MAGNITUDE_EXPONENT})")
    if value and abs(value) < Fraction(1, 10**-MIN_MAGNITUDE_EXPONENT):
        raise ValueError(f"out of range (a non-zero |value| must be at least "
                         f"1e{MIN_MAGNITUDE_EXPONENT})")
