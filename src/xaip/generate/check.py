"""The generator's checker: every claim an instance makes about its plans, re-derived.

An instance claims (1) ``π`` is valid and optimal in the robot's model at ``plan_cost``,
(2) with ``need_explanation``, ``π`` is invalid for the human or costs more than the human's
optimum ``human_optimal_cost``. (1) and the human optimum are both planner answers, so both
are re-derived here: the plan is replayed on the *lifted* model by the validator, and
optimality is proved on a *fresh grounding* by the reconciliation checker's A*
(:func:`xaip.planning.proofs.cheaper_plan`) under the strict bound of the plan's cost (an
exhausted search proves that no plan is cheaper).

What it shares with the search: the PDDL reader, the grounder, the planning core's A* loop
and LM-cut as an **untrusted oracle**: the A* is ordered and pruned by the *certified*
LM-cut, whose cuts the core's certificate checker (``src/xaip/_native/certify.c``, no
code shared with LM-cut) accepts only when each is a landmark of the delete relaxation from
the state and their charges are a cost partition; a state whose certificate fails gets
h^max (counted by :func:`xaip.planning.engines.compiled.search_counts`), so a fault in
LM-cut can slow the proof, never make it wrong. On tasks with conditional effects, and
without the compiled core, the A* uses h^max. Never the planner's own answer, open list or
plan. "Invalid for the human" and every plan cost are the lifted validator's own answers
(no search to check). The edits themselves are checked by construction: ``apply_edits`` is
the library's one definition of a model update, and the tests re-derive them by diffing
the written files' features.

Each check runs under the user's budget started afresh; out of budget it reports
"unverified: checker budget" (:func:`xaip.contract.run_checker`) and the command exits 1.
"""

from __future__ import annotations

from xaip.contract import CheckReport, run_checker
from xaip.errors import BudgetExhausted
from xaip.planning.engines import DEFAULT_ENGINE
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import validate
from xaip.planning.proofs import cheaper_plan, proof_method
from xaip.planning.search.result import PlanResult
from xaip.runtime import Budget


def check_optimal(domain: Domain, problem: Problem, found: PlanResult, cost: int,
                  budget: Budget, whose: str) -> CheckReport:
    """Is ``found`` a valid, optimal plan of ``cost`` in ``whose`` model?"""
    report = run_checker(lambda: _optimal(domain, problem, found, budget))
    if report.ok is True and found.cost is not None and int(found.cost) != cost:
        return CheckReport(False, f"{whose} optimum: the planner said {found.cost}, the "
                                  f"validator {cost}")
    return CheckReport(report.ok, f"{whose} plan: {report.details}")


def _optimal(domain: Domain, problem: Problem, found: PlanResult, budget: Budget
             ) -> CheckReport:
    if not found.status.finished:
        return CheckReport(None, "the search did not finish; nothing to check")
    replay = validate(domain, problem, found.steps())
    if not replay.valid or replay.cost is None:
        return CheckReport(False, f"the plan is not valid on the lifted model: {replay.reason}")
    if found.cost is not None and replay.cost != found.cost:
        return CheckReport(False, f"the plan costs {replay.cost}, not {found.cost}")
    clock = budget.start()
    task = ground(domain, problem, budget=clock)
    status, cheaper, _ = cheaper_plan(None, None, task, int(replay.cost), clock.remaining())
    if status == "budget_exhausted":
        raise BudgetExhausted("the checker's optimality proof ran out of budget",
                              phase="check")
    if status == "solved":
        return CheckReport(False, f"not optimal: a plan of cost {cheaper} exists")
    return CheckReport(True, f"valid (replayed on the lifted model) and optimal "
                             f"({proof_method(DEFAULT_ENGINE)} on a fresh grounding)")


def combine(*reports: CheckReport) -> CheckReport:
    """All reports together: false if any is false, undecided if any is, else true."""
    details = "; ".join(r.details for r in reports)
    if any(r.ok is False for r in reports):
        return CheckReport(False, details)
    if any(r.ok is None for r in reports):
        return CheckReport(None, details)
    return CheckReport(True, details)
