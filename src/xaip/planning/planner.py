"""The planning front door: read, ground and plan through an engine.

Why a facade: the CLI and users ask "plan this (optimally, within this budget)" without
caring which engine answers; engines are objects from the registry
(:mod:`xaip.planning.engines`), swappable as in unified-planning's ``OneshotPlanner``.
"""

from __future__ import annotations

from pathlib import Path

from xaip.errors import InputError
from xaip.planning.engines import DEFAULT_ENGINE, Engine, get_engine
from xaip.planning.engines.builtin import choose
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.search.result import PlanResult
from xaip.planning.task import Task
from xaip.runtime import Budget

__all__ = ["PlanResult", "plan", "plan_files", "plan_model", "plan_task"]

#: engines configured with xaip's search and heuristic names
_CONFIGURABLE = frozenset({"builtin", "compiled", DEFAULT_ENGINE})


def _engine(name: str, optimal: bool, search: str | None, heuristic: str | None) -> Engine:
    if name in _CONFIGURABLE:
        choose(optimal, search, heuristic)  # reject bad combinations before any work
        return get_engine(name, search=search, heuristic=heuristic)
    if search is not None or heuristic is not None:
        raise InputError(f"--search/--heuristic configure xaip's own engines, not '{name}'")
    return get_engine(name)


def plan_task(
    task: Task,
    optimal: bool = False,
    search: str | None = None,
    heuristic: str | None = None,
    cost_bound: int | None = None,
    budget: Budget | None = None,
    engine: str = DEFAULT_ENGINE,
) -> PlanResult:
    """Plan on a grounded task."""
    return _engine(engine, optimal, search, heuristic).solve(
        task, optimal=optimal, cost_bound=cost_bound, budget=budget)


def plan_model(
    domain: Domain,
    problem: Problem,
    optimal: bool = False,
    search: str | None = None,
    heuristic: str | None = None,
    cost_bound: int | None = None,
    budget: Budget | None = None,
    engine: str = DEFAULT_ENGINE,
) -> PlanResult:
    """Ground and plan (engines with their own grounding, such as ``fd``, take the model)."""
    return _engine(engine, optimal, search, heuristic).solve_model(
        domain, problem, optimal=optimal, cost_bound=cost_bound, budget=budget)


def plan_files(
    domain_path: str | Path,
    problem_path: str | Path,
    optimal: bool = False,
    search: str | None = None,
    heuristic: str | None = None,
    cost_bound: int | None = None,
    budget: Budget | None = None,
    engine: str = DEFAULT_ENGINE,
) -> PlanResult:
    """Read, check and plan: the CLI's entry point."""
    from xaip.planning.pddl import check_problem, read_domain, read_problem

    domain = read_domain(domain_path)
    problem = read_problem(problem_path)
    check_problem(domain, problem)
    return plan_model(domain, problem, optimal, search, heuristic, cost_bound, budget, engine)


def plan(
    model: Task | tuple[Domain, Problem] | tuple[str | Path, str | Path],
    *,
    optimal: bool = False,
    search: str | None = None,
    heuristic: str | None = None,
    cost_bound: int | None = None,
    budget: Budget | None = None,
    engine: str = DEFAULT_ENGINE,
) -> PlanResult:
    """Plan for a grounded task, a ``(domain, problem)`` pair, or two PDDL file paths.

    ``optimal=True`` proves optimality (A* with LM-cut by default); ``cost_bound=c`` asks
    for a plan cheaper than ``c`` or a proof that none exists.
    """
    options = dict(optimal=optimal, search=search, heuristic=heuristic,
                   cost_bound=cost_bound, budget=budget, engine=engine)
    if isinstance(model, Task):
        return plan_task(model, **options)  # type: ignore[arg-type]
    first, second = model
    if isinstance(first, Domain) and isinstance(second, Problem):
        return plan_model(first, second, **options)  # type: ignore[arg-type]
    if isinstance(first, str | Path) and isinstance(second, str | Path):
        return plan_files(first, second, **options)  # type: ignore[arg-type]
    raise TypeError("plan() takes a Task, a (Domain, Problem) pair or two file paths")
