"""unified-planning <-> xaip: models through PDDL text, plans through the writer's names.

Why PDDL text and not a direct tree-to-tree converter: unified-planning's ``PDDLWriter``
already decides how every construct of the classical fragment is spelled (typing, constants,
quantifiers, conditional and universal effects, ``total-cost``) and renames whatever PDDL
cannot spell (names with spaces, keywords, names that start with a digit); xaip's reader then
applies *its* checks and refuses what it does not support with a one-line
:class:`~xaip.errors.UnsupportedFeature`. So the two libraries meet at the one format both
document, and the model xaip plans on is exactly the one a PDDL planner would be given.
The writer's renaming table is kept (:class:`UPModel`) to turn xaip's plans back into
unified-planning plans over the original ``Action`` and ``Object`` objects.

The way back (:func:`to_up`) is symmetric: xaip's writer, then unified-planning's reader.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from xaip.errors import InputError, UnsupportedFeature
from xaip.interop.unified_planning.kind import SUPPORTED_FEATURES
from xaip.planning.inputs import is_up_problem
from xaip.planning.pddl.model import (
    COST_FLUENT,
    NO_EFFECT,
    AndEffect,
    Domain,
    FunctionTerm,
    Increase,
    Problem,
)
from xaip.planning.plans import PlanStep
from xaip.planning.search.result import PlanResult
from xaip.planning.task import GroundAction

__all__ = ["UPModel", "as_up_plan", "from_up", "from_up_plan", "to_up"]


@dataclass(frozen=True)
class UPModel:
    """A unified-planning problem as xaip's ``domain`` and ``problem``, with the writer whose
    names they use (``writer.get_item_named`` maps a PDDL name back to the UP object)."""

    source: Any
    domain: Domain
    problem: Problem
    writer: Any
    domain_text: str
    problem_text: str


def _require_up() -> None:
    try:
        import unified_planning  # type: ignore[import-untyped]  # noqa: F401
    except ImportError as error:  # pragma: no cover - the extra is installed in CI
        raise InputError("unified-planning is not installed: pip install 'xaip[up]'") from error


def from_up(problem: Any) -> UPModel:
    """Convert a unified-planning ``Problem`` into xaip's model (see the module docstring).

    Raises :class:`~xaip.errors.UnsupportedFeature` (one line) when the problem uses what
    PDDL or xaip cannot express (durative actions, numeric fluents other than costs,
    object-valued fluents, oversubscription, ...), and :class:`~xaip.errors.InputError`
    when ``problem`` is not a unified-planning ``Problem``.
    """
    _require_up()
    from unified_planning.exceptions import UPException  # type: ignore[import-untyped]
    from unified_planning.io import PDDLWriter  # type: ignore[import-untyped]
    from unified_planning.model import Problem as UpProblem  # type: ignore[import-untyped]

    from xaip.planning.pddl import check_problem, parse_domain, parse_problem

    if not is_up_problem(problem) or not isinstance(problem, UpProblem):
        raise InputError(f"expected a unified-planning Problem, not {type(problem).__name__}")
    # one gate for the engines and the front doors: PDDL could carry some of these
    # (undefined initial values become false), but not with unified-planning's meaning
    beyond = sorted(set(problem.kind.features) - SUPPORTED_FEATURES)
    if beyond:
        raise UnsupportedFeature(f"unified-planning problem '{problem.name}' uses what xaip "
                                 f"does not support: {', '.join(beyond)}")
    writer = PDDLWriter(problem)
    try:
        domain_text, problem_text = writer.get_domain(), writer.get_problem()
    except (UPException, NotImplementedError, AttributeError) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else "not in PDDL"
        raise UnsupportedFeature(f"unified-planning problem '{problem.name}' cannot be "
                                 f"written as PDDL: {reason}") from error
    try:
        domain = parse_domain(domain_text)
        parsed = parse_problem(problem_text)
        check_problem(domain, parsed)
    except UnsupportedFeature as error:
        raise UnsupportedFeature(f"unified-planning problem '{problem.name}': "
                                 f"{_drop_place(str(error))}") from error
    repaired = _restore_dropped_costs(problem, writer, domain)
    if repaired is not domain:
        from xaip.planning.pddl import write_domain

        domain, domain_text = repaired, write_domain(repaired)
    return UPModel(problem, domain, parsed, writer, domain_text, problem_text)


def _restore_dropped_costs(problem: Any, writer: Any, domain: Domain) -> Domain:
    """Give back the cost of actions without effects, which unified-planning 1.3.0's PDDL
    writer leaves out (it writes ``(increase (total-cost) c)`` inside an action's effects,
    and writes no effects for an action that has none), so such an action would cost 0.

    Found by the differential test (``tests/differential/interop.py``). Only constant costs
    can be restored this way; a cost computed from fluents on an effect-less action is
    refused as unsupported.
    """
    from unified_planning.model.metrics import MinimizeActionCosts  # type: ignore[import-untyped]

    metrics = problem.quality_metrics
    if len(metrics) != 1:
        return domain
    metric = metrics[0]
    if not (isinstance(metric, MinimizeActionCosts)
            or metric.is_minimize_sequential_plan_length()):
        return domain
    actions, changed = [], False
    for action in domain.actions:
        source = writer.get_item_named(action.name)
        cost = (metric.get_action_cost(source) if isinstance(metric, MinimizeActionCosts)
                else None if source.effects else 1)
        if source.effects or action.effect != NO_EFFECT or cost is None:
            actions.append(action)
            continue
        if not isinstance(cost, int):
            if not cost.is_constant():
                raise UnsupportedFeature(f"unified-planning problem '{problem.name}': the "
                                         f"action '{source.name}' has no effects and a cost "
                                         "that is not a number")
            cost = cost.constant_value()
        value = Fraction(str(cost))
        if value == 0:
            actions.append(action)
            continue
        effect = AndEffect((Increase(FunctionTerm(COST_FLUENT), value),))
        actions.append(dataclasses.replace(action, effect=effect))
        changed = True
    return dataclasses.replace(domain, actions=tuple(actions)) if changed else domain


def _drop_place(message: str) -> str:
    """The reader's ``<string>:L:C: reason`` without the place in text nobody wrote, and
    without a ``unified-planning problem 'name':`` prefix already given."""
    if message.startswith("unified-planning problem '"):
        message = message.partition("': ")[2] or message
    head, _, rest = message.partition(": ")
    return rest if head.startswith("<string>") and rest else message


def to_up(domain: Domain, problem: Problem) -> Any:
    """xaip's ``domain`` and ``problem`` as a unified-planning ``Problem`` (xaip's writer,
    then unified-planning's PDDL reader)."""
    _require_up()
    from unified_planning.io import PDDLReader

    from xaip.planning.pddl import write_domain, write_problem

    return PDDLReader().parse_problem_string(write_domain(domain), write_problem(problem))


def _model(model: UPModel | Any) -> UPModel:
    return model if isinstance(model, UPModel) else from_up(model)


def _step_parts(step: PlanStep | GroundAction | str) -> tuple[str, tuple[str, ...]]:
    if isinstance(step, GroundAction):
        return step.schema, step.args
    if isinstance(step, PlanStep):
        return step.name, step.args
    words = step.strip().strip("()").split()
    if not words:
        raise InputError("an empty plan step")
    return words[0], tuple(words[1:])


def as_up_plan(plan: PlanResult | Iterable[PlanStep | GroundAction | str],
               model: UPModel | Any) -> Any:
    """An xaip plan (a :class:`PlanResult`, ground actions, plan steps or ``"move a b"``
    strings) as a unified-planning ``SequentialPlan`` over ``model``'s own actions and
    objects (``model``: the UP problem, or its :class:`UPModel`)."""
    from unified_planning.exceptions import UPException
    from unified_planning.model import Action, Object
    from unified_planning.plans import ActionInstance, SequentialPlan  # type: ignore[import-untyped]

    converted = _model(model)
    steps = plan.plan if isinstance(plan, PlanResult) else tuple(plan)
    instances = []
    for number, step in enumerate(steps, start=1):
        name, args = _step_parts(step)
        try:
            action = converted.writer.get_item_named(name)
            objects = [converted.writer.get_item_named(arg) for arg in args]
        except UPException as error:
            raise InputError(f"step {number} '({' '.join((name, *args))})' names something "
                             f"the unified-planning problem does not have") from error
        if not isinstance(action, Action) or not all(isinstance(o, Object) for o in objects):
            raise InputError(f"step {number} '({' '.join((name, *args))})' is not an action "
                             f"applied to objects")
        instances.append(ActionInstance(action, objects))
    return SequentialPlan(instances, converted.source.environment)


def from_up_plan(plan: Any, model: UPModel | Any) -> tuple[PlanStep, ...]:
    """A unified-planning ``SequentialPlan`` as xaip plan steps in ``model``'s PDDL names."""
    from unified_planning.exceptions import UPException
    from unified_planning.plans import SequentialPlan

    converted = _model(model)
    if not isinstance(plan, SequentialPlan):
        raise InputError(f"xaip validates sequential plans, not {type(plan).__name__}")
    out: list[PlanStep] = []
    for number, instance in enumerate(plan.actions, start=1):
        try:
            name = converted.writer.get_pddl_name(instance.action)
            args = tuple(converted.writer.get_pddl_name(_object(p)) for p in
                         instance.actual_parameters)
        except (UPException, InputError) as error:
            raise InputError(f"step {number} '{instance}' is not an action of the problem "
                             f"applied to its objects") from error
        out.append(PlanStep(name, args))
    return tuple(out)


def _object(parameter: Any) -> Any:
    if not parameter.is_object_exp():
        raise InputError(f"the parameter {parameter} is not an object")
    return parameter.object()

