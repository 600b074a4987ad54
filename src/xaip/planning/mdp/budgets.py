"""One budget across the phases of policy work: solving, reachability, dead ends, analysis.

Why: ``xaip summarize`` runs a solver, explores the policy graph (with an exact dead-end
test per state), compiles tasks, extracts landmarks and checks them. A budget per phase
lets the total run far past what the user asked for, so every phase charges one shared
:class:`~xaip.runtime.BudgetClock`. The shared clock reads the time only every 256
charges; the steps here can be expensive (a relaxed estimate over thousands of actions),
so :func:`spend` also reads the time on every charge.
"""

from __future__ import annotations

import time

from xaip.planning.landmarks import BudgetExhausted
from xaip.runtime.budget import Budget, BudgetClock


def as_clock(budget: Budget | BudgetClock | None) -> BudgetClock:
    """A running clock: ``budget`` itself when it is one already (shared), else a new one."""
    if isinstance(budget, BudgetClock):
        return budget
    return (budget or Budget()).start()


def spend(clock: BudgetClock, nodes: int = 1) -> bool:
    """Charge ``nodes`` and read the time now; ``True`` while the budget holds."""
    if clock.exhausted:
        return False
    return clock.charge(nodes) and not clock.out_of_time()


def require(clock: BudgetClock, nodes: int, phase: str) -> None:
    """Charge ``nodes`` for ``phase``; raise :class:`BudgetExhausted` when it runs out."""
    if not spend(clock, nodes):
        raise BudgetExhausted(f"budget exhausted during {phase}")


def remaining(clock: BudgetClock) -> Budget:
    """What is left of ``clock``'s budget, for code that takes a :class:`Budget`."""
    budget = clock.budget
    nodes = None if budget.max_nodes is None else max(0, budget.max_nodes - clock.nodes)
    seconds = None
    if budget.max_seconds is not None:
        seconds = max(0.0, budget.max_seconds - (time.perf_counter() - clock.started))
    return Budget(nodes, seconds)


__all__ = ["BudgetExhausted", "as_clock", "remaining", "require", "spend"]
