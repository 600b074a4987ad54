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
