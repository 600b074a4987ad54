"""Budgets in nodes and seconds.

Why: every search is called thousands of times by the explainers; a call that may hang is
a bug. A budget ends the work with an explicit "budget exhausted" result instead.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """Limits for one call. ``None`` means unlimited."""

    max_nodes: int | None = None
    max_seconds: float | None = None

    def start(self) -> BudgetClock:
        return BudgetClock(self)


UNLIMITED = Budget()


class BudgetClock:
    """A running budget: counts nodes and checks the deadline cheaply.

    The clock is read only every 256 node charges, so charging is nearly free on hot paths.
    """

    __slots__ = ("budget", "nodes", "started", "_deadline", "_max_nodes", "exhausted")

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.nodes = 0
        self.started = time.perf_counter()
        self._deadline = (
            None if budget.max_seconds is None else self.started + budget.max_seconds
        )
        self._max_nodes = budget.max_nodes
        self.exhausted = False

    def charge(self, nodes: int = 1) -> bool:
        """Count ``nodes`` more; return ``True`` while the budget still holds."""
        self.nodes += nodes
        if self._max_nodes is not None and self.nodes > self._max_nodes:
            self.exhausted = True
            return False
        if (
            self._deadline is not None
            and (self.nodes & 255) == 0
            and time.perf_counter() > self._deadline
        ):
            self.exhausted = True
            return False
        return True

    def out_of_time(self) -> bool:
        """Check the deadline now (for loops that do not charge nodes)."""
        if self._deadline is not None and time.perf_counter() > self._deadline:
            self.exhausted = True
        return self.exhausted

    def elapsed(self) -> float:
        return time.perf_counter() - self.started
