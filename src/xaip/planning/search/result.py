"""Search results: what a search call answered, with the effort it spent.

Why frozen dataclasses with ``to_dict``: results are cached by the explainers, compared in
tests and written to JSON reports; none of that may depend on mutable state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xaip.planning.task import GroundAction

SOLVED = "solved"
UNSOLVABLE = "unsolvable"
BUDGET_EXHAUSTED = "budget_exhausted"


@dataclass(frozen=True)
class SearchResult:
    """The answer of one :func:`~xaip.planning.search.solve` call.

    ``status`` is ``"solved"``, ``"unsolvable"`` (no plan exists, or with a cost bound ``c``:
    no plan of cost ``< c`` exists; only complete searches say this) or
    ``"budget_exhausted"``. ``optimal`` is true only for a solved call whose algorithm
    guarantees an optimal plan. ``expanded`` counts states whose successors were generated,
    ``generated`` the successors produced.
    """

    status: str
    plan: tuple[GroundAction, ...]
    cost: int | None
    optimal: bool
    expanded: int
    generated: int
    seconds: float
    algorithm: str = ""
    heuristic: str = ""

    @property
    def solved(self) -> bool:
        return self.status == SOLVED

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "plan": [f"({a.name})" for a in self.plan],
            "cost": self.cost,
            "optimal": self.optimal,
            "expanded": self.expanded,
            "generated": self.generated,
            "seconds": round(self.seconds, 6),
            "algorithm": self.algorithm,
            "heuristic": self.heuristic,
        }


@dataclass(frozen=True)
class PlanSet:
    """Several plans of one task, cheapest first (see :mod:`xaip.planning.search.enumerate`).

    ``status``: ``"complete"`` (the answer is definitive: every plan within the bound, or
    the ``k`` cheapest / all plans if fewer exist), ``"truncated"`` (``max_plans`` reached
    while more plans exist) or ``"budget_exhausted"`` (the plans listed are a correct
    prefix of the full answer).
    """

    status: str
    plans: tuple[tuple[GroundAction, ...], ...]
    costs: tuple[int, ...]
    expanded: int
    seconds: float
    bound: int | None = None

    def __len__(self) -> int:
        return len(self.plans)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "plans": [[f"({a.name})" for a in plan] for plan in self.plans],
            "costs": list(self.costs),
            "expanded": self.expanded,
            "seconds": round(self.seconds, 6),
            "bound": self.bound,
        }
