"""Fast Downward as an engine: the same interface as the built-in one, in its own process.

Why a process boundary: Fast Downward is GPL-licensed and xaip is MIT, so xaip never
imports its code; it writes PDDL text, runs the planner's own command and maps the plan
back onto our grounded actions. Lifted models go to Fast Downward as they are (its own
translator grounds them); grounded tasks (the explainers' edited models) go as one 0-ary
predicate per fact (:mod:`xaip.planning.engines.grounded`).
"""

from __future__ import annotations

from xaip.errors import BudgetExhausted
from xaip.planning.engines.fast_downward import FDRun, fd_available, fd_solve
from xaip.planning.engines.grounded import task_pddl
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.search.result import PlanResult
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget, Status

OPTIMAL_SEARCH = "astar(lmcut())"
SATISFICING_SEARCH = "lazy_greedy([ff()], preferred=[ff()])"


class FastDownwardEngine:
    """Fast Downward's A* + LM-cut (optimal) or lazy greedy search with h_FF.

    A cost bound ``c`` with ``optimal=True`` runs the optimal search and compares: FD's own
    ``bound=`` prunes by g only, so proving "nothing cheaper" that way would enumerate
    every state below the bound, while an optimal search that stops at its first goal is
    far faster and its cost answers the bounded question.
    """

    name = "fd"

    def __init__(self, search: str | None = None) -> None:
        self.search = search

    def available(self) -> bool:
        return fd_available()

    def unsupported(self, task: Task) -> str | None:
        if task.has_conditional_effects():
            return "conditional effects cannot be written as a grounded PDDL task"
        return None

    def _search(self, optimal: bool, cost_bound: int | None) -> str:
        if self.search is not None:
            return self.search
        if optimal:
            return OPTIMAL_SEARCH
        if cost_bound is not None:
            return f"lazy_greedy([ff()], preferred=[ff()], bound={cost_bound})"
        return SATISFICING_SEARCH

    def _result(self, run: FDRun, plan: tuple[GroundAction, ...], optimal: bool,
                cost_bound: int | None, task: Task) -> PlanResult:
        status = Status(run.status)
        cost = sum(a.cost for a in plan) if status == Status.SOLVED else None
        if cost is not None and cost_bound is not None and cost >= cost_bound:
            # An optimal plan at or above the bound proves that nothing cheaper exists.
            status, plan, cost = Status.UNSOLVABLE, (), None
        return PlanResult(
            status=status, plan=plan, cost=cost,
            optimal=optimal and status == Status.SOLVED,
            expanded=run.expanded, seconds=run.seconds, engine="fd",
            search="astar" if optimal else "lazy-gbfs",
            heuristic="lmcut" if optimal else "ff",
            has_costs=task.has_costs, costs_ignored=task.costs_ignored, task=task)

    def solve(self, task: Task, *, optimal: bool = False, cost_bound: int | None = None,
              budget: Budget | None = None) -> PlanResult:
        domain, problem = task_pddl(task)
        run = fd_solve(domain, problem, search=self._search(optimal, cost_bound),
                       budget=budget)
        plan: tuple[GroundAction, ...] = ()
        if run.status == Status.SOLVED:
            plan = tuple(task.actions[int(step.name[1:])] for step in run.plan)
        return self._result(run, plan, optimal, cost_bound if optimal else None, task)

    def solve_model(self, domain: Domain, problem: Problem, *, optimal: bool = False,
                    cost_bound: int | None = None, budget: Budget | None = None
                    ) -> PlanResult:
        from xaip.planning.pddl import write_domain, write_problem
        from xaip.planning.plans import resolve

        clock = (budget or Budget()).start()
        run = fd_solve(write_domain(domain), write_problem(problem),
                       search=self._search(optimal, cost_bound), budget=budget)
        try:  # our grounding only maps Fast Downward's plan back onto ground actions
            task = ground(domain, problem, budget=clock)
        except BudgetExhausted:
            return PlanResult(status=Status.BUDGET_EXHAUSTED, plan=(), cost=None,
                              optimal=False, expanded=run.expanded, seconds=clock.elapsed(),
                              engine=self.name)
        plan: tuple[GroundAction, ...] = ()
        if run.status == Status.SOLVED:
            plan = tuple(variants[0] for variants in resolve(task, run.plan))
        return self._result(run, plan, optimal, cost_bound if optimal else None, task)
