"""One planning interface over the built-in engine and optional external ones.

Why a facade: explainers and the CLI ask "plan this (optimally, within this budget)"
without caring which engine answers; engines stay swappable, as in unified-planning's
``OneshotPlanner``. Asking for an optimal plan with a search or heuristic that cannot
guarantee optimality is rejected up front rather than silently answered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget

ADMISSIBLE = frozenset({"blind", "hmax", "lmcut"})
OPTIMAL_SEARCHES = frozenset({"astar", "ucs", "bfs"})


@dataclass(frozen=True)
class PlanResult:
    """What a planning call answered, independent of the engine that answered it."""

    status: str  # "solved" | "unsolvable" | "budget_exhausted"
    plan: tuple[GroundAction, ...]
    cost: int | None
    optimal: bool
    expanded: int
    seconds: float
    engine: str
    search: str
    heuristic: str
    has_costs: bool = False
    task: Task | None = field(default=None, repr=False, compare=False)

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "plan": [f"({a.name})" for a in self.plan],
            "cost": self.cost,
            "optimal": self.optimal,
            "expanded": self.expanded,
            "seconds": round(self.seconds, 6),
            "engine": self.engine,
            "search": self.search,
            "heuristic": self.heuristic,
        }


def _defaults(optimal: bool, search: str | None, heuristic: str | None) -> tuple[str, str]:
    search = search or ("astar" if optimal else "gbfs")
    if heuristic is None:
        heuristic = "blind" if search in ("ucs", "bfs") else ("lmcut" if optimal else "hff")
    if optimal:
        if search not in OPTIMAL_SEARCHES:
            raise InputError(
                f"--optimal needs one of the searches {', '.join(sorted(OPTIMAL_SEARCHES))}, "
                f"not '{search}'"
            )
        if search == "astar" and heuristic not in ADMISSIBLE:
            raise InputError(
                f"--optimal needs an admissible heuristic ({', '.join(sorted(ADMISSIBLE))}); "
                f"'{heuristic}' may overestimate"
            )
    return search, heuristic


def plan_task(
    task: Task,
    optimal: bool = False,
    search: str | None = None,
    heuristic: str | None = None,
    cost_bound: int | None = None,
    budget: Budget | None = None,
) -> PlanResult:
    """Plan on a grounded task with the built-in engine."""
    from xaip.planning.search import solve

    search, heuristic = _defaults(optimal, search, heuristic)
    result = solve(
        task,
        algorithm=search,
        heuristic=heuristic,
        budget=budget or Budget(),
        cost_bound=cost_bound,
    )
    return PlanResult(
        status=result.status,
        plan=tuple(result.plan),
        cost=result.cost if result.status == "solved" else None,
        optimal=bool(result.optimal) and result.status == "solved",
        expanded=result.expanded,
        seconds=result.seconds,
        engine="builtin",
        search=search,
        heuristic=heuristic,
        has_costs=task.has_costs,
        task=task,
    )


def plan_model(
    domain: Domain,
    problem: Problem,
    optimal: bool = False,
    search: str | None = None,
    heuristic: str | None = None,
    cost_bound: int | None = None,
    budget: Budget | None = None,
    engine: str = "builtin",
) -> PlanResult:
    """Ground and plan; with ``engine="fd"`` Fast Downward answers (in its own process)."""
    if engine == "fd":
        return _plan_fd(domain, problem, optimal, cost_bound, budget)
    if engine != "builtin":
        raise InputError(f"unknown engine '{engine}' (builtin or fd)")
    task = ground(domain, problem)
    return plan_task(task, optimal, search, heuristic, cost_bound, budget)


def plan_files(
    domain_path: str | Path,
    problem_path: str | Path,
    **options: Any,
) -> PlanResult:
    """Read, check and plan: the CLI's entry point."""
    from xaip.planning.pddl import check_problem, read_domain, read_problem

    domain = read_domain(domain_path)
    problem = read_problem(problem_path)
    check_problem(domain, problem)
    return plan_model(domain, problem, **options)


def _plan_fd(
    domain: Domain,
    problem: Problem,
    optimal: bool,
    cost_bound: int | None,
    budget: Budget | None,
) -> PlanResult:
    from xaip.planning.engines.fast_downward import fd_solve
    from xaip.planning.pddl import write_domain, write_problem
    from xaip.planning.plans import resolve

    search = "astar(lmcut())" if optimal else "lazy_greedy([ff()], preferred=[ff()])"
    if cost_bound is not None:
        search = search[:-1] + f", bound={cost_bound})"
    result = fd_solve(write_domain(domain), write_problem(problem), search=search,
                      budget=budget or Budget())
    task = ground(domain, problem)
    plan: tuple[GroundAction, ...] = ()
    if result.status == "solved":
        plan = tuple(variants[0] for variants in resolve(task, result.plan))
    return PlanResult(
        status=result.status,
        plan=plan,
        cost=result.cost if result.status == "solved" else None,
        optimal=optimal and result.status == "solved",
        expanded=result.expanded,
        seconds=result.seconds,
        engine="fd",
        search="astar" if optimal else "lazy-gbfs",
        heuristic="lmcut" if optimal else "ff",
        has_costs=task.has_costs,
        task=task,
    )
