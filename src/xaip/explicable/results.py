"""What the explicable-behaviour functions return: frozen, JSON-safe data.

Why plain data: results are compared in tests, cached, and written as JSON; their English
comes from :mod:`xaip.render.explicable`. An infinite inexplicability (the person's model
cannot execute the plan) is ``None`` in the data, as JSON has no infinity.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.contract import CheckReport
from xaip.runtime import Status


def finite(value: float | None) -> float | None:
    """``value`` rounded for JSON, ``None`` for infinity."""
    if value is None or math.isinf(value):
        return None
    return round(value, 6)


@dataclass(frozen=True)
class PlanDistances:
    """The distances between two plans of one task (``xaip distance``)."""

    plan_a: tuple[str, ...]
    plan_b: tuple[str, ...]
    action: float
    causal: float
    state: float
    composite: float
    weights: Mapping[str, float]
    status: Status = Status.COMPLETE

    def to_dict(self) -> dict[str, Any]:
        return {"status": str(self.status),
                "plan_a": [f"({s})" for s in self.plan_a],
                "plan_b": [f"({s})" for s in self.plan_b],
                "action": round(self.action, 6), "causal": round(self.causal, 6),
                "state": round(self.state, 6), "composite": round(self.composite, 6),
                "weights": dict(self.weights)}


@dataclass(frozen=True)
class ExplicablePlan:
    """The robot plan that is most explicable, then cheapest (book ch. 3, X01).

    ``robot_cost`` is ``None`` when there is no plan (``status`` ``unsolvable``: no robot
    plan within ``max_cost``) or the budget ran out first; an empty ``plan`` with
    ``robot_cost`` 0 is the empty plan (the goal holds initially, :attr:`has_plan`).
    ``nearest_expected`` is the person's expected plan nearest to ``plan`` under
    ``distance``.
    """

    status: Status
    plan: tuple[str, ...]
    robot_cost: int | None
    human_cost: int | None
    inexplicability: float | None
    distance: str
    method: str
    max_cost: int | None
    nearest_expected: tuple[str, ...] | None
    expected_count: int
    candidates: int
    seconds: float
    stats: Mapping[str, int | float] = field(default_factory=dict)
    verified: bool = False
    check: CheckReport | None = None
    #: Anytime search: each better plan when found, as (seconds, IE or None, robot cost).
    improvements: tuple[tuple[float, float | None, int], ...] = ()

    @property
    def has_plan(self) -> bool:
        """Is there a plan? The empty plan is one (the goal holds initially: cost 0), so
        ask this, never the truth of ``plan``."""
        return self.robot_cost is not None

    @property
    def score(self) -> float:
        """The explicability score ``exp(−IE)`` (0 when IE is infinite)."""
        if self.inexplicability is None:
            return 0.0
        return math.exp(-self.inexplicability)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": str(self.status),
            "verified": self.verified,
            "plan": [f"({s})" for s in self.plan],
            "robot_cost": self.robot_cost,
            "human_cost": self.human_cost,
            "inexplicability": finite(self.inexplicability),
            "explicability": round(self.score, 6),
            "distance": self.distance,
            "method": self.method,
            "max_cost": self.max_cost,
            "nearest_expected": (None if self.nearest_expected is None
                                 else [f"({s})" for s in self.nearest_expected]),
            "expected_plans": self.expected_count,
            "candidates": self.candidates,
            "seconds": round(self.seconds, 6),
            "stats": dict(self.stats),
            "check": None if self.check is None else self.check.to_dict(),
            "improvements": [{"seconds": round(t, 6), "inexplicability": finite(ie),
                              "robot_cost": c} for t, ie, c in self.improvements],
        }


@dataclass(frozen=True)
class TaskOutcome:
    """One task of a design problem under the chosen design: Λ*'s cost and E*."""

    name: str
    probability: float
    robot_cost: float | None
    inexplicability: float | None
    plan: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "probability": self.probability,
                "robot_cost": self.robot_cost,
                "inexplicability": finite(self.inexplicability),
                "plan": [f"({s})" for s in self.plan]}


@dataclass(frozen=True)
class DesignResult:
    """The optimal environment design for explicability (book ch. 3 §3.4, X07)."""

    status: Status
    design: tuple[str, ...]
    objective: float | None
    baseline_objective: float | None
    design_cost: float
    tasks: tuple[TaskOutcome, ...]
    horizon: int
    configurations: int
    pruned: bool
    seconds: float
    stats: Mapping[str, int | float] = field(default_factory=dict)
    verified: bool = False
    check: CheckReport | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": str(self.status),
            "verified": self.verified,
            "design": list(self.design),
            "objective": finite(self.objective),
            "baseline_objective": finite(self.baseline_objective),
            "design_cost": self.design_cost,
            "tasks": [t.to_dict() for t in self.tasks],
            "horizon": self.horizon,
            "configurations": self.configurations,
            "pruned": self.pruned,
            "seconds": round(self.seconds, 6),
            "stats": dict(self.stats),
            "check": None if self.check is None else self.check.to_dict(),
        }
