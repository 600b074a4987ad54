"""Pieces shared by the searches: the raw outcome and plan reconstruction.

Why a raw outcome: the search loops work on action indices and count effort; turning
that into a :class:`~xaip.planning.search.result.PlanResult` (actions, cost, seconds,
optimality) happens once, in :func:`~xaip.planning.search.solve`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xaip.planning.search.result import BUDGET_EXHAUSTED, SOLVED, UNSOLVABLE

__all__ = ["BUDGET_EXHAUSTED", "SOLVED", "UNSOLVABLE", "Outcome", "trace_back"]


@dataclass(frozen=True)
class Outcome:
    """A search's answer in action indices (``plan`` is empty unless ``status`` is solved)."""

    status: str
    plan: tuple[int, ...] = ()
    expanded: int = 0
    generated: int = 0


def trace_back(parent: dict[int, tuple[int, int] | None], state: int) -> tuple[int, ...]:
    """Action indices leading from the root (whose parent is ``None``) to ``state``."""
    plan: list[int] = []
    link = parent[state]
    while link is not None:
        state, action = link
        plan.append(action)
        link = parent[state]
    plan.reverse()
    return tuple(plan)
