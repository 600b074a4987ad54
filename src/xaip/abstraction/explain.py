"""The front door of U06: refute the person's foils with the fewest fluents made concrete.

The setting (book §6.3, HELM): the person's model is the projection ``f_P(M)`` of the
robot's model without the predicates ``P`` she does not know or track. She proposes foils,
plans she thinks valid or cheaper than the robot's. The explanation is the smallest set
``R ⊆ P`` to make concrete so that in ``f_{P - R}(M)`` every foil fails: a step is not
applicable, the goal is not reached, or the foil is valid but not cheaper than the robot's
plan.

Why smallest-first search over subsets is right: a foil that fails in an abstraction fails
in every more concrete one (the projection only drops conditions), so the refuting sets are
closed upwards and the first size at which some set refutes every foil is the minimum. Two
prunings keep it small: only predicates some foil step's precondition or the goal mentions
can matter (:func:`~xaip.abstraction.projection.relevant`), and each foil's verdict depends
only on the candidate set's intersection with the predicates *its* steps read, so it is
cached by that intersection. Among the smallest sets, the first in hide order is returned.
:mod:`xaip.abstraction.check` confirms the answer without either pruning.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Mapping, Sequence

from xaip.abstraction.fragments import refutation
from xaip.abstraction.projection import check_hideable, project, relevant
from xaip.abstraction.results import SUGGESTED, UNREFUTABLE, AbstractionResult, Refutation
from xaip.contract import run_checker, with_check
from xaip.errors import BudgetExhausted, InputError
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, check_steps, parse_plan, validate
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock
from xaip.runtime.progress import Progress, report

Foils = Sequence[Sequence[PlanStep]] | Mapping[str, Sequence[PlanStep]]


def named_foils(foils: Foils) -> list[tuple[str, tuple[PlanStep, ...]]]:
    """Foils as (name, steps): a mapping keeps its names, a sequence is named ``foil N``."""
    if isinstance(foils, Mapping):
        return [(str(k), tuple(v)) for k, v in foils.items()]
    return [(f"foil {i}", tuple(f)) for i, f in enumerate(foils, 1)]


def robot_plan(domain: Domain, problem: Problem, plan: Sequence[PlanStep] | None,
               clock: BudgetClock) -> tuple[tuple[PlanStep, ...] | None, int | None]:
    """The robot's plan and its cost: ``plan`` when given (refused unless valid), else an
    optimal plan by xaip's planner; ``(None, None)`` when the task has no plan."""
    if plan is not None:
        check_steps(domain, problem, plan)
        result = validate(domain, problem, plan)
        if not result.valid:
            raise InputError(f"the robot's plan is not valid in its own model: {result.reason}")
        return tuple(plan), result.cost
    from xaip.planning.planner import plan_model

    found = plan_model(domain, problem, optimal=True, budget=clock.remaining())
    if found.status == Status.UNSOLVABLE:
        return None, None
    if found.status != Status.SOLVED:
        raise BudgetExhausted("planning the robot's plan")
    steps = parse_plan("".join(f"{a}\n" for a in found.plan), "<robot plan>")
    return steps, found.cost


def her_plan(domain: Domain, problem: Problem, hidden: Sequence[str],
             clock: BudgetClock) -> tuple[PlanStep, ...]:
    """An optimal plan of the person's model ``f_hidden(M)``: the plan she would expect when
    she names none."""
    from xaip.planning.planner import plan_model

    found = plan_model(*project(domain, problem, hidden), optimal=True,
                       budget=clock.remaining())
    if found.status == Status.UNSOLVABLE:
        raise InputError("the person's model has no plan (so neither has the robot's): "
                         "nothing to refute unless you give foils with --foil")
    if found.status != Status.SOLVED:
        raise BudgetExhausted("planning in the person's model")
    return parse_plan("".join(f"{a}\n" for a in found.plan), "<her plan>")


def explain_by_abstraction(domain: Domain, problem: Problem, hide: Sequence[str],
                           foils: Foils | None = None, *,
                           plan: Sequence[PlanStep] | None = None,
                           budget: Budget | None = None, progress: Progress | None = None,
                           check: bool = True) -> AbstractionResult:
    """The fewest predicates of ``hide`` to make concrete so that every foil fails in the
    person's model (the projection without the rest), with how each foil fails there.

    ``foils`` default to one: an optimal plan of the person's model (what she would expect;
    ``suggested_plan`` of the result). ``plan`` is the robot's plan (default: an optimal plan
    of the task); a foil that is valid and at least as costly is refuted by its cost alone.
    ``check`` runs :func:`xaip.abstraction.check.check` under a fresh copy of ``budget`` and
    sets ``verified``. Raises :class:`~xaip.errors.InputError` on bad input.
    """
    budget = budget or Budget()
    started = time.perf_counter()
    hidden = check_hideable(domain, problem, hide)
    named = [] if foils is None else named_foils(foils)
    if foils is not None and not named:
        raise InputError("give at least one foil (a plan the person expects instead)")
    for _, steps in named:
        check_steps(domain, problem, steps)
    clock = budget.start()
    try:
        if foils is None:
            named = [(SUGGESTED, her_plan(domain, problem, hidden, clock))]
        steps_of_plan, plan_cost = robot_plan(domain, problem, plan, clock)
    except BudgetExhausted:
        result = AbstractionResult(Status.BUDGET_EXHAUSTED, hidden, hidden, False, (), None,
                                   None, stats={"phase": "robot plan"})
        return _done(domain, problem, hidden, named, plan, result, started, budget, check,
                     progress)
    search = _Search(domain, problem, hidden, named, plan_cost, clock)
    result = search.run(progress)
    result = dataclasses.replace(
        result, plan=None if steps_of_plan is None else tuple(str(s) for s in steps_of_plan),
        plan_cost=plan_cost,
        suggested_plan=None if foils is not None else tuple(str(s) for s in named[0][1]))
    return _done(domain, problem, hidden, named, steps_of_plan, result, started, budget, check,
                 progress)


class _Search:
    """Smallest-first search over the relevant predicates, with per-foil caches."""

    def __init__(self, domain: Domain, problem: Problem, hidden: tuple[str, ...],
                 foils: list[tuple[str, tuple[PlanStep, ...]]], plan_cost: int | None,
                 clock: BudgetClock) -> None:
        self.domain, self.problem, self.hidden = domain, problem, hidden
        self.foils, self.plan_cost, self.clock = foils, plan_cost, clock
        self.reads = [frozenset(relevant(domain, problem, {s.name for s in steps}, hidden))
                      for _, steps in foils]
        self.cache: list[dict[frozenset[str], Refutation | None]] = [{} for _ in foils]
        self.validations = 0

    def verdict(self, index: int, concrete: frozenset[str]) -> Refutation | None:
        key = concrete & self.reads[index]
        cache = self.cache[index]
        if key not in cache:
            if not self.clock.charge():
                raise BudgetExhausted("validating foils")
            self.validations += 1
            model = project(self.domain, self.problem,
                            [p for p in self.hidden if p not in key])
            name, steps = self.foils[index]
            cache[key] = refutation(*model, steps, index, name, key, self.plan_cost)
        return cache[key]

    def run(self, progress: Progress | None) -> AbstractionResult:
        every = frozenset(self.hidden)
        stats: dict[str, object] = {}
        try:
            concrete = [self.verdict(i, every) for i in range(len(self.foils))]
        except BudgetExhausted:
            return self._result(Status.BUDGET_EXHAUSTED, self.hidden, False, (), stats)
        refutable = [i for i, r in enumerate(concrete) if r is not None]
        lost = {i: Refutation(i, self.foils[i][0], UNREFUTABLE, foil_cost=self._cost(i),
                              plan_cost=self.plan_cost)
                for i, r in enumerate(concrete) if r is None}
        useful = tuple(p for p in self.hidden
                       if any(p in self.reads[i] for i in refutable))
        tried = 0
        try:
            for size in range(len(useful) + 1):
                report(progress, "subsets", size, len(useful), message=f"{size} made concrete")
                for combo in itertools.combinations(useful, size):
                    tried += 1
                    chosen = frozenset(combo)
                    found = [self.verdict(i, chosen) for i in refutable]
                    if all(r is not None for r in found):
                        stats["subsets_tried"] = tried
                        return self._final(chosen, True, refutable, found, lost, useful, stats)
        except BudgetExhausted:
            stats["subsets_tried"] = tried
            status_found = [self.cache[i][every & self.reads[i]] for i in refutable]
            return self._final(frozenset(useful), False, refutable, status_found, lost,
                               useful, stats)
        raise AssertionError("the full set refutes every refutable foil")

    def _cost(self, index: int) -> int:
        return validate(self.domain, self.problem, self.foils[index][1]).cost

    def _final(self, chosen: frozenset[str], minimum: bool, refutable: list[int],
               found: Sequence[Refutation | None], lost: dict[int, Refutation],
               useful: tuple[str, ...], stats: dict[str, object]) -> AbstractionResult:
        by_index: dict[int, Refutation] = dict(lost)
        for i, r in zip(refutable, found, strict=True):
            assert r is not None  # its verdict depends on chosen & what it reads only
            by_index[i] = r
        status = (Status.BUDGET_EXHAUSTED if not minimum else
                  Status.NO_EXPLANATION if lost else Status.FOUND)
        concretise = tuple(p for p in self.hidden if p in chosen)
        stats["relevant"] = len(useful)
        return self._result(status, concretise, minimum,
                             tuple(by_index[i] for i in sorted(by_index)), stats, useful)

    def _result(self, status: Status, concretise: tuple[str, ...], minimum: bool,
                refutations: tuple[Refutation, ...], stats: dict[str, object],
                useful: tuple[str, ...] = ()) -> AbstractionResult:
        stats["validations"] = self.validations
        return AbstractionResult(status, self.hidden, concretise, minimum, refutations, None,
                                 None, relevant=useful, stats=stats)


def _done(domain: Domain, problem: Problem, hidden: tuple[str, ...],
          foils: list[tuple[str, tuple[PlanStep, ...]]], plan: Sequence[PlanStep] | None,
          result: AbstractionResult, started: float, budget: Budget, check: bool,
          progress: Progress | None) -> AbstractionResult:
    result = dataclasses.replace(result, seconds=time.perf_counter() - started)
    if not check:
        return result
    from xaip.abstraction.check import check as run_check

    report(progress, "check", 0)
    report_ = run_checker(lambda: run_check(domain, problem, foils, plan, result, budget))
    return with_check(dataclasses.replace(result, check=report_), report_)
