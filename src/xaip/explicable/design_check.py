"""The independent checker of environment designs: ``check_design(spec, result)``.

What it checks: every claim of a :class:`~xaip.explicable.results.DesignResult` --

* the chosen design's objective, its design cost and the baseline (no design) objective;
* each task's outcome under the chosen design: the plan is a plan of the changed robot
  model (lifted validation) with the claimed cost, and its ``(IE, robot cost)`` is the
  task's optimum;
* optimality: no design has a lower objective, nor an equal one with fewer modifications.
  The designs are enumerated by a depth-first walk over include/exclude decisions with a
  proper lower bound: every term of the objective but ``β · C_D`` is non-negative, so a
  partial design whose ``β · C_D`` already exceeds the claimed objective is cut with all
  its supersets. Only the designs that could beat the answer are evaluated, whatever
  their number (the old checker refused above 10 modifications).

How a design is evaluated: the objective formula is written here again from the
definition (book ch. 3, eq. 3.1-3.6); each task's ``E*`` and ``C(Λ*)`` come from the
checkers' own optimum (:func:`xaip.explicable.exact.best_key`: the product label search
for the cost distance, the bounded plan enumeration for the trace distances, with the
planner's default bound of twice the robot's optimum), never from the explicable planner.

Shared with the search: the spec reader, the transition function (``apply_design``: a
modification's facts are added to or removed from the initial states), grounding and
the trace distances. The checker runs under the budget it is given, started afresh; running
out is "unverified: checker budget".
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xaip.contract import CheckReport, run_checker
from xaip.errors import BudgetExhausted
from xaip.explicable.checks import fresh_clock, steps_of
from xaip.explicable.design import DesignProblem, DesignTask, apply_design
from xaip.explicable.exact import INF, InfinitelyManyPlans, best_key, cheapest, optimal_plans
from xaip.explicable.measures import MAPPINGS
from xaip.explicable.problem import ExplicableProblem, make_problem
from xaip.explicable.results import DesignResult
from xaip.planning.plans import validate
from xaip.runtime import Budget
from xaip.runtime.budget import BudgetClock

#: A task's optimum: (lowest IE or inf, robot cost of Λ* or None) and the problem it was for.
TaskValue = tuple[float, int | None]


def check_design(spec: DesignProblem, result: DesignResult,
                 budget: Budget | BudgetClock | None = None) -> CheckReport:
    """Confirm ``result`` is an optimal design (see the module docstring), within
    ``budget`` started afresh (unlimited when ``None``)."""
    if not result.status.finished or result.objective is None:
        return CheckReport(None, "the answer is unfinished")
    clock = fresh_clock(budget)

    def run() -> CheckReport:
        try:
            return _check(spec, result, clock)
        except InfinitelyManyPlans as loop:
            return CheckReport(False, f"infinitely many plans (a zero-cost cycle through "
                                      f"{{{loop}}})")

    return run_checker(run)


class _Values:
    """Each task's optimum per changed model, cached (many designs leave a task alone)."""

    def __init__(self, spec: DesignProblem, clock: BudgetClock) -> None:
        self.spec, self.clock = spec, clock
        self.cache: dict[tuple[int, frozenset[str], frozenset[str]], TaskValue] = {}

    def problem(self, task: DesignTask, design: frozenset[int]) -> ExplicableProblem:
        robot_problem, human_problem = apply_design(self.spec, task, sorted(design))
        return make_problem(self.spec.robot_domain, robot_problem, self.spec.human_domain,
                            human_problem)

    def of(self, index: int, design: frozenset[int]) -> TaskValue:
        task = self.spec.tasks[index]
        robot_problem, human_problem = apply_design(self.spec, task, sorted(design))
        key = (index, frozenset(map(str, robot_problem.init)),
               frozenset(map(str, human_problem.init)))
        if key not in self.cache:
            self.cache[key] = task_optimum(self.problem(task, design), self.spec.distance,
                                           self.clock)
        return self.cache[key]


def task_optimum(problem: ExplicableProblem, distance: str, clock: BudgetClock) -> TaskValue:
    """``(E*, C(Λ*))`` of one task by the checkers' own optimum (identity mapping; the
    trace distances within twice the robot's optimum, as the planner's default bound)."""
    identity = MAPPINGS["identity"]
    if distance == "cost":
        found = cheapest(problem.human_task, clock)
        optimum = best_key(problem, "cost", INF, [], None if found is None else found[0],
                           identity, None, clock, True)
    else:
        robot = cheapest(problem.robot_task, clock)
        if robot is None:
            return INF, None
        human_optimum, expected = optimal_plans(problem.human_task, clock)
        optimum = best_key(problem, distance, 2 * robot[0], expected, human_optimum,
                           identity, None, clock, True)
    return optimum.inexplicability, optimum.robot_cost


def objective(spec: DesignProblem, design: frozenset[int],
              value: Callable[[int], TaskValue]) -> float:
    """``α · Σ_{t<T} γ_d^t · Σ_i p_i E*_i + β · C_D + γ · T · Σ_i p_i C_i`` (a zero weight
    times an infinite term counts 0)."""
    horizon, discount = spec.horizon, spec.discount
    felt = float(horizon) if discount == 1 else (1 - discount ** horizon) / (1 - discount)
    surprise = cost = 0.0
    for index, task in enumerate(spec.tasks):
        if task.probability <= 0:
            continue
        ie, robot_cost = value(index)
        surprise += task.probability * ie
        cost += task.probability * (INF if robot_cost is None else robot_cost)
    design_cost = sum(spec.modifications[i].cost for i in design)

    def times(weight: float, term: float) -> float:
        return 0.0 if weight == 0 else weight * term

    return (times(spec.alpha * felt, surprise) + spec.beta * design_cost
            + times(spec.gamma * horizon, cost))


def _same(a: float, b: float) -> bool:
    return a == b or (math.isfinite(a) and math.isfinite(b)
                      and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9))


def _check(spec: DesignProblem, result: DesignResult, clock: BudgetClock) -> CheckReport:
    values = _Values(spec, clock)
    names = {m.name: i for i, m in enumerate(spec.modifications)}
    if any(name not in names for name in result.design):
        return CheckReport(False, "the design names an unknown modification")
    chosen = frozenset(names[n] for n in result.design)
    claimed = result.objective
    assert claimed is not None
    if not _same(sum(spec.modifications[i].cost for i in chosen), result.design_cost):
        return CheckReport(False, f"the design cost is not {result.design_cost}")
    own = objective(spec, chosen, lambda i: values.of(i, chosen))
    if not _same(own, claimed):
        return CheckReport(False, f"the design's objective is {own}, not {claimed}")
    base = objective(spec, frozenset(), lambda i: values.of(i, frozenset()))
    if result.baseline_objective is not None and not _same(base, result.baseline_objective):
        return CheckReport(False, f"the objective without design is {base}, not "
                                  f"{result.baseline_objective}")
    wrong = _outcomes_wrong(spec, result, chosen, values)
    if wrong is not None:
        return CheckReport(False, wrong)
    better, evaluated = _better_design(spec, chosen, claimed, values, clock)
    if better is not None:
        return CheckReport(False, better)
    return CheckReport(True, f"objective {claimed:g} recomputed; {evaluated} of "
                             f"{2 ** len(spec.modifications)} designs could beat it (by a bound on "
                             "their design cost) and none does; each task's plan valid with the "
                             "least inexplicability, then cost")


def _outcomes_wrong(spec: DesignProblem, result: DesignResult, chosen: frozenset[int],
                    values: _Values) -> str | None:
    """Why a task outcome under the chosen design is wrong (``None``: all are right)."""
    if len(result.tasks) != len(spec.tasks):
        return f"{len(result.tasks)} task outcomes for {len(spec.tasks)} tasks"
    for index, (task, outcome) in enumerate(zip(spec.tasks, result.tasks, strict=True)):
        if outcome.name != task.name:
            return f"task {index + 1} is {task.name}, not {outcome.name}"
        ie, robot_cost = values.of(index, chosen)
        claimed_ie = INF if outcome.inexplicability is None else outcome.inexplicability
        if robot_cost is None:
            if outcome.robot_cost is not None:
                return f"task {task.name}: the robot has no plan, the answer has one"
            continue
        if outcome.robot_cost is None or not _same(outcome.robot_cost, robot_cost) \
                or not _same(claimed_ie, ie):
            return (f"task {task.name}: the least inexplicability and cost are {ie} and "
                    f"{robot_cost}, the answer says {claimed_ie} and {outcome.robot_cost}")
        problem = values.problem(task, chosen)
        valid = validate(spec.robot_domain, problem.robot_problem, steps_of(outcome.plan))
        if not valid.valid or valid.cost is None or not _same(valid.cost, robot_cost):
            return f"task {task.name}: the plan is not a plan of cost {robot_cost} " \
                   f"({valid.reason or 'the cost differs'})"
    return None


def _better_design(spec: DesignProblem, chosen: frozenset[int], claimed: float,
                   values: _Values, clock: BudgetClock) -> tuple[str | None, int]:
    """A design with a lower objective or an equal one with fewer modifications, by a
    depth-first walk cut by ``β · C_D > claimed``; and how many designs were evaluated."""
    count = len(spec.modifications)
    order = sorted(range(count), key=lambda i: spec.modifications[i].cost)
    limit = claimed * (1 + 1e-9) + 1e-9
    evaluated = 0
    # (next position in order, design so far, its design cost)
    stack: list[tuple[int, frozenset[int], float]] = [(0, frozenset(), 0.0)]
    while stack:
        position, design, spent = stack.pop()
        if spec.beta * spent > limit:
            continue  # every term but β·C_D is >= 0: no superset can beat the answer
        if position < count:
            clock.tick()
            index = order[position]
            stack.append((position + 1, design, spent))
            stack.append((position + 1, design | {index},
                          spent + spec.modifications[index].cost))
            continue
        evaluated += 1
        if not clock.charge():
            raise BudgetExhausted("the design checker ran out of its budget", phase="check",
                                  sizes={"designs": evaluated})
        value = objective(spec, design, lambda i, d=design: values.of(i, d))  # type: ignore[misc]
        if value < claimed and not _same(value, claimed):
            listed = ", ".join(spec.modifications[i].name for i in sorted(design)) or "none"
            return f"design {{{listed}}} scores {value:g}, less than {claimed:g}", evaluated
        if _same(value, claimed) and len(design) < len(chosen):
            listed = ", ".join(spec.modifications[i].name for i in sorted(design)) or "none"
            return (f"design {{{listed}}} scores the same with fewer modifications",
                    evaluated)
    return None, evaluated
