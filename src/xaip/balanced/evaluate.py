"""What one edit set ``E`` offers: the person's updated model and the plans worth pairing
with ``E`` (book ch. 7, shared by every model-space objective).

Why separate from the search: the three objectives walk the same space of edit sets and
ask the same questions of each node — the optimum ``C*`` of ``M^R_h + E``, the cheapest
plan valid in both models, the trade-off between robot cost and human cost — so the
answers are computed here, once per edit set, and cached.

How: ``M^R_h + E`` comes from :class:`xaip.reconcile.space.ModelSpace` (grounded once);
plans valid in both models come from the product-model planner of
:mod:`xaip.explicable.product` (lexicographic: cost in the person's model, then the
robot's), with a robot cost bound to walk the Pareto front of (human cost, robot cost).
Since every penalty is increasing in the human cost, the best plan for ``E`` under any
weights lies on that front. With an observation model (B05) the person's side of the
product follows :mod:`xaip.balanced.epistemic` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xaip.balanced.objectives import BalancedProblem
from xaip.errors import BudgetExhausted
from xaip.explicable.problem import ExplicableProblem, plan_in
from xaip.explicable.product import ProductAnswer, product_search
from xaip.planning.engines import DEFAULT_ENGINE, Engine, get_engine
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Status
from xaip.runtime.budget import BudgetClock


class OutOfBudget(BudgetExhausted):
    """The budget ran out inside one evaluation (the search returns what it has)."""


@dataclass(frozen=True)
class Point:
    """A robot plan with its cost in the robot's model and in the person's updated model
    (``human_cost`` ``None``: the person's model cannot execute it)."""

    plan: tuple[str, ...]
    robot_cost: int
    human_cost: int | None


def plan_cost(task: Task, plan: tuple[str, ...]) -> int | None:
    """The cost of ``plan`` (action names) in ``task``; ``None`` when it is not a plan
    there (an action not applicable, or the goal not reached)."""
    steps = plan_in(task, plan)
    return None if steps is None else sum(a.cost for a in steps)


def optimal_plan(engine: Engine, task: Task, clock: BudgetClock,
                 cost_bound: int | None = None) -> tuple[tuple[GroundAction, ...], int] | None:
    """An optimal plan of ``task`` and its cost (``None``: no plan), its expansions charged
    to ``clock``; :class:`OutOfBudget` when the budget runs out. Both methods (this
    module's evaluator and MEGA*'s ``C*`` oracle) call the planner through it."""
    if not clock.tick():
        raise OutOfBudget("budget exhausted", phase="planning")
    result = engine.solve(task, optimal=True, cost_bound=cost_bound, budget=clock.remaining())
    clock.charge(max(0, result.expanded))
    if result.status == Status.BUDGET_EXHAUSTED:
        raise OutOfBudget("budget exhausted", phase="planning")
    if result.status != Status.SOLVED or result.cost is None:
        return None
    return result.plan, int(result.cost)


def product_point(answer: ProductAnswer) -> Point | None:
    """A product search's answer as a :class:`Point` (``None``: no plan within its bound);
    :class:`OutOfBudget` when the search ran out. Shared by both methods' product calls."""
    if answer.status == Status.BUDGET_EXHAUSTED:
        raise OutOfBudget("budget exhausted", phase="product search")
    if answer.plan is None:
        return None
    assert answer.robot_cost is not None and answer.human_cost is not None
    return Point(tuple(a.name for a in answer.plan), answer.robot_cost, answer.human_cost)


class Evaluator:
    """Per-edit-set answers, cached by the sorted tuple of candidate indices."""

    def __init__(self, problem: BalancedProblem, clock: BudgetClock,
                 engine: str | Engine = DEFAULT_ENGINE) -> None:
        self.problem = problem
        self.clock = clock
        self.engine = get_engine(engine) if isinstance(engine, str) else engine
        self.space = problem.space
        self.robot_task: Task = problem.robot_task
        self.planner_calls = 0
        self.product_calls = 0
        self._optimum: dict[tuple[int, ...], int | None] = {}
        self._front: dict[tuple[int, ...], tuple[Point, ...]] = {}
        self.robot: tuple[tuple[str, ...], int] | None = None

    # ------------------------------------------------------------------ planning

    def _solve(self, task: Task, cost_bound: int | None = None) -> tuple[
            tuple[GroundAction, ...], int] | None:
        """An optimal plan of ``task`` and its cost; ``None`` when it has none."""
        self.planner_calls += 1
        return optimal_plan(self.engine, task, self.clock, cost_bound)

    def robot_optimal(self) -> tuple[tuple[str, ...], int] | None:
        """The robot's optimal plan and ``C*_{M^R}``."""
        if self.robot is None:
            found = self._solve(self.robot_task)
            if found is None:
                return None
            self.robot = (tuple(a.name for a in found[0]), found[1])
        return self.robot

    def human_task(self, subset: tuple[int, ...]) -> Task:
        return self.space.task(subset)

    def human_cost(self, subset: tuple[int, ...], plan: tuple[str, ...]) -> int | None:
        """``C(π, M^R_h + E)`` for the person (watched, when she observes)."""
        if self.problem.watched:
            from xaip.balanced.epistemic import watched_cost, watched_cost_in

            if not self.space.compiled:
                # her model grounded on its own lacks the facts only watching makes her
                # believe (B05): price the one plan on her lifted model instead
                domain, updated = self.space.model(subset)
                return watched_cost(self.problem, domain, updated, plan)
            return watched_cost_in(self.problem, self.robot_task, self.human_task(subset),
                                   plan)
        task = self.human_task(subset)
        return plan_cost(task, plan)

    def human_optimum(self, subset: tuple[int, ...]) -> int | None:
        """``C*`` of ``M^R_h + E`` (``None``: no plan there)."""
        if subset not in self._optimum:
            found = self._solve(self.human_task(subset))
            self._optimum[subset] = None if found is None else found[1]
        return self._optimum[subset]

    def human_plan(self, subset: tuple[int, ...]) -> tuple[Point | None, tuple[str, ...]]:
        """One optimal plan of ``M^R_h + E`` as the planner returns it, with its robot
        cost (``None`` when it is not a plan in the robot's model), and its action names
        (the approximate goal test of the original model-space search looks at this one
        plan only)."""
        found = self._solve(self.human_task(subset))
        if found is None:
            return None, ()
        names = tuple(a.name for a in found[0])
        robot = plan_cost(self.robot_task, names)
        if robot is None:
            return None, names
        return Point(names, robot, self.human_cost(subset, names)), names

    def _product(self, subset: tuple[int, ...], max_robot: int | None) -> Point | None:
        """The plan valid in both models minimising (human cost, robot cost)."""
        self.product_calls += 1
        explicable = ExplicableProblem(
            self.problem.robot_domain, self.problem.robot_problem,
            self.problem.human_domain, self.problem.human_problem,
            self.robot_task, self.human_task(subset))
        if self.problem.watched:
            from xaip.balanced.epistemic import watched_product_search

            answer = watched_product_search(self.problem, explicable, max_robot, self.clock)
        else:
            answer = product_search(explicable, max_robot, self.clock)
        return product_point(answer)

    def best_explicable(self, subset: tuple[int, ...], max_robot: int | None = None
                        ) -> Point | None:
        """The cheapest robot plan (within ``max_robot``) that is optimal in
        ``M^R_h + E``; ``None`` when there is none."""
        optimum = self.human_optimum(subset)
        if optimum is None:
            return None
        point = self._product(subset, max_robot)
        if point is None or not self.problem.explicable(point.human_cost, optimum):
            return None
        if not self.problem.watched:
            return point  # her cost is never below C*: the lexicographic optimum it is
        # watched plans may cost her less than C*: every plan up to C* is explicable, so
        # walk the front towards cheaper robot plans while her cost stays within C*
        while point.robot_cost > 0:
            cheaper = self._product(subset, point.robot_cost - 1)
            if cheaper is None or not self.problem.explicable(cheaper.human_cost, optimum):
                break
            point = cheaper
        return point

    def front(self, subset: tuple[int, ...],
              enough: Callable[[Point], bool] | None = None) -> tuple[Point, ...]:
        """The Pareto front of (human cost, robot cost) over plans valid in both models,
        by increasing human cost and decreasing robot cost.

        ``enough(point)`` ends the walk early: the caller says that no later point (robot
        cost between ``C*_{M^R}`` and this one's, human cost at least this one's) can
        beat what it has. An early-ended front is not cached."""
        cached = self._front.get(subset)
        if cached is not None:
            return cached
        points: list[Point] = []
        bound: int | None = None
        complete = True
        while True:
            point = self._product(subset, bound)
            if point is None:
                break
            points.append(point)
            if enough is not None and enough(point):
                complete = False
                break
            bound = point.robot_cost - 1
            if bound < 0:
                break
        out = tuple(points)
        if complete:
            self._front[subset] = out
        return out
