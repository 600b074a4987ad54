"""Search results: what a search call answered, with the effort it spent.

Why frozen dataclasses with ``to_dict``: results are cached by the explainers, compared in
tests and written to JSON reports; none of that may depend on mutable state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xaip.planning.semantics import EMPTY_PLAN_NOTE, empty_plan_optimal
from xaip.planning.task import GroundAction, Task
from xaip.runtime.status import BUDGET_EXHAUSTED, SOLVED, UNSOLVABLE, Status

if TYPE_CHECKING:
    from xaip.planning.plans import PlanStep

__all__ = ["BUDGET_EXHAUSTED", "SOLVED", "UNSOLVABLE", "PlanResult", "PlanSet"]


@dataclass(frozen=True)
class PlanResult:
    """What a planning call answered, whichever engine answered it.

    ``status`` is ``solved``, ``unsolvable`` (no plan exists, or with a cost bound ``c``:
    no plan of cost ``< c`` exists; only complete searches say this) or
    ``budget_exhausted``. ``optimal`` is true only for a solved call whose algorithm
    guarantees an optimal plan. ``expanded`` counts states whose successors were generated,
    ``generated`` the successors produced. ``costs_ignored`` says the domain declares action
    costs that the problem's metric does not ask for, so every action cost 1 (as in Fast
    Downward and VAL). A solved empty plan (the goal holds initially) is always
    ``optimal``, whichever search found it (:mod:`xaip.planning.semantics`).
    """

    status: Status
    plan: tuple[GroundAction, ...]
    cost: int | None
    optimal: bool
    expanded: int
    seconds: float
    generated: int = 0
    engine: str = "builtin"
    search: str = ""
    heuristic: str = ""
    has_costs: bool = False
    costs_ignored: bool = False
    task: Task | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.optimal and empty_plan_optimal(self.status == SOLVED, len(self.plan)):
            object.__setattr__(self, "optimal", True)

    @property
    def solved(self) -> bool:
        return self.status == SOLVED

    @property
    def goal_holds_initially(self) -> bool:
        """Solved by the empty plan: the goal holds in the initial state."""
        return self.solved and not self.plan

    def steps(self) -> tuple[PlanStep, ...]:
        """The plan as lifted steps, ready for :func:`~xaip.planning.plans.validate`."""
        from xaip.planning.plans import PlanStep

        return tuple(PlanStep(a.schema, a.args) for a in self.plan)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": str(self.status),
            "plan": [f"({a.name})" for a in self.plan],
            "cost": self.cost,
            "optimal": self.optimal,
            "expanded": self.expanded,
            "generated": self.generated,
            "seconds": round(self.seconds, 6),
            "engine": self.engine,
            "search": self.search,
            "heuristic": self.heuristic,
            "costs_ignored": self.costs_ignored,
            "goal_holds_initially": self.goal_holds_initially,
        }
        notes = [note for note, applies in ((EMPTY_PLAN_NOTE, self.goal_holds_initially),
                                            (COSTS_IGNORED_NOTE, self.costs_ignored)) if applies]
        if notes:
            out["note"] = "; ".join(notes)
        return out


COSTS_IGNORED_NOTE = ("the domain declares action costs but the problem has no "
                      "(:metric minimize (total-cost)), so every action costs 1")


@dataclass(frozen=True)
class PlanSet:
    """Several plans of one task, cheapest first (see :mod:`xaip.planning.search.enumerate`).

    ``status``: ``"complete"`` (the answer is definitive: every plan within the bound, or
    the ``k`` cheapest / all plans if fewer exist), ``"truncated"`` (``max_plans`` reached
    while more plans exist) or ``"budget_exhausted"`` (the plans listed are a correct
    prefix of the full answer).
    """

    status: Status
    plans: tuple[tuple[GroundAction, ...], ...]
    costs: tuple[int, ...]
    expanded: int
    seconds: float
    bound: int | None = None

    def __len__(self) -> int:
        return len(self.plans)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": str(self.status),
            "plans": [[f"({a.name})" for a in plan] for plan in self.plans],
            "costs": list(self.costs),
            "expanded": self.expanded,
            "seconds": round(self.seconds, 6),
            "bound": self.bound,
        }
