"""The generator's checker: every claim an instance makes about its plans, re-derived.

An instance claims (1) ``π`` is valid and optimal in the robot's model at ``plan_cost``,
(2) with ``need_explanation``, ``π`` is invalid for the human or costs more than the human's
optimum ``human_optimal_cost``. (1) and the human optimum are both planner answers, so both
go through the planning core's checker (:func:`xaip.planning.check.check_plan`): the plan is
replayed on the *lifted* model by the validator, and optimality is proved by uniform-cost
search (h^max only pruning) on a *fresh grounding*. What it shares with the search: the
PDDL reader, the grounder and the successor generator -- never A* with LM-cut or its open
list. "Invalid for the human" and every plan cost are the lifted validator's own answers
(no search to check). The edits themselves are checked by construction:
``apply_edits`` is the library's one definition of a model update, and the tests re-derive
them by diffing the written files' features.

Each check runs under the user's budget started afresh; out of budget it reports
"unverified: checker budget" (:func:`xaip.contract.run_checker`) and the command exits 1.
"""

from __future__ import annotations

from xaip.contract import CheckReport
from xaip.planning.check import check_plan
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.search.result import PlanResult
from xaip.runtime import Budget


def check_optimal(domain: Domain, problem: Problem, found: PlanResult, cost: int,
                  budget: Budget, whose: str) -> CheckReport:
    """Is ``found`` a valid, optimal plan of ``cost`` in ``whose`` model?"""
    report = check_plan(domain, problem, found, budget=budget)
    if report.ok is True and found.cost is not None and int(found.cost) != cost:
        return CheckReport(False, f"{whose} optimum: the planner said {found.cost}, the "
                                  f"validator {cost}")
    return CheckReport(report.ok, f"{whose} plan: {report.details}")


def combine(*reports: CheckReport) -> CheckReport:
    """All reports together: false if any is false, undecided if any is, else true."""
    details = "; ".join(r.details for r in reports)
    if any(r.ok is False for r in reports):
        return CheckReport(False, details)
    if any(r.ok is None for r in reports):
        return CheckReport(None, details)
    return CheckReport(True, details)
