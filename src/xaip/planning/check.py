"""The planning core's own checker: every claim of ``xaip plan`` re-derived independently.

Why: ``xaip plan --optimal`` claims *optimal*, ``--cost-bound C`` claims *no plan cheaper
than C*, every solved call claims *valid*. Issue 21's rule is that every claim an answer
makes is either checked or not made, so the plan command checks its answers like every
explainer does.

What it checks and what it shares with the search:

* *valid, and its cost*: the plan is replayed on the **lifted** model by
  :func:`xaip.planning.plans.validate` (shares only the PDDL reader; no grounding, no search);
* *optimal* / *no cheaper plan* / *no plan*: the checkers' proof
  (:func:`xaip.planning.proofs.cheaper_plan`): A* with the **certified LM-cut** (LM-cut as
  an untrusted oracle whose every cut ``certify.c`` verifies; h^max without the compiled
  core) on a **fresh grounding** of the model, under the strict bound of the plan's cost.
  It shares the grounder and the core's A* loop with its successor generator with the
  search, never its heuristic's values (or GBFS + h_FF) or its open list.

It runs under the same budget as the search, started afresh; out of budget it says
"unverified: checker budget" (:data:`xaip.contract.CHECKER_BUDGET`).
"""

from __future__ import annotations

from xaip.contract import CheckReport, run_checker
from xaip.errors import BudgetExhausted
from xaip.planning.engines import DEFAULT_ENGINE
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import validate
from xaip.planning.proofs import cheaper_plan, proof_method
from xaip.planning.search.result import PlanResult
from xaip.runtime import Budget, Status


def _no_plan_cheaper(domain: Domain, problem: Problem, bound: int | None,
                     budget: Budget) -> tuple[str, int | None]:
    """Status and cost of the cheapest plan cheaper than ``bound`` (any plan when None)."""
    status, cost, _ = cheaper_plan(domain, problem, None, bound, budget)
    if status == Status.BUDGET_EXHAUSTED:
        raise BudgetExhausted("the optimality proof ran out of budget", phase="check")
    return status, cost


def check_plan(domain: Domain, problem: Problem, result: PlanResult,
               cost_bound: int | None = None, budget: Budget | None = None) -> CheckReport:
    """Check every claim of ``result`` (a call on ``domain``/``problem`` with ``cost_bound``)
    under ``budget`` started afresh; see the module docstring for what is shared."""
    budget = budget or Budget()
    if not result.status.finished:
        return CheckReport(None, "the search did not finish; nothing to check")

    return run_checker(lambda: _check(domain, problem, result, cost_bound, budget))


def _check(domain: Domain, problem: Problem, result: PlanResult, cost_bound: int | None,
           budget: Budget) -> CheckReport:
    if result.status == Status.UNSOLVABLE:
        status, cost = _no_plan_cheaper(domain, problem, cost_bound, budget)
        if status == "solved":
            return CheckReport(False, f"a plan of cost {cost} exists"
                               + ("" if cost_bound is None else f" (bound {cost_bound})"))
        what = "no plan" if cost_bound is None else f"no plan cheaper than {cost_bound}"
        return CheckReport(True, f"{what}: {proof_method(DEFAULT_ENGINE)} on a fresh grounding")
    replay = validate(domain, problem, result.steps())
    if not replay.valid:
        return CheckReport(False, f"the plan is not valid on the lifted model: {replay.reason}")
    if result.cost is not None and replay.cost != result.cost:
        return CheckReport(False, f"the plan costs {replay.cost}, not {result.cost}")
    if cost_bound is not None and replay.cost is not None and replay.cost >= cost_bound:
        return CheckReport(False, f"the plan costs {replay.cost}, not less than {cost_bound}")
    if not result.optimal:
        return CheckReport(True, "valid (replayed on the lifted model)")
    status, cost = _no_plan_cheaper(domain, problem, int(replay.cost or 0), budget)
    if status == "solved":
        return CheckReport(False, f"not optimal: a plan of cost {cost} exists")
    return CheckReport(True, "valid (replayed on the lifted model) and optimal "
                             f"({proof_method(DEFAULT_ENGINE)} on a fresh grounding)")
