"""Budgets in nodes and seconds.

Why: every search is called thousands of times by the explainers; a call that may hang is
a bug. A budget ends the work with an explicit "budget exhausted" result instead.

Why the clock is read on every charge: an earlier version read it every 256 charges, which
is free when a charge costs a microsecond but let a slow heuristic (LM-cut at 0.3 s per
expansion on IPC logistics) run 70 s past a 5 s budget. ``time.perf_counter()`` costs well
under a tenth of a microsecond, a search expansion at least several microseconds, so
reading it every time costs about 1 % of search time (measured: see tests/planning/
test_budgets.py) and the overshoot is at most one unit of work. Loops whose single units
are themselves long (one LM-cut evaluation on a huge task, one join while grounding) call
:meth:`BudgetClock.tick` inside, which reads the time without counting a node.
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
    """A running budget: counts nodes and checks the deadline on every charge."""

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
        if self._deadline is not None and time.perf_counter() > self._deadline:
            self.exhausted = True
            return False
        return not self.exhausted

    def tick(self) -> bool:
        """Check the deadline without counting a node; ``True`` while the budget holds.

        For long computations inside one unit of work (a heuristic evaluation, a join).
        """
        if self._deadline is not None and time.perf_counter() > self._deadline:
            self.exhausted = True
        return not self.exhausted

    def out_of_time(self) -> bool:
        """Check the deadline now (for loops that do not charge nodes)."""
        return not self.tick()

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def remaining(self) -> Budget:
        """What is left of this clock's budget, for a later phase that takes a :class:`Budget`
        (grounding, then search, within one user budget)."""
        budget = self.budget
        nodes = None if budget.max_nodes is None else max(0, budget.max_nodes - self.nodes)
        seconds = None
        if budget.max_seconds is not None:
            seconds = max(0.0, budget.max_seconds - self.elapsed())
        return Budget(nodes, seconds)


def as_clock(budget: Budget | BudgetClock | None) -> BudgetClock:
    """A running clock: ``budget`` itself when it is one already (shared), else a new one."""
    if isinstance(budget, BudgetClock):
        return budget
    return (budget or UNLIMITED).start()
