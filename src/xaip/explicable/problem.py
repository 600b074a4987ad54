"""An explicable planning problem: the robot's model and the person's model of the robot.

Why one checked object: every measure compares robot plans with plans of the person's
model, so both models must speak one vocabulary (same predicates, action names and
objects); that is a property of the input, checked once here with a one-line message.
Both models are grounded once; plans move between them by action *name*.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xaip.planning.features.diff import model_diff
from xaip.planning.grounding import ground
from xaip.planning.inputs import UPProblem, models
from xaip.planning.pddl import check_problem, read_domain, read_problem
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, parse_plan, read_plan
from xaip.planning.task import GroundAction, State, Task


@dataclass(frozen=True)
class ExplicableProblem:
    """``P_Exp = ⟨M^R, M^R_h⟩`` (book ch. 3): the robot's and the person's models."""

    robot_domain: Domain
    robot_problem: Problem
    human_domain: Domain
    human_problem: Problem
    robot_task: Task = field(repr=False, compare=False)
    human_task: Task = field(repr=False, compare=False)


def make_problem(robot_domain: Domain | UPProblem, robot_problem: Problem | None,
                 human_domain: Domain | UPProblem, human_problem: Problem | None = None
                 ) -> ExplicableProblem:
    """Check the two models share a vocabulary and ground both. Either model may be a
    unified-planning ``Problem`` given alone (its problem ``None``)."""
    robot_domain, robot_problem, human_domain, human_problem = models(
        robot_domain, robot_problem, human_domain, human_problem)
    check_problem(robot_domain, robot_problem)
    check_problem(human_domain, human_problem)
    difference = model_diff(human_domain, robot_domain, human_problem, robot_problem)
    if difference.mismatches:
        from xaip.reconcile.problem import vocabulary_error

        raise vocabulary_error(difference.mismatches)
    robot_task, human_task = (ground_model(robot_domain, robot_problem),
                              ground_model(human_domain, human_problem))
    return ExplicableProblem(robot_domain, robot_problem, human_domain, human_problem,
                             robot_task, human_task)


def ground_model(domain: Domain, problem: Problem) -> Task:
    """``problem`` grounded in ``domain`` with its static facts registered, so that the plan
    distances see the definitions' states (every true fact, :mod:`xaip.explicable.distances`).
    """
    from xaip.explicable.distances import register_statics

    check_problem(domain, problem)
    task = ground(domain, problem)
    register_statics(task, domain, problem)
    return task


def load_problem(robot_domain: str | Path, human_domain: str | Path, problem: str | Path,
                 human_problem: str | Path | None = None) -> ExplicableProblem:
    """Read the files of an explicable planning problem (the CLI's entry point)."""
    return make_problem(read_domain(robot_domain), read_problem(problem),
                        read_domain(human_domain),
                        read_problem(human_problem) if human_problem else None)


def step_name(step: PlanStep | GroundAction | str) -> str:
    """The plan-file spelling of a step without parentheses, lower case."""
    if isinstance(step, GroundAction):
        return step.name
    text = step if isinstance(step, str) else " ".join((step.name, *step.args))
    return " ".join(text.strip("() ").lower().split())


def ground_plan(task: Task, steps: Sequence[PlanStep | GroundAction | str]
                ) -> tuple[GroundAction, ...] | None:
    """``steps`` as ground actions of ``task``, each the variant applicable where it is
    taken; ``None`` when some step is unknown to ``task`` or not applicable (the plan is not
    executable there). Reaching the goal is not required."""
    state: State = task.init
    out = []
    for step in steps:
        ids = task.action_index.get(step_name(step), ())
        chosen = next((task.actions[i] for i in ids if task.actions[i].applicable(state)), None)
        if chosen is None:
            return None
        out.append(chosen)
        state = chosen.apply(state)
    return tuple(out)


def plan_in(task: Task, steps: Sequence[PlanStep | GroundAction | str]
            ) -> tuple[GroundAction, ...] | None:
    """Like :func:`ground_plan`, but ``None`` also when the plan misses the goal."""
    plan = ground_plan(task, steps)
    if plan is None:
        return None
    state = task.init
    for action in plan:
        state = action.apply(state)
    return plan if task.is_goal(state) else None


def read_steps(path: str | Path) -> tuple[PlanStep, ...]:
    """A plan file, or a plan written inline (``"(a) (b)"``) when no such file exists."""
    text = str(path)
    if text.lstrip().startswith("(") and not Path(text).exists():
        return parse_plan(text.replace(")", ")\n"))
    return read_plan(path)
