"""Balanced planning by search over edit sets (book ch. 7 §7.2 approach 1, B02).

Each node of the search is an edit set ``E`` (indices of the reconciliation candidates,
:attr:`BalancedProblem.differences`); :class:`~xaip.balanced.evaluate.Evaluator` answers
what plans pair best with it. Edit sets are visited by increasing communication cost
(each set once: children add a candidate of higher index), and a node's lower bound is
``α·C*_{M^R} + β·C(E) + γ·P(0)`` — no plan is cheaper than the robot's optimum and no
penalty below ``P(0)`` — so the search stops as soon as no unvisited set can beat the
best pair found.

**Exact mode** looks at every plan a node could pair with:

* ``explicable``: the product-model planner's cheapest plan valid in both models and
  optimal in ``M^R_h + E`` (lexicographic costs make it the robot's cheapest such plan);
* ``explicable-optimal``: the same under the robot cost bound ``C*_{M^R}``; the first
  node (by ``C(E)``) with one is optimal;
* ``balanced``: the Pareto front of (human cost, robot cost), since the penalty is
  increasing in the human cost, plus the robot's optimal plan (it matters when ``γ = 0``).

**Approximate mode** is the original model-space search (Chakraborti et al., IJCAI'19):
at each node it looks at *one* optimal plan of ``M^R_h + E`` (the planner's) and, for
``balanced``, the robot's optimal plan, and only extends a node by edits about the
actions of those plans or the problem (init/goal). Its plans are perfectly explicable
when it says so, but the explanation may be larger than necessary and the balanced value
may be above the optimum.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xaip.balanced.evaluate import Evaluator, OutOfBudget, Point
from xaip.balanced.objectives import BalancedProblem, Objective
from xaip.balanced.results import BalancedResult, objective_value, to_result
from xaip.errors import InputError
from xaip.planning.engines import DEFAULT_ENGINE, Engine
from xaip.runtime import Budget, Progress, Status, report
from xaip.runtime.budget import BudgetClock, as_clock

if TYPE_CHECKING:
    from xaip.balanced.learning_space import LearningSpace


@dataclass(frozen=True)
class _Pair:
    value: float  # what the objective minimises
    subset: tuple[int, ...]
    point: Point
    human_optimum: int | None
    learned: tuple[int, ...] = ()  # what she learned watching it (B05)


class _Search:
    def __init__(self, problem: BalancedProblem, exact: bool, clock: BudgetClock,
                 engine: str | Engine, progress: Progress | None) -> None:
        self.problem = problem
        self.exact = exact
        self.clock = clock
        self.progress = progress
        self.evaluator = Evaluator(problem, clock, engine)
        self.costs = problem.edit_costs
        self.weights = problem.weights
        self.nodes = 0
        self.best: _Pair | None = None  # the incumbent, kept when the budget runs out
        self.learning: LearningSpace | None = None
        if problem.learn_from_watching:  # her final model depends on the plan (B05)
            from xaip.balanced.learning_space import LearningSpace

            if not exact:
                raise InputError("the approximate model-space search does not model "
                                 "learning from watching; use --exact")
            self.learning = LearningSpace(problem, self.evaluator)

    # ------------------------------------------------------------------ node values

    def penalty(self, point: Point, optimum: int | None) -> float:
        return self.problem.inexplicability(point.human_cost, optimum)

    def balanced_value(self, subset: tuple[int, ...], point: Point,
                       optimum: int | None) -> float:
        return objective_value(self.weights, point.robot_cost, self.cost(subset),
                               self.penalty(point, optimum))

    def cost(self, subset: tuple[int, ...]) -> float:
        return sum(self.costs[i] for i in subset)

    def evaluate(self, subset: tuple[int, ...], robot_optimum: int,
                 incumbent: float) -> tuple[_Pair | None, set[str]]:
        """The best pair with ``subset`` (or ``None``) and the action schemas it looked at
        (the approximate mode's relevance)."""
        objective = self.problem.objective
        ev = self.evaluator
        alpha, beta = self.weights.alpha, self.weights.beta
        c_e = self.cost(subset)
        if self.learning is not None:
            found = self.learning.best(subset, robot_optimum, c_e)
            if found is None:
                return None, set()
            return _Pair(found[0], subset, found[1], found[2], found[3]), set()
        if objective is not Objective.BALANCED:
            bound = robot_optimum if objective is Objective.EXPLICABLE_OPTIMAL else None
            if self.exact:
                point = ev.best_explicable(subset, bound)
            else:
                point, names = ev.human_plan(subset)
                extra = _schemas(names)
                if point is not None and bound is not None and point.robot_cost > bound:
                    point = None
            optimum = ev.human_optimum(subset)
            seen = set() if point is None else _schemas(point.plan)
            if not self.exact:
                seen |= extra
            if point is None or not self.problem.explicable(point.human_cost, optimum):
                return None, seen | self._fallback_schemas(subset)
            value = c_e if objective is Objective.EXPLICABLE_OPTIMAL else (
                alpha * point.robot_cost + beta * c_e if alpha or beta else 0.0)
            return _Pair(value, subset, point, optimum), seen
        optimum = ev.human_optimum(subset)
        robot = ev.robot_optimal()
        assert robot is not None
        candidates: list[Point] = [Point(robot[0], robot[1],
                                         ev.human_cost(subset, robot[0]))]
        if self.exact:
            if optimum is not None:
                floor = alpha * robot_optimum + beta * c_e

                def enough(point: Point) -> bool:
                    # later points: robot cost ≥ C*, human cost ≥ this one's
                    rest = self.problem.inexplicability(point.human_cost, optimum)
                    best = min(self.balanced_value(subset, p, optimum)
                               for p in candidates)
                    return floor + self.weights.gamma * rest >= min(best, incumbent)

                for point in ev.front(subset, enough):
                    candidates.append(point)
        else:
            human, names = ev.human_plan(subset)
            if human is not None:
                candidates.append(human)
            extra = _schemas(names)
        best = min(candidates, key=lambda p: (self.balanced_value(subset, p, optimum),
                                              p.robot_cost))
        seen = set().union(*(_schemas(p.plan) for p in candidates))
        if not self.exact:
            seen |= extra
        return _Pair(self.balanced_value(subset, best, optimum), subset, best, optimum), seen

    def _fallback_schemas(self, subset: tuple[int, ...]) -> set[str]:
        robot = self.evaluator.robot_optimal()
        return set() if robot is None else _schemas(robot[0])

    # ------------------------------------------------------------------ the search

    def lower_bound(self, subset: tuple[int, ...], robot_optimum: int) -> float:
        objective = self.problem.objective
        if objective is Objective.EXPLICABLE_OPTIMAL:
            return self.cost(subset)
        floor = self.weights.alpha * robot_optimum + self.weights.beta * self.cost(subset)
        if objective is Objective.BALANCED and self.weights.gamma:
            floor += self.weights.gamma * self.problem.penalty(0)
        return floor

    def run(self) -> tuple[Status, _Pair | None]:
        robot = self.evaluator.robot_optimal()
        if robot is None:
            return Status.UNSOLVABLE, None
        robot_optimum = robot[1]
        count = len(self.costs)
        counter = itertools.count()
        frontier: list[tuple[float, int, int, tuple[int, ...]]] = [(0.0, 0, 0, ())]
        seen_sets: set[tuple[int, ...]] = {()}
        best: _Pair | None = None
        while frontier:
            bound, _, _, subset = heapq.heappop(frontier)
            if best is not None and bound >= best.value - 1e-9:
                break
            if not self.clock.charge(1):
                return Status.BUDGET_EXHAUSTED, best
            self.nodes += 1
            report(self.progress, "balanced", self.nodes, None,
                   f"{len(subset)} edits, best {best.value if best else 'none'}")
            incumbent = math.inf if best is None else best.value
            pair, schemas = self.evaluate(subset, robot_optimum, incumbent)
            if pair is not None and (best is None or pair.value < best.value - 1e-9):
                best = self.best = pair
                if self.problem.objective is Objective.EXPLICABLE_OPTIMAL or (
                        not self.exact and self.problem.objective is Objective.EXPLICABLE):
                    break  # first goal by C(E) is optimal (exact) / is the answer (approx.)
            options = range(count) if self.exact else self._relevant(schemas)
            for index in options:
                if index in subset:
                    continue
                if self.exact and subset and index < subset[-1]:
                    continue  # each set once, in index order
                child = tuple(sorted((*subset, index)))
                if child in seen_sets:
                    continue
                seen_sets.add(child)
                child_bound = self.lower_bound(child, robot_optimum)
                heapq.heappush(frontier, (child_bound, len(child), next(counter), child))
        # the robot has a plan, so only the approximate mode's restricted search can end
        # without a pair
        return Status.FOUND if best is not None else Status.NO_EXPLANATION, best

    def _relevant(self, schemas: set[str]) -> list[int]:
        out = []
        for index, edit in enumerate(self.problem.differences):
            action = edit.feature.action
            if not action or action in schemas:
                out.append(index)
        return out


def _schemas(plan: tuple[str, ...]) -> set[str]:
    return {step.split(" ", 1)[0] for step in plan}


def model_space_search(
    problem: BalancedProblem,
    *,
    exact: bool = True,
    budget: Budget | BudgetClock | None = None,
    progress: Progress | None = None,
    engine: str | Engine = DEFAULT_ENGINE,
) -> BalancedResult:
    """The best (plan, explanation) pair for ``problem.objective`` by search over edit
    sets; ``exact=False`` is the approximate mode of the original work. Unchecked: use
    :func:`xaip.balanced.balance` for a verified result."""
    started = time.perf_counter()
    clock = as_clock(budget)
    search = _Search(problem, exact, clock, engine, progress)
    try:
        status, best = search.run()
    except OutOfBudget:
        status, best = Status.BUDGET_EXHAUSTED, search.best
    robot = search.evaluator.robot
    stats: dict[str, int | float] = {
        "nodes": search.nodes, "planner_calls": search.evaluator.planner_calls,
        "product_calls": search.evaluator.product_calls,
        "candidates": len(problem.differences)}
    return to_result(problem, status, best.subset if best else (), best.point if best else None,
                     best.human_optimum if best else None, robot[1] if robot else None,
                     method="model-space", exact=exact,
                     seconds=time.perf_counter() - started, stats=stats,
                     learned=best.learned if best else ())
