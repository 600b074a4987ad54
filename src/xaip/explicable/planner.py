"""Explicable planning (X01): the robot plan with the lowest inexplicability, then cost.

``π* = argmin_{π ∈ Π_{M^R}, C(π, M^R) ≤ max_cost} (IE(π), C(π, M^R))`` — the book's
cost-difference explicable planning with IE taking precedence over cost (the linear
trade-off of eq. 3.1 is what environment design optimises, :mod:`xaip.explicable.design`).

Two methods:

* ``product`` (the cost distance with the person's optimal plans as the expected set, any
  increasing mapping): uniform-cost search in the product of the two models
  (:mod:`xaip.explicable.product`); when no plan is valid in both models every robot plan
  has infinite IE and the robot's cheapest plan is returned.
* ``enumerate`` (every distance): every robot plan within ``max_cost`` from plan
  enumeration, each scored against the expected set. Without ``max_cost`` the bound is
  twice the robot's optimal cost ([D]).

``compile`` is another name for ``product`` (the book compiles the two models into one
planning problem). ``auto`` takes ``product`` for the cost distance and ``enumerate``
otherwise; ``search``
is the anytime reconciliation search of :mod:`xaip.explicable.search`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from xaip.errors import InputError
from xaip.explicable.distances import DistanceParams
from xaip.explicable.measures import (
    ExpectedPlansUnfinished,
    Scored,
    Scorer,
    expected_plans,
    ranked,
)
from xaip.explicable.problem import ExplicableProblem
from xaip.explicable.product import product_search
from xaip.explicable.results import ExplicablePlan
from xaip.planning.engines import get_engine
from xaip.planning.search.enumerate import all_plans
from xaip.planning.task import GroundAction
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock, as_clock

METHODS = ("auto", "product", "compile", "enumerate", "search")


def explicable_plan(
    problem: ExplicableProblem,
    distance: str = "cost",
    max_cost: int | None = None,
    method: str = "auto",
    mapping: str | Callable[[float], float] = "identity",
    weights: DistanceParams = None,
    expected: Sequence[Sequence[GroundAction]] | None = None,
    budget: Budget | BudgetClock | None = None,
    check: bool = True,
) -> ExplicablePlan:
    """The most explicable robot plan, then the cheapest, within ``max_cost``.

    With ``check`` (default) the independent checker (:func:`xaip.explicable.checks.check`)
    runs and sets ``verified``. Raises :class:`~xaip.errors.InputError` for an unknown
    distance, mapping or method, or ``method="product"`` with another distance or a given
    expected set.
    """
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    if method == "compile":
        method = "product"
    if max_cost is not None and max_cost < 0:
        raise InputError(f"the cost bound must not be negative, not {max_cost}")
    if method == "search":
        if expected is not None:
            raise InputError("method search uses the person's optimal plans as the "
                             "expected set")
        from xaip.explicable.search import reconciliation_search

        return reconciliation_search(problem, distance, max_cost, mapping, weights, budget,
                                     check=check)
    if method == "auto":
        method = "product" if distance == "cost" and expected is None else "enumerate"
    if method == "product" and (distance != "cost" or expected is not None):
        raise InputError("method product needs the cost distance and the person's optimal "
                         "plans as the expected set")
    clock = as_clock(budget)
    given = expected
    truncated = False
    try:
        if expected is None:
            listed = expected_plans(problem, clock.remaining(), expected_cap(distance))
            clock.charge(listed.expanded)
            expected = listed.plans
            truncated = listed.status == Status.TRUNCATED
        scorer = Scorer(problem, distance, expected, mapping, weights)
    except ExpectedPlansUnfinished:
        return _unfinished(problem, distance, method, max_cost, clock)
    if method == "product":
        result = _by_product(problem, scorer, max_cost, clock)
    else:
        result = _by_enumeration(problem, scorer, max_cost, clock)
    if truncated:
        result = dataclasses.replace(result, stats={**result.stats, "expected_truncated": True})
    if check and result.status.finished:
        result = checked(problem, result, given, scorer, weights, budget)
    return result


def expected_cap(distance: str) -> int | None:
    """How many of the person's optimal plans to list: all of them for the trace
    distances (IE is a minimum over them), a few for the cost distance (its IE needs only
    their cost; the plans are listed for the nearest one and the count)."""
    from xaip.explicable.checks import COST_EXPECTED_CAP

    return COST_EXPECTED_CAP if distance == "cost" else None


def checked(problem: ExplicableProblem, result: ExplicablePlan,
            given: Sequence[Sequence[GroundAction]] | None, scorer: Scorer,
            weights: DistanceParams, budget: Budget | BudgetClock | None) -> ExplicablePlan:
    """``result`` with the independent checker's report, run under ``budget`` started
    afresh; the checker's time joins the stats (``check_seconds``)."""
    import time

    from xaip.contract import with_check
    from xaip.explicable.checks import check as run_check

    began = time.perf_counter()
    report = run_check(problem, result, expected=given, mapping=scorer.mapping,
                       weights=weights, budget=budget)
    stats = {**result.stats, "check_seconds": round(time.perf_counter() - began, 6)}
    return with_check(dataclasses.replace(result, check=report, stats=stats), report)


def _unfinished(problem: ExplicableProblem, distance: str, method: str,
                max_cost: int | None, clock: BudgetClock) -> ExplicablePlan:
    return ExplicablePlan(Status.BUDGET_EXHAUSTED, (), None, None, None, distance, method,
                          max_cost, None, 0, 0, clock.elapsed(), {"nodes": clock.nodes})


def _answer(problem: ExplicableProblem, scorer: Scorer, plan: Sequence[GroundAction],
            scored: Scored, method: str, max_cost: int | None, candidates: int,
            clock: BudgetClock, status: Status, stats: dict[str, int | float]
            ) -> ExplicablePlan:
    nearest = None if scored.nearest is None else tuple(
        a.name for a in scorer.expected[scored.nearest])
    return ExplicablePlan(
        status, tuple(a.name for a in plan), sum(a.cost for a in plan), scored.human_cost,
        None if scored.inexplicability == float("inf") else scored.inexplicability,
        scorer.distance, method, max_cost, nearest, len(scorer.expected), candidates,
        clock.elapsed(), stats)


def _none(scorer: Scorer, method: str, max_cost: int | None, clock: BudgetClock,
          status: Status, stats: dict[str, int | float]) -> ExplicablePlan:
    return ExplicablePlan(status, (), None, None, None, scorer.distance, method, max_cost,
                          None, len(scorer.expected), 0, clock.elapsed(), stats)


def _by_product(problem: ExplicableProblem, scorer: Scorer, max_cost: int | None,
                clock: BudgetClock) -> ExplicablePlan:
    found = product_search(problem, max_cost, clock)
    stats: dict[str, int | float] = {"expanded": found.expanded}
    if found.status == Status.BUDGET_EXHAUSTED:
        return _none(scorer, "product", max_cost, clock, Status.BUDGET_EXHAUSTED, stats)
    if found.plan is not None:
        return _answer(problem, scorer, found.plan, scorer.score(found.plan), "product",
                       max_cost, 1, clock, Status.FOUND, stats)
    # No plan valid in both models: every robot plan is inexplicable; take the cheapest.
    optimum = get_engine("builtin").solve(problem.robot_task, optimal=True,
                                          budget=clock.remaining())
    stats["expanded"] = found.expanded + optimum.expanded
    if optimum.status == Status.BUDGET_EXHAUSTED:
        return _none(scorer, "product", max_cost, clock, Status.BUDGET_EXHAUSTED, stats)
    if not optimum.solved or (max_cost is not None and (optimum.cost or 0) > max_cost):
        return _none(scorer, "product", max_cost, clock, Status.UNSOLVABLE, stats)
    return _answer(problem, scorer, optimum.plan, scorer.score(optimum.plan), "product",
                   max_cost, 1, clock, Status.FOUND, stats)


def default_bound(problem: ExplicableProblem, clock: BudgetClock) -> int | None:
    """Twice the robot's optimal cost (``None``: the robot has no plan; -1: budget out)."""
    optimum = get_engine("builtin").solve(problem.robot_task, optimal=True,
                                          budget=clock.remaining())
    clock.charge(max(0, optimum.expanded - 1))
    if optimum.status == Status.BUDGET_EXHAUSTED:
        return -1
    return None if optimum.cost is None else 2 * optimum.cost


def _by_enumeration(problem: ExplicableProblem, scorer: Scorer, max_cost: int | None,
                    clock: BudgetClock) -> ExplicablePlan:
    bound = max_cost
    stats: dict[str, int | float] = {}
    if bound is None:
        bound = default_bound(problem, clock)
        if bound == -1:
            return _none(scorer, "enumerate", None, clock, Status.BUDGET_EXHAUSTED, stats)
        if bound is None:
            return _none(scorer, "enumerate", None, clock, Status.UNSOLVABLE, stats)
    found = all_plans(problem.robot_task, bound, clock.remaining())
    clock.charge(found.expanded)
    stats["expanded"] = found.expanded
    status = Status.BUDGET_EXHAUSTED if found.status == Status.BUDGET_EXHAUSTED \
        else Status.FOUND
    best: tuple[tuple[float, int], int, Scored] | None = None
    for index, plan in enumerate(found.plans):
        if index % 64 == 0 and clock.out_of_time():
            status = Status.BUDGET_EXHAUSTED  # the best among the plans scored so far
            break
        scored = scorer.score(plan)
        key = (ranked(scored.inexplicability), found.costs[index])
        if best is None or key < best[0]:
            best = (key, index, scored)
    if best is None:
        return _none(scorer, "enumerate", bound, clock,
                     Status.BUDGET_EXHAUSTED if status == Status.BUDGET_EXHAUSTED
                     else Status.UNSOLVABLE, stats)
    return _answer(problem, scorer, found.plans[best[1]], best[2], "enumerate", bound,
                   len(found.plans), clock, status, stats)
