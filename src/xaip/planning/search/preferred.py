"""Greedy best-first search with preferred operators (h_FF's helpful actions).

Why: plain GBFS expands every child in h order; on large satisficing tasks most children
of a state are pointless. FF's helpful actions — the relaxed plan's actions applicable in
the state — are usually the ones that make progress (Hoffmann & Nebel 2001). Like Fast
Downward's dual-queue search, children reached by a preferred operator of their parent
also enter a second open list, and the search alternates between the two lists:

* each list has a priority counter; a pop takes from the list with the lower counter
  (ties: the main list; an empty list is never chosen) and adds one to that counter;
* every newly evaluated state whose h beats the best so far lowers the preferred list's
  counter by :data:`BOOST`, so the search keeps to helpful actions while they make progress.

Completeness is kept (every child is in the main list). A state is expanded once per
``g`` (its copy in the other list is skipped), and under a cost bound states reached more
cheaply are re-opened, as in :func:`~xaip.planning.search.astar.best_first`. The C core
(``search.c``) mirrors this loop, so both engines expand the same states in the same order.
"""

from __future__ import annotations

import heapq
import math

from xaip.errors import InputError
from xaip.planning.heuristics.relaxation import HFF
from xaip.planning.search.common import BUDGET_EXHAUSTED, SOLVED, UNSOLVABLE, Outcome, trace_back
from xaip.planning.search.successors import Successors
from xaip.planning.task import Task
from xaip.runtime import BudgetClock

INF = math.inf

#: the preferred list's priority bonus on progress (Fast Downward's lazy-search default)
BOOST = 1000

_Entry = tuple[float, float, int, int, int]


def use_preferred(preferred: bool | None, search: str, heuristic: str) -> bool:
    """Preferred operators on? ``None``: exactly for GBFS with h_FF (the satisficing
    default), where they cost one relaxed plan per expansion and save many expansions."""
    fits = (search, heuristic) == ("gbfs", "hff")
    if preferred and not fits:
        raise InputError("preferred operators need the search gbfs with the heuristic hff")
    return fits if preferred is None else preferred


def greedy_preferred(
    task: Task,
    hff: HFF,
    clock: BudgetClock,
    cost_bound: int | None = None,
    successors: Successors | None = None,
) -> Outcome:
    """GBFS on h_FF with a second open list for children reached by helpful actions."""
    reopen = cost_bound is not None
    succ = successors or Successors(task)
    goal, goal_neg = task.goal, task.goal_neg
    bound = INF if cost_bound is None else cost_bound
    root = task.init
    h_cache: dict[int, float] = {}
    h_root = hff(root)
    h_cache[root] = h_root
    if h_root == INF or bound <= 0:
        return Outcome(UNSOLVABLE)
    best_h = h_root
    best_g: dict[int, int] = {root: 0}
    closed: dict[int, int] = {}  # g at expansion
    parent: dict[int, tuple[int, int] | None] = {root: None}
    lists: tuple[list[_Entry], list[_Entry]] = ([(h_root, h_root, 0, 0, root)], [])
    priority = [0, 0]
    counter = 0
    pop, push = heapq.heappop, heapq.heappush
    expanded = generated = 0
    while lists[0] or lists[1]:
        chosen = 1 if not lists[0] or (lists[1] and priority[1] < priority[0]) else 0
        priority[chosen] += 1
        _, _, _, g, state = pop(lists[chosen])
        if g > best_g[state] or closed.get(state, INF) <= g:
            continue  # a cheaper copy was pushed later, or the copy in the other list ran
        if state & goal == goal and not state & goal_neg:
            return Outcome(SOLVED, trace_back(parent, state), expanded, generated)
        if not clock.charge(1):
            return Outcome(BUDGET_EXHAUSTED, (), expanded, generated)
        expanded += 1
        closed[state] = g
        helpful = set(hff.relaxed_plan(state) or ())
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
                h = hff(child)
                h_cache[child] = h
                if h < best_h:
                    best_h = h
                    priority[1] -= BOOST
            if h == INF:
                continue
            best_g[child] = new_g
            parent[child] = (state, action)
            counter += 1
            entry = (h, h, counter, new_g, child)
            push(lists[0], entry)
            if action in helpful:
                push(lists[1], entry)
    return Outcome(UNSOLVABLE, (), expanded, generated)
