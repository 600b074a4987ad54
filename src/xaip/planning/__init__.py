"""The symbolic planning core: one import for every planning job.

Typical use::

    from xaip.planning import read_domain, read_problem, ground, plan, validate, find_landmarks
    domain = read_domain("domain.pddl")
    problem = read_problem("problem.pddl")
    result = plan((domain, problem), optimal=True)     # A* + LM-cut; result.status, .plan
    check = validate(domain, problem, result.steps())  # independent, on the lifted model
    landmarks = find_landmarks(ground(domain, problem))

Engines are objects (:func:`get_engine`); every planning call returns one
:class:`PlanResult` whose ``status`` is a :class:`~xaip.runtime.Status`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xaip.planning.engines import Engine, engine_names, get_engine, register_engine
    from xaip.planning.grounding import ground
    from xaip.planning.landmarks import find_landmarks
    from xaip.planning.pddl import (
        check_problem,
        parse_domain,
        parse_problem,
        read_domain,
        read_problem,
        write_domain,
        write_problem,
    )
    from xaip.planning.planner import plan, plan_files, plan_model, plan_task
    from xaip.planning.plans import (
        PlanStep,
        ValidationResult,
        format_plan,
        parse_plan,
        read_plan,
        validate,
    )
    from xaip.planning.search.result import PlanResult, PlanSet
    from xaip.planning.task import GroundAction, Task
    from xaip.runtime import Budget, Status

#: Each public name and the module that defines it: resolved on first use (a module
#: ``__getattr__``), so that ``xaip validate`` does not import the search and ``xaip --help``
#: nothing of the core (start-up CPU, issue 26). ``from xaip.planning import X`` works as
#: before.
_HOMES = {
    "Engine": "xaip.planning.engines",
    "engine_names": "xaip.planning.engines",
    "get_engine": "xaip.planning.engines",
    "register_engine": "xaip.planning.engines",
    "ground": "xaip.planning.grounding",
    "find_landmarks": "xaip.planning.landmarks",
    "check_problem": "xaip.planning.pddl",
    "parse_domain": "xaip.planning.pddl",
    "parse_problem": "xaip.planning.pddl",
    "read_domain": "xaip.planning.pddl",
    "read_problem": "xaip.planning.pddl",
    "write_domain": "xaip.planning.pddl",
    "write_problem": "xaip.planning.pddl",
    "plan": "xaip.planning.planner",
    "plan_files": "xaip.planning.planner",
    "plan_model": "xaip.planning.planner",
    "plan_task": "xaip.planning.planner",
    "PlanStep": "xaip.planning.plans",
    "ValidationResult": "xaip.planning.plans",
    "format_plan": "xaip.planning.plans",
    "parse_plan": "xaip.planning.plans",
    "read_plan": "xaip.planning.plans",
    "validate": "xaip.planning.plans",
    "PlanResult": "xaip.planning.search.result",
    "PlanSet": "xaip.planning.search.result",
    "GroundAction": "xaip.planning.task",
    "Task": "xaip.planning.task",
    "Budget": "xaip.runtime.budget",
    "Status": "xaip.runtime.status",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


__all__ = [
    "Budget",
    "Engine",
    "GroundAction",
    "PlanResult",
    "PlanSet",
    "PlanStep",
    "Status",
    "Task",
    "ValidationResult",
    "check_problem",
    "engine_names",
    "find_landmarks",
    "format_plan",
    "get_engine",
    "ground",
    "parse_domain",
    "parse_problem",
    "parse_plan",
    "plan",
    "plan_files",
    "plan_model",
    "plan_task",
    "read_domain",
    "read_plan",
    "read_problem",
    "register_engine",
    "validate",
    "write_domain",
    "write_problem",
]
