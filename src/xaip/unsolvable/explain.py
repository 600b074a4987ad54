"""The front door: decide whether a task has a plan and, when it has none, explain why.

Why this order: the uniform-cost search either finds a cheapest plan (then there is nothing
to explain) or sees every reachable state; the core, the landmark and the verdict on the
person's trace are then read off that one exploration, and :mod:`xaip.unsolvable.check`
confirms them by a separate search on a fresh grounding, under a fresh copy of the budget.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

from xaip.contract import run_checker, with_check
from xaip.errors import BudgetExhausted
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Atom, Domain, Problem
from xaip.planning.plans import PlanStep, validate
from xaip.runtime import Budget, Status
from xaip.runtime.budget import as_clock
from xaip.runtime.progress import Progress, report
from xaip.unsolvable.chain import landmark_chain
from xaip.unsolvable.core import maximal, minimum_core
from xaip.unsolvable.goals import GoalMasks, goal_literals
from xaip.unsolvable.landmark import NEVER_TRUE, RELAXED_UNREACHABLE, unreachable_landmark
from xaip.unsolvable.repairs import find_repair
from xaip.unsolvable.results import TraceFailure, UnsolvableResult
from xaip.unsolvable.search import explore


def explain_unsolvable(domain: Domain, problem: Problem,
                       trace: Sequence[PlanStep] | None = None, *,
                       budget: Budget | None = None, progress: Progress | None = None,
                       check: bool = True, repair: int = 0) -> UnsolvableResult:
    """A cheapest plan of the task, or why it has none: a minimum unsolvable core of the
    goal (subset-minimal when the budget runs out during the core search), the landmark
    that cannot be reached, the fewest initial facts whose addition gives a plan, and where
    ``trace`` (the person's attempted plan) fails.

    ``repair`` (0, the default: off) bounds how many initial facts
    :mod:`xaip.unsolvable.repairs` may add to give the task a plan. ``check`` runs
    :func:`xaip.unsolvable.check.check` under a fresh copy of ``budget`` and sets
    ``verified``. Raises :class:`~xaip.errors.InputError` on bad input.
    """
    budget = budget or Budget()
    started = time.perf_counter()
    literals = goal_literals(problem)
    failure, trace_valid = _trace(domain, problem, trace)
    goal = tuple(literal.text for literal in literals)
    clock = as_clock(budget)
    try:
        task = ground(domain, problem, budget=clock)
    except BudgetExhausted:
        return _done(domain, problem, UnsolvableResult(
            Status.BUDGET_EXHAUSTED, goal, None, trace=failure, trace_valid=trace_valid,
            stats={"phase": "grounding"}), started, budget, check, trace)
    goals = GoalMasks(task, literals)
    full = (1 << len(literals)) - 1
    report(progress, "explore", 0)
    seen = explore(task, goals, full, clock, progress)
    stats: dict[str, object] = {"expanded": seen.expanded, "states": seen.states,
                                "goal_masks": len(seen.masks)}
    if seen.plan is not None:
        result = UnsolvableResult(Status.SOLVED, goal, True,
                                  plan=tuple(str(a) for a in seen.plan), plan_cost=seen.cost,
                                  trace=failure, trace_valid=trace_valid, stats=stats)
        return _done(domain, problem, result, started, budget, check, trace)
    if not seen.complete:
        result = UnsolvableResult(Status.BUDGET_EXHAUSTED, goal, None, trace=failure,
                                  trace_valid=trace_valid, stats=stats)
        return _done(domain, problem, result, started, budget, check, trace)
    report(progress, "core", 0)
    core = minimum_core(len(literals), maximal(seen.masks), clock, progress)
    stats["subsets_tried"] = core.subsets_tried
    landmark = unreachable_landmark(task, literals, core.positions, seen.reached,
                                    clock.remaining())
    if landmark is not None and landmark.kind in (NEVER_TRUE, RELAXED_UNREACHABLE):
        atom = next(lit.atom for lit in literals if lit.text == landmark.fact)

        def holds(fact: Atom) -> bool:  # in some reachable state (the search saw them all)
            index = task.fact_index.get(fact)
            return fact in task.static_facts if index is None else bool(seen.reached >> index & 1)

        chain = landmark_chain(domain, problem, atom, holds)
        landmark = dataclasses.replace(landmark, chain=chain)
    fix = None
    if repair > 0 and core.kind == "minimum":
        report(progress, "repair", 0)
        fix = find_repair(domain, problem, clock, repair, progress=progress)
    finished = core.kind == "minimum" and (fix is None or fix.complete)
    status = Status.FOUND if finished else Status.BUDGET_EXHAUSTED
    result = UnsolvableResult(status, goal, False, repair=fix,
                              core=tuple(goal[p] for p in core.positions),
                              core_positions=core.positions, core_kind=core.kind,
                              landmark=landmark, trace=failure, trace_valid=trace_valid,
                              stats=stats)
    return _done(domain, problem, result, started, budget, check, trace)


def _trace(domain: Domain, problem: Problem, trace: Sequence[PlanStep] | None
           ) -> tuple[TraceFailure | None, bool | None]:
    """Where the attempted plan fails (the lifted validator, which shares nothing with the
    grounding), or ``(None, True)`` when it is a plan."""
    if trace is None:
        return None, None
    checked = validate(domain, problem, trace)
    if checked.valid:
        return None, True
    if checked.goal_unmet:
        return TraceFailure(len(trace), None, None, checked.unmet), False
    index = checked.failed_step
    assert index is not None
    return TraceFailure(len(trace), checked.failed_step_number, str(trace[index]),
                        checked.unmet), False


def _done(domain: Domain, problem: Problem, result: UnsolvableResult, started: float,
          budget: Budget, check: bool, trace: Sequence[PlanStep] | None) -> UnsolvableResult:
    result = dataclasses.replace(result, seconds=time.perf_counter() - started)
    if not check:
        return result
    from xaip.unsolvable.check import check as run_check

    report_ = run_checker(lambda: run_check(domain, problem, result, budget, trace))
    return with_check(dataclasses.replace(result, check=report_), report_)
