"""The independent checker of explicable plans: ``check(problem, result) -> CheckReport``.

It checks every claim of an :class:`~xaip.explicable.results.ExplicablePlan`:

* the plan is a plan of the robot's model with the claimed robot cost, within the bound,
  and (when a cost in the person's model is claimed) a plan of the person's model with
  that cost, or not a plan there when none is claimed -- both by the *lifted* plan
  validator :func:`xaip.planning.validate`, which shares nothing with grounding or search;
* its inexplicability, recomputed against the person's expected plans, which the checker
  lists itself (``C*`` by a uniform-cost search scanning the actions, every optimal plan
  by the bounded enumeration of :mod:`xaip.explicable.exact`), and the number of expected
  plans and the nearest one the answer names;
* that it is the most explicable, then cheapest, robot plan within the bound: the
  checker's own optimum (:func:`xaip.explicable.exact.best_key`) -- for the cost distance
  a bi-objective label-setting search over the product of the two models (exact under a
  robot cost bound and for any increasing mapping), for the trace distances every robot
  plan within the bound, listed by a depth-first enumeration pruned by exact goal
  distances -- must have the answer's ``(IE, robot cost)``; an answer without a plan must
  have no robot plan within the bound; the candidate count of ``enumerate`` is the number
  of robot plans within the bound.

Shared with the planner: the grounded tasks (the grounder prices actions by
:func:`xaip.planning.semantics.counts_action_costs`), the trace distances of
:mod:`xaip.explicable.distances` (hand-checked in the tests) and, when the caller gives
one, the expected set. The exact goal distances are computed by a forward sweep pruned by
the compiled core's LM-cut used as an untrusted oracle (:mod:`xaip.explicable.bounds`:
each value counts only after the core's certificate checker, which shares no code with
LM-cut, has verified its cuts; the planner's plan enumeration prunes by the pure-Python
LM-cut, another implementation). The checker runs under the budget it is given, started afresh
(the planner passes the user's budget); running out is "unverified: checker budget"
(:func:`xaip.contract.run_checker`), never a verdict.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

from xaip.contract import CheckReport, run_checker
from xaip.explicable.distances import DistanceParams, trace_distance, trace_of
from xaip.explicable.exact import (
    INF,
    InfinitelyManyPlans,
    Plan,
    best_key,
    cheapest,
    optimal_plans,
    plans_within,
    score_trace,
)
from xaip.explicable.problem import ExplicableProblem, ground_plan, plan_in
from xaip.explicable.results import ExplicablePlan
from xaip.planning.plans import PlanStep, parse_plan, validate
from xaip.planning.task import GroundAction
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock, as_clock

#: How many of the person's optimal plans the planner lists for the cost distance (whose
#: IE needs only ``C*``); above it the answer says "at least" (``expected_truncated``).
COST_EXPECTED_CAP = 1000


def fresh_clock(budget: Budget | BudgetClock | None) -> BudgetClock:
    """The user's budget started afresh for a checker (a running clock's budget too)."""
    if isinstance(budget, BudgetClock):
        return budget.budget.start()
    return as_clock(budget)


def strictly_increasing(mapping: Callable[[float], float]) -> bool:
    """Is ``mapping`` one of the built-in mappings (all strictly increasing on [0, inf))?"""
    from xaip.explicable.measures import MAPPINGS

    return any(mapping is known for known in MAPPINGS.values())


def steps_of(plan: Sequence[str]) -> tuple[PlanStep, ...]:
    """Step names as plan-file steps for the lifted validator (the empty plan is ``()``)."""
    return parse_plan("\n".join(f"({name})" for name in plan)) if plan else ()


def check(problem: ExplicableProblem, result: ExplicablePlan,
          expected: Sequence[Sequence[GroundAction]] | None = None,
          mapping: Callable[[float], float] | None = None,
          weights: DistanceParams = None,
          budget: Budget | BudgetClock | None = None) -> CheckReport:
    """Confirm every claim of ``result`` (see the module docstring) within ``budget``
    (unlimited when ``None``; a running clock's budget is started afresh)."""
    if not result.status.finished:
        return CheckReport(None, "the answer is unfinished")
    if mapping is None:
        from xaip.explicable.measures import MAPPINGS

        mapping = MAPPINGS["identity"]
    clock = fresh_clock(budget)
    chosen = mapping

    def run() -> CheckReport:
        try:
            return _check(problem, result, expected, chosen, weights, clock)
        except InfinitelyManyPlans as loop:
            return CheckReport(False, "infinitely many plans within the bound (a cycle of "
                                      f"zero-cost actions through {{{loop}}})")

    return run_checker(run)


def _expected(problem: ExplicableProblem, result: ExplicablePlan,
              given: Sequence[Sequence[GroundAction]] | None, clock: BudgetClock
              ) -> tuple[int | None, list[Plan], str | None]:
    """The person's optimum, the expected plans and, when the count claim fails, why."""
    human = problem.human_task
    if given is not None:
        grounded = [plan_in(human, p) for p in given]
        ok = [p for p in grounded if p is not None]
        if len(ok) != len(grounded):
            return None, [], "a given expected plan is not a plan of the person's model"
        best = min((sum(a.cost for a in p) for p in ok), default=None)
        return best, ok, None
    if result.distance == "cost":
        found = cheapest(human, clock)
        if found is None:
            return None, [], (None if result.expected_count == 0 else
                              "the person's model has no plan, the answer lists expected ones")
        listed = [p for p, _ in itertools.islice(plans_within(human, found[0], clock),
                                                 COST_EXPECTED_CAP + 1)]
        truncated = bool(result.stats.get("expected_truncated"))
        if truncated and len(listed) > result.expected_count:
            return found[0], listed, None
        if len(listed) != result.expected_count:
            return found[0], listed, (f"the person has {len(listed)} optimal plan(s), the "
                                      f"answer counts {result.expected_count}")
        return found[0], listed, None
    best, every = optimal_plans(human, clock)
    if len(every) != result.expected_count:
        return best, every, (f"the person has {len(every)} optimal plan(s), the answer "
                             f"scored against {result.expected_count}")
    return best, every, None


def _check(problem: ExplicableProblem, result: ExplicablePlan,
           given: Sequence[Sequence[GroundAction]] | None,
           mapping: Callable[[float], float], weights: DistanceParams,
           clock: BudgetClock) -> CheckReport:
    robot = problem.robot_task
    bound = INF if result.max_cost is None else result.max_cost
    if result.robot_cost is None:
        if result.status != Status.UNSOLVABLE:
            return CheckReport(False, f"no plan, but the status is {result.status}")
        found = cheapest(robot, clock)
        if found is None or found[0] > bound:
            where = "" if bound == INF else f" of cost <= {result.max_cost}"
            return CheckReport(True, f"the robot has no plan{where} (uniform-cost search)")
        return CheckReport(False, f"the robot has a plan of cost {found[0]} within the bound")
    if result.distance != "cost" and bound == INF:
        return CheckReport(False, "a trace distance was used without a robot cost bound")
    steps = steps_of(result.plan)
    in_robot = validate(problem.robot_domain, problem.robot_problem, steps)
    if not in_robot.valid or in_robot.cost != result.robot_cost:
        return CheckReport(False, f"robot model: {in_robot.reason or 'the cost differs'}")
    if in_robot.cost is not None and in_robot.cost > bound:
        return CheckReport(False, "the plan costs more than the bound")
    in_human = validate(problem.human_domain, problem.human_problem, steps)
    if in_human.valid != (result.human_cost is not None) or (
            in_human.valid and in_human.cost != result.human_cost):
        return CheckReport(False, "the cost in the person's model differs from the claim")
    human_optimum, expected, wrong = _expected(problem, result, given, clock)
    if wrong is not None:
        return CheckReport(False, wrong)
    plan = ground_plan(robot, result.plan)
    if plan is None:  # pragma: no cover - the lifted validator accepted it
        return CheckReport(False, "the plan does not ground in the robot's task")
    traces = [] if result.distance == "cost" else [trace_of(problem.human_task, p)
                                                   for p in expected]
    if result.distance == "cost":
        own = (INF if not in_human.valid or in_human.cost is None or human_optimum is None
               else mapping(float(in_human.cost - human_optimum)))
    else:
        own = score_trace(robot, plan, traces, result.distance, mapping, weights)
    claimed = INF if result.inexplicability is None else result.inexplicability
    if not _same(own, claimed):
        return CheckReport(False, f"inexplicability recomputed as {own}, the answer claims "
                                  f"{claimed}")
    nearest = _nearest_wrong(problem, result, plan, expected, human_optimum, weights)
    if nearest is not None:
        return CheckReport(False, nearest)
    optimum = best_key(problem, result.distance, bound, expected, human_optimum, mapping,
                       weights, clock, strictly_increasing(mapping))
    if optimum.robot_cost is None:
        return CheckReport(False, "the checker finds no robot plan within the bound, but "
                                  "the answer has one")
    key, best = (claimed, result.robot_cost), (optimum.inexplicability, optimum.robot_cost)
    if _less(best, key):
        shown = " ".join(str(a) for a in optimum.plan or ()) or "the empty plan"
        return CheckReport(False, f"a robot plan within the bound is more explicable or "
                                  f"cheaper: {shown} (inexplicability {best[0]}, cost {best[1]})")
    if _less(key, best):
        return CheckReport(False, "the plan's inexplicability and cost are below those of "
                                  "every plan that stops at its first goal state (it passes a "
                                  "goal state earlier)")
    counted = _candidates_wrong(problem, result, bound, clock, optimum.plans_scored)
    if counted is not None:
        return CheckReport(False, counted)
    where = "robot plans within the bound (enumerated)" if result.distance != "cost" else (
        "plans valid in both models (the checker's own search over both models at once)")
    return CheckReport(True, f"plan valid (lifted validation); inexplicability "
                             f"{_shown(claimed)}, then cost {result.robot_cost}, are the least "
                             f"over {where}; {len(expected)} expected plan(s) listed again")


def _same(a: float, b: float) -> bool:
    return a == b or (math.isfinite(a) and math.isfinite(b)
                      and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9))


def _less(a: tuple[float, int | None], b: tuple[float, int | None]) -> bool:
    """Lexicographically smaller, IE compared with a tolerance for rounding."""
    if not _same(a[0], b[0]):
        return a[0] < b[0]
    return (a[1] or 0) < (b[1] or 0)


def _shown(value: float) -> str:
    return "infinite" if value == INF else f"{value:g}"


def _nearest_wrong(problem: ExplicableProblem, result: ExplicablePlan, plan: Plan,
                   expected: list[Plan], human_optimum: int | None,
                   weights: DistanceParams) -> str | None:
    """Why the named nearest expected plan is wrong (``None``: it is right)."""
    if result.nearest_expected is None:
        if expected and result.distance != "cost":
            return "the answer names no nearest expected plan, but there are expected plans"
        return None
    theirs = plan_in(problem.human_task, result.nearest_expected)
    if theirs is None:
        return "the nearest expected plan is not a plan of the person's model"
    if result.distance == "cost":
        cost = sum(a.cost for a in theirs)
        if cost != human_optimum:
            return f"the nearest expected plan costs {cost}, the person's optimum is " \
                   f"{human_optimum}"
        return None
    names = [tuple(a.name for a in p) for p in expected]
    if tuple(a.name for a in theirs) not in names:
        return "the nearest expected plan is not one of the person's optimal plans"
    own = trace_of(problem.robot_task, plan)
    values = [trace_distance(result.distance, own, trace_of(problem.human_task, p), weights)
              for p in expected]
    mine = trace_distance(result.distance, own, trace_of(problem.human_task, theirs), weights)
    if not _same(mine, min(values)):
        return f"the named expected plan is at distance {mine}, another at {min(values)}"
    return None


def _candidates_wrong(problem: ExplicableProblem, result: ExplicablePlan, bound: float,
                      clock: BudgetClock, scored: int) -> str | None:
    """``enumerate`` claims how many robot plans lie within the bound."""
    if result.method != "enumerate":
        return None
    count = scored if result.distance != "cost" else sum(
        1 for _ in plans_within(problem.robot_task, bound, clock))
    if count != result.candidates:
        return f"{count} robot plans lie within the bound, the answer scored " \
               f"{result.candidates}"
    return None
