"""Legible behaviour for a cooperative observer (book §4.2–4.3; L04, L05, M02).

* :func:`legible_goal_plan` — a *j-legible* plan: it reaches the true goal and the
  observer's final belief is consistent with at most ``j`` candidate goals (Def. 15;
  ``j = 1`` tells the goal exactly).
* :func:`legible_plan` — an *m-similar, d-distant* plan for a known goal: the observer's
  belief plan set has at least ``m`` plans, all reaching the goal, no two further apart
  than ``d`` under a plan distance (Def. 17–19). A cost bound is required (the search is
  over observation histories, which is only finite under a bound).
* :func:`legibility_score` — how legible a *given* plan is: goals left in the final
  belief, |BPS| and the BPS's distance spread.

Each returns an :class:`~xaip.observers.results.ObserverResult`, checked by
:mod:`xaip.observers.check` when the search finished.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from xaip.errors import InputError
from xaip.observers.analysis import BPS_CAP, analyse, build_result
from xaip.observers.beliefs import belief_plan_set, count_plans
from xaip.observers.copp import GoalTest, Node, NodeHeuristic, SearchOutcome, copp_search
from xaip.observers.goals import goals_in
from xaip.observers.guidance import GoalDistance, legibility_heuristic, true_goal_heuristic
from xaip.observers.planset import check_distance, spread
from xaip.observers.problem import ObserverProblem
from xaip.observers.results import ObserverResult
from xaip.planning.plans import simulate
from xaip.planning.task import GroundAction
from xaip.runtime import Budget, BudgetClock, Status


def _positive(name: str, value: int) -> int:
    if value < 1:
        raise InputError(f"--{name} must be at least 1, got {value}")
    return value


def finish(problem: ObserverProblem, outcome: SearchOutcome, mode: str, params: Mapping[str, Any],
           started: float, distance: str = "action", check: bool = True,
           with_bps: bool = True, budget: Budget | BudgetClock | None = None) -> ObserverResult:
    """The result of a finished (or stopped) search: the plan re-analysed from scratch."""
    view = None
    if outcome.node is not None:
        view = analyse(problem, outcome.plan(problem.task), distance, with_bps=with_bps)
    message = "" if view is not None else {
        Status.UNSOLVABLE: "no plan within the bounds passes the test",
        Status.BUDGET_EXHAUSTED: "the budget ran out before a plan was found",
    }.get(outcome.status, "")
    return build_result(problem, view, mode, outcome.status, params, started,
                        outcome.stats, None if outcome.cheapest else outcome.delta,
                        message=message, check=check,
                        cheapest=outcome.cheapest and view is not None, budget=budget)


def search(problem: ObserverProblem, test: GoalTest, guide: NodeHeuristic, heuristic: str,
           max_cost: int | None, horizon: int | None, budget: Budget | BudgetClock | None,
           history: bool = False) -> SearchOutcome:
    """The COPP search every front door runs. ``heuristic="blind"`` asks for a cheapest
    plan: exact duplicate detection in cost order (:mod:`xaip.observers.copp`, "Cheapest
    plans"), and the answer says ``cheapest`` (which the checker then re-proves); any other
    guidance runs the Δ search, which finds *a* passing plan."""
    if heuristic == "blind":
        return copp_search(problem.tracker, test, None, max_cost, budget, history=history,
                           max_depth=horizon, exact=True)
    return copp_search(problem.tracker, test, guide, max_cost, budget, history=history,
                       max_depth=horizon)


def legible_goal_plan(problem: ObserverProblem, j: int = 1, max_cost: int | None = None,
                      horizon: int | None = None, heuristic: str = "hadd",
                      budget: Budget | None = None, check: bool = True) -> ObserverResult:
    """A j-legible plan for the true goal: the first the Δ search finds, or with
    ``heuristic="blind"`` a cheapest one."""
    started = time.perf_counter()
    _positive("j", j)
    goals = problem.goals.goals
    true = problem.true_goal

    def test(node: Node) -> bool:
        return true.holds(node.state) and len(goals_in(node.belief, goals)) <= j

    guide = legibility_heuristic(GoalDistance(problem.task, goals, heuristic), goals, true, j)
    outcome = search(problem, test, guide, heuristic, max_cost, horizon, budget)
    params = {"j": j, "max_cost": max_cost, "horizon": horizon, "heuristic": heuristic}
    return finish(problem, outcome, "legible-goal", params, started, check=check,
                  with_bps=False, budget=budget)


def bps_test(problem: ObserverProblem, node: Node, distance: str, cap: int
             ) -> tuple[int, float | None, float | None, bool] | None:
    """(|BPS|, min, max distance, exact) of a node whose every final belief state reaches
    the true goal; ``None`` when some does not (Def. 19's "every BPS plan reaches G_A")."""
    true = problem.true_goal
    if not true.holds(node.state) or not all(true.holds(s) for s in node.belief):
        return None
    tokens, beliefs = node.tokens(), node.beliefs()
    count = count_plans(problem.tracker, beliefs, tokens)
    if count > cap:
        return count, None, None, False
    bps = belief_plan_set(problem.tracker, beliefs, tokens, cap=cap)
    found = spread(problem.task, bps, distance)
    return count, found.minimum, found.maximum, found.exact


def legible_plan(problem: ObserverProblem, m: int = 1, d: float = 1.0,
                 max_cost: int | None = None, horizon: int | None = None,
                 distance: str = "action", heuristic: str = "hadd", budget: Budget | None = None,
                 bps_cap: int = BPS_CAP, spread_guidance: bool = False,
                 check: bool = True) -> ObserverResult:
    """An m-similar plan whose BPS is maximally d-distant (Def. 19)."""
    started = time.perf_counter()
    _positive("m", m)
    check_distance(distance)
    if max_cost is None and horizon is None:
        raise InputError("plan legibility needs a cost bound (--max-cost) or --horizon")

    def test(node: Node) -> bool:
        found = bps_test(problem, node, distance, bps_cap)
        if found is None:
            return False
        count, _, high, exact = found
        return exact and count >= m and (high is None or high <= d + 1e-9)

    distances = GoalDistance(problem.task, (problem.true_goal,), heuristic)
    guide = true_goal_heuristic(distances, problem.true_goal,
                                "max" if spread_guidance else None, problem.tracker, distance)
    outcome = search(problem, test, guide, heuristic, max_cost, horizon, budget, history=True)
    params = {"m": m, "d": d, "distance": distance, "max_cost": max_cost, "horizon": horizon,
              "heuristic": heuristic, "bps_cap": bps_cap,
              "spread_guidance": spread_guidance}
    return finish(problem, outcome, "legible-plan", params, started, distance, check,
                  budget=budget)


def legibility_score(problem: ObserverProblem, plan: Sequence[GroundAction] | Sequence[str],
                     distance: str = "action", bps_cap: int = BPS_CAP,
                     check: bool = True, budget: Budget | None = None) -> ObserverResult:
    """How a given plan looks to the observer (M02): goals in the final belief (the goal
    legibility score), |BPS| and its pairwise distance spread (the plan legibility score).

    The status is ``solved`` when the plan reaches the true goal, ``unsolvable`` when it
    does not (it is still scored).
    """
    started = time.perf_counter()
    check_distance(distance)
    steps = (problem.resolve([str(s) for s in plan]) if plan and isinstance(plan[0], str)
             else tuple(plan))
    actions: tuple[GroundAction, ...] = tuple(s for s in steps if isinstance(s, GroundAction))
    view = analyse(problem, actions, distance, bps_cap)
    trace = simulate(problem.task, actions)  # executable: analyse checked it
    reaches = trace is not None and problem.true_goal.holds(trace[-1])
    status = Status.SOLVED if reaches else Status.UNSOLVABLE
    params = {"distance": distance, "bps_cap": bps_cap}
    message = "" if reaches else "the plan does not reach the true goal"
    return build_result(problem, view, "score", status, params, started, {"plans": 1},
                        message=message, check=check, budget=budget)
