"""What went wrong with a request, as data both the error page and the JSON API show.

Why one type: a browser wants a page that says what to fix (for a PDDL file: the file,
line and column, highlighted in the source), a script wants JSON with the same facts, and
neither should ever see a traceback. Every error the workbench answers goes through
:class:`WebProblem`; :func:`from_error` turns the library's errors
(:class:`~xaip.errors.InputError`, :class:`~xaip.errors.PDDLSyntaxError`, ...) into one.

Locations: syntax errors carry their line and column. Semantic errors (an undeclared
predicate, a problem for another domain) name the offending text in quotes but not where
it is; :func:`locate` finds that text's first whole-word occurrence in the named file so
the page can still point at it (marked as a guess: ``exact`` is false).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from xaip.errors import EngineUnavailable, InputError, PDDLSyntaxError

#: Lines of source shown around an error's line.
CONTEXT_LINES = 3


@dataclass(frozen=True)
class Location:
    """Where in an uploaded (or bundled) file the error is: 1-based line and column."""

    file: str
    line: int
    column: int
    exact: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column,
                "exact": self.exact}


class WebProblem(Exception):
    """An error answer: HTTP status, a one-line message, and where it is (if known).

    A plain exception class, not a frozen dataclass: the server sets attributes such as
    ``__traceback__`` on the exceptions it handles.
    """

    def __init__(self, status_code: int, message: str, location: Location | None = None,
                 source: str | None = None, kind: str = "bad_input") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.message = message
        self.location = location
        #: The text of the file the location points into (shown highlighted on the page).
        self.source = source
        self.kind = kind

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        return {"status": "error", "error": self.kind, "message": self.message,
                "location": None if self.location is None else self.location.to_dict()}

    def excerpt(self) -> list[dict[str, Any]]:
        """The lines around the error for the page: number, text, and the marked column."""
        if self.location is None or self.source is None:
            return []
        lines = self.source.splitlines()
        if self.location.line > len(lines):  # at the end of the file: show that empty line
            lines += [""] * (self.location.line - len(lines))
        first = max(1, self.location.line - CONTEXT_LINES)
        last = min(len(lines), self.location.line + CONTEXT_LINES)
        out = []
        for number in range(first, last + 1):
            text = lines[number - 1]
            row: dict[str, Any] = {"number": number, "text": text, "marked": False}
            if number == self.location.line:
                col = max(0, min(len(text), self.location.column - 1))
                end = col + _token_length(text[col:])
                row.update(marked=True, before=text[:col], mark=text[col:end] or " ",
                           after=text[end:])
            out.append(row)
        return out


def _token_length(text: str) -> int:
    """Length of the token starting ``text`` (at least one character when there is one)."""
    match = re.match(r"[^\s()]+", text)
    return len(match.group(0)) if match else min(1, len(text))


_PREFIX = re.compile(r"^([^\s:]+):(\d+)(?::(\d+))?: ")
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)+)'")


def locate(message: str, sources: Mapping[str, str]) -> Location | None:
    """A best guess at where a located-by-name error is: the first whole-word occurrence,
    in the file the message names (or any file), of the first quoted name it mentions."""
    prefix = _PREFIX.match(message)
    if prefix and prefix.group(1) in sources:
        return Location(prefix.group(1), int(prefix.group(2)), int(prefix.group(3) or 1),
                        exact=prefix.group(3) is not None)
    named = [name for name in sources if name and name in message]
    files = named or list(sources)
    for quoted in _QUOTED.findall(message):
        needle = quoted.strip("()").split(" ")[0]
        if not needle:
            continue
        pattern = re.compile(r"(?<![\w-])" + re.escape(needle) + r"(?![\w-])", re.IGNORECASE)
        for name in files:
            text = sources[name]
            for number, line in enumerate(text.splitlines(), start=1):
                stripped = line.split(";", 1)[0]  # not in a comment
                hit = pattern.search(stripped)
                if hit:
                    return Location(name, number, hit.start() + 1, exact=False)
    return None


def from_error(error: BaseException, sources: Mapping[str, str] | None = None) -> WebProblem:
    """The :class:`WebProblem` for an error raised while serving a request.

    ``sources`` maps file names (as given to the parser) to their text, so that syntax and
    semantic errors can be shown in their file.
    """
    sources = sources or {}
    if isinstance(error, WebProblem):
        return error
    if isinstance(error, PDDLSyntaxError):
        location = Location(error.file, error.line, error.column)
        return WebProblem(400, str(error), location, sources.get(error.file), "pddl_syntax")
    if isinstance(error, InputError):
        guess = locate(str(error), sources)
        return WebProblem(400, str(error), guess,
                          None if guess is None else sources.get(guess.file), "bad_input")
    if isinstance(error, EngineUnavailable):
        return WebProblem(503, str(error), kind="engine_unavailable")
    return WebProblem(500, "internal error: this is a bug in xaip, not in your input "
                           f"({type(error).__name__})", kind="internal")


__all__ = ["CONTEXT_LINES", "Location", "WebProblem", "from_error", "locate"]
