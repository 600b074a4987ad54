"""The MEGA* compilation (book ch. 7, B03): the robot's and the person's models as ONE
classical planning task whose plans are self-explaining plans.

Why one task: choosing a plan and an explanation together is then ordinary planning.
The compiled state holds the world as the robot changes it, the person's *belief* about
each fact (what she thinks the plan has done, in her model), and one *meta* fluent per
explainable feature (does she currently believe the feature is part of the robot's
model). Explanatory actions flip a meta fluent to the robot's truth at the feature's
communication cost; task actions need the robot's preconditions in the world *and*, in
the belief part, the preconditions the person currently believes; ``start`` lays down
the initial state (world: the robot's; beliefs: the person's, as explained so far) and
``finish`` checks the robot's goal in the world and the believed goal in the beliefs.

Layout of a compiled state (one Python int, as :class:`~xaip.planning.task.Task`):

* bits ``[0, N)``: world facts, numbered as :class:`~xaip.reconcile.space.ModelSpace`'s
  facts (so ``state & world_mask`` is a state of the robot's grounded task);
* bits ``[N, 2N)``: beliefs about the same facts (``(state >> N) & world_mask`` is a state
  of the person's updated task ``M^R_h + E``), then beliefs about static atoms (facts no
  action changes, whose truth the person may still have wrong, e.g. a clear passage);
* one meta bit per candidate edit of :attr:`BalancedProblem.differences` (``μ_i`` true:
  she believes the candidate's feature is in the model; initially her own belief);
* the control bits ``p_init``, ``p_started``, ``p_goal``.

Design choices (book-spec §6.5 leaves them open, [D]):

* a meta fluent per candidate, initialised to the person's belief, the explanatory action
  setting it to the robot's value (one toggle covers "robot-true feature" and "wrong
  belief"); an explanation cannot be repeated;
* ``explain_first`` (default): every explanation comes before ``start``. The objectives
  judge the plan in ``M^R_h + E`` as a whole (a proposed plan), so this loses no pair and
  removes the orderings of the explanations; explanations of the problem (initial facts,
  goals) precede ``start`` even without it (a later one could not change what she
  believes the start looked like);
* ``stop_at_goal`` (default): no task action once the world satisfies the robot's goal, the
  convention of the product-model planner (a plan ends at the first goal state);
* conditional preconditions ``μ → B(f)`` are kept as guards here and written as ``or`` in
  PDDL; :meth:`CompiledTask.as_task` splits them into one copy per assignment of the
  guarding meta fluents for planners without disjunctions (the built-in search);
* an action the person's model lacks exists for her once any of its features is
  explained (edits create it, as in :func:`~xaip.planning.features.update_features`): one
  compiled copy per such feature;
* watched execution (B05, ``BalancedProblem.observable``): an observable fact the
  robot's action asserts takes its real value in her beliefs (the book's "B(f) follows
  the world"), as :mod:`xaip.balanced.epistemic` defines it; her model decides the rest.
  With ``learn_from_watching`` a seen effect her model lacks (or has wrong) also sets
  its meta fluent to the robot's value (:mod:`xaip.balanced.learning`): the book's
  "and even the meta-fluent"; a plain effect of the task action, free of charge;
* costs are integers: ``α·C^R(a)`` for task actions and ``β·C_E(φ)`` for explanations,
  times :attr:`CompiledTask.scale` (the least common denominator of the prices).

Models whose actions are conjunctions of literals use the model space's grounding;
models with conditional effects (the same in both models, conjunctions of literals under
conjunctions of literals) are grounded by :mod:`xaip.balanced.compile_when`, whose
prioritised belief effects also model inferred conditions (B05). Other models raise
:class:`~xaip.errors.UnsupportedFeature`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from xaip.balanced.objectives import BalancedProblem
from xaip.errors import InputError
from xaip.planning.features import Edit
from xaip.planning.pddl.model import Atom
from xaip.planning.task import ConditionalEffect, Task

START, FINISH, TASK, EXPLAIN = "start", "finish", "task", "explain"


@dataclass(frozen=True)
class Guard:
    """A conditional precondition ``μ → B(f)`` (``positive``) or ``μ → ¬B(f)``, by bit."""

    mu: int
    belief: int
    positive: bool = True


@dataclass(frozen=True)
class WhenMu:
    """A conditional effect ``when μ: add, ¬delete`` (masks of belief bits)."""

    mu: int
    add: int = 0
    delete: int = 0


@dataclass(frozen=True)
class CompiledAction:
    """One action of the compiled task.

    ``kind`` is ``start``, ``finish``, ``task`` (``label`` is the ground action's name,
    ``robot_cost`` its cost in the robot's model) or ``explain`` (``candidate`` is the
    index of the edit in :attr:`BalancedProblem.differences`). ``cost`` is the compiled,
    scaled integer cost.
    """

    name: str
    kind: str
    label: str
    pre: int
    neg_pre: int
    add: int
    delete: int
    cost: int
    guards: tuple[Guard, ...] = ()
    when: tuple[WhenMu, ...] = ()
    candidate: int | None = None
    robot_cost: int = 0
    #: conditional effects on compiled bits (B05: the robot's ``when`` effects on the
    #: world, prioritised belief effects; conditions may read meta bits)
    conditional: tuple[ConditionalEffect, ...] = ()


@dataclass(frozen=True)
class CompiledTask:
    """The compiled task ``M_Ψ`` and the tables to read its plans back."""

    problem: BalancedProblem = field(repr=False)
    facts: tuple[str, ...]          # PDDL name of each bit
    descriptions: tuple[str, ...]   # what each bit means, for people
    world: int                      # N: world bits [0, N), belief bits from N
    static_beliefs: tuple[Atom, ...]
    mu_offset: int
    actions: tuple[CompiledAction, ...]
    init: int
    robot_goal: int                 # world bits of the robot's goal (stop_at_goal)
    robot_goal_neg: int
    robot_task: Task = field(repr=False)
    scale: int = 1                  # compiled cost = objective units x scale
    alpha: Fraction = Fraction(1)   # a task action's compiled cost: alpha x scale x C^R
    explain_first: bool = True
    stop_at_goal: bool = True

    # ------------------------------------------------------------------ layout

    @property
    def world_mask(self) -> int:
        return (1 << self.world) - 1

    @property
    def candidates(self) -> int:
        return len(self.problem.differences)

    def mu_bit(self, candidate: int) -> int:
        return self.mu_offset + candidate

    @property
    def p_init(self) -> int:
        return self.mu_offset + self.candidates

    @property
    def p_started(self) -> int:
        return self.p_init + 1

    @property
    def p_goal(self) -> int:
        return self.p_init + 2

    @property
    def goal(self) -> int:
        return 1 << self.p_goal

    def believed(self, state: int) -> frozenset[int]:
        """The candidates whose meta fluent is at the robot's value in ``state`` (the
        edits explained so far)."""
        out = set()
        for i, edit in enumerate(self.problem.differences):
            on = bool(state >> self.mu_bit(i) & 1)
            if on == (edit.op == "add"):
                out.add(i)
        return frozenset(out)

    # ------------------------------------------------------------------ plans

    def split(self, plan: Sequence[str]) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """``(T(π_Ψ), E(π_Ψ))``: the task plan (ground action names) and the explained
        candidates (indices into :attr:`BalancedProblem.differences`) of a compiled plan
        given by action names (with or without parentheses)."""
        by_name = {a.name: a for a in self.actions}
        steps: list[str] = []
        explained: list[int] = []
        for raw in plan:
            name = raw.strip().strip("()").strip().lower()
            action = by_name.get(name)
            if action is None:
                raise InputError(f"'{raw}' is not an action of the compiled task")
            if action.kind == TASK:
                steps.append(action.label)
            elif action.kind == EXPLAIN:
                assert action.candidate is not None
                explained.append(action.candidate)
        return tuple(steps), tuple(sorted(set(explained)))

    def embed(self, plan: Sequence[str], subset: Sequence[int]) -> tuple[str, ...] | None:
        """The compiled plan for the pair ``(π, E)``: explain ``subset`` (candidate
        indices), ``start``, ``plan`` (ground action names), ``finish``; ``None`` when
        that is no solution (``π`` invalid in ``M^R`` or in ``M^R_h + E``, or, with
        ``stop_at_goal``, passing through a goal state of the robot)."""
        by_label: dict[str, list[CompiledAction]] = {}
        explain: dict[int, CompiledAction] = {}
        special: dict[str, CompiledAction] = {}
        for action in self.actions:
            if action.kind == TASK:
                by_label.setdefault(action.label, []).append(action)
            elif action.kind == EXPLAIN and action.candidate is not None:
                explain[action.candidate] = action
            else:
                special[action.kind] = action
        chosen = [explain[i] for i in sorted(set(subset))]
        chosen.append(special[START])
        state = self.init
        for action in chosen:
            if not self.applicable(action, state):
                return None
            state = self.apply(action, state)
        for step in plan:
            name = step.strip().strip("()").strip().lower()
            options = [a for a in by_label.get(name, ()) if self.applicable(a, state)]
            if not options:
                return None
            chosen.append(options[0])
            state = self.apply(options[0], state)
        if not self.applicable(special[FINISH], state):
            return None
        chosen.append(special[FINISH])
        return tuple(a.name for a in chosen)

    def edits(self, subset: Sequence[int]) -> tuple[Edit, ...]:
        return tuple(self.problem.differences[i] for i in sorted(subset))

    def applicable(self, action: CompiledAction, state: int) -> bool:
        """The compiled precondition, guards included."""
        if state & action.pre != action.pre or state & action.neg_pre:
            return False
        if self.stop_at_goal and action.kind == TASK and self.robot_goal_reached(state):
            return False
        for guard in action.guards:
            if state >> guard.mu & 1 and bool(state >> guard.belief & 1) != guard.positive:
                return False
        return True

    def apply(self, action: CompiledAction, state: int) -> int:
        add, delete = action.add, action.delete
        for effect in action.when:
            if state >> effect.mu & 1:
                add |= effect.add
                delete |= effect.delete
        for cond in action.conditional:
            if state & cond.cond_pos == cond.cond_pos and not state & cond.cond_neg:
                add |= cond.add
                delete |= cond.delete
        return (state & ~delete) | add

    def robot_goal_reached(self, state: int) -> bool:
        return state & self.robot_goal == self.robot_goal and not state & self.robot_goal_neg

    def simulate(self, plan: Sequence[str]) -> tuple[bool, int]:
        """(is ``plan`` a solution, its compiled cost): an executable definition of the
        compiled semantics, used by the tests."""
        by_name = {a.name: a for a in self.actions}
        state, cost = self.init, 0
        for raw in plan:
            action = by_name.get(raw.strip().strip("()").strip().lower())
            if action is None or not self.applicable(action, state):
                return False, cost
            state = self.apply(action, state)
            cost += action.cost
        return state & self.goal == self.goal, cost

    # ------------------------------------------------------------------ as a Task

    def as_task(self) -> Task:
        """The compiled task as a plain :class:`Task` (conditional effects kept, guards
        and the stop-at-goal condition split into disjoint copies), for the built-in
        planners: its optimal cost is the compiled task's."""
        from xaip.balanced.compile_split import split_actions

        atoms = tuple(Atom(name) for name in self.facts)
        return Task(name="megastar", facts=atoms, actions=split_actions(self), init=self.init,
                    goal=self.goal, has_costs=True)

    def to_pddl(self) -> tuple[str, str]:
        """``(domain, problem)`` PDDL texts (propositional, ADL: ``or`` and ``when``)."""
        from xaip.balanced.compile_pddl import compiled_pddl

        return compiled_pddl(self)

    def stats(self) -> dict[str, int]:
        return {"compiled_facts": len(self.facts), "compiled_actions": len(self.actions),
                "explanatory_actions": sum(a.kind == EXPLAIN for a in self.actions)}


# ---------------------------------------------------------------------- costs


def exact(value: float | int | Fraction) -> Fraction:
    """A price as an exact fraction (a float by its shortest decimal spelling: 0.1 is
    1/10, not the binary approximation)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if not math.isfinite(value):
        raise InputError(f"a cost must be finite, not {value}")
    return Fraction(repr(float(value)))


def scale_of(prices: Sequence[Fraction]) -> int:
    scale = 1
    for price in prices:
        scale = math.lcm(scale, price.denominator)
        if scale > 10**9:
            raise InputError("the weights and explanation costs need a common denominator "
                             "above 10^9; round them")
    return scale


# ---------------------------------------------------------------------- compiling


def compile_problem(
    problem: BalancedProblem,
    *,
    alpha: float | Fraction | None = None,
    explanation_costs: Sequence[float | Fraction] | None = None,
    explain_first: bool = True,
    stop_at_goal: bool = True,
) -> CompiledTask:
    """Compile ``problem`` into one planning task (book-spec §6.5).

    Task actions cost ``alpha`` (default: the problem's α) times their robot cost;
    explanatory action ``i`` costs ``explanation_costs[i]`` (default: β times the
    problem's price of ``differences[i]``). All costs are scaled to integers together.
    """
    weights = problem.weights
    a = exact(weights.alpha if alpha is None else alpha)
    if explanation_costs is None:
        prices = [exact(weights.beta) * exact(c) for c in problem.edit_costs]
    else:
        if len(explanation_costs) != len(problem.differences):
            raise InputError(f"{len(explanation_costs)} explanation costs for "
                             f"{len(problem.differences)} differences")
        prices = [exact(c) for c in explanation_costs]
    if a < 0 or any(p < 0 for p in prices):
        raise InputError("compiled costs must not be negative")
    from xaip.balanced.compile_build import Builder, assemble

    return assemble(Builder(problem, a, prices, explain_first, stop_at_goal))


def describe(task: CompiledTask) -> dict[str, Any]:
    """A JSON-safe summary of the compiled task (sizes and the meaning of each bit)."""
    return {"facts": dict(zip(task.facts, task.descriptions, strict=True)),
            "actions": [a.name for a in task.actions], "scale": task.scale,
            **task.stats()}


__all__ = ["CompiledAction", "CompiledTask", "Guard", "WhenMu", "compile_problem", "write_compiled",
           "describe", "exact"]


def write_compiled(problem: BalancedProblem, directory: str | Path,
                   write: Any = None, **options: Any) -> tuple[Path, Path]:
    """Compile ``problem`` (options as :func:`compile_problem`) and write
    ``directory/domain.pddl`` and ``directory/problem.pddl`` with ``write(path, text)``
    (default: plain writes; the CLI's refuses to write over an input); returns the two
    paths."""
    from xaip.balanced.compile_pddl import write_pddl

    return write_pddl(compile_problem(problem, **options), directory, write)
