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

Why a reading deadline: reading and checking input files happens before any search, in
code that takes no budget (the readers are called from dozens of places). The CLI opens
:func:`reading_deadline` with the command's ``--max-seconds`` before the command starts, so
the clock covers reading; the PDDL readers call :func:`check_reading` every few thousand
tokens, atoms and objects and stop with :class:`~xaip.errors.BudgetExhausted` (phase
``reading``) once it has passed. Outside such a block (the library, the workbench's
request threads, process workers) there is no reading deadline.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from xaip.errors import BudgetExhausted
from xaip.runtime.executors import on_worker_start
from xaip.runtime.progress import clock_started


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
        clock_started(self)  # the CLI's progress bar counts this clock's nodes

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


_READING_DEADLINE: ContextVar[float | None] = ContextVar("xaip_reading_deadline", default=None)


@contextmanager
def reading_deadline(max_seconds: float | None) -> Iterator[None]:
    """Reading files inside the block stops once ``max_seconds`` (from now) have passed;
    ``None``: no deadline. A deadline already set (an outer command) is never extended."""
    deadline = None if max_seconds is None else time.perf_counter() + max_seconds
    outer = _READING_DEADLINE.get()
    if outer is not None and (deadline is None or outer < deadline):
        deadline = outer
    token = _READING_DEADLINE.set(deadline)
    try:
        yield
    finally:
        _READING_DEADLINE.reset(token)


def check_reading(what: str) -> None:
    """Raise :class:`~xaip.errors.BudgetExhausted` (phase ``reading``) when the reading
    deadline of :func:`reading_deadline` has passed; reading the clock costs ~50 ns."""
    deadline = _READING_DEADLINE.get()
    if deadline is not None and time.perf_counter() > deadline:
        raise BudgetExhausted(f"budget exhausted while reading {what} (raise --max-seconds)",
                              phase="reading")


@on_worker_start
def _forget_reading_deadline() -> None:
    """A forked worker does not inherit its parent's reading deadline."""
    _READING_DEADLINE.set(None)
