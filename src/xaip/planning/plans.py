"""Plans: reading and writing plan files, simulation, validation, cost and causal links.

Two levels on purpose:

* :func:`validate` works on the *lifted* model (sets of atoms, formulas evaluated
  directly). It shares no code with grounding or search, so it is an independent checker
  for everything that produces plans, and it can say which lifted precondition failed.
* :func:`simulate`, :func:`task_plan_cost` and :func:`causal_links` work on the grounded
  :class:`~xaip.planning.task.Task` and are fast enough for inner loops.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from xaip.errors import InputError, PlanFormatError, SemanticError, UnsupportedFeature
from xaip.planning.lifted_eval import Derivation as _Derivation
from xaip.planning.lifted_eval import World as _World
from xaip.planning.lifted_eval import effects as _effects
from xaip.planning.lifted_eval import holds as _holds
from xaip.planning.lifted_eval import render as _render
from xaip.planning.pddl.limits import quoted, read_input, strip_bom
from xaip.planning.pddl.model import (
    OBJECT,
    Atom,
    Domain,
    Problem,
    conjuncts,
)
from xaip.planning.search.result import COSTS_IGNORED_NOTE
from xaip.planning.semantics import (
    EMPTY_PLAN_NOTE,
    STEP_NUMBERING,
    action_cost,
    costs_ignored,
    step_number,
)
from xaip.planning.task import GroundAction, State, Task, bits
from xaip.runtime.status import Status

# --------------------------------------------------------------------------- plan files


@dataclass(frozen=True)
class PlanStep:
    """One step of a plan file: ``(name arg ...)`` and the file and line it came from."""

    name: str
    args: tuple[str, ...] = ()
    line: int = 0
    file: str = field(default="", compare=False)

    def __str__(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"

    def where(self, index: int) -> str:
        """``file:line: step N`` for messages about the step at 0-based ``index`` (N is the
        1-based :func:`~xaip.planning.semantics.step_number` a person reads)."""
        place = f"{self.file or '<plan>'}:{self.line}: " if self.line else ""
        return f"{place}step {step_number(index)}"


_STEP_PREFIX = re.compile(r"\d+(?:\.\d+)?[ \t]*:")


def parse_plan(text: str, file: str = "<plan>") -> tuple[PlanStep, ...]:
    """Parse the usual plan-file format: one ``(action arg ...)`` per line, ``;`` comments.

    Optional ``N:`` step prefixes and ``[duration]`` suffixes (as some planners print)
    are accepted and dropped. Linear in the text: no regular expression here can backtrack
    (a line of 200,000 spaces once took minutes), and errors name the file and 1-based line.
    """
    steps = []
    for number, raw in enumerate(strip_bom(text).splitlines(), start=1):
        line = raw.split(";", 1)[0].strip()
        prefix = _STEP_PREFIX.match(line)
        if prefix is not None:
            line = line[prefix.end():].lstrip()
        if line.endswith("]") and "[" in line:
            line = line[:line.rindex("[")].rstrip()
        if not line:
            continue
        inner = line[1:-1] if line.startswith("(") and line.endswith(")") else None
        words = inner.split() if inner is not None and "(" not in inner and ")" not in inner \
            else []
        if not words:
            raise PlanFormatError(
                f"{file}:{number}:1: expected a step like '(action arg ...)', got "
                f"{quoted(raw.strip())}")
        words = [word.lower() for word in words]
        steps.append(PlanStep(words[0], tuple(words[1:]), number, file))
    return tuple(steps)


def read_plan(path: str | Path) -> tuple[PlanStep, ...]:
    """Read a plan file (size-capped like every input; see :mod:`xaip.planning.pddl.limits`)."""
    try:
        text = read_input(path, "plan file")
    except PlanFormatError:
        raise
    except InputError as error:
        raise PlanFormatError(f"cannot read plan file: {error}") from None
    return parse_plan(text, str(path))


def format_plan(
    steps: Iterable[PlanStep | GroundAction | str], cost: int | None = None, unit_cost: bool = False
) -> str:
    """The plan in plan-file format, with the ``; cost = N (unit cost)`` trailer."""
    lines = []
    for step in steps:
        text = str(step)
        lines.append(text if text.startswith("(") else f"({text})")
    if cost is not None:
        lines.append(f"; cost = {cost} ({'unit cost' if unit_cost else 'general cost'})")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- lifted validation


@dataclass(frozen=True)
class ValidationResult:
    """Outcome of validating a plan against a lifted model.

    ``failed_step`` is the 0-based *index* of the first inapplicable step, for code that
    indexes the plan (equal to the plan length when every step applies but the goal is
    unmet); ``unmet`` lists the precondition literals that do not hold there (or the goal
    literals unmet at the end). People read 1-based step numbers
    (:mod:`xaip.planning.semantics`): the ``reason``, the text rendering and
    :meth:`to_dict` all use :attr:`failed_step_number`, and the JSON says so with
    ``"steps_numbered_from": 1``. The empty plan is valid exactly when the goal holds
    initially (cost 0).
    """

    valid: bool
    cost: int
    steps: int
    failed_step: int | None = None
    reason: str = ""
    unmet: tuple[str, ...] = ()
    trace: tuple[frozenset[Atom], ...] = field(default=(), repr=False, compare=False)
    #: The domain declares action costs that the problem's metric (or its absence) does
    #: not count, so every action cost 1 (:func:`~xaip.planning.semantics.costs_ignored`).
    costs_ignored: bool = False

    @property
    def status(self) -> Status:
        return Status.VALID if self.valid else Status.INVALID

    @property
    def goal_unmet(self) -> bool:
        """Every step applied but the plan ends without reaching the goal."""
        return not self.valid and self.failed_step == self.steps

    @property
    def failed_step_number(self) -> int | None:
        """The 1-based number of the first inapplicable step (``None`` when the plan is
        valid or fails only at the goal)."""
        if self.valid or self.failed_step is None or self.goal_unmet:
            return None
        return step_number(self.failed_step)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": str(self.status), "valid": self.valid,
                               "cost": self.cost, "steps": self.steps, **STEP_NUMBERING}
        if not self.valid:
            out.update(failed_step=self.failed_step_number,
                       failure="goal" if self.goal_unmet else "precondition",
                       reason=self.reason, unmet=list(self.unmet))
        out.update(costs_ignored=self.costs_ignored, goal_holds_initially=self.empty_and_valid)
        if self.notes:
            out["note"] = "; ".join(self.notes)
        return out

    @property
    def empty_and_valid(self) -> bool:
        """The empty plan, valid: the goal holds in the initial state."""
        return self.valid and self.steps == 0

    @property
    def notes(self) -> tuple[str, ...]:
        """What a reader must know to read the cost: the empty plan, ignored costs."""
        return tuple(note for note, applies in ((EMPTY_PLAN_NOTE, self.empty_and_valid),
                                                (COSTS_IGNORED_NOTE, self.costs_ignored))
                     if applies)


def check_steps(domain: Domain, problem: Problem, steps: Sequence[PlanStep]) -> None:
    """Raise :class:`PlanFormatError` for steps that name unknown actions or objects."""
    world = _World(domain, problem)
    actions = {a.name: a for a in domain.actions}
    for i, step in enumerate(steps):
        where = step.where(i)
        action = actions.get(step.name)
        if action is None:
            raise PlanFormatError(f"{where}: unknown action {quoted(step.name)} in "
                                  f"{quoted(step)}")
        if len(step.args) != len(action.parameters):
            raise PlanFormatError(
                f"{where}: {quoted(step.name)} takes {len(action.parameters)} arguments, "
                f"got {len(step.args)} in {quoted(step)}"
            )
        for arg, param in zip(step.args, action.parameters, strict=True):
            if arg not in world.object_type:
                raise PlanFormatError(f"{where}: unknown object {quoted(arg)} in "
                                      f"{quoted(step)}")
            if param.type != OBJECT and world.object_type[arg] not in world.below.get(
                param.type, frozenset()
            ):
                raise PlanFormatError(
                    f"{where}: '{arg}' is a {world.object_type[arg]}, but {param.name} of "
                    f"'{step.name}' must be a {param.type}"
                )


def validate(domain: Domain, problem: Problem, steps: Sequence[PlanStep],
             keep_trace: bool = False) -> ValidationResult:
    """Validate a plan against the lifted model; report the first failure precisely.

    Unknown actions or objects are bad input (:class:`PlanFormatError`), not an invalid plan.
    The state is updated in place, so time and memory are linear in the plan (a million
    steps once took 2.8 GB); ``keep_trace`` keeps every state in the result's ``trace``.
    """
    check_steps(domain, problem, steps)
    world = _World(domain, problem)
    ignored = costs_ignored(domain, problem)
    actions = {a.name: a for a in domain.actions}
    current = {Atom(a.predicate, a.args) for a in problem.init}
    state: frozenset[Atom] = current  # type: ignore[assignment]  # read-only below
    derive = _Derivation(domain, world) if domain.derived else None
    if derive is not None:
        state = derive(current)
    trace = [frozenset(state)] if keep_trace else []
    cost: Fraction | int = 0
    for i, step in enumerate(steps):
        action = actions[step.name]
        binding = dict(zip((p.name for p in action.parameters), step.args, strict=True))
        if not _holds(action.precondition, state, binding, world):
            unmet = tuple(
                _render(c, binding)
                for c in conjuncts(action.precondition)
                if not _holds(c, state, binding, world)
            )
            return ValidationResult(
                False,
                int(cost),
                len(steps),
                i,
                f"step {step_number(i)} {step} is not applicable: unmet precondition "
                + ", ".join(unmet),
                unmet,
                tuple(trace),
                ignored,
            )
        adds: set[Atom] = set()
        deletes: set[Atom] = set()
        declared = _effects(action.effect, state, binding, world, adds, deletes)
        step_cost = action_cost(declared, world.uses_costs)
        if step_cost:  # Fraction additions dominated long plans; most steps cost 1 or 0
            _check_cost(step_cost, step, i)
            cost = cost + step_cost
        current.difference_update(deletes)
        current.update(adds)
        if derive is not None:
            state = derive(current)
        if keep_trace:
            trace.append(frozenset(state))
    if not _holds(problem.goal, state, {}, world):
        unmet = tuple(
            _render(c, {}) for c in conjuncts(problem.goal) if not _holds(c, state, {}, world)
        )
        return ValidationResult(
            False,
            int(cost),
            len(steps),
            len(steps),
            "the plan ends without reaching the goal: unmet " + ", ".join(unmet),
            unmet,
            tuple(trace),
            ignored,
        )
    return ValidationResult(True, int(cost), len(steps), trace=tuple(trace),
                            costs_ignored=ignored)


def _check_cost(cost: int | Fraction, step: PlanStep, index: int) -> None:
    """An action cost the planners can price too: a non-negative integer (grounding
    refuses the same costs, so the validator never prices a plan the planners cannot)."""
    if cost < 0:
        raise SemanticError(f"{step.where(index)}: negative action cost {cost} in {step}")
    if Fraction(cost).denominator != 1:
        raise UnsupportedFeature(f"{step.where(index)}: non-integer action cost {cost} in "
                                 f"{step}")


# --------------------------------------------------------------------------- grounded plans


def resolve(
    task: Task,
    steps: Sequence[PlanStep | str],
    strict: bool = True,
) -> list[tuple[GroundAction, ...]]:
    """The ground action variants of each step (several when a precondition was a disjunction).

    A step with no variant in the task (not reachable, or statically inapplicable) gets an
    empty tuple; with ``strict`` that raises :class:`PlanFormatError`.
    """
    out = []
    for i, step in enumerate(steps):
        name = step if isinstance(step, str) else " ".join((step.name, *step.args))
        name = name.strip("() ").lower()
        ids = task.action_index.get(" ".join(name.split()), ())
        if not ids and strict:
            raise PlanFormatError(f"step {step_number(i)} ({name}) is not an action of the "
                                  "grounded task")
        out.append(tuple(task.actions[j] for j in ids))
    return out


def simulate(
    task: Task,
    plan: Sequence[GroundAction],
    state: State | None = None,
) -> list[State] | None:
    """The state trace of ``plan`` from ``state`` (default: init); ``None`` if a step fails."""
    current = task.init if state is None else state
    trace = [current]
    for action in plan:
        if not action.applicable(current):
            return None
        current = action.apply(current)
        trace.append(current)
    return trace


def first_failure(task: Task, plan: Sequence[GroundAction]) -> int | None:
    """Index of the first inapplicable step, ``len(plan)`` if the goal is unmet, else None."""
    current = task.init
    for i, action in enumerate(plan):
        if not action.applicable(current):
            return i
        current = action.apply(current)
    return None if task.is_goal(current) else len(plan)


def is_valid(task: Task, plan: Sequence[GroundAction]) -> bool:
    return first_failure(task, plan) is None


def task_plan_cost(plan: Iterable[GroundAction]) -> int:
    return sum(action.cost for action in plan)


@dataclass(frozen=True)
class CausalLink:
    """``producer`` supports ``fact`` for ``consumer``.

    Steps are 0-based plan indices; the producer ``-1`` is the initial state and the
    consumer ``len(plan)`` is the goal.
    """

    producer: int
    fact: int
    consumer: int


def causal_links(task: Task, plan: Sequence[GroundAction]) -> list[CausalLink]:
    """Causal links of a valid plan: each needed fact's most recent achiever.

    The needed facts of a step are its preconditions (and the conditions of its
    conditional effects that fire); of the goal, the goal facts.
    """
    trace = simulate(task, plan)
    if trace is None:
        raise ValueError("causal links need an executable plan")
    last_achiever = {i: -1 for i in bits(task.init)}
    links: list[CausalLink] = []
    for step, action in enumerate(plan):
        state = trace[step]
        needed = action.pre
        for effect in action.conditional:
            if state & effect.cond_pos == effect.cond_pos and not state & effect.cond_neg:
                needed |= effect.cond_pos
        links.extend(CausalLink(last_achiever[f], f, step) for f in bits(needed))
        after = trace[step + 1]
        for fact in bits(after & ~state):
            last_achiever[fact] = step
        # A fact re-added while already true is re-achieved by this step.
        for fact in bits(action.add & state):
            last_achiever[fact] = step
    links.extend(CausalLink(last_achiever[f], f, len(plan)) for f in bits(task.goal))
    return links
