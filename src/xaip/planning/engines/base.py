"""Engines as objects: one protocol, one registry.

Why: explainers, checkers and the CLI ask "solve this task (optimally, below this cost,
within this budget)" without caring who answers. An engine is an object with a name, a
statement of what it supports, and ``solve``; :func:`get_engine` builds one by name, as
unified-planning's ``OneshotPlanner`` does. A new engine (the compiled core, K*, ...) is
added in one place: :func:`register_engine`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from xaip.errors import EngineUnavailable, InputError
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.search.result import PlanResult
from xaip.planning.task import Task
from xaip.runtime import Budget


@runtime_checkable
class Engine(Protocol):
    """A planner behind the common interface.

    ``solve(task, optimal=True)`` must return an optimal plan or prove there is none
    (``unsolvable``); with ``cost_bound=c`` it answers "a plan cheaper than ``c``" or proves
    that none exists. Every call honours ``budget`` and answers ``budget_exhausted`` when it
    runs out.
    """

    name: str

    def available(self) -> bool:
        """Can this engine run on this machine (its program or library is installed)?"""
        ...

    def unsupported(self, task: Task) -> str | None:
        """Why this engine cannot solve ``task`` (``None``: it can)."""
        ...

    def solve(self, task: Task, *, optimal: bool = False, cost_bound: int | None = None,
              budget: Budget | None = None) -> PlanResult:
        """Plan on a grounded task."""
        ...

    def solve_model(self, domain: Domain, problem: Problem, *, optimal: bool = False,
                    cost_bound: int | None = None, budget: Budget | None = None
                    ) -> PlanResult:
        """Plan on a lifted model (engines with their own grounding use it directly)."""
        ...


def ground_and_solve(engine: Engine, domain: Domain, problem: Problem, *, optimal: bool,
                     cost_bound: int | None, budget: Budget | None) -> PlanResult:
    """Ground, then ``engine.solve``, within one budget: grounding that runs out of it is
    an answer (``budget_exhausted``), not an error. The usual ``solve_model`` of engines
    that plan on our grounded tasks."""
    from xaip.errors import BudgetExhausted
    from xaip.planning.grounding import ground
    from xaip.runtime import Status

    clock = (budget or Budget()).start()
    try:
        task = ground(domain, problem, budget=clock)
    except BudgetExhausted:
        return PlanResult(status=Status.BUDGET_EXHAUSTED, plan=(), cost=None, optimal=False,
                          expanded=0, seconds=clock.elapsed(), engine=engine.name)
    return engine.solve(task, optimal=optimal, cost_bound=cost_bound,
                        budget=clock.remaining())


EngineFactory = Callable[..., Engine]

#: The engine every planning call uses unless told otherwise: the compiled core when it
#: was built, else the pure-Python builtin engine (announced once).
DEFAULT_ENGINE = "default"

_FACTORIES: dict[str, EngineFactory] = {}
_DESCRIPTIONS: dict[str, str] = {}


def register_engine(name: str, factory: EngineFactory, description: str = "") -> None:
    """Make ``get_engine(name, **options)`` build engines with ``factory(**options)``."""
    _FACTORIES[name] = factory
    _DESCRIPTIONS[name] = description


def engine_names() -> tuple[str, ...]:
    """Every registered engine name (installed or not)."""
    return tuple(_FACTORIES)


def describe_engines() -> dict[str, str]:
    return dict(_DESCRIPTIONS)


def get_engine(name: str = DEFAULT_ENGINE, **options: Any) -> Engine:
    """The engine called ``name``; options configure it (e.g. ``search``, ``heuristic``).

    Raises :class:`~xaip.errors.InputError` for an unknown name and
    :class:`~xaip.errors.EngineUnavailable` when the engine is not installed here.
    """
    factory = _FACTORIES.get(name)
    if factory is None:
        raise InputError(f"unknown engine '{name}' (one of {', '.join(_FACTORIES)})")
    engine = factory(**options)
    if not engine.available():
        raise EngineUnavailable(f"engine '{name}' is not installed on this machine")
    return engine
