"""The answer of ``xaip foil``: a witness plan for the person's foil and its cost gap, or
why the foil cannot be realised (maximal realisable subsets, minimal conflicts).

Plain data (the contract of :mod:`xaip.contract`); :mod:`xaip.render.foils` words it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from xaip.contract import CheckReport
from xaip.foils.language import Constraint
from xaip.planning.semantics import STEP_NUMBERING
from xaip.runtime import Status

Cost = int | Fraction


def _cost(value: Cost | None) -> int | str | None:
    return value if isinstance(value, int | None) else str(value)


@dataclass(frozen=True)
class FoilResult:
    """``realisable``: ``True`` (``witness`` is a cheapest plan satisfying every constraint),
    ``False`` (proved: no plan does) or ``None`` (the budget ran out first).

    ``robot_plan``/``robot_cost``: an optimal plan of the task without the foil;
    ``cost_gap`` = witness cost - robot cost (never negative). ``task_solvable`` is false
    when the task has no plan at all (then no foil is realisable). When the foil is
    unrealisable, ``conflicts`` lists the minimal conflict sets and ``maximal`` the maximal
    realisable subsets, each as 0-based indices into ``constraints`` (``conflicts_complete``
    is false when the budget cut the subset search short)."""

    status: Status
    constraints: tuple[Constraint, ...]
    realisable: bool | None
    task_solvable: bool | None = None
    robot_plan: tuple[str, ...] | None = None
    robot_cost: Cost | None = None
    witness: tuple[str, ...] | None = None
    witness_cost: Cost | None = None
    conflicts: tuple[tuple[int, ...], ...] = ()
    maximal: tuple[tuple[int, ...], ...] = ()
    conflicts_complete: bool = False
    counts_costs: bool = False
    verified: bool = False
    seconds: float = 0.0
    stats: Mapping[str, Any] = field(default_factory=dict)
    check: CheckReport | None = None

    @property
    def cost_gap(self) -> Cost | None:
        if self.witness_cost is None or self.robot_cost is None:
            return None
        return self.witness_cost - self.robot_cost

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": str(self.status), "verified": self.verified,
            "realisable": self.realisable, "task_solvable": self.task_solvable,
            "constraints": [c.to_dict() for c in self.constraints],
            "counts_action_costs": self.counts_costs,
            "seconds": round(self.seconds, 4), "stats": dict(self.stats), **STEP_NUMBERING,
        }
        if self.robot_plan is not None:
            out["robot_plan"] = [{"step": n, "action": a}
                                 for n, a in enumerate(self.robot_plan, 1)]
            out["robot_cost"] = _cost(self.robot_cost)
        if self.witness is not None:
            out["witness_plan"] = [{"step": n, "action": a}
                                   for n, a in enumerate(self.witness, 1)]
            out["witness_cost"] = _cost(self.witness_cost)
            out["cost_gap"] = _cost(self.cost_gap)
        if self.realisable is False or self.conflicts:
            out["minimal_conflicts"] = [[i + 1 for i in c] for c in self.conflicts]
            out["maximal_realisable"] = [[i + 1 for i in m] for m in self.maximal]
            out["conflicts_complete"] = self.conflicts_complete
            out["constraints_numbered_from"] = 1
        if self.check is not None:
            out["check"] = self.check.to_dict()
        return out
