"""Enumerating plans: every plan within a cost bound, or the ``k`` cheapest plans.

Why: contrastive explanations ("why not this other plan?") and plan-space summaries need
more than one plan, with a definite answer to "are these all of them?".

**What counts as a plan here.** A plan is a sequence of actions, executable from the
initial state, that ends in a goal state *and does not pass through a goal state before
its end* (stopping at the first goal reached; without that rule every plan could be
extended by any goal-to-goal detour). Plans may revisit non-goal states: they are action
sequences, not simple paths. Two plans are the same when their action sequences (indices
into ``task.actions``) are equal.

**Order.** Plans are returned by increasing cost; plans of equal cost by the
lexicographic order of their action-index sequences (a proper prefix comes first). The
order is a property of the task, not of the search, so it is deterministic.

**Finiteness.** A cycle of zero-cost actions through states that lie on some plan within
the bound yields infinitely many plans of equal cost. When the enumeration meets such a
cycle among the plans it has to list, it raises :class:`~xaip.errors.InputError`
(tasks whose actions all cost more than 0 never do).

**How.** For a bound ``B``: (1) a Dijkstra exploration from the initial state collects
every state ``s`` with ``g(s) + h(s) <= B`` (``h`` = LM-cut, admissible) and the
transitions between them, goal states being sinks; (2) a backward Dijkstra from the goal
states over that graph gives the exact goal distance ``h*`` of every state that lies on a
plan within ``B``; (3) a best-first search over *paths*, ordered by ``(g + h*, actions)``,
pops the plans in the order above. With the exact ``h*`` every path it extends leads to a
plan, so the work is proportional to the output. The ``k`` cheapest plans are found by
running this with ``B`` = the optimal cost and raising ``B`` to the next candidate cost
until ``k`` plans are in (or none is left).
"""

from __future__ import annotations

import heapq
import math
from typing import NamedTuple

from xaip.errors import InputError
from xaip.planning.heuristics.lmcut import LMCut
from xaip.planning.search.astar import best_first
from xaip.planning.search.result import BUDGET_EXHAUSTED, UNSOLVABLE, PlanSet
from xaip.planning.search.successors import Successors
from xaip.planning.task import Task
from xaip.runtime import Budget, BudgetClock, Status

INF = math.inf
COMPLETE = "complete"
TRUNCATED = "truncated"


class _Exhausted(Exception):
    """The budget ran out."""


class _Listing(NamedTuple):
    more: bool  # stopped at the limit with paths (hence plans) left
    next_bound: float  # cheapest f pruned by the bound (inf: none)


# (f, actions, g, state, states since the last positive-cost action, closes a zero-cost cycle)
_Node = tuple[int, tuple[int, ...], int, int, frozenset[int], bool]


class _Enumerator:
    """State shared by the rounds of one enumeration call (heuristic cache, counters)."""

    def __init__(self, task: Task, clock: BudgetClock) -> None:
        if any(action.cost < 0 for action in task.actions):
            raise InputError("plan enumeration needs non-negative action costs")
        self.task = task
        self.clock = clock
        self.succ = Successors(task)
        self._lmcut = LMCut(task)
        self._h: dict[int, float] = {}
        self.expanded = 0

    def h(self, state: int) -> float:
        value = self._h.get(state)
        if value is None:
            value = self._h[state] = self._lmcut(state)
        return value

    def charge(self) -> None:
        if not self.clock.charge(1):
            raise _Exhausted
        self.expanded += 1

    def optimal_cost(self) -> int | None:
        """The cost of an optimal plan (A* with LM-cut), ``None`` if there is no plan."""
        outcome = best_first(
            self.task, self.h, self.clock, "astar", admissible=True, successors=self.succ
        )
        self.expanded += outcome.expanded
        if outcome.status == BUDGET_EXHAUSTED:
            raise _Exhausted
        if outcome.status == UNSOLVABLE:
            return None
        actions = self.task.actions
        return sum(actions[a].cost for a in outcome.plan)

    def goal_distances(self, bound: int) -> tuple[dict[int, int], float]:
        """Exact goal distances of the states on plans of cost ``<= bound``, and the
        cheapest ``g + h`` pruned by the bound (``inf`` when nothing was pruned)."""
        task = self.task
        goal, goal_neg = task.goal, task.goal_neg
        succ = self.succ
        root = task.init
        pruned = INF
        h_root = self.h(root)
        if h_root == INF:
            return {}, INF
        if h_root > bound:
            return {}, h_root
        best_g: dict[int, int] = {root: 0}
        closed: set[int] = set()
        goals: list[int] = []
        reverse: dict[int, list[tuple[int, int]]] = {}
        heap: list[tuple[int, int]] = [(0, root)]
        while heap:
            g, state = heapq.heappop(heap)
            if state in closed:
                continue
            closed.add(state)
            if state & goal == goal and not state & goal_neg:
                goals.append(state)
                continue
            self.charge()
            for _, child, cost in succ(state):
                new_g = g + cost
                h = self.h(child)
                if h == INF:
                    continue
                if new_g + h > bound:
                    pruned = min(pruned, new_g + h)
                    continue
                reverse.setdefault(child, []).append((state, cost))
                if new_g < best_g.get(child, INF):
                    best_g[child] = new_g
                    heapq.heappush(heap, (new_g, child))
        distance: dict[int, int] = {}
        back: list[tuple[int, int]] = [(0, state) for state in sorted(goals)]
        while back:
            d, state = heapq.heappop(back)
            if state in distance:
                continue
            distance[state] = d
            for before, cost in reverse.get(state, ()):
                if before not in distance:
                    heapq.heappush(back, (d + cost, before))
        return distance, pruned

    def list_plans(
        self,
        bound: int,
        distance: dict[int, int],
        limit: int | None,
        plans: list[tuple[int, ...]],
        costs: list[int],
    ) -> _Listing:
        """Append the plans of cost ``<= bound`` to ``plans``/``costs`` in (cost, action
        sequence) order, at most ``limit`` (appending as found keeps a correct prefix when
        the budget runs out)."""
        task = self.task
        goal, goal_neg = task.goal, task.goal_neg
        succ = self.succ
        root = task.init
        pruned = INF
        if root not in distance:
            return _Listing(False, pruned)
        heap: list[_Node] = [(distance[root], (), 0, root, frozenset((root,)), False)]
        while heap:
            if limit is not None and len(plans) >= limit:
                return _Listing(True, pruned)
            f, actions, g, state, segment, cyclic = heapq.heappop(heap)
            if cyclic:
                raise InputError(
                    f"infinitely many plans of cost {f}: a cycle of zero-cost actions "
                    f"returns to state {{{task.format_state(state)}}}"
                )
            if state & goal == goal and not state & goal_neg:
                plans.append(actions)
                costs.append(g)
                continue
            self.charge()
            for action, child, cost in succ(state):
                rest = distance.get(child)
                if rest is None:
                    continue
                new_g = g + cost
                if new_g + rest > bound:
                    pruned = min(pruned, new_g + rest)
                    continue
                if cost:
                    next_segment, loops = frozenset((child,)), False
                else:
                    next_segment, loops = segment | {child}, child in segment
                heapq.heappush(
                    heap, (new_g + rest, (*actions, action), new_g, child, next_segment, loops)
                )
        return _Listing(False, pruned)


def _result(
    task: Task,
    status: str,
    plans: list[tuple[int, ...]],
    costs: list[int],
    expanded: int,
    clock: BudgetClock,
    bound: int | None,
) -> PlanSet:
    actions = task.actions
    return PlanSet(
        status=Status(status),
        plans=tuple(tuple(actions[a] for a in plan) for plan in plans),
        costs=tuple(costs),
        expanded=expanded,
        seconds=clock.elapsed(),
        bound=bound,
    )


def all_plans(
    task: Task,
    cost_bound: int | None,
    budget: Budget | None = None,
    max_plans: int | None = None,
) -> PlanSet:
    """Every plan of cost ``<= cost_bound`` (inclusive), cheapest first.

    ``cost_bound=None`` means the optimal cost, i.e. all optimal plans. With ``max_plans``
    the first ``max_plans`` plans in the documented order are returned and the status is
    ``"truncated"`` if there are more. On budget exhaustion, the plans found so far are a
    correct prefix of the answer. Raises :class:`InputError` when infinitely many plans
    (a zero-cost cycle) would have to be listed.
    """
    clock = (budget or Budget()).start()
    enumerator = _Enumerator(task, clock)
    plans: list[tuple[int, ...]] = []
    costs: list[int] = []
    try:
        if cost_bound is None:
            cost_bound = enumerator.optimal_cost()
            if cost_bound is None:
                return _result(task, COMPLETE, [], [], enumerator.expanded, clock, None)
        distance, _ = enumerator.goal_distances(cost_bound)
        listing = enumerator.list_plans(cost_bound, distance, max_plans, plans, costs)
    except _Exhausted:
        return _result(task, BUDGET_EXHAUSTED, plans, costs, enumerator.expanded, clock, cost_bound)
    status = TRUNCATED if listing.more else COMPLETE
    return _result(task, status, plans, costs, enumerator.expanded, clock, cost_bound)


def top_k_plans(task: Task, k: int, budget: Budget | None = None) -> PlanSet:
    """The ``k`` cheapest plans (all plans if fewer exist), cheapest first.

    Status ``"complete"`` means the answer is definitive. On budget exhaustion the plans
    are those known to be among the cheapest, in order (possibly none).
    """
    if k < 0:
        raise InputError(f"k must be at least 0, not {k}")
    clock = (budget or Budget()).start()
    enumerator = _Enumerator(task, clock)
    # Every round lists the plans within its bound from scratch; the plans of the previous
    # (complete) round and those of the current one are prefixes of the same order.
    best: list[tuple[int, ...]] = []
    best_costs: list[int] = []
    plans: list[tuple[int, ...]] = []
    costs: list[int] = []
    bound: int | None = None
    if k == 0:
        return _result(task, COMPLETE, [], [], 0, clock, None)
    try:
        bound = enumerator.optimal_cost()
        while bound is not None:
            distance, pruned = enumerator.goal_distances(bound)
            plans, costs = [], []
            listing = enumerator.list_plans(bound, distance, k, plans, costs)
            best, best_costs = plans, costs
            if len(best) >= k:
                break
            following = min(pruned, listing.next_bound)
            if following == INF:
                break
            bound = int(following)
    except _Exhausted:
        if len(plans) > len(best):
            best, best_costs = plans, costs
        return _result(task, BUDGET_EXHAUSTED, best, best_costs, enumerator.expanded, clock, bound)
    return _result(task, COMPLETE, best, best_costs, enumerator.expanded, clock, bound)
