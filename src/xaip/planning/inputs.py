"""The one coercion point: any supported task input becomes a ``(Domain, Problem)`` pair.

Why a module of its own: every front door (``plan``, the MRP, the explicable problem, ...)
takes "a planning model", and people hold one in different forms -- xaip's own parsed
``Domain``/``Problem``, two PDDL paths, or a ``unified_planning`` ``Problem`` built in
Python. Deciding the accepted forms once keeps them the same everywhere and keeps
``unified_planning`` an optional extra: it is imported only when the input *is* one of its
objects (recognised by the class's module name, without importing the package).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep

__all__ = ["UPPlan", "UPProblem", "is_up_plan", "is_up_problem", "model_pair", "models",
           "optional_model_pair", "plan_input"]

#: A ``unified_planning.model.Problem``; typed ``Any`` so that xaip never imports the
#: package to name it (it is the optional ``xaip[up]`` extra).
UPProblem = Any
#: A ``unified_planning.plans.SequentialPlan`` (typed ``Any`` for the same reason).
UPPlan = Any


def is_up_problem(value: object) -> bool:
    """Is ``value`` a unified-planning problem? Decided from its class's module, so the
    check itself never imports ``unified_planning``."""
    module = type(value).__module__ or ""
    return module.startswith("unified_planning.") and hasattr(value, "kind")


def _from_up(value: UPProblem) -> tuple[Domain, Problem]:
    from xaip.interop.unified_planning.convert import from_up

    converted = from_up(value)
    return converted.domain, converted.problem


def optional_model_pair(first: Domain | UPProblem, second: Problem | UPProblem | None
                        ) -> tuple[Domain, Problem | None]:
    """``first``/``second`` as a domain and (when given) its problem.

    Accepted: a ``Domain`` with a ``Problem`` or ``None``; a unified-planning ``Problem``
    alone (``second`` ``None`` or the same object: it holds both halves); two PDDL paths.
    Anything else is a one-line :class:`~xaip.errors.InputError`.
    """
    if is_up_problem(first):
        if second is not None and second is not first:
            raise InputError("a unified-planning Problem holds its domain and its problem: "
                             "pass it alone (no second model)")
        return _from_up(first)
    if isinstance(first, Domain) and (second is None or isinstance(second, Problem)):
        return first, second
    if isinstance(first, str | Path) and isinstance(second, str | Path):
        from xaip.planning.pddl import check_problem, read_domain, read_problem

        domain, problem = read_domain(first), read_problem(second)
        check_problem(domain, problem)
        return domain, problem
    raise InputError(f"expected a Domain and a Problem, two PDDL paths or a unified-planning "
                     f"Problem, not {type(first).__name__} and {type(second).__name__}")


def model_pair(first: Domain | UPProblem, second: Problem | UPProblem | None = None
               ) -> tuple[Domain, Problem]:
    """Like :func:`optional_model_pair`, but a problem is required."""
    domain, problem = optional_model_pair(first, second)
    if problem is None:
        raise InputError(f"the domain '{domain.name}' needs a problem to plan for")
    return domain, problem


def models(robot_domain: Domain | UPProblem, robot_problem: Problem | None,
           human_domain: Domain | UPProblem, human_problem: Problem | None
           ) -> tuple[Domain, Problem, Domain, Problem]:
    """A robot's and a person's models (the two-model families' front doors): each half a
    ``Domain`` with its ``Problem`` or a unified-planning ``Problem`` alone; the person's
    problem defaults to the robot's."""
    robot = model_pair(robot_domain, robot_problem)
    human_domain, human_problem = optional_model_pair(human_domain, human_problem)
    return (*robot, human_domain, human_problem or robot[1])


def is_up_plan(value: object) -> bool:
    """Is ``value`` a unified-planning plan (decided without importing the package)?"""
    return (type(value).__module__ or "").startswith("unified_planning.plans")


def plan_input(plan: Any, model: Domain | UPProblem) -> Any:
    """``plan`` as xaip plan steps when it is a unified-planning plan (``model`` must then be
    the unified-planning ``Problem`` it is for); any other plan is returned unchanged."""
    if not is_up_plan(plan):
        return plan
    if not is_up_problem(model):
        raise InputError("a unified-planning plan needs its model as a unified-planning "
                         "Problem (to map its actions and objects)")
    from xaip.interop.unified_planning.convert import from_up_plan

    steps: tuple[PlanStep, ...] = from_up_plan(plan, model)
    return steps
