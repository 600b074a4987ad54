"""The one checker of the reconciliation family: ``check(inputs, result) -> CheckReport``.

Why independent: an explanation we cannot verify is a bug, and a checker that repeats the
search's reasoning would repeat its bugs. What the checker **shares** with the explainers,
exactly:

* the PDDL model classes (with what a parsed domain computes once for whoever asks
  first: its type closure) and :func:`~xaip.planning.features.apply.apply_edits` (the
  definition of "the human model updated by these edits");
* the grounder (:func:`~xaip.planning.grounding.ground`), the plan validator
  (:func:`~xaip.planning.plans.validate`), ``update_features`` and the planning core's
  A* search (the same engines the explainers plan with, :mod:`xaip.planning.engines`,
  with its action selection) and greedy best-first search with h_FF (it only looks for
  witness plans, each replayed by the checker before it is believed);
* LM-cut, as an **untrusted oracle** only: the checker's A* orders and prunes by the
  *certified* LM-cut (``lmcut-certified``, :data:`~xaip.planning.engines.compiled.
  CERTIFIED_LMCUT`). For every state, the core's LM-cut hands over its cuts (sets of
  actions, each with the cost it charged), and the core's certificate checker
  (``src/xaip/_native/certify.c``, which shares no code with LM-cut) accepts them only if
  every charged cut is a landmark of the delete relaxation from that state (its own
  reachability fixpoint, with the cut's actions removed, misses a goal fact) and the
  charges are a cost partition (for every action, the charges of the cuts containing it
  sum to at most its cost). Then their sum is admissible whatever LM-cut computed; a
  certificate that fails gives that state h^max instead, and is counted
  (:func:`~xaip.planning.engines.compiled.search_counts`: a fault in LM-cut). Without the
  compiled core (or with ``engine="builtin"``) the A* uses h^max;
* for uncertain models, :func:`~xaip.reconcile.annotated.settle` (which model a dialogue
  state stands for) and :meth:`AnnotatedMRP.completion`.

What it does **not** share: the compiled model space (:mod:`.space`), the goal tests and
their planner cache and witness plans (:mod:`.goals`), the conflicts (:mod:`.conflicts`),
the model-space searches and LM-cut's *values* (only certificates the checker verified
count). The updated model is rebuilt as a lifted PDDL model, the plan validated on it, and
optimality proved on a *fresh* grounding by **A* with the certified LM-cut** under the
strict bound of the plan's cost (a state is pruned when ``g + h`` reaches the bound, so an
exhausted search proves that no plan is cheaper), or by Fast Downward on the written PDDL
with ``engine="fd"``. A fault in LM-cut can make the proof slower (h^max where its
certificate fails), never wrong. When both models are
wholly features (:mod:`.check_tasks`), the updated tasks are instead built by toggling
features on one grounding of a relaxation (the minimality and monotonicity proofs ask
about hundreds of edit sets); the answer's plan is then still validated on the lifted
PDDL, and both readings must agree. Within one check, each edit set's lifted model is
built, validated, grounded and searched once (:mod:`.check_models`: the person's model
before is asked about again when the answer is empty). Grounded edits, which have no
lifted PDDL form, are checked by
:func:`~xaip.reconcile.brute_force.brute_force_complete`, which shares nothing but the
feature semantics. Minimality is proved by the checker's own branch-and-bound
(:mod:`.check_minimal`); what each type claims and how it is checked is in
:mod:`.check_explanation` and :mod:`.check_uncertain`. Every model is priced with
:func:`~xaip.planning.semantics.counts_action_costs` of its own domain and problem (through
``apply_edits``, grounding and validation), as the search prices it.

Budgets: the check runs under the same budget as the search, started afresh (the node
limit for each search on its own, the seconds for the whole check); when it runs out,
:func:`xaip.contract.run_checker` answers "unverified: checker budget" (``ok=None``), so the
result is not verified and the CLI exits 1.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from xaip.contract import CheckReport, run_checker
from xaip.errors import BudgetExhausted, InputError
from xaip.planning.engines import DEFAULT_ENGINE
from xaip.planning.features import Edit
from xaip.planning.features.apply import apply_edits
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, parse_plan, validate
from xaip.planning.proofs import cheaper_plan, proof_method
from xaip.planning.task import GroundAction, Task
from xaip.reconcile.annotated import AnnotatedMRP
from xaip.reconcile.brute_force import CheckResult, brute_force_complete
from xaip.reconcile.check_models import CheckModels, updated
from xaip.reconcile.problem import MRP
from xaip.reconcile.results import (
    Dialogue,
    Explanation,
    LabelledEdit,
    PolicyNode,
)
from xaip.runtime import Budget, Status

__all__ = ["CheckResult", "brute_force_complete", "check", "cheaper_plan",
           "contrastive_verdict", "is_complete", "is_monotonic", "policy_explains",
           "robustness", "updated_model"]

def updated_model(mrp: MRP, edits: Iterable[Edit]) -> tuple[Domain, Problem]:
    """The human model of ``mrp`` updated by lifted ``edits``, as PDDL."""
    return updated(mrp, edits)


def is_complete(mrp: MRP, edits: Iterable[Edit], budget: Budget | None = None,
                engine: str = DEFAULT_ENGINE, plan: Sequence[PlanStep] | None = None,
                models: CheckModels | None = None) -> CheckResult:
    """Is the plan valid and optimal in the human model updated by lifted ``edits``?

    Rebuilds the updated model as PDDL, validates the plan (``mrp.plan`` unless ``plan``
    is given) on the lifted model and asks for a cheaper plan on a fresh grounding with
    the checker's A* (:func:`cheaper_plan`) under the strict cost bound (``engine="fd"``:
    Fast Downward). ``models``: one check's :class:`~.check_models.CheckModels` (each edit
    set's model built, validated, grounded and searched once per check).
    ``complete`` is None when ``budget`` (default: 300 s) runs out.
    """
    budget = budget or Budget(max_seconds=300)
    models = models or CheckModels(mrp, engine, plan)
    edits = list(edits)
    result = models.validation(edits)
    if not result.valid:
        return CheckResult(False, False, None, None, result.reason or "invalid")
    assert result.cost is not None
    plan_cost = int(result.cost)
    status, cost, names = models.cheaper(edits, plan_cost, budget)
    if status == "budget_exhausted":
        return CheckResult(None, True, plan_cost, None, "the checker's budget ran out")
    if status == "solved":
        return CheckResult(False, True, plan_cost, cost,
                           f"a plan of cost {cost} beats the plan's {plan_cost}", names)
    return CheckResult(True, True, plan_cost, plan_cost, "valid and optimal")


def is_monotonic(mrp: MRP, edits: Sequence[Edit], difference: Sequence[Edit],
                 max_checks: int = 4096) -> bool | None:
    """Does every further subset of ``difference`` keep the plan explained (book P3)?

    ``None`` when more than ``max_checks`` subsets would have to be checked.
    """
    rest = [e for e in difference if e not in set(edits)]
    if 2 ** len(rest) > max_checks:
        return None
    for size in range(len(rest) + 1):
        for extra in itertools.combinations(rest, size):
            if is_complete(mrp, [*edits, *extra]).complete is not True:
                return False
    return True


# --------------------------------------------------------------------------- the checker


def check(inputs: MRP | AnnotatedMRP, result: Any, budget: Budget | None = None
          ) -> CheckReport:
    """Independently check every claim of any reconciliation result against its inputs.

    ``inputs`` is the :class:`MRP` (an :class:`AnnotatedMRP` for conformant, conditional
    and anytime explanations). ``ok`` is ``True`` when the result's claims hold, ``False``
    when one does not, ``None`` when the check could not decide: its budget (the same as
    the search's, started afresh; default 300 s) ran out -- "unverified: checker budget"
    (:func:`xaip.contract.run_checker`) -- or the result is unfinished and claims nothing.
    See the module docstring for what the check shares with the search.
    """
    budget = budget or Budget(max_seconds=300)
    return run_checker(lambda: _check(inputs, result, budget))


def _check(inputs: MRP | AnnotatedMRP, result: Any, budget: Budget) -> CheckReport:
    if isinstance(result, Explanation):
        if not result.status.finished:
            return CheckReport(None, "unfinished: the search ran out of budget, so the edits "
                                     "are not claimed to be a (minimal) explanation")
        from xaip.reconcile.check_explanation import check_explanation

        return check_explanation(_plain(inputs), result, budget)
    if isinstance(result, Dialogue):
        if result.status == Status.UNSOLVABLE:
            return _no_plan_after_veto(_plain(inputs), result, budget)
        last = result.current.check
        if last is None:
            return CheckReport(None, "the last round was not checked")
        return CheckReport(last.ok, f"last round (in the robot's corrected model): "
                                    f"{last.details}")
    if not isinstance(inputs, AnnotatedMRP):
        raise InputError(f"checking a {type(result).__name__} needs the annotated MRP")
    from xaip.reconcile.check_uncertain import check_uncertain

    return check_uncertain(inputs, result, budget)


def _no_plan_after_veto(mrp: MRP, result: Dialogue, budget: Budget) -> CheckReport:
    """The claim "the last veto leaves the robot with no plan": the robot's model (``mrp``,
    as it was before that veto) corrected by the veto has no plan (the checker's A* on a
    fresh grounding, without a cost bound)."""
    vetoed = result.rounds[-1].vetoed
    if vetoed is None:
        return CheckReport(False, "the dialogue ends without a plan but records no veto")
    reverse = Edit(vetoed.feature, "remove" if vetoed.op == "add" else "add")
    domain, problem = apply_edits(mrp.robot_domain, mrp.robot_problem, [reverse],
                                  source_domain=mrp.human_domain,
                                  source_problem=mrp.human_problem)
    assert problem is not None
    try:
        status, cost, _ = cheaper_plan(domain, problem, None, None, budget)
    except BudgetExhausted:
        status, cost = "budget_exhausted", None
    if status == "budget_exhausted":
        raise BudgetExhausted("the checker's budget ran out")
    if status == "solved":
        return CheckReport(False, f"after the veto the robot still has a plan (cost {cost})")
    return CheckReport(True, "after the last veto the robot's corrected model has no plan "
                             f"({proof_method(DEFAULT_ENGINE)} on a fresh grounding)")


def _plain(inputs: MRP | AnnotatedMRP) -> MRP:
    return inputs.mrp if isinstance(inputs, AnnotatedMRP) else inputs


def contrastive_verdict(mrp: MRP, edits: Sequence[Edit], foils: Sequence[Any],
                        budget: Budget, models: CheckModels | None = None
                        ) -> tuple[bool | None, str, tuple[str, ...] | None]:
    """Is the plan valid and no foil cheaper in ``H + edits``? ``(ok, why, cheaper foil
    plan)``; ``ok`` is None when ``budget`` ran out. ``models``: as for
    :func:`is_complete`."""
    models = models or CheckModels(mrp)
    domain, problem = models.model(edits)
    mine = models.validation(edits)
    if not mine.valid or mine.cost is None:
        return False, f"the plan is invalid in the updated model: {mine.reason}", None
    cost = int(mine.cost)
    task: Task | None = None
    for foil in foils:
        text = foil.text
        if foil.kind == "plan":
            other = validate(domain, problem, parse_plan("\n".join(f"({s})"
                                                                 for s in foil.steps)))
            if other.valid and other.cost is not None and other.cost < cost:
                return False, f"{text} costs {other.cost}, less than {cost}", foil.steps
            continue
        try:
            task = task or models.task(edits, budget)
            status, found, names = cheaper_plan(
                domain, problem, _foil_task(task, foil.kind, foil.action), cost, budget)
        except BudgetExhausted:
            status, found, names = "budget_exhausted", None, None
        if status == "budget_exhausted":
            return None, "the checker's budget ran out", None
        if status == "solved":
            real = None if names is None else tuple(n for n in names
                                                    if not n.startswith("xaip-check-used"))
            return False, f"{text}: a plan of cost {found} beats {cost}", real
    return True, (f"the plan is valid and no foil is cheaper ({proof_method(DEFAULT_ENGINE)}, "
                  "fresh grounding)"), None


def _foil_task(task: Task, kind: str, action: str) -> Task:
    """``task`` restricted to plans that avoid / use ``action`` (the checker's own
    compilation: one extra fact marks that the action was used)."""

    def matches(a: GroundAction) -> bool:
        return a.schema == action or a.name == action

    if kind == "avoid":
        return Task(task.name, task.facts, tuple(a for a in task.actions if not matches(a)),
                    task.init, task.goal, task.goal_neg, task.static_facts, task.has_costs)
    from xaip.planning.pddl.model import Atom

    bit = 1 << len(task.facts)
    actions = tuple(GroundAction(a.schema, a.args, a.pre, a.add | bit, a.delete, a.cost,
                                 a.neg_pre, a.conditional) if matches(a) else a
                    for a in task.actions)
    return Task(task.name, (*task.facts, Atom("xaip-check-used", (action,))), actions,
                task.init, task.goal | bit, task.goal_neg, task.static_facts, task.has_costs)




def robustness(amrp: AnnotatedMRP, edits: Iterable[LabelledEdit],
               answers: frozenset[Any] = frozenset(), budget: Budget | None = None
               ) -> float | None:
    """Book Def. 29 by enumeration (:func:`xaip.reconcile.check_uncertain.robustness`)."""
    from xaip.reconcile.check_uncertain import robustness as enumerate_robustness

    return enumerate_robustness(amrp, edits, answers, budget)


def policy_explains(amrp: AnnotatedMRP, policy: PolicyNode, budget: Budget | None = None
                    ) -> bool | None:
    """See :func:`xaip.reconcile.check_uncertain.policy_explains`."""
    from xaip.reconcile.check_uncertain import policy_explains as explained

    return explained(amrp, policy, budget)
