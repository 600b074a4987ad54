"""The test oracle: every (plan, edit set) pair of a small problem, scored.

Why: the searches prune by bounds and walk Pareto fronts; the only convincing evidence
that they return an optimal pair is to enumerate *all* pairs on small instances and
compare. Nothing here is shared with the searches beyond the candidate list and the
PDDL/feature machinery (it shares the checker's lifted model update, not its A*: ``C*``
here is uniform-cost search; ``tests/differential/balanced.py`` has an oracle that shares
nothing); every
model is priced by :mod:`xaip.planning.semantics` through the grounder. Each updated
model ``M^R_h + E`` is rebuilt as lifted PDDL and grounded afresh, its optimum found by
uniform-cost search, and the robot's plans listed by plan enumeration
(:func:`xaip.planning.search.enumerate.all_plans`; a plan ends at the first state where
the robot's goal holds, the convention of the product-model planner).

The robot plans considered are those within a cost bound that provably contains every
optimal pair: the pair (robot-optimal plan, every difference explained) scores
``α·C* + β·C(D) + γ·P(0)``, so a better pair has ``α·C(π) ≤ α·C* + β·C(D)``. That needs
``α > 0`` for the ``balanced`` and ``explicable`` objectives.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from xaip.balanced.check import updated_model
from xaip.balanced.objectives import BalancedProblem, Objective
from xaip.balanced.results import objective_value
from xaip.errors import BudgetExhausted
from xaip.planning.engines import get_engine
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.search.enumerate import all_plans
from xaip.planning.task import Task
from xaip.runtime import Budget, Status

_EPS = 1e-9


def optimum(domain: Domain, problem: Problem, budget: Budget) -> int | None:
    """``C*`` by uniform-cost search on a fresh grounding (``None``: no plan); a budget
    that runs out is an error here (the oracle must finish)."""
    result = get_engine("default", search="ucs", heuristic="blind").solve(
        ground(domain, problem), optimal=True, budget=budget)
    if result.status == Status.BUDGET_EXHAUSTED:
        raise BudgetExhausted("budget exhausted", phase="brute force")
    return None if result.status != Status.SOLVED or result.cost is None else \
        int(result.cost)


@dataclass(frozen=True)
class ScoredPair:
    """One feasible pair and the value its objective gives it."""

    plan: tuple[str, ...]
    subset: tuple[int, ...]
    value: float
    total: float  # the balanced objective of the pair (what results report)
    robot_cost: int
    human_cost: int | None
    human_optimum: int | None


@dataclass(frozen=True)
class Oracle:
    """The optimum of ``problem.objective`` and every pair attaining it."""

    value: float
    best: tuple[ScoredPair, ...]
    pairs: int  # feasible pairs scored
    plans: int  # robot plans enumerated

    def attains(self, plan: tuple[str, ...], subset: tuple[int, ...]) -> bool:
        return any(p.plan == plan and p.subset == subset for p in self.best)


def brute_force(problem: BalancedProblem, budget: Budget | None = None) -> Oracle:
    """Score every pair; raises ``ValueError`` when α is 0 for an objective that needs a
    plan-cost bound."""
    budget = budget or Budget(max_seconds=300)
    objective, weights = problem.objective, problem.weights
    robot_task = ground(problem.robot_domain, problem.robot_problem)
    robot_optimum = optimum(problem.robot_domain, problem.robot_problem, budget)
    if robot_optimum is None:
        return Oracle(math.inf, (), 0, 0)
    everything = tuple(range(len(problem.differences)))
    all_cost = sum(problem.edit_costs)
    if objective is Objective.EXPLICABLE_OPTIMAL:
        bound = robot_optimum
    else:
        if weights.alpha <= 0:
            raise ValueError("brute force needs alpha > 0 to bound the robot's plans")
        bound = robot_optimum + math.floor(weights.beta * all_cost / weights.alpha + _EPS)
    listed = all_plans(robot_task, bound, budget=budget)
    plans = [(tuple(a.name for a in p), int(sum(a.cost for a in p))) for p in listed.plans]
    scored: list[ScoredPair] = []
    for size in range(len(everything) + 1):
        for subset in itertools.combinations(everything, size):
            domain, updated = updated_model(problem, problem.differences_of(subset))
            human_task = ground(domain, updated)
            best_h = optimum(domain, updated, budget)
            c_e = sum(problem.edit_costs[i] for i in subset)
            for plan, robot_cost in plans:
                cost_h = _human_cost(problem, human_task, domain, updated, plan)
                penalty = problem.inexplicability(cost_h, best_h)
                total = objective_value(weights, robot_cost, c_e, penalty)
                explicable = problem.explicable(cost_h, best_h)
                if objective is Objective.BALANCED:
                    value = total
                elif not explicable:
                    continue
                elif objective is Objective.EXPLICABLE:
                    value = weights.alpha * robot_cost + weights.beta * c_e
                elif robot_cost != robot_optimum:
                    continue
                else:
                    value = c_e
                if math.isinf(value):
                    continue
                scored.append(ScoredPair(plan, subset, value, total, robot_cost, cost_h,
                                         best_h))
    if not scored:
        return Oracle(math.inf, (), 0, len(plans))
    low = min(p.value for p in scored)
    best = tuple(p for p in scored if p.value <= low + _EPS * max(1.0, abs(low)))
    return Oracle(low, best, len(scored), len(plans))


def _human_cost(problem: BalancedProblem, human_task: Task, domain: Domain, updated: Problem,
                plan: tuple[str, ...]) -> int | None:
    if problem.watched:
        from xaip.balanced.epistemic import watched_cost

        return watched_cost(problem, domain, updated, plan)
    return _simulate(human_task, plan)


def _simulate(task: Task, plan: tuple[str, ...]) -> int | None:
    """The cost of ``plan`` in ``task`` (``None``: not a plan there), by plain execution:
    the oracle shares no plan-costing code with the searches it tests."""
    state, cost = task.init, 0
    for name in plan:
        action = next((task.actions[i] for i in task.action_index.get(name, ())
                       if task.actions[i].applicable(state)), None)
        if action is None:
            return None
        state, cost = task.close(action.apply(state)), cost + action.cost
    return cost if task.is_goal(state) else None
