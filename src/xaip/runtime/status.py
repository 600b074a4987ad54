"""One vocabulary of outcomes for every search, explainer and command.

Why an enum: statuses used to be bare strings spelled in dozens of places, so a typo was a
silent bug. ``Status`` is a ``StrEnum``: members compare equal to their strings and go into
JSON as plain strings, so results stay readable and stable on the wire.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """What a call established.

    Planning answers ``SOLVED`` / ``UNSOLVABLE`` (proved: no plan, or none cheaper than the
    cost bound); explainers answer ``FOUND`` / ``NO_EXPLANATION`` (proved: none exists); validation
    answers ``VALID`` / ``INVALID``;
    ``COMPLETE`` / ``TRUNCATED`` describe enumerations. ``BUDGET_EXHAUSTED`` means the work
    stopped early: the answer is unfinished and never claims more than it established.
    """

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    FOUND = "found"
    NO_EXPLANATION = "no_explanation"
    VALID = "valid"
    INVALID = "invalid"
    COMPLETE = "complete"
    TRUNCATED = "truncated"
    BUDGET_EXHAUSTED = "budget_exhausted"

    @property
    def finished(self) -> bool:
        """True when the work ran to its end (only a finished answer can be verified)."""
        return self not in (Status.BUDGET_EXHAUSTED, Status.TRUNCATED)


SOLVED = Status.SOLVED
UNSOLVABLE = Status.UNSOLVABLE
FOUND = Status.FOUND
NO_EXPLANATION = Status.NO_EXPLANATION
BUDGET_EXHAUSTED = Status.BUDGET_EXHAUSTED
