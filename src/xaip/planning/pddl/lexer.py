"""From PDDL text to a tree of s-expressions that remember where they came from.

Why a hand-written lexer: one compiled regular expression splits the whole file in a
single pass (comments, parentheses and symbols), which is several times faster than a
generated parser on the 100 KB IPPC problems, and every node keeps its offset so that the
reader can say *where* something is wrong. Line and column are computed only when needed
(an error, or a location attached to a model element) by bisecting the line starts.
"""

from __future__ import annotations

import bisect
import re
import sys
from dataclasses import dataclass

from xaip.errors import PDDLSyntaxError
from xaip.planning.pddl.limits import MAX_DEPTH, quoted, strip_bom
from xaip.planning.pddl.model import Location
from xaip.runtime.budget import check_reading

# A ``?`` always starts a new symbol, as in Fast Downward: ``(at?x)`` is ``(at ?x)``.
_TOKEN = re.compile(r";[^\n]*|\(|\)|\??[^\s();?]+|\?")


class Source:
    """A file's text plus the offsets at which its lines start."""

    __slots__ = ("file", "text", "_line_starts")

    def __init__(self, text: str, file: str) -> None:
        self.file = file
        self.text = strip_bom(text)
        self._line_starts: list[int] | None = None

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        if self._line_starts is None:
            starts = [0]
            starts.extend(m.end() for m in re.finditer("\n", self.text))
            self._line_starts = starts
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def location(self, offset: int) -> Location:
        line, column = self.position(offset)
        return Location(self.file, line, column)

    def error(self, offset: int, message: str) -> PDDLSyntaxError:
        line, column = self.position(offset)
        return PDDLSyntaxError(self.file, line, column, message)


@dataclass(slots=True)
class Symbol:
    """A word: a name, a variable (``?x``), a keyword (``:init``) or a number. Lower-cased."""

    text: str
    offset: int


@dataclass(slots=True)
class SList:
    """A parenthesised list; ``offset`` is the position of its ``(``."""

    items: list[Symbol | SList]
    offset: int


Node = Symbol | SList


def parse_sexpr(source: Source) -> list[SList]:
    """The top-level lists of a PDDL file: usually one ``(define ...)``; IPPC files hold
    a domain and a problem in one file.

    Iterative, one pass, linear in the text; lists nested deeper than
    :data:`~xaip.planning.pddl.limits.MAX_DEPTH` are refused here so that the recursive
    walkers behind the reader never meet a deeper tree.
    """
    nul = source.text.find("\x00")
    if nul >= 0:
        raise source.error(nul, "NUL byte in the file: expected PDDL text")
    stack: list[SList] = []
    top: list[SList] = []
    what = source.file
    for count, match in enumerate(_TOKEN.finditer(source.text)):
        if not count & 0xFFF:  # every 4096 tokens: the command's --max-seconds covers reading
            check_reading(what)
        token = match.group()
        first = token[0]
        if first == ";":
            continue
        offset = match.start()
        if first == "(":
            if len(stack) >= MAX_DEPTH:
                raise source.error(offset, f"nesting deeper than {MAX_DEPTH} levels "
                                   "(the limit for PDDL files)")
            stack.append(SList([], offset))
        elif first == ")":
            if not stack:
                raise source.error(offset, "unexpected ')' with no matching '('")
            done = stack.pop()
            if stack:
                stack[-1].items.append(done)
            else:
                top.append(done)
        elif stack:
            # Interned: a name recurs thousands of times in a large problem; one copy each.
            stack[-1].items.append(Symbol(sys.intern(token.lower()), offset))
        elif token.endswith(".pddl") and not top:
            raise source.error(
                offset, f"expected '(' but the file holds only the path {quoted(token)} "
                "(a symbolic link saved as a plain file?); read that file instead")
        else:
            raise source.error(offset, f"expected '(' but found {quoted(token)}")
    if stack:
        line, column = source.position(stack[-1].offset)
        raise source.error(
            len(source.text),
            f"unexpected end of file: expected ')' to close the '(' at line {line}, "
            f"column {column}",
        )
    if not top:
        raise source.error(len(source.text), "expected '(define ...)' but the file is empty")
    return top
