"""One error hierarchy for the whole toolkit.

Why: the CLI turns any ``InputError`` into a one-line message and exit code 2, so every
place that rejects user input raises a subclass of it with enough context (file, line,
column, what was expected) for the user to fix the input without reading a traceback.
"""

from __future__ import annotations

#: The ``xaip`` command's exit codes (one copy, used by every sub-command): success, a
#: negative answer (invalid plan, unsolvable, budget exhausted), bad input. Exit 3 means an
#: internal error, which is always a bug.
EXIT_OK, EXIT_NEGATIVE, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


class XaipError(Exception):
    """Base class of all errors raised deliberately by xaip."""


class InputError(XaipError):
    """The user's input is wrong or unsupported; the message says what and where."""


class PDDLSyntaxError(InputError):
    """A PDDL file is not well formed: names file, line, column and what was expected."""

    def __init__(self, file: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{file}:{line}:{column}: {message}")
        self.file = file
        self.line = line
        self.column = column
        self.detail = message


class UnsupportedFeature(InputError):
    """The input uses a PDDL feature that xaip does not support (named, with location)."""


class SemanticError(InputError):
    """Well-formed PDDL that does not make sense: undeclared names, wrong arity, types."""


class PlanFormatError(InputError):
    """A plan file that cannot be read against its task."""


class BudgetExhausted(XaipError):
    """Work ran out of its budget (seconds, nodes or a size cap) where no partial answer
    makes sense; the CLI answers exit 1 with status ``budget_exhausted``.

    ``phase`` names the work that stopped ("grounding", ...); ``sizes`` says how far it got
    (e.g. ``{"actions": 120000, "facts": 5000}``), so the user learns how large it was getting.
    """

    def __init__(self, message: str, phase: str = "", sizes: dict[str, int] | None = None) -> None:
        super().__init__(message)
        self.phase = phase
        self.sizes = dict(sizes or {})


class EngineUnavailable(XaipError):
    """An optional external engine (e.g. Fast Downward) is not installed."""
