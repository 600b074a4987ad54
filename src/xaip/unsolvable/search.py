"""Deciding solvability: a uniform-cost search that, when it finds no plan, has seen every
reachable state and keeps which goal literals each one satisfies.

Why one exhaustive search: whether a subset of the goal has a plan is exactly whether some
reachable state satisfies it, so the set of goal masks of the reachable states answers every
core question afterwards without searching again.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from fractions import Fraction

from xaip.planning.semantics import action_cost
from xaip.planning.task import GroundAction, Task
from xaip.runtime.budget import BudgetClock
from xaip.runtime.progress import Progress, report
from xaip.unsolvable.goals import GoalMasks


@dataclass(frozen=True)
class Exploration:
    """What the search established. ``plan`` is a cheapest plan when the task has one;
    otherwise ``masks`` holds the goal mask of every reachable state (``complete`` says
    the search saw them all)."""

    plan: tuple[GroundAction, ...] | None
    cost: int | Fraction
    masks: frozenset[int]
    reached: int  # every fact true in some expanded state
    complete: bool
    expanded: int
    states: int


def explore(task: Task, goals: GoalMasks, full: int, clock: BudgetClock,
            progress: Progress | None = None) -> Exploration:
    """Uniform-cost search from ``task.init`` for a state whose goal mask is ``full``."""
    counter = itertools.count()
    start = task.init
    best: dict[int, int | Fraction] = {start: 0}
    parent: dict[int, tuple[int, GroundAction] | None] = {start: None}
    frontier: list[tuple[int | Fraction, int, int]] = [(0, next(counter), start)]
    closed: set[int] = set()
    masks: set[int] = set()
    reached = 0
    expanded = 0
    while frontier:
        cost, _, state = heapq.heappop(frontier)
        if state in closed:
            continue
        closed.add(state)
        mask = goals.of(state)
        masks.add(mask)
        reached |= state
        if mask == full:
            return Exploration(_path(parent, state), cost, frozenset(masks), reached, True,
                               expanded, len(best))
        if not clock.charge():
            return Exploration(None, 0, frozenset(masks), reached, False, expanded,
                               len(best))
        expanded += 1
        if expanded % 2000 == 0:
            report(progress, "explore", expanded, message=f"{len(best)} states")
        for action in task.applicable(state):
            child = action.apply(state)
            price = cost + action_cost(action.cost, task.has_costs)
            if child not in best or price < best[child]:
                best[child] = price
                parent[child] = (state, action)
                heapq.heappush(frontier, (price, next(counter), child))
    return Exploration(None, 0, frozenset(masks), reached, True, expanded, len(best))


def _path(parent: dict[int, tuple[int, GroundAction] | None],
          state: int) -> tuple[GroundAction, ...]:
    steps: list[GroundAction] = []
    link = parent[state]
    while link is not None:
        state, action = link
        steps.append(action)
        link = parent[state]
    return tuple(reversed(steps))
