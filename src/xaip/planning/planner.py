"""The planning front door: read, ground and plan through an engine.

Why a facade: the CLI and users ask "plan this (optimally, within this budget)" without
caring which engine answers; engines are objects from the registry
(:mod:`xaip.planning.engines`), swappable as in unified-planning's ``OneshotPlanner``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict, Unpack

from xaip.errors import InputError
from xaip.planning.engines import DEFAULT_ENGINE, Engine, get_engine
from xaip.planning.engines.builtin import choose
from xaip.planning.inputs import UPProblem, is_up_problem, model_pair
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.search.result import PlanResult
from xaip.planning.task import Task
from xaip.runtime import Budget

__all__ = ["PlanOptions", "PlanResult", "plan", "plan_files", "plan_model", "plan_task"]

#: engines configured with xaip's search and heuristic names
_CONFIGURABLE = frozenset({"builtin", "compiled", DEFAULT_ENGINE})


class PlanOptions(TypedDict, total=False):
    """What every planning call may ask for (all optional).

    ``optimal`` proves optimality (A* with LM-cut by default); ``cost_bound=c`` asks for a
    plan cheaper than ``c`` or a proof that none exists; ``search``/``heuristic`` configure
    xaip's own engines; ``engine`` names one from the registry.
    """

    optimal: bool
    search: str | None
    heuristic: str | None
    cost_bound: int | None
    budget: Budget | None
    engine: str


def _engine(options: PlanOptions) -> Engine:
    name = options.get("engine", DEFAULT_ENGINE)
    search, heuristic = options.get("search"), options.get("heuristic")
    if name in _CONFIGURABLE:
        choose(options.get("optimal", False), search, heuristic)  # reject bad combinations
        return get_engine(name, search=search, heuristic=heuristic)
    if search is not None or heuristic is not None:
        raise InputError(f"--search/--heuristic configure xaip's own engines, not '{name}'")
    return get_engine(name)


def plan_task(task: Task, **options: Unpack[PlanOptions]) -> PlanResult:
    """Plan on a grounded task."""
    return _engine(options).solve(task, optimal=options.get("optimal", False),
                                  cost_bound=options.get("cost_bound"),
                                  budget=options.get("budget"))


def plan_model(domain: Domain, problem: Problem, **options: Unpack[PlanOptions]) -> PlanResult:
    """Ground and plan within one budget (engines with their own grounding, such as ``fd``,
    take the model)."""
    return _engine(options).solve_model(domain, problem, optimal=options.get("optimal", False),
                                        cost_bound=options.get("cost_bound"),
                                        budget=options.get("budget"))


def plan_files(domain_path: str | Path, problem_path: str | Path,
               **options: Unpack[PlanOptions]) -> PlanResult:
    """Read, check and plan: the CLI's entry point. The budget's seconds cover reading and
    checking the files too (the clock starts before reading)."""
    from xaip.planning.pddl import check_problem, read_domain, read_problem
    from xaip.runtime.budget import reading_deadline

    budget = options.get("budget")
    clock = (budget or Budget()).start()
    with reading_deadline(clock.budget.max_seconds):
        domain = read_domain(domain_path)
        problem = read_problem(problem_path)
        check_problem(domain, problem)
    if budget is not None:
        options["budget"] = clock.remaining()
    return plan_model(domain, problem, **options)


def plan(model: Task | tuple[Domain, Problem] | tuple[str | Path, str | Path] | UPProblem,
         **options: Unpack[PlanOptions]) -> PlanResult:
    """Plan for a grounded task, a ``(domain, problem)`` pair, two PDDL file paths or a
    unified-planning ``Problem`` (``xaip.interop.unified_planning.as_up_plan`` turns the
    result into a UP plan)."""
    if isinstance(model, Task):
        return plan_task(model, **options)
    if is_up_problem(model):
        return plan_model(*model_pair(model), **options)
    first, second = model
    if isinstance(first, Domain) and isinstance(second, Problem):
        return plan_model(first, second, **options)
    if isinstance(first, str | Path) and isinstance(second, str | Path):
        return plan_files(first, second, **options)
    raise TypeError("plan() takes a Task, a (Domain, Problem) pair, two file paths or a "
                    "unified-planning Problem")
