"""Model reconciliation problems: the robot's model, the human's model and the robot's plan.

Why a separate, checked object: every explainer assumes the plan is valid and optimal in
the robot's model (Def. 20 of the book) and that both models speak one vocabulary. Those
are properties of the *input*, so they are checked once, here, with messages that say
what is wrong and where.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from xaip.errors import BudgetExhausted, InputError
from xaip.planning.engines import DEFAULT_ENGINE, Engine, get_engine
from xaip.planning.grounding import ground
from xaip.planning.inputs import UPPlan, UPProblem, models, plan_input
from xaip.planning.pddl import check_problem, read_domain, read_problem
from xaip.planning.pddl.model import NO_EFFECT, TRUE, Domain, Problem
from xaip.planning.plans import PlanStep, format_plan, parse_plan, read_plan, validate
from xaip.planning.task import Task
from xaip.runtime import Budget


@dataclass(frozen=True)
class MRP:
    """A model reconciliation problem Ψ = ⟨π*, ⟨M^R, M^R_h⟩⟩ (book Def. 20)."""

    robot_domain: Domain
    robot_problem: Problem
    human_domain: Domain
    human_problem: Problem
    plan: tuple[PlanStep, ...]
    plan_cost: int
    robot_task: Task = field(repr=False, compare=False)

    @property
    def plan_names(self) -> tuple[str, ...]:
        return tuple(" ".join((step.name, *step.args)) for step in self.plan)

    def to_dict(self) -> dict[str, Any]:
        return {"plan": [f"({name})" for name in self.plan_names], "plan_cost": self.plan_cost}


def make_mrp(
    robot_domain: Domain | UPProblem,
    robot_problem: Problem | None,
    human_domain: Domain | UPProblem,
    human_problem: Problem | None = None,
    plan: Sequence[PlanStep] | str | UPPlan | None = None,
    budget: Budget | None = None,
    engine: str | Engine = DEFAULT_ENGINE,
) -> MRP:
    """Check the inputs and build the MRP; without ``plan``, plan optimally for the robot.

    Raises :class:`~xaip.errors.InputError` when the plan is invalid in the robot's model
    (naming the failing step and precondition) or not optimal there, and
    :class:`BudgetExhausted` when ``budget`` (nodes of this one search, seconds) runs out
    before the robot's optimal plan is found. Either model may be a unified-planning
    ``Problem`` given alone (its problem ``None``), and then ``plan`` a UP plan
    (:mod:`xaip.planning.inputs`).
    """
    plan = plan_input(plan, robot_domain)
    robot_domain, robot_problem, human_domain, human_problem = models(
        robot_domain, robot_problem, human_domain, human_problem)
    check_problem(robot_domain, robot_problem)
    check_problem(human_domain, human_problem)
    clock = (budget or Budget()).start()  # grounding counts against the seconds
    robot_task = ground(robot_domain, robot_problem, budget=clock)
    solver = get_engine(engine) if isinstance(engine, str) else engine
    optimum = solver.solve(robot_task, optimal=True, budget=clock.remaining())
    if optimum.status == "budget_exhausted":
        raise BudgetExhausted("budget exhausted while finding the robot's optimal plan; "
                              "raise --max-nodes/--max-seconds", phase="robot plan")
    if optimum.status != "solved":
        raise InputError("the problem has no solution in the robot's model")
    assert optimum.cost is not None
    if plan is None:
        steps = tuple(parse_plan(format_plan(optimum.plan)))
    else:
        steps = tuple(parse_plan(plan)) if isinstance(plan, str) else tuple(plan)
        result = validate(robot_domain, robot_problem, steps)
        if not result.valid:
            raise InputError(f"the plan is not valid in the robot's model: {result.reason}")
        assert result.cost is not None
        if result.cost > optimum.cost:
            raise InputError(
                f"the plan costs {result.cost} in the robot's model, but the robot's optimum "
                f"is {optimum.cost}: model reconciliation explains optimal plans")
    return MRP(robot_domain, robot_problem, human_domain, human_problem, steps,
               int(optimum.cost), robot_task)


#: Pass as the human domain to explain against a person who knows nothing of the model.
EMPTY = "empty"


def empty_model(domain: Domain, problem: Problem) -> tuple[Domain, Problem]:
    """The robot's vocabulary with no knowledge: actions without preconditions or effects,
    an empty initial state and no goal (numeric facts such as ``total-cost`` are kept).

    Explaining a plan against it says what a plan visualisation must show for the plan
    to make sense to someone who starts from nothing (book ch. 5).
    """
    actions = tuple(replace(a, precondition=TRUE, effect=_cost_only(a.effect))
                    for a in domain.actions)
    return (replace(domain, actions=actions),
            replace(problem, init=(), goal=TRUE))


def _cost_only(effect: Any) -> Any:
    """Keep an action's cost increase (costs are not what an empty model lacks)."""
    from xaip.planning.pddl.model import AndEffect, Increase

    parts = effect.operands if isinstance(effect, AndEffect) else (effect,)
    kept = tuple(p for p in parts if isinstance(p, Increase))
    return AndEffect(kept) if kept else NO_EFFECT


def load_mrp(
    robot_domain: str | Path,
    human_domain: str | Path,
    problem: str | Path,
    plan: str | Path | None = None,
    human_problem: str | Path | None = None,
    budget: Budget | None = None,
    engine: str | Engine = DEFAULT_ENGINE,
) -> MRP:
    """Read the files of an MRP (the CLI's entry point).

    ``human_domain="empty"`` explains against :func:`empty_model` of the robot's model.
    """
    robot, task = read_domain(robot_domain), read_problem(problem)
    if str(human_domain) == EMPTY:
        if human_problem:
            raise InputError("an empty human model has no problem of its own")
        human, human_task = empty_model(robot, task)
        return make_mrp(robot, task, human, human_task, read_plan(plan) if plan else None,
                        budget, engine)
    return make_mrp(
        robot, task, read_domain(human_domain),
        read_problem(human_problem) if human_problem else None,
        read_plan(plan) if plan else None, budget, engine)


def vocabulary_error(mismatches: Sequence[Any]) -> InputError:
    """The vocabulary mismatches of ``model_diff(human, robot)`` as one message that names
    the models "robot" and "human" (the generic diff calls them A and B)."""
    parts = []
    for m in mismatches:
        if m.in_a is None:
            detail = f"declared only in the robot's model as {m.in_b}"
        elif m.in_b is None:
            detail = f"declared only in the human's model as {m.in_a}"
        else:
            detail = (f"declared as {m.in_b} in the robot's model but as {m.in_a} in the "
                      "human's")
        parts.append(f"{m.category} '{m.name}' {detail}")
    return InputError("the human and robot models use different vocabularies: "
                      + "; ".join(parts))
