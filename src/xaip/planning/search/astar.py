"""The best-first family: A*, uniform-cost search and greedy best-first search.

Why one loop: the three differ only in the priority (``g + h``, ``g`` or ``h``) and in
whether a cheaper path to a known state re-opens it. Ties are broken on ``h`` (prefer
states closer to the goal) and then on an insertion counter (first in, first out), so
the same task always yields the same plan.

* A* re-opens states reached more cheaply. With an admissible but inconsistent heuristic
  (LM-cut is one) that is what keeps the first goal popped optimal.
* Uniform-cost search orders by ``g`` alone; a heuristic, if given, is used only to prune
  dead ends (``inf``) and, when admissible, nodes that cannot beat the cost bound.
* Greedy best-first search never re-opens unless a cost bound is set: then a state first
  reached too expensively must be retried on a cheaper path, or "no plan below the bound"
  would be claimed wrongly.

Cost bound ``c``: nodes with ``g >= c`` are pruned, and with an admissible heuristic also
nodes with ``g + h >= c``; a plan found therefore costs less than ``c``, and an exhausted
open list proves that no such plan exists.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable

from xaip.planning.search.common import BUDGET_EXHAUSTED, SOLVED, UNSOLVABLE, Outcome, trace_back
from xaip.planning.search.successors import Successors
from xaip.planning.task import Task
from xaip.runtime import BudgetClock

INF = math.inf

#: priority weights (on g, on h) and whether cheaper paths always re-open a state
MODES: dict[str, tuple[int, int, bool]] = {
    "astar": (1, 1, True),
    "ucs": (1, 0, True),
    "gbfs": (0, 1, False),
}


def best_first(
    task: Task,
    heuristic: Callable[[int], float],
    clock: BudgetClock,
    mode: str = "astar",
    cost_bound: int | None = None,
    admissible: bool = False,
    successors: Successors | None = None,
    start: int | None = None,
) -> Outcome:
    """Run the best-first search ``mode`` ("astar", "ucs" or "gbfs") from ``start``/init."""
    g_weight, h_weight, reopen = MODES[mode]
    reopen = reopen or cost_bound is not None
    succ = successors or Successors(task)
    goal, goal_neg = task.goal, task.goal_neg
    bound = INF if cost_bound is None else cost_bound
    prune_h = admissible and cost_bound is not None
    root = task.init if start is None else start

    h_cache: dict[int, float] = {}
    h_root = heuristic(root)
    h_cache[root] = h_root
    if h_root == INF or bound <= 0 or (prune_h and h_root >= bound):
        return Outcome(UNSOLVABLE)
    best_g: dict[int, int] = {root: 0}
    parent: dict[int, tuple[int, int] | None] = {root: None}
    counter = 0
    heap: list[tuple[float, float, int, int, int]] = [(h_weight * h_root, h_root, 0, 0, root)]
    pop = heapq.heappop
    push = heapq.heappush
    expanded = generated = 0
    while heap:
        _, _, _, g, state = pop(heap)
        if g > best_g[state]:
            continue  # a cheaper copy was pushed after this one
        if state & goal == goal and not state & goal_neg:
            return Outcome(SOLVED, trace_back(parent, state), expanded, generated)
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
            h = h_cache.get(child)
            if h is None:
                h = heuristic(child)
                h_cache[child] = h
            if h == INF or (prune_h and new_g + h >= bound):
                continue
            best_g[child] = new_g
            parent[child] = (state, action)
            counter += 1
            push(heap, (g_weight * new_g + h_weight * h, h, counter, new_g, child))
    return Outcome(UNSOLVABLE, (), expanded, generated)
