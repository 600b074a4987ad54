"""The answers of ``xaip assist``: plain data (the contract of :mod:`xaip.contract`);
:mod:`xaip.render.assist` words them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.assist.human import HumanAnswer
from xaip.contract import CheckReport
from xaip.planning.semantics import STEP_NUMBERING
from xaip.runtime import Status


@dataclass(frozen=True)
class Failure:
    """Where the person's plan (or prefix) breaks. ``step`` is the 1-based step number
    (:func:`~xaip.planning.semantics.step_number`) of the first inapplicable step and
    ``unmet`` its unmet preconditions as PDDL atoms; ``kind == "goal"`` means every step
    applied and ``unmet`` lists the goal facts left false (``step`` is then ``None``)."""

    kind: str
    step: int | None
    action: str | None
    unmet: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "step": self.step, "action": self.action,
                "unmet": list(self.unmet)}


@dataclass(frozen=True)
class AssistResult:
    """One answer of the assistant.

    ``mode`` is ``complete``, ``suggest`` or ``check``. ``status``: ``solved`` (a completion
    exists and is given), ``unsolvable`` (proved: no completion avoids the vetoes),
    ``invalid`` (the prefix does not apply; ``failure`` says where, or in ``check`` mode the
    person's plan fails and ``repair`` fixes it), ``valid`` (``check``: the plan reaches the
    goal) or ``budget_exhausted``.

    ``kept`` steps of ``prefix`` stay (all of them, except in ``check`` where the steps from
    the failing one on are dropped) and ``completion`` follows them; ``total_cost`` prices
    both, ``robot_cost`` is the cost of the robot's own optimal plan from the initial state
    (no vetoes) and ``cost_gap = total_cost - robot_cost``. ``suggestion`` (``suggest``) is
    the first step of ``completion`` with its reasons: the goal facts and landmarks it makes
    true, ``cost_with`` (the cheapest completion starting with it) and ``cost_without`` (the
    cheapest completion that never uses it; ``None`` when none exists).
    """

    mode: str
    status: Status
    prefix: tuple[str, ...] = ()
    vetoes: tuple[str, ...] = ()
    kept: int = 0
    prefix_cost: int | None = None
    failure: Failure | None = None
    completion: tuple[str, ...] | None = None
    completion_cost: int | None = None
    robot_plan: tuple[str, ...] | None = None
    robot_cost: int | None = None
    suggestion: str | None = None
    achieves_goals: tuple[str, ...] = ()
    achieves_landmarks: tuple[str, ...] = ()
    cost_with: int | None = None
    cost_without: int | None = None
    counts_costs: bool = False
    verified: bool = False
    seconds: float = 0.0
    stats: Mapping[str, Any] = field(default_factory=dict)
    check: CheckReport | None = None
    #: With the person's model (humans as actors): the explicable choice or the
    #: explanation of her plan's failure (:class:`~xaip.assist.human.HumanAnswer`).
    human: HumanAnswer | None = None

    @property
    def total_cost(self) -> int | None:
        if self.completion_cost is None or self.prefix_cost is None:
            return None
        return self.prefix_cost + self.completion_cost

    @property
    def cost_gap(self) -> int | None:
        total = self.total_cost
        return None if total is None or self.robot_cost is None else total - self.robot_cost

    @property
    def plan(self) -> tuple[str, ...] | None:
        """The kept prefix steps followed by the completion (``None`` without completion)."""
        if self.completion is None:
            return None
        return self.prefix[:self.kept] + self.completion

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mode": self.mode, "status": str(self.status), "verified": self.verified,
            "prefix": [{"step": n, "action": a} for n, a in enumerate(self.prefix, 1)],
            "kept_steps": self.kept, "vetoes": list(self.vetoes),
            "counts_action_costs": self.counts_costs, **STEP_NUMBERING,
        }
        if self.failure is not None:
            out["failure"] = self.failure.to_dict()
        if self.completion is not None:
            out["completion"] = [{"step": n, "action": a} for n, a in
                                 enumerate(self.completion, self.kept + 1)]
            out.update(completion_cost=self.completion_cost, prefix_cost=self.prefix_cost,
                       total_cost=self.total_cost)
        if self.robot_plan is not None:
            out.update(robot_plan=list(self.robot_plan), robot_cost=self.robot_cost,
                       cost_gap=self.cost_gap)
        if self.human is not None:
            out["human"] = self.human.to_dict()
        if self.mode == "suggest":
            out.update(suggestion=self.suggestion, achieves_goals=list(self.achieves_goals),
                       achieves_landmarks=list(self.achieves_landmarks),
                       cost_with=self.cost_with, cost_without=self.cost_without)
        out.update(seconds=round(self.seconds, 4), stats=dict(self.stats))
        if self.check is not None:
            out["check"] = self.check.to_dict()
        return out
