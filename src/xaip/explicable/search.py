"""Reconciliation search (X02, book ch. 3 Algorithm 1): anytime, cost-bounded search for
the most explicable robot plan, guided by the distance to an *explicable trace*.

Why not stop at the first plan: inexplicability is not monotone along a plan (an action
can make a surprising prefix sensible again, or a sensible one surprising), so the first
plan found need not be the most explicable. The search keeps going, records every plan it
completes with its IE, and returns the best one, lowest IE then lowest robot cost; the
best-so-far only ever improves (``improvements`` lists each improvement with its time).

How: best-first over robot plan *prefixes* (no duplicate-state pruning, so that every
plan within ``max_cost`` is reached when the search runs to exhaustion — the book's
"restart" semantics), ordered by ``h(v) = δ(π_v, π^E_v)``, where the explicable trace
``π^E_v`` is the cheapest plan of the person's model from the initial state to a state
with the facts of ``s_v`` (cached per state), falling back to the prefix of equal length
of an expected plan when the person's model cannot reach ``s_v``. For the cost distance
``h`` is the prefix's extra cost in the person's model over ``π^E_v``'s cost.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import replace

from xaip.explicable.distances import DistanceParams, trace_distance, trace_of
from xaip.explicable.measures import ExpectedPlansUnfinished, Scorer, expected_plans, ranked
from xaip.explicable.planner import checked, default_bound, expected_cap
from xaip.explicable.problem import ExplicableProblem, ground_plan
from xaip.explicable.results import ExplicablePlan
from xaip.planning.search.successors import Successors
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock, as_clock
from xaip.runtime.progress import Progress, report

INF = math.inf


class _Traces:
    """Explicable traces ``π^E_v`` in the person's model, by uniform-cost search, cached."""

    def __init__(self, problem: ExplicableProblem, expected: tuple[tuple[GroundAction, ...], ...]
                 ) -> None:
        self.robot, self.human = problem.robot_task, problem.human_task
        self.expected = expected
        self.cache: dict[int, tuple[GroundAction, ...] | None] = {}
        self.succ = Successors(self.human)

    def to(self, robot_state: int, length: int, clock: BudgetClock
           ) -> tuple[GroundAction, ...] | None:
        if robot_state not in self.cache:
            target = self.human.state_of(self.robot.true_facts(robot_state))
            self.cache[robot_state] = _cheapest_to(self.human, self.succ, target, clock)
        found = self.cache[robot_state]
        if found is None and self.expected:
            return self.expected[0][:length]
        return found


def _cheapest_to(task: Task, succ: Successors, target: int, clock: BudgetClock
                 ) -> tuple[GroundAction, ...] | None:
    queue = [(0, 0, task.init)]
    parent: dict[int, tuple[int, int] | None] = {task.init: None}
    best = {task.init: 0}
    counter = 0
    while queue:
        g, _, state = heapq.heappop(queue)
        if g > best[state]:
            continue
        if state & target == target:
            plan = []
            link = parent[state]
            while link is not None:
                state, index = link
                plan.append(task.actions[index])
                link = parent[state]
            return tuple(reversed(plan))
        clock.tick()
        for index, child, cost in succ(state):
            if g + cost < best.get(child, INF):
                best[child] = g + cost
                parent[child] = (state, index)
                counter += 1
                heapq.heappush(queue, (g + cost, counter, child))
    return None


def reconciliation_search(
    problem: ExplicableProblem,
    distance: str = "cost",
    max_cost: int | None = None,
    mapping: str | Callable[[float], float] = "identity",
    weights: DistanceParams = None,
    budget: Budget | BudgetClock | None = None,
    progress: Progress | None = None,
    check: bool = True,
) -> ExplicablePlan:
    """The most explicable robot plan within ``max_cost`` (default: twice the robot's
    optimum), found by anytime reconciliation search; on budget exhaustion the best plan
    completed so far (status ``budget_exhausted``, never verified)."""
    clock = as_clock(budget)
    try:
        listed = expected_plans(problem, clock.remaining(), expected_cap(distance))
    except ExpectedPlansUnfinished:
        return _empty(distance, max_cost, Status.BUDGET_EXHAUSTED, clock, {})
    clock.charge(listed.expanded)
    scorer = Scorer(problem, distance, listed.plans, mapping, weights)
    bound = max_cost
    if bound is None:
        bound = default_bound(problem, clock)
        if bound == -1:
            return _empty(distance, None, Status.BUDGET_EXHAUSTED, clock, {})
        if bound is None:
            empty = _empty(distance, None, Status.UNSOLVABLE, clock, {})
            return checked(problem, empty, None, scorer, weights, budget) if check else empty
    robot = problem.robot_task
    traces = _Traces(problem, scorer.expected)
    succ = Successors(robot)

    def h(prefix: tuple[GroundAction, ...], state: int) -> float:
        explicable = traces.to(state, len(prefix), clock)
        if explicable is None:
            return INF
        if distance == "cost":
            mine = ground_plan(problem.human_task, prefix)
            if mine is None:
                return INF
            return float(sum(a.cost for a in mine) - sum(a.cost for a in explicable))
        own = trace_of(robot, prefix, prefix=True)
        other = trace_of(problem.human_task, explicable, prefix=True)
        return trace_distance(distance, own, other, scorer.weights)

    counter = 0
    queue: list[tuple[float, int, int, int, tuple[GroundAction, ...]]] = [
        (h((), robot.init), 0, 0, robot.init, ())]
    best: tuple[tuple[float, int], tuple[GroundAction, ...]] | None = None
    improvements: list[tuple[float, float | None, int]] = []
    solutions = expanded = 0
    status = Status.FOUND
    while queue:
        _, _, g, state, prefix = heapq.heappop(queue)
        if robot.is_goal(state):
            solutions += 1
            scored = scorer.score(prefix)
            key = (ranked(scored.inexplicability), g)
            if best is None or key < best[0]:
                best = (key, prefix)
                ie = None if key[0] == INF else key[0]
                improvements.append((clock.elapsed(), ie, g))
                report(progress, "reconciliation search", solutions, None,
                       f"better plan: IE {ie}, cost {g}")
            continue
        if not clock.charge():
            status = Status.BUDGET_EXHAUSTED
            break
        expanded += 1
        for index, child, cost in succ(state):
            if g + cost > bound:
                continue
            longer = (*prefix, robot.actions[index])
            counter += 1
            heapq.heappush(queue, (h(longer, child), counter, g + cost, child, longer))
    stats: dict[str, int | float] = {"expanded": expanded, "solutions": solutions,
                                     "traces": len(traces.cache)}
    if best is None:
        empty = _empty(distance, bound, status if status == Status.BUDGET_EXHAUSTED
                       else Status.UNSOLVABLE, clock, stats)
        empty = replace(empty, expected_count=len(scorer.expected))
        return checked(problem, empty, None, scorer, weights, budget) \
            if check and empty.status.finished else empty
    scored = scorer.score(best[1])
    nearest = None if scored.nearest is None else tuple(
        a.name for a in scorer.expected[scored.nearest])
    result = ExplicablePlan(
        status, tuple(a.name for a in best[1]), best[0][1], scored.human_cost,
        None if scored.inexplicability == INF else scored.inexplicability, distance,
        "search", bound, nearest, len(scorer.expected), solutions, clock.elapsed(), stats,
        improvements=tuple(improvements))
    if listed.status == Status.TRUNCATED:
        result = replace(result, stats={**result.stats, "expected_truncated": True})
    if check and status.finished:
        result = checked(problem, result, None, scorer, weights, budget)
    return result


def _empty(distance: str, bound: int | None, status: Status, clock: BudgetClock,
           stats: dict[str, int | float]) -> ExplicablePlan:
    return ExplicablePlan(status, (), None, None, None, distance, "search", bound, None, 0, 0,
                          clock.elapsed(), stats)
