"""The answer of ``xaip unsolvable``: a plan, or why there is none.

Plain data (the contract of :mod:`xaip.contract`); :mod:`xaip.render.unsolvable` words it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from xaip.contract import CheckReport
from xaip.planning.semantics import STEP_NUMBERING
from xaip.runtime import Status
from xaip.unsolvable.landmark import UnreachableLandmark
from xaip.unsolvable.repairs import Repair


@dataclass(frozen=True)
class TraceFailure:
    """Where the person's attempted plan fails: the first inapplicable step (1-based
    ``step``) and its unmet preconditions, or -- every step applying -- the goal literals
    false at the end (``step`` is then ``None``)."""

    steps: int
    step: int | None
    action: str | None
    unmet: tuple[str, ...]

    @property
    def goal_unmet(self) -> bool:
        return self.step is None

    def to_dict(self) -> dict[str, Any]:
        return {"steps": self.steps, "failed_step": self.step, "action": self.action,
                "failure": "goal" if self.goal_unmet else "precondition",
                "unmet": list(self.unmet), **STEP_NUMBERING}


@dataclass(frozen=True)
class UnsolvableResult:
    """``solvable``: ``True`` (``plan`` is a cheapest plan), ``False`` (proved: no plan) or
    ``None`` (the budget ran out first). For an unsolvable task, ``core`` lists the goal
    literals of an unsolvable core (``core_positions``: their 0-based goal positions) and
    ``core_kind`` says whether it is a ``minimum`` core (fewest literals, first in goal
    order) or only ``subset-minimal``; ``landmark`` is the unreachable landmark, if any.
    ``trace`` is where the person's attempted plan fails (with ``--trace``); ``repair`` the
    fewest initial facts whose addition gives the task a plan (:mod:`.repairs`)."""

    status: Status
    goal: tuple[str, ...]
    solvable: bool | None
    plan: tuple[str, ...] | None = None
    plan_cost: int | Fraction | None = None
    core: tuple[str, ...] = ()
    core_positions: tuple[int, ...] = ()
    core_kind: str | None = None
    landmark: UnreachableLandmark | None = None
    trace: TraceFailure | None = None
    trace_valid: bool | None = None
    repair: Repair | None = None
    verified: bool = False
    seconds: float = 0.0
    stats: Mapping[str, Any] = field(default_factory=dict)
    check: CheckReport | None = None

    @property
    def explained(self) -> bool:
        return self.solvable is False and bool(self.core)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": str(self.status), "verified": self.verified, "solvable": self.solvable,
            "goal": list(self.goal), "seconds": round(self.seconds, 4), "stats": dict(self.stats),
        }
        if self.plan is not None:
            out["plan"] = list(self.plan)
            out["plan_cost"] = (self.plan_cost if isinstance(self.plan_cost, int | None)
                                else str(self.plan_cost))
        if self.core:
            out["core"] = list(self.core)
            out["core_goal_positions"] = [p + 1 for p in self.core_positions]
            out["core_kind"] = self.core_kind
            out["landmark"] = None if self.landmark is None else {
                "fact": self.landmark.fact, "kind": self.landmark.kind,
                "chain": None if self.landmark.chain is None else self.landmark.chain.to_dict(),
                "sentence": self.landmark.sentence()}
        if self.repair is not None:
            out["init_repair"] = self.repair.to_dict()
        if self.trace is not None or self.trace_valid is not None:
            out["trace"] = None if self.trace is None else self.trace.to_dict()
            out["trace_valid"] = self.trace_valid
        if self.check is not None:
            out["check"] = self.check.to_dict()
        return out
