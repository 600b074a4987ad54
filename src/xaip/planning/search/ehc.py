"""Enforced hill-climbing (Hoffmann & Nebel 2001), with FF's helpful actions and fallback.

Why: EHC is the fastest way to a (non-optimal) plan on many benchmarks: from the current
state, a breadth-first search looks for any state with a strictly better heuristic value,
commits to the path found and starts again from there.

* With h_FF, each breadth-first search first only follows *helpful actions* (relaxed-plan
  actions applicable in the state being expanded); if that finds no better state it is
  repeated with all actions.
* EHC is incomplete (it can commit into a dead end, or fail to escape a plateau), so when
  it fails the search falls back to complete greedy best-first search from the initial
  state, as FF does. Only that fallback may answer "unsolvable".
* A goal state is always accepted, even when the current value is already 0 (possible with
  zero-cost actions).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

from xaip.planning.heuristics.relaxation import HFF
from xaip.planning.search.astar import best_first
from xaip.planning.search.common import BUDGET_EXHAUSTED, SOLVED, Outcome, trace_back
from xaip.planning.search.successors import Successors
from xaip.planning.task import Task
from xaip.runtime import BudgetClock

INF = math.inf


class _Exhausted(Exception):
    """The budget ran out inside an improvement search."""


class _Climber:
    def __init__(
        self,
        task: Task,
        heuristic: Callable[[int], float],
        clock: BudgetClock,
        cost_bound: int | None,
        admissible: bool,
        succ: Successors,
    ) -> None:
        self.task = task
        self.heuristic = heuristic
        self.ff = heuristic if isinstance(heuristic, HFF) else None
        self.clock = clock
        self.bound = INF if cost_bound is None else cost_bound
        self.prune_h = admissible and cost_bound is not None
        self.succ = succ
        self.expanded = 0
        self.generated = 0
        self.cache: dict[int, tuple[float, frozenset[int] | None]] = {}

    def evaluate(self, state: int) -> tuple[float, frozenset[int] | None]:
        """The heuristic value and, with h_FF, the helpful actions of ``state``."""
        known = self.cache.get(state)
        if known is not None:
            return known
        if self.ff is None:
            result: tuple[float, frozenset[int] | None] = (self.heuristic(state), None)
        else:
            value, plan = self.ff.evaluate(state)
            result = (value, frozenset(plan) if plan is not None else None)
        self.cache[state] = result
        return result

    def is_goal(self, state: int) -> bool:
        return self.task.is_goal(state)

    def improve(
        self, root: int, g_root: int, h_root: float, helpful_only: bool
    ) -> tuple[int, int, float, tuple[int, ...]] | None:
        """Breadth-first from ``root`` to the first goal or state with ``h < h_root``."""
        parent: dict[int, tuple[int, int] | None] = {root: None}
        queue: deque[tuple[int, int]] = deque([(root, g_root)])
        bound = self.bound
        while queue:
            state, g = queue.popleft()
            if not self.clock.charge(1):
                raise _Exhausted
            self.expanded += 1
            helpful = self.evaluate(state)[1] if helpful_only else None
            for action, child, cost in self.succ(state):
                if helpful is not None and action not in helpful:
                    continue
                self.generated += 1
                if child in parent:
                    continue
                new_g = g + cost
                if new_g >= bound:
                    continue
                h, _ = self.evaluate(child)
                if h == INF or (self.prune_h and new_g + h >= bound):
                    continue
                parent[child] = (state, action)
                if h < h_root or self.is_goal(child):
                    return child, new_g, h, trace_back(parent, child)
                queue.append((child, new_g))
        return None

    def climb(self) -> tuple[int, ...] | None:
        """The plan found by hill-climbing, or ``None`` when it got stuck."""
        state, g = self.task.init, 0
        h = self.evaluate(state)[0]
        if h == INF or g >= self.bound or (self.prune_h and h >= self.bound):
            return None
        plan: list[int] = []
        while not self.is_goal(state):
            step = None
            if self.ff is not None:
                step = self.improve(state, g, h, helpful_only=True)
            if step is None:
                step = self.improve(state, g, h, helpful_only=False)
            if step is None:
                return None
            state, g, h, path = step
            plan.extend(path)
        return tuple(plan)


def enforced_hill_climbing(
    task: Task,
    heuristic: Callable[[int], float],
    clock: BudgetClock,
    cost_bound: int | None = None,
    admissible: bool = False,
    successors: Successors | None = None,
) -> Outcome:
    """EHC from the initial state, falling back to greedy best-first search on failure."""
    succ = successors or Successors(task)
    climber = _Climber(task, heuristic, clock, cost_bound, admissible, succ)
    try:
        plan = climber.climb()
    except _Exhausted:
        return Outcome(BUDGET_EXHAUSTED, (), climber.expanded, climber.generated)
    if plan is not None:
        return Outcome(SOLVED, plan, climber.expanded, climber.generated)
    cached = climber.cache

    def cached_h(state: int) -> float:
        known = cached.get(state)
        return known[0] if known is not None else heuristic(state)

    fallback = best_first(task, cached_h, clock, "gbfs", cost_bound, admissible, successors=succ)
    return Outcome(
        fallback.status,
        fallback.plan,
        climber.expanded + fallback.expanded,
        climber.generated + fallback.generated,
    )
