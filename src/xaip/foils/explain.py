"""The front door: the cheapest plan that does what the person's foil asks, or why none does.

Why this order: the robot's optimal plan first (the reference of the cost gap, and a task
with no plan at all makes every foil unrealisable); then the foil compiled into the task
(:mod:`xaip.foils.compile`) and planned optimally; only when that has no plan, the subset
search for conflicts (:mod:`xaip.foils.conflicts`), one optimal-planner call per subset it
cannot decide by monotonicity. :mod:`xaip.foils.check` then confirms the answer by its own
search under a fresh copy of the budget.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence

from xaip.contract import run_checker, with_check
from xaip.errors import BudgetExhausted, InputError
from xaip.foils.compile import compile_foils
from xaip.foils.conflicts import find_conflicts, members
from xaip.foils.language import Constraint, parse_foils
from xaip.foils.results import Cost, FoilResult
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.planner import plan_task
from xaip.planning.search.result import PlanResult
from xaip.planning.semantics import action_cost, counts_action_costs
from xaip.planning.task import Task
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock, as_clock
from xaip.runtime.progress import Progress, report


def explain_foils(domain: Domain, problem: Problem, foils: str | Sequence[Constraint], *,
                  file: str = "<foils>", budget: Budget | None = None,
                  progress: Progress | None = None, check: bool = True) -> FoilResult:
    """Answer the foil ``foils`` (the text of a foil file, see :mod:`xaip.foils.language`,
    or parsed constraints) on the task: a cheapest witness plan and its cost gap to the
    robot's optimal plan, or the minimal conflicts and maximal realisable subsets.

    ``check`` runs :func:`xaip.foils.check.check` under a fresh copy of ``budget`` and sets
    ``verified``. Raises :class:`~xaip.errors.InputError` on bad input.
    """
    budget = budget or Budget()
    started = time.perf_counter()
    constraints = (parse_foils(foils, domain, problem, file) if isinstance(foils, str)
                   else tuple(foils))
    if not constraints:
        raise InputError("a foil needs at least one constraint")
    counts = counts_action_costs(domain, problem)
    base = FoilResult(Status.BUDGET_EXHAUSTED, constraints, None, counts_costs=counts)
    clock = as_clock(budget)
    try:
        task = ground(domain, problem, budget=clock)
    except BudgetExhausted:
        return _done(domain, problem, dataclasses.replace(base, stats={"phase": "grounding"}),
                     started, budget, check)
    calls = 0

    def planned(target: Task) -> PlanResult:
        nonlocal calls
        calls += 1
        outcome = plan_task(target, optimal=True, budget=clock.remaining())
        clock.charge(max(outcome.expanded, 1))
        return outcome

    report(progress, "robot plan", 0)
    robot = planned(task)
    if robot.status == Status.BUDGET_EXHAUSTED:
        return _done(domain, problem, dataclasses.replace(base, stats={"planner_calls": calls}),
                     started, budget, check)
    if robot.status != Status.SOLVED:
        result = dataclasses.replace(base, status=Status.UNSOLVABLE, realisable=False,
                                     task_solvable=False, stats={"planner_calls": calls})
        return _done(domain, problem, result, started, budget, check)
    base = dataclasses.replace(base, task_solvable=True,
                               robot_plan=tuple(str(a) for a in robot.plan),
                               robot_cost=_price(robot, counts))
    report(progress, "foil plan", calls)
    foil = planned(compile_foils(task, constraints))
    if foil.status == Status.SOLVED:
        result = dataclasses.replace(base, status=Status.SOLVED, realisable=True,
                                     witness=tuple(str(a) for a in foil.plan),
                                     witness_cost=_price(foil, counts),
                                     stats={"planner_calls": calls})
        return _done(domain, problem, result, started, budget, check)
    if foil.status == Status.BUDGET_EXHAUSTED:
        return _done(domain, problem, dataclasses.replace(base, stats={"planner_calls": calls}),
                     started, budget, check)
    return _conflicts(domain, problem, task, dataclasses.replace(base, realisable=False),
                      clock, planned, lambda: calls, progress, started, budget, check)


def _conflicts(domain: Domain, problem: Problem, task: Task, base: FoilResult,
               clock: BudgetClock, planned: Callable[[Task], PlanResult],
               calls: Callable[[], int], progress: Progress | None, started: float,
               budget: Budget, check: bool) -> FoilResult:
    constraints = base.constraints
    n = len(constraints)
    full = (1 << n) - 1

    def realisable(mask: int) -> bool | None:
        if mask == full:
            return False  # planned already
        chosen = tuple(constraints[i] for i in members(mask))
        outcome = planned(compile_foils(task, chosen))
        if outcome.status == Status.BUDGET_EXHAUSTED:
            return None
        return bool(outcome.status == Status.SOLVED)

    found = find_conflicts(n, realisable, clock, progress)
    status = Status.UNSOLVABLE if found.complete else Status.BUDGET_EXHAUSTED
    result = dataclasses.replace(
        base, status=status, conflicts=tuple(members(m) for m in found.minimal_conflicts),
        maximal=tuple(members(m) for m in found.maximal), conflicts_complete=found.complete,
        stats={"planner_calls": calls(), "subset_queries": found.planner_calls})
    return _done(domain, problem, result, started, budget, check)


def _price(outcome: PlanResult, counts: bool) -> Cost:
    """A plan's cost by :mod:`xaip.planning.semantics` (the monitors change no cost)."""
    return sum((action_cost(a.cost, counts) for a in outcome.plan), 0)


def _done(domain: Domain, problem: Problem, result: FoilResult, started: float,
          budget: Budget, check: bool) -> FoilResult:
    result = dataclasses.replace(result, seconds=time.perf_counter() - started)
    if not check:
        return result
    from xaip.foils.check import check as run_check

    report_ = run_checker(lambda: run_check(domain, problem, result, budget))
    return with_check(dataclasses.replace(result, check=report_), report_)
