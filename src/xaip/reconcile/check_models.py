"""The checker's lifted models ``H + S``: each built, validated, grounded and solved once.

Why: one check asks about the same edit set more than once. The person's model before the
explanation (the empty edit set) is validated and searched for the claims about her
optimum, and again as the updated model when the answer is empty (most answers on small
instances are: the plan is already optimal for her); a contrastive answer's model is
grounded once per foil. Building, validating and grounding a small model is most of a
small check's time, so each is done once per edit set here.

What is memoised, per edit set of one check (never across checks, never the search's
objects):

* the updated model as PDDL (:func:`~xaip.planning.features.apply.apply_edits`; the empty
  set is the person's model as given: by ``apply_edits``' definition no edits change
  nothing);
* the lifted validation of the plan on it (:func:`~xaip.planning.plans.validate`);
* the checker's own fresh grounding of it (:func:`~xaip.planning.grounding.ground`);
* what the checker's A* (:func:`~xaip.planning.proofs.cheaper_plan`) proved about its
  cheapest plan. A proof under the bound ``b`` answers a later question under ``b'``
  without a second search when that follows from the definitions: a cheapest plan of cost
  ``c < b`` is the model's optimum, so it answers every bound (a plan cheaper than ``b'``
  exists iff ``c < b'``); "no plan cheaper than ``b``" answers every ``b' <= b`` (none).
  A budget that ran out proves nothing and is not kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xaip.errors import BudgetExhausted
from xaip.planning.engines import DEFAULT_ENGINE
from xaip.planning.features import Edit
from xaip.planning.features.apply import apply_edits
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, ValidationResult, validate
from xaip.planning.proofs import OWN_ENGINES, cheaper_plan
from xaip.planning.task import Task
from xaip.reconcile.problem import MRP
from xaip.runtime import Budget

#: (status, cost, step names) of :func:`~xaip.planning.proofs.cheaper_plan`.
Proof = tuple[str, int | None, tuple[str, ...] | None]


def lifted_only(edits: Iterable[Edit]) -> list[Edit]:
    """``edits``, refused when one is about a single ground action (no PDDL form)."""
    edits = list(edits)
    if any(e.feature.is_action_feature and not e.feature.is_lifted and e.feature.parameters
           for e in edits):
        raise ValueError("grounded edits: use brute_force_complete")
    return edits


def updated(mrp: MRP, edits: Iterable[Edit]) -> tuple[Domain, Problem]:
    """The human model of ``mrp`` updated by lifted ``edits``, as PDDL."""
    domain, problem = apply_edits(
        mrp.human_domain, mrp.human_problem, lifted_only(edits),
        source_domain=mrp.robot_domain, source_problem=mrp.robot_problem)
    assert problem is not None
    return domain, problem


class CheckModels:
    """The updated models of one check, each edit set's work done once (module docstring).

    ``plan``: the plan the validations are about (default: the MRP's)."""

    def __init__(self, mrp: MRP, engine: str = DEFAULT_ENGINE,
                 plan: Sequence[PlanStep] | None = None) -> None:
        self.mrp, self.engine = mrp, engine
        self.plan = mrp.plan if plan is None else tuple(plan)
        self._models: dict[frozenset[Edit], tuple[Domain, Problem]] = {}
        self._validations: dict[frozenset[Edit], ValidationResult] = {}
        self._tasks: dict[frozenset[Edit], Task] = {}
        self._proofs: dict[frozenset[Edit], tuple[int | None, Proof]] = {}

    def model(self, edits: Iterable[Edit]) -> tuple[Domain, Problem]:
        """``H + edits`` as PDDL (``H`` itself for no edits)."""
        edits = lifted_only(edits)
        key = frozenset(edits)
        found = self._models.get(key)
        if found is None:
            found = self._models[key] = (self.mrp.human_domain, self.mrp.human_problem) \
                if not key else updated(self.mrp, edits)
        return found

    def validation(self, edits: Iterable[Edit]) -> ValidationResult:
        """The plan validated on the lifted ``H + edits``."""
        edits = list(edits)
        key = frozenset(edits)
        found = self._validations.get(key)
        if found is None:
            found = self._validations[key] = validate(*self.model(edits), self.plan)
        return found

    def task(self, edits: Iterable[Edit], budget: Budget) -> Task:
        """The checker's own fresh grounding of ``H + edits``."""
        edits = list(edits)
        key = frozenset(edits)
        found = self._tasks.get(key)
        if found is None:
            found = self._tasks[key] = ground(*self.model(edits), budget=budget)
        return found

    def cheaper(self, edits: Iterable[Edit], bound: int | None, budget: Budget) -> Proof:
        """:func:`~xaip.planning.proofs.cheaper_plan` on ``H + edits`` (the checker's A* on
        its own grounding, or an external engine on the PDDL); an earlier proof on the
        same model answers when it decides this bound too (module docstring)."""
        edits = list(edits)
        key = frozenset(edits)
        known = self._proofs.get(key)
        if known is not None:
            answer = implied(*known, bound)
            if answer is not None:
                return answer
        domain, problem = self.model(edits)
        try:
            task = self.task(edits, budget) if self.engine in OWN_ENGINES else None
            proof = cheaper_plan(domain, problem, task, bound, budget, self.engine)
        except BudgetExhausted:
            proof = ("budget_exhausted", None, None)
        if proof[0] in ("solved", "unsolvable"):  # a budget that ran out proved nothing
            self._proofs[key] = (bound, proof)
        return proof


def implied(bound: int | None, proof: Proof, wanted: int | None) -> Proof | None:
    """What ``proof`` (made under ``bound``) says under ``wanted``, None if it does not
    (see the module docstring)."""
    status, cost, _ = proof
    if status == "solved":  # the cheapest plan below ``bound``: the model's optimum
        assert cost is not None
        return proof if wanted is None or cost < wanted else ("unsolvable", None, None)
    if bound is None or (wanted is not None and wanted <= bound):
        return ("unsolvable", None, None)  # no plan at all / none cheaper than ``bound``
    return None
