"""The independent checker of explicable plans: ``check(problem, result) -> CheckReport``.

What it does, and what it shares with the planner:

* the plan is validated on the *lifted* robot model (and, when the result claims a cost in
  the person's model, on the lifted person's model) with :func:`xaip.planning.validate`,
  which shares nothing with grounding or search; the costs must match the claims;
* the person's expected plans are listed again by a plain depth-first search (optimal cost
  from a uniform-cost search by scanning the task's actions), not by the LM-cut based plan
  enumeration the planner used — unless the caller gave the expected set, which it then
  shares;
* minimality: every robot plan within the bound is listed by the same kind of depth-first
  search and scored; no plan may have a lower ``(IE, robot cost)`` than the answer. For the
  cost distance without a robot cost bound, the search covers every plan valid in both
  models whose cost in the person's model is at most the answer's (all competitors), and an
  answer with infinite IE is checked by a breadth-first reachability over product states.

Shared with the planner: the grounded tasks and the distance functions of
:mod:`xaip.explicable.distances` (hand-checked in the tests). The depth-first search stops
after ``limit`` plan prefixes; it then answers ``ok=None`` (undecided).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator, Sequence

from xaip.contract import CheckReport
from xaip.explicable.distances import DistanceParams, trace_distance, trace_of
from xaip.explicable.problem import ExplicableProblem, ground_plan
from xaip.explicable.results import ExplicablePlan
from xaip.planning.plans import PlanStep, parse_plan, validate
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Status

INF = math.inf


class _Undecided(Exception):
    """The checker's own search limit ran out."""


def optimal_cost(task: Task, limit: int) -> int | None:
    """Uniform-cost search by scanning every action (no heuristic, no successor index)."""
    queue = [(0, task.init)]
    seen: dict[int, int] = {task.init: 0}
    pops = 0
    while queue:
        g, state = heapq.heappop(queue)
        if g > seen.get(state, g):
            continue
        if task.is_goal(state):
            return g
        pops += 1
        if pops > limit:
            raise _Undecided
        for action in task.applicable(state):
            child, cost = action.apply(state), g + action.cost
            if cost < seen.get(child, cost + 1):
                seen[child] = cost
                heapq.heappush(queue, (cost, child))
    return None


def plans_within(task: Task, bound: float, limit: int,
                 cost_of: Callable[[GroundAction], int] | None = None
                 ) -> Iterator[tuple[GroundAction, ...]]:
    """Every plan whose cost (``cost_of``, default the action costs) is ``<= bound``, ending
    at the first goal state; a depth-first search over action sequences."""
    price = cost_of or (lambda a: a.cost)
    if any(price(a) <= 0 for a in task.actions):
        raise _Undecided  # zero-cost actions: sequences are unbounded
    counter = [0]

    def extend(state: int, prefix: list[GroundAction], cost: int
               ) -> Iterator[tuple[GroundAction, ...]]:
        if task.is_goal(state):
            yield tuple(prefix)
            return
        counter[0] += 1
        if counter[0] > limit:
            raise _Undecided
        for action in task.applicable(state):
            step = cost + price(action)
            if step <= bound:
                prefix.append(action)
                yield from extend(action.apply(state), prefix, step)
                prefix.pop()

    yield from extend(task.init, [], 0)


def _steps(plan: Sequence[str]) -> tuple[PlanStep, ...]:
    return parse_plan("\n".join(f"({name})" for name in plan))


def check(problem: ExplicableProblem, result: ExplicablePlan,
          expected: Sequence[Sequence[GroundAction]] | None = None,
          mapping: Callable[[float], float] = lambda d: d,
          weights: DistanceParams = None, limit: int = 200_000) -> CheckReport:
    """Confirm ``result``: valid plans with the claimed costs, and no robot plan within the
    bound with a lower (IE, robot cost). See the module docstring for what is shared."""
    if not result.status.finished:
        return CheckReport(None, "the answer is unfinished")
    try:
        return _check(problem, result, expected, mapping, weights, limit)
    except _Undecided:
        return CheckReport(None, f"the checker's own search passed {limit} nodes")


def _check(problem: ExplicableProblem, result: ExplicablePlan,
           expected: Sequence[Sequence[GroundAction]] | None,
           mapping: Callable[[float], float], weights: DistanceParams,
           limit: int) -> CheckReport:
    robot, human = problem.robot_task, problem.human_task
    if not result.plan:
        if result.status == Status.UNSOLVABLE and result.max_cost is not None:
            return _no_plan(robot, result.max_cost, limit)
        return CheckReport(False, "the answer has no plan")
    steps = _steps(result.plan)
    in_robot = validate(problem.robot_domain, problem.robot_problem, steps)
    if not in_robot.valid or in_robot.cost != result.robot_cost:
        return CheckReport(False, f"robot model: {in_robot.reason or 'cost differs'}")
    if result.max_cost is not None and (in_robot.cost or 0) > result.max_cost:
        return CheckReport(False, "the plan costs more than the bound")
    in_human = validate(problem.human_domain, problem.human_problem, steps)
    if in_human.valid != (result.human_cost is not None) or (
            in_human.valid and in_human.cost != result.human_cost):
        return CheckReport(False, "the cost in the person's model differs from the claim")
    if expected is None:
        best = optimal_cost(human, limit)
        expected = [] if best is None else list(plans_within(human, best, limit))
    score = _scorer(problem, result.distance, expected, mapping, weights)
    plan = ground_plan(robot, result.plan)
    assert plan is not None  # validated above
    claimed = INF if result.inexplicability is None else result.inexplicability
    own = score(plan)
    if not math.isclose(own, claimed, abs_tol=1e-9) and not (own == claimed == INF):
        return CheckReport(False, f"IE recomputed as {own}, the answer claims {claimed}")
    key = (claimed, result.robot_cost or 0)
    if result.distance == "cost" and result.max_cost is None and result.method == "product":
        return _cost_minimal(problem, result, key, score, limit)
    bound = result.max_cost if result.max_cost is not None else INF
    count = 0
    for other in plans_within(robot, bound, limit):
        count += 1
        if (score(other), sum(a.cost for a in other)) < key:
            return CheckReport(False, "a robot plan within the bound is more explicable or "
                                      f"cheaper: {' '.join(str(a) for a in other)}")
    return CheckReport(True, f"plan valid in the robot's model; {count} robot plans within "
                             f"cost {result.max_cost} listed by depth-first search; none "
                             "has a lower (IE, cost)")


def _scorer(problem: ExplicableProblem, distance: str,
            expected: Sequence[Sequence[GroundAction]], mapping: Callable[[float], float],
            weights: DistanceParams) -> Callable[[Sequence[GroundAction]], float]:
    human = problem.human_task
    plans = [ground_plan(human, p) for p in expected]
    costs = [sum(a.cost for a in p) for p in plans if p is not None]
    traces = [trace_of(human, p) for p in plans if p is not None]
    best = min(costs, default=None)

    def score(plan: Sequence[GroundAction]) -> float:
        if distance == "cost":
            mine = ground_plan(human, plan)
            if mine is None or best is None:
                return INF
            state = human.init
            for action in mine:
                state = action.apply(state)
            if not human.is_goal(state):
                return INF
            return mapping(float(sum(a.cost for a in mine) - best))
        if not traces:
            return INF
        own = trace_of(problem.robot_task, plan)
        return mapping(min(trace_distance(distance, own, t, weights) for t in traces))

    return score


def _cost_minimal(problem: ExplicableProblem, result: ExplicablePlan,
                  key: tuple[float, int], score: Callable[[Sequence[GroundAction]], float],
                  limit: int) -> CheckReport:
    """No robot plan valid in both models has a lower (person's cost, robot cost)."""
    robot, human = problem.robot_task, problem.human_task
    if result.human_cost is None:
        return _no_joint_plan(problem, limit)
    human_cost: dict[str, int] = {}
    for action in human.actions:
        human_cost.setdefault(action.name, action.cost)

    def price(action: GroundAction) -> int:
        return human_cost.get(action.name, 1)

    count = 0
    for other in plans_within(robot, result.human_cost, limit, price):
        value = score(other)
        if value == INF:
            continue
        count += 1
        if (value, sum(a.cost for a in other)) < key:
            return CheckReport(False, "a plan valid in both models is more explicable or "
                                      f"cheaper: {' '.join(str(a) for a in other)}")
    return CheckReport(True, f"plan valid in both models; {count} plans valid in both with "
                             f"person's cost <= {result.human_cost} listed by depth-first "
                             "search; none has a lower (IE, cost)")


def _no_joint_plan(problem: ExplicableProblem, limit: int) -> CheckReport:
    """Breadth-first reachability over product states: no state satisfies both goals."""
    robot, human = problem.robot_task, problem.human_task
    frontier = [(robot.init, human.init)]
    seen = set(frontier)
    while frontier:
        nxt: list[tuple[int, int]] = []
        for s_r, s_h in frontier:
            if robot.is_goal(s_r):
                if human.is_goal(s_h):
                    return CheckReport(False, "a plan valid in both models exists")
                continue
            for action in robot.applicable(s_r):
                variant = next((h for h in human.applicable(s_h) if h.name == action.name),
                               None)
                if variant is None:
                    continue
                child = (action.apply(s_r), variant.apply(s_h))
                if child not in seen:
                    seen.add(child)
                    nxt.append(child)
                    if len(seen) > limit:
                        raise _Undecided
        frontier = nxt
    return CheckReport(True, "no plan is valid in both models (breadth-first reachability)")


def _no_plan(robot: Task, bound: int, limit: int) -> CheckReport:
    best = optimal_cost(robot, limit)
    if best is None or best > bound:
        return CheckReport(True, f"no robot plan costs at most {bound} (uniform-cost search)")
    return CheckReport(False, f"a robot plan of cost {best} is within the bound {bound}")

