"""The answers of the abstraction family: foils refuted with the fewest fluents made concrete
(U06), and the person's abstraction level located by queries (U07).

Plain data (the contract of :mod:`xaip.contract`); :mod:`xaip.render.abstraction` words it.
Foils, steps and queries are numbered from 1 in JSON, as everywhere
(:data:`~xaip.planning.semantics.STEP_NUMBERING`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.contract import CheckReport
from xaip.planning.semantics import STEP_NUMBERING
from xaip.runtime import Status

#: Kinds of refutation: a step is not applicable, the goal is not reached, the foil is valid
#: but costs at least as much as the robot's plan; or it cannot be refuted at all (valid
#: in the robot's own model and cheaper than its plan).
PRECONDITION, GOAL, COST, UNREFUTABLE = "precondition", "goal", "cost", "unrefutable"
#: The name of the foil xaip plans in the person's model when she names none.
SUGGESTED = "your model's plan"


@dataclass(frozen=True)
class Refutation:
    """Why one foil fails in the explained abstraction.

    ``step`` (1-based) and ``action``: the first step that is not applicable
    (``precondition``); ``unmet``: its unmet preconditions, or the goal literals false at the
    end (``goal``); ``concretised``: the made-concrete predicates those mention (empty: the
    foil already fails in the person's own model); ``since``: for each unmet literal that is
    a single fact, the step after which it last became false (0: false from the start) and
    that step's action; ``rule``: the failing action schema and its precondition in the
    explained abstraction (the model fragment the person now needs). For ``cost`` and
    ``unrefutable``, ``foil_cost`` and ``plan_cost`` compare it with the robot's plan."""

    foil: int
    name: str
    kind: str
    step: int | None = None
    action: str | None = None
    unmet: tuple[str, ...] = ()
    concretised: tuple[str, ...] = ()
    since: tuple[tuple[str, int, str | None], ...] = ()
    rule: tuple[str, str] | None = None
    foil_cost: int | None = None
    plan_cost: int | None = None

    @property
    def refuted(self) -> bool:
        return self.kind != UNREFUTABLE

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"foil": self.foil + 1, "name": self.name, "kind": self.kind}
        if self.kind == PRECONDITION:
            out.update(failed_step=self.step, action=self.action, rule=None if self.rule is None
                       else {"action": self.rule[0], "precondition": self.rule[1]})
        if self.kind in (PRECONDITION, GOAL):
            out.update(unmet=list(self.unmet), concretised=list(self.concretised),
                       since=[{"literal": lit, "false_since_step": s, "made_false_by": a}
                              for lit, s, a in self.since])
        else:
            out.update(foil_cost=self.foil_cost, plan_cost=self.plan_cost)
        return out


@dataclass(frozen=True)
class AbstractionResult:
    """U06: the fewest hidden predicates to make concrete (``concretise``, in the order the
    predicates were hidden) so that every refutable foil fails in the person's model
    ``f_{hidden - concretise}(M)``; ``minimum`` says no smaller set does (and none of the
    same size earlier in hide order); ``refutations`` has one entry per foil, in the order
    given. ``plan`` is the robot's plan (``None``: the task has no plan), ``plan_cost`` its
    cost. ``status`` is ``found`` when every foil is refuted, ``no_explanation`` when some
    foil is valid and cheaper in the robot's own model, ``budget_exhausted`` when the search
    stopped early (then ``concretise`` refutes every refutable foil but need not be the
    fewest). ``suggested_plan`` is the foil xaip planned in the person's model when she named
    none (a plan of her model)."""

    status: Status
    hidden: tuple[str, ...]
    concretise: tuple[str, ...]
    minimum: bool
    refutations: tuple[Refutation, ...]
    plan: tuple[str, ...] | None
    plan_cost: int | None
    relevant: tuple[str, ...] = ()
    suggested_plan: tuple[str, ...] | None = None
    verified: bool = False
    seconds: float = 0.0
    stats: Mapping[str, Any] = field(default_factory=dict)
    check: CheckReport | None = None

    @property
    def still_hidden(self) -> tuple[str, ...]:
        """What the person still need not know after the explanation."""
        return tuple(p for p in self.hidden if p not in self.concretise)

    @property
    def unrefutable(self) -> tuple[Refutation, ...]:
        return tuple(r for r in self.refutations if not r.refuted)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": str(self.status), "verified": self.verified,
            "hidden": list(self.hidden), "concretise": list(self.concretise),
            "still_hidden": list(self.still_hidden), "minimum": self.minimum,
            "relevant": list(self.relevant),
            "plan": None if self.plan is None else list(self.plan), "plan_cost": self.plan_cost,
            "suggested_foil": None if self.suggested_plan is None else list(self.suggested_plan),
            "refutations": [r.to_dict() for r in self.refutations], **STEP_NUMBERING,
            "seconds": round(self.seconds, 4), "stats": dict(self.stats)}
        if self.check is not None:
            out["check"] = self.check.to_dict()
        return out


# ---------------------------------------------------------------------------- U07


def level_text(level: frozenset[str] | tuple[str, ...]) -> str:
    """A level as a person reads it: the predicates it hides, or 'nothing hidden'."""
    return "hides " + ", ".join(sorted(level)) if level else "hides nothing"


@dataclass(frozen=True)
class Query:
    """One question put to the person: is ``plan`` a valid plan (in your understanding)?
    ``answer`` is what she said; ``before``/``after`` how many candidate levels remained
    before and after the answer; ``accepting`` how many of the ``before`` levels accept
    the plan."""

    plan: tuple[str, ...]
    answer: bool
    before: int
    after: int
    accepting: int

    def to_dict(self, number: int) -> dict[str, Any]:
        return {"query": number, "plan": list(self.plan), "answer":
                "valid" if self.answer else "invalid", "candidates_before": self.before,
                "accepting": self.accepting, "candidates_after": self.after}


@dataclass(frozen=True)
class LocalisationResult:
    """U07: where the person sits in the lattice of abstractions.

    ``levels`` is the lattice (each level: the predicates the person does not know);
    ``queries`` the questions asked, in order; ``candidates`` the levels that agree with
    every answer. ``exact`` says the candidates are proved indistinguishable (every plan
    valid in one is valid in all), so no further query could tell them apart; ``truth`` is
    the simulated person's level, when simulated. ``status``: ``found`` (located; exact),
    ``no_explanation`` (no level agrees with the answers), ``budget_exhausted``."""

    status: Status
    hideable: tuple[str, ...]
    levels: tuple[frozenset[str], ...]
    queries: tuple[Query, ...]
    candidates: tuple[frozenset[str], ...]
    exact: bool
    truth: frozenset[str] | None = None
    verified: bool = False
    seconds: float = 0.0
    stats: Mapping[str, Any] = field(default_factory=dict)
    check: CheckReport | None = None

    @property
    def lower_bound(self) -> int:
        """``ceil(log2(levels))``: the fewest yes/no queries that can single out any level
        of the lattice when every level is distinguishable."""
        return math.ceil(math.log2(len(self.levels))) if len(self.levels) > 1 else 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": str(self.status), "verified": self.verified,
            "hideable": list(self.hideable), "lattice_size": len(self.levels),
            "queries_asked": len(self.queries), "log2_lower_bound": self.lower_bound,
            "queries": [q.to_dict(i) for i, q in enumerate(self.queries, 1)],
            "candidates": [sorted(level) for level in self.candidates], "exact": self.exact,
            "seconds": round(self.seconds, 4), "stats": dict(self.stats)}
        if self.truth is not None:
            out["simulated_level"] = sorted(self.truth)
        if self.check is not None:
            out["check"] = self.check.to_dict()
        return out
