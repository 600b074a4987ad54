"""Breadth-first search: shortest plans in number of actions.

Why keep it next to uniform-cost search: on unit-cost tasks (all actions equally costly)
it is optimal and cheaper, since a FIFO queue replaces the heap and the goal can be tested
when a state is generated rather than when it is expanded.

A heuristic, if given, only prunes: dead ends (``inf``) and, when admissible, nodes that
cannot beat the cost bound. With a cost bound on a task with different action costs, a
state reached again more cheaply is re-queued, so that "no plan below the bound" stays a
proof.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

from xaip.planning.search.common import BUDGET_EXHAUSTED, SOLVED, UNSOLVABLE, Outcome, trace_back
from xaip.planning.search.successors import Successors
from xaip.planning.task import Task
from xaip.runtime import BudgetClock

INF = math.inf


def uniform_costs(task: Task) -> bool:
    """True when every action costs the same, so the fewest actions is the cheapest plan."""
    return len({action.cost for action in task.actions}) <= 1


def breadth_first(
    task: Task,
    clock: BudgetClock,
    heuristic: Callable[[int], float] | None = None,
    cost_bound: int | None = None,
    admissible: bool = False,
    successors: Successors | None = None,
) -> Outcome:
    """Breadth-first search from the initial state with duplicate detection."""
    succ = successors or Successors(task)
    goal, goal_neg = task.goal, task.goal_neg
    bound = INF if cost_bound is None else cost_bound
    prune_h = heuristic is not None and admissible and cost_bound is not None
    reopen = cost_bound is not None and not uniform_costs(task)
    root = task.init
    h_cache: dict[int, float] = {}
    if heuristic is not None:
        h_root = h_cache[root] = heuristic(root)
        if h_root == INF or (prune_h and h_root >= bound):
            return Outcome(UNSOLVABLE)
    if bound <= 0:
        return Outcome(UNSOLVABLE)
    parent: dict[int, tuple[int, int] | None] = {root: None}
    if root & goal == goal and not root & goal_neg:
        return Outcome(SOLVED)
    best_g: dict[int, int] = {root: 0}
    queue: deque[tuple[int, int]] = deque([(root, 0)])
    expanded = generated = 0
    while queue:
        state, g = queue.popleft()
        if g > best_g[state]:
            continue
        if not clock.charge(1):
            return Outcome(BUDGET_EXHAUSTED, (), expanded, generated)
        expanded += 1
        for action, child, cost in succ(state):
            generated += 1
            new_g = g + cost
            if new_g >= bound:
                continue
            old_g = best_g.get(child)
            if old_g is not None and (not reopen or new_g >= old_g):
                continue
            if heuristic is not None:
                h = h_cache.get(child)
                if h is None:
                    h = h_cache[child] = heuristic(child)
                if h == INF or (prune_h and new_g + h >= bound):
                    continue
            best_g[child] = new_g
            parent[child] = (state, action)
            if child & goal == goal and not child & goal_neg:
                return Outcome(SOLVED, trace_back(parent, child), expanded, generated)
            queue.append((child, new_g))
    return Outcome(UNSOLVABLE, (), expanded, generated)
