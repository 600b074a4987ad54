"""What balanced planning returns: a plan and its explanation, chosen together.

Why plain data: results are compared with brute force in tests, written as JSON and
rendered by :mod:`xaip.render.balanced`. Infinite values (a plan the person's updated
model cannot execute has infinite penalty) are ``None`` in the JSON, which has no
infinity.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xaip.balanced.objectives import (
    BalancedProblem,
    Objective,
    Weights,
    edit_sentence,
    feature_name,
)
from xaip.contract import CheckReport
from xaip.planning.features import Edit
from xaip.runtime import Status

if TYPE_CHECKING:
    from xaip.balanced.evaluate import Point


def finite(value: float | None) -> float | None:
    """``value`` rounded for JSON; ``None`` for infinity or no value."""
    if value is None or math.isinf(value) or math.isnan(value):
        return None
    return round(value, 6)


def explanation_item(edit: Edit, cost: float | None = None) -> dict[str, Any]:
    """One explanation item as JSON: ``feature`` (its name), ``text``, ``op``, cost."""
    item: dict[str, Any] = {"feature": feature_name(edit.feature), "op": edit.op,
                            "text": edit_sentence(edit)}
    if cost is not None:
        item["cost"] = finite(cost)
    return item


@dataclass(frozen=True)
class BalancedResult:
    """A plan ``π`` and explanation ``E`` for one objective (book ch. 7).

    ``total`` is the balanced objective ``α·plan_cost + β·explanation_cost + γ·penalty``
    of the returned pair, whatever the objective minimised (the book's table reports it
    for all three). ``human_cost`` is ``C(π, M^R_h + E)`` (``None``: not executable
    there) and ``human_optimum`` is ``C*_{M^R_h + E}``. ``exact`` says whether the
    search was exact or the approximate mode of the original work; ``method`` is
    ``model-space`` or ``compile``. ``learned`` (B05, learning from watching) are the
    edits she learned by watching the plan: free, and part of her final model, so
    ``human_optimum`` is ``C*`` of ``M^R_h + E ∪ learned``.

    ``plan_cost`` ``None`` means no pair (``status`` ``unsolvable`` when no pair
    satisfies the objective's constraints, or the budget ran out before one was found);
    the *empty* plan with ``plan_cost`` 0 is a plan (the goal holds initially,
    :mod:`xaip.planning.semantics`), so test :attr:`has_plan`, never ``plan``'s truth.
    """

    status: Status
    plan: tuple[str, ...]
    plan_cost: int | None
    explanation: tuple[Edit, ...]
    explanation_cost: float
    penalty: float
    objective: Objective
    method: str
    exact: bool
    total: float
    seconds: float
    weights: Weights = Weights()
    human_cost: int | None = None
    human_optimum: int | None = None
    robot_optimum: int | None = None
    item_costs: tuple[float, ...] = ()
    verified: bool = False
    stats: Mapping[str, int | float] = field(default_factory=dict)
    check: CheckReport | None = None
    learned: tuple[Edit, ...] = ()

    @property
    def has_plan(self) -> bool:
        """Whether the result holds a pair (possibly the empty plan)."""
        return self.plan_cost is not None

    @property
    def explicable(self) -> bool:
        """Whether the plan is optimal in the person's updated model."""
        return (self.human_cost is not None and self.human_optimum is not None
                and self.human_cost <= self.human_optimum)

    def to_dict(self) -> dict[str, Any]:
        costs: tuple[float | None, ...] = self.item_costs or (None,) * len(self.explanation)
        return {
            "status": str(self.status),
            "verified": self.verified,
            "objective": str(self.objective),
            "method": self.method,
            "exact": self.exact,
            "plan": [f"({step})" for step in self.plan],
            "plan_cost": self.plan_cost,
            "explanation": [explanation_item(e, c)
                            for e, c in zip(self.explanation, costs, strict=True)],
            "explanation_cost": finite(self.explanation_cost),
            "penalty": finite(self.penalty),
            "total": finite(self.total),
            "human_cost": self.human_cost,
            "human_optimum": self.human_optimum,
            "robot_optimum": self.robot_optimum,
            "weights": self.weights.to_dict(),
            "seconds": round(self.seconds, 6),
            "stats": dict(self.stats),
            "check": None if self.check is None else self.check.to_dict(),
            "learned": [explanation_item(e) for e in self.learned],
        }


def objective_value(weights: Weights, plan_cost: float, explanation_cost: float,
                    penalty: float) -> float:
    """``α·C(π) + β·C(E) + γ·penalty`` with ``0·∞ = 0`` (a zero weight ignores a term)."""
    total = 0.0
    for weight, value in ((weights.alpha, plan_cost), (weights.beta, explanation_cost),
                          (weights.gamma, penalty)):
        if weight:
            total += weight * value
    return total


def to_result(problem: BalancedProblem, status: Status, subset: tuple[int, ...],
              point: Point | None, human_optimum: int | None, robot_optimum: int | None,
              *, method: str, exact: bool, seconds: float,
              stats: dict[str, int | float], learned: tuple[int, ...] = ()
              ) -> BalancedResult:
    """A :class:`BalancedResult` for edit set ``subset`` and plan ``point`` (none: an
    empty answer with infinite values): how both methods (model-space search and MEGA*)
    turn their answer into the one result type, with the same arithmetic."""
    edits = tuple(problem.differences[i] for i in subset)
    item_costs = tuple(problem.edit_costs[i] for i in subset)
    explanation_cost = sum(item_costs)
    if point is None:
        return BalancedResult(status, (), None, edits, explanation_cost, math.inf,
                              problem.objective, method, exact, math.inf, seconds,
                              problem.weights, None, human_optimum, robot_optimum,
                              item_costs, stats=stats)
    penalty = problem.inexplicability(point.human_cost, human_optimum)
    total = objective_value(problem.weights, point.robot_cost, explanation_cost, penalty)
    return BalancedResult(status, point.plan, point.robot_cost, edits, explanation_cost,
                          penalty, problem.objective, method, exact, total, seconds,
                          problem.weights, point.human_cost, human_optimum, robot_optimum,
                          item_costs, stats=stats,
                          learned=tuple(problem.differences[i] for i in learned))
