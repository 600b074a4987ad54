"""Inexplicability and explicability of a plan against the plans the person expects (M01).

``IE(π) = F(min_{π' ∈ Π^E} δ(π, π'))`` for a plan distance ``δ`` and an increasing
mapping ``F`` (book ch. 2–3). By default ``Π^E`` is the set of optimal plans of the
person's model (all of them, found by plan enumeration) and ``F`` the identity.

Why a :class:`Scorer` object: explicable planning scores many robot plans against one
expected set, so the expected plans (and their traces) are computed once per problem.

The ``cost`` distance is the cost difference ``C(π, M^R_h) − C*`` (``C*`` the cheapest
expected plan's cost): how much more the plan costs *in the person's model* than what they
expected; a plan the person's model cannot execute has an infinite distance. The trace
distances (:mod:`xaip.explicable.distances`) compare the robot plan executed in the
robot's model with each expected plan executed in the person's model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from xaip.errors import InputError
from xaip.explicable.distances import (
    TRACE_DISTANCES,
    DistanceParams,
    PlanTrace,
    check_weights,
    composite_distance,
    feature_vector,
    trace_distance,
    trace_of,
)
from xaip.explicable.problem import ExplicableProblem, plan_in
from xaip.explicable.results import PlanDistances
from xaip.planning.plans import PlanStep
from xaip.planning.search.enumerate import all_plans
from xaip.planning.search.result import PlanSet
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget, Status

DISTANCES = ("cost", *TRACE_DISTANCES)
#: ``learned`` needs a fitted model (:mod:`xaip.explicable.learned`) passed as ``weights``.
ALL_DISTANCES = (*DISTANCES, "learned")

#: Increasing mappings ``F`` from the minimum distance to IE (configurable, [D]).
MAPPINGS: dict[str, Callable[[float], float]] = {
    "identity": lambda d: d,
    "saturating": lambda d: math.inf if d == math.inf else d / (1.0 + d),
    "square": lambda d: d * d,
}

INF = math.inf


class ExpectedPlansUnfinished(Exception):
    """The budget ran out while the person's expected plans were being enumerated."""


def expected_plans(problem: ExplicableProblem, budget: Budget | None = None,
                   max_plans: int | None = 1000) -> PlanSet:
    """The person's optimal plans ``Π*_{M^R_h}`` (at most ``max_plans``, cheapest first)."""
    found = all_plans(problem.human_task, None, budget, max_plans)
    if found.status == Status.BUDGET_EXHAUSTED:
        raise ExpectedPlansUnfinished
    return found


def ranked(inexplicability: float) -> float:
    """IE as plans are ranked by it: rounded to 9 decimals, so that two plans whose IE is
    equal but summed in another order (a last-bit difference) tie and the cheaper wins."""
    return inexplicability if math.isinf(inexplicability) else round(inexplicability, 9)


def explicability_score(inexplicability: float) -> float:
    """``exp(−IE)``: 1 for a fully explicable plan, towards 0 as IE grows ([D])."""
    return 0.0 if inexplicability == INF else math.exp(-inexplicability)


@dataclass(frozen=True)
class Scored:
    """A plan's IE with the expected plan nearest to it (``None`` when none is executable)."""

    inexplicability: float
    distance: float
    nearest: int | None
    human_cost: int | None


class Scorer:
    """Scores robot plans of one problem against one expected set."""

    def __init__(self, problem: ExplicableProblem, distance: str = "cost",
                 expected: Sequence[Sequence[GroundAction]] | None = None,
                 mapping: str | Callable[[float], float] = "identity",
                 weights: DistanceParams = None,
                 budget: Budget | None = None) -> None:
        if distance not in ALL_DISTANCES:
            raise InputError(f"unknown plan distance {distance!r}; use one of "
                             f"{', '.join(ALL_DISTANCES)}")
        if isinstance(mapping, str):
            if mapping not in MAPPINGS:
                raise InputError(f"unknown mapping {mapping!r}; use one of {', '.join(MAPPINGS)}")
            mapping = MAPPINGS[mapping]
        self.problem = problem
        self.distance = distance
        self.mapping = mapping
        self.weights: DistanceParams = None
        if distance == "composite":
            if weights is not None and not isinstance(weights, Mapping):
                raise InputError("the composite distance takes weights, not a model")
            self.weights = check_weights(weights)
        elif distance == "learned":
            if weights is None or isinstance(weights, Mapping):
                raise InputError("the learned distance needs a fitted model")
            self.weights = weights
        if expected is None:
            expected = expected_plans(problem, budget).plans
        plans = [plan_in(problem.human_task, plan) for plan in expected]
        if any(plan is None for plan in plans):
            raise InputError("an expected plan is not a valid plan of the person's model")
        self.expected: tuple[tuple[GroundAction, ...], ...] = tuple(
            p for p in plans if p is not None)
        self.expected_costs = tuple(sum(a.cost for a in p) for p in self.expected)
        self.best_expected_cost = min(self.expected_costs, default=None)
        self._traces: list[PlanTrace] = [trace_of(problem.human_task, p) for p in self.expected]

    def human_cost(self, plan: Sequence[GroundAction | str]) -> int | None:
        """The plan's cost in the person's model (``None``: not a valid plan there)."""
        mine = plan_in(self.problem.human_task, plan)
        return None if mine is None else sum(a.cost for a in mine)

    def score(self, plan: Sequence[GroundAction]) -> Scored:
        """IE of ``plan`` (a plan of the robot's task) and the expected plan nearest to it."""
        human_cost = self.human_cost(plan)
        if self.distance == "cost":
            if human_cost is None or self.best_expected_cost is None:
                return Scored(INF, INF, None, human_cost)
            gap = float(human_cost - self.best_expected_cost)
            nearest = self.expected_costs.index(self.best_expected_cost)
            return Scored(self.mapping(gap), gap, nearest, human_cost)
        if not self._traces:
            return Scored(INF, INF, None, human_cost)
        mine = trace_of(self.problem.robot_task, plan)
        values = [trace_distance(self.distance, mine, other, self.weights)
                  for other in self._traces]
        best = min(values)
        return Scored(self.mapping(best), best, values.index(best), human_cost)


def compare_plans(task: Task, plan_a: Sequence[PlanStep | GroundAction | str],
                  plan_b: Sequence[PlanStep | GroundAction | str],
                  weights: Mapping[str, float] | None = None) -> PlanDistances:
    """Every distance between two valid plans of ``task`` (``xaip distance``).

    Raises :class:`~xaip.errors.InputError` naming the plan that is not a valid plan.
    """
    w = check_weights(weights)
    traces = []
    for label, steps in (("first", plan_a), ("second", plan_b)):
        plan = plan_in(task, steps)
        if plan is None:
            raise InputError(f"the {label} plan is not a valid plan of the task (a step is "
                             "not applicable, or the goal is not reached)")
        traces.append((plan, trace_of(task, plan)))
    (pa, a), (pb, b) = traces
    parts = feature_vector(a, b)
    return PlanDistances(tuple(x.name for x in pa), tuple(x.name for x in pb),
                         parts["action"], parts["causal"], parts["state"],
                         composite_distance(a, b, w), w)
