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
  removes the orderings of the explanations; explanations of initial facts always precede
  ``start`` (later they could not change what she believes the start looked like);
* ``stop_at_goal`` (default): no task action once the world satisfies the robot's goal, the
  convention of the product-model planner (a plan ends at the first goal state);
* conditional preconditions ``μ → B(f)`` are kept as guards here and written as ``or`` in
  PDDL; :meth:`CompiledTask.as_task` splits them into one copy per assignment of the
  guarding meta fluents for planners without disjunctions (the built-in search);
* an action the person's model lacks exists for her once any of its features is
  explained (edits create it, as in :func:`~xaip.planning.features.update_features`): one
  compiled copy per such feature;
* costs are integers: ``α·C^R(a)`` for task actions and ``β·C_E(φ)`` for explanations,
  times :attr:`CompiledTask.scale` (the least common denominator of the prices).

Only models whose actions are conjunctions of literals (what the model space compiles)
can be compiled; others raise :class:`~xaip.errors.UnsupportedFeature`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from xaip.balanced.objectives import BalancedProblem, feature_name
from xaip.errors import InputError, UnsupportedFeature
from xaip.planning.features import Edit, Feature, FeatureKind
from xaip.planning.pddl.model import Atom
from xaip.planning.task import GroundAction, Task

_K = FeatureKind
_LITERAL = (_K.PRECONDITION, _K.NEGATIVE_PRECONDITION, _K.ADD_EFFECT, _K.DELETE_EFFECT)

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


def _scale(prices: Sequence[Fraction]) -> int:
    scale = 1
    for price in prices:
        scale = math.lcm(scale, price.denominator)
        if scale > 10**9:
            raise InputError("the weights and explanation costs need a common denominator "
                             "above 10^9; round them")
    return scale


# ---------------------------------------------------------------------- compiling


class _Builder:
    """Grounds the two models' features action by action into compiled actions."""

    def __init__(self, problem: BalancedProblem, alpha: Fraction,
                 explain_costs: Sequence[Fraction], explain_first: bool,
                 stop_at_goal: bool) -> None:
        space = problem.space
        if not space.compiled:
            raise UnsupportedFeature(
                "MEGA* compiles models whose actions are conjunctions of literals (no "
                "or/exists/forall/when, no derived predicates); use --method model-space")
        self.problem, self.space = problem, space
        self.alpha, self.explain_costs = alpha, explain_costs
        self.explain_first, self.stop_at_goal = explain_first, stop_at_goal
        everything = tuple(range(len(space.candidates)))
        self.robot_task = space.task(everything)  # M^R_h + D is M^R, on the space's facts
        self.world = len(space.facts)
        self.candidate_of: dict[tuple[FeatureKind, Feature], int] = {}
        for i, candidate in enumerate(space.candidates):
            if candidate.instance is not None:
                raise UnsupportedFeature("MEGA* compiles lifted explanations only")
            self.candidate_of[(candidate.lifted.feature.kind, candidate.lifted.feature)] = i
        self.mu_offset = 0  # set once the static beliefs are known
        self.static_index: dict[Atom, int] = {}
        self.human_by_action = _by_action(space.human_features)
        self.robot_by_action = _by_action(space.robot_features)

    # -- the person's side, feature by feature

    def _slot(self, feature: Feature, args: tuple[str, ...]) -> tuple[str, int]:
        """Where a feature's atom lands: ``("bit", belief offset)``, ``("static", static
        belief number)``, or ``("true"|"false", 0)`` for atoms no model can change."""
        assert feature.atom is not None
        mapping = dict(zip(feature.parameters, args, strict=True))
        atom = Atom(feature.atom.predicate, tuple(mapping.get(a, a) for a in feature.atom.args))
        if atom.predicate == "=":
            return ("true" if atom.args[0] == atom.args[1] else "false"), 0
        index = self.space.fact_index.get(atom)
        if index is not None:
            return "bit", index
        if atom.predicate in self.space.static_predicates:
            if atom not in self.static_index:
                self.static_index[atom] = len(self.static_index)
            return "static", self.static_index[atom]
        return "false", 0  # a fluent atom no model reaches

    def _split(self, schema: str) -> list[tuple[Feature, int | None]]:
        """The literal features of ``schema`` in either model, each with the candidate
        that toggles it (``None``: both models agree)."""
        human = self.human_by_action.get(schema, set())
        robot = self.robot_by_action.get(schema, set())
        out: list[tuple[Feature, int | None]] = []
        for feature in sorted(human | robot):
            if feature.kind not in _LITERAL:
                continue
            if feature in human and feature in robot:
                out.append((feature, None))
            else:
                key = (feature.kind, feature)
                if key not in self.candidate_of:
                    raise UnsupportedFeature(f"the models differ in '{feature_name(feature)}' "
                                             "but it is not an explainable difference")
                out.append((feature, self.candidate_of[key]))
        return out


def _by_action(features: frozenset[Feature]) -> dict[str, set[Feature]]:
    out: dict[str, set[Feature]] = {}
    for feature in features:
        if feature.action:
            out.setdefault(feature.action, set()).add(feature)
    return out


class _Part:
    """Masks being collected for one compiled action (belief side, by symbolic bits)."""

    def __init__(self) -> None:
        self.pre: set[tuple[str, int]] = set()   # ("b"|"s"|"mu", index)
        self.neg: set[tuple[str, int]] = set()
        self.add: set[tuple[str, int]] = set()
        self.delete: set[tuple[str, int]] = set()
        self.guards: list[tuple[int, tuple[str, int], bool]] = []
        self.when: list[tuple[int, tuple[str, int], bool]] = []  # (mu, bit, adds?)
        self.impossible = False


def _belief_literal(part: _Part, feature: Feature, slot: tuple[str, int],
                    candidate: int | None) -> None:
    """Record what one feature of the person's model asks of, or does to, her beliefs."""
    code, index = slot
    bit = ("b" if code == "bit" else "s", index)
    kind = feature.kind
    if kind in (_K.PRECONDITION, _K.NEGATIVE_PRECONDITION):
        positive = kind is _K.PRECONDITION
        if code in ("true", "false"):
            holds = (code == "true") == positive
            if holds:
                return
            if candidate is None:
                part.impossible = True
            else:
                part.neg.add(("mu", candidate))  # believing the feature rules her action out
            return
        if candidate is None:
            (part.pre if positive else part.neg).add(bit)
        else:
            part.guards.append((candidate, bit, positive))
        return
    if code not in ("bit", "static"):
        return  # effects on atoms no model can change change nothing
    adds = kind is _K.ADD_EFFECT
    if candidate is None:
        (part.add if adds else part.delete).add(bit)
    else:
        part.when.append((candidate, bit, adds))


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
    builder = _Builder(problem, a, prices, explain_first, stop_at_goal)
    return _assemble(builder)


def _assemble(b: _Builder) -> CompiledTask:
    problem, space = b.problem, b.space
    differences = problem.differences
    scale = _scale([b.alpha, *b.explain_costs])
    # 1. collect the parts symbolically (static beliefs are numbered on the way)
    task_parts: list[tuple[GroundAction, _Part, int | None]] = []
    for action in b.robot_task.actions:
        number = space.instance_index[action.name]
        args = space.instances[number].args
        features = b._split(action.schema)
        human = b.human_by_action.get(action.schema, set())
        exists_for_her = any(f.kind is _K.COST for f in human)
        creators: list[int | None] = [None]
        if not exists_for_her:
            creators = sorted({c for f, c in features if c is not None
                               and differences[c].op == "add"})  # type: ignore[misc]
        part = _Part()
        for feature, candidate in features:
            _belief_literal(part, feature, b._slot(feature, args), candidate)
        if part.impossible:
            continue
        for creator in creators:
            task_parts.append((action, part, creator))
    start, finish = _Part(), _Part()
    for feature, candidate in _problem_split(b):
        assert feature.atom is not None
        slot = b._slot(feature, ())
        if feature.kind is _K.INIT:
            if slot[0] in ("bit", "static"):
                bit = ("b" if slot[0] == "bit" else "s", slot[1])
                if candidate is None:
                    start.add.add(bit)
                else:
                    start.when.append((candidate, bit, True))
        elif feature.kind in (_K.GOAL, _K.NEGATIVE_GOAL):
            as_pre = Feature(_K.PRECONDITION if feature.kind is _K.GOAL
                             else _K.NEGATIVE_PRECONDITION, atom=feature.atom)
            _belief_literal(finish, as_pre, slot, candidate)
    # 2. number the bits
    world = b.world
    statics = tuple(sorted(b.static_index, key=b.static_index.__getitem__))
    mu_offset = 2 * world + len(statics)
    n_candidates = len(differences)
    p_init = mu_offset + n_candidates

    def bit(ref: tuple[str, int]) -> int:
        kind, index = ref
        if kind == "b":
            return world + index
        if kind == "s":
            return 2 * world + index
        return mu_offset + index

    def mask(refs: set[tuple[str, int]]) -> int:
        out = 0
        for ref in refs:
            out |= 1 << bit(ref)
        return out

    def guards(part: _Part) -> tuple[Guard, ...]:
        return tuple(Guard(mu_offset + c, bit(ref), positive) for c, ref, positive in
                     sorted(part.guards))

    def whens(part: _Part) -> tuple[WhenMu, ...]:
        return tuple(WhenMu(mu_offset + c, 1 << bit(ref) if adds else 0,
                            0 if adds else 1 << bit(ref))
                     for c, ref, adds in sorted(part.when))

    names = _FactNames()
    facts: list[str] = []
    descriptions: list[str] = []
    for atom in space.facts:
        facts.append(names.make("w", str(atom)))
        descriptions.append(f"world: {atom}")
    for atom in (*space.facts, *statics):
        facts.append(names.make("b", str(atom)))
        descriptions.append(f"she believes {atom}")
    for i, edit in enumerate(differences):
        facts.append(names.make("mu", f"{i} {edit.feature.kind.value}"))
        descriptions.append(f"she believes the model has: {feature_name(edit.feature)}")
    for control in ("p-init", "p-started", "p-goal"):
        facts.append(names.make(control, ""))
        descriptions.append(control)
    # 3. the actions
    actions: list[CompiledAction] = []
    p_bits = {"init": 1 << p_init, "started": 1 << (p_init + 1), "goal": 1 << (p_init + 2)}
    robot_init = b.robot_task.init
    actions.append(CompiledAction(
        "start", START, "start", pre=p_bits["init"], neg_pre=0,
        add=p_bits["started"] | robot_init | mask(start.add), delete=p_bits["init"], cost=0,
        when=whens(start)))
    goal = b.robot_task.goal
    actions.append(CompiledAction(
        "finish", FINISH, "finish", pre=p_bits["started"] | goal | mask(finish.pre),
        neg_pre=b.robot_task.goal_neg | mask(finish.neg) | p_bits["goal"],
        add=p_bits["goal"], delete=0, cost=0, guards=guards(finish)))
    used: dict[str, int] = {}
    for action, part, creator in task_parts:
        pre = action.pre | mask(part.pre) | p_bits["started"]
        if creator is not None:
            pre |= 1 << (mu_offset + creator)
        name = names.make("do", action.name)
        used[action.name] = used.get(action.name, 0) + 1
        cost = b.alpha * action.cost * scale
        actions.append(CompiledAction(
            name, TASK, action.name, pre=pre, neg_pre=action.neg_pre | mask(part.neg),
            add=action.add | mask(part.add), delete=action.delete | mask(part.delete),
            cost=int(cost), guards=guards(part), when=whens(part), robot_cost=action.cost))
    for i, edit in enumerate(differences):
        mu = 1 << (mu_offset + i)
        early = b.explain_first or not edit.feature.is_action_feature
        robot_has = edit.op == "add"
        pre = (p_bits["init"] if early else 0) | (0 if robot_has else mu)
        actions.append(CompiledAction(
            names.make("explain", f"{i} {feature_name(edit.feature)}"), EXPLAIN,
            feature_name(edit.feature), pre=pre,
            neg_pre=(mu if robot_has else 0) | (0 if early else p_bits["goal"]),
            add=mu if robot_has else 0, delete=0 if robot_has else mu,
            cost=int(b.explain_costs[i] * scale), candidate=i))
    init = 1 << p_init
    for i in range(n_candidates):
        if _believed_initially(b, i):
            init |= 1 << (mu_offset + i)
    return CompiledTask(
        problem, tuple(facts), tuple(descriptions), world, statics, mu_offset,
        tuple(actions), init, goal, b.robot_task.goal_neg, b.robot_task, scale, b.alpha,
        b.explain_first, b.stop_at_goal)


def _problem_split(b: _Builder) -> list[tuple[Feature, int | None]]:
    """The init and goal features of either model with their toggling candidates."""
    kinds = (_K.INIT, _K.GOAL, _K.NEGATIVE_GOAL)
    human = {f for f in b.space.human_features if f.kind in kinds}
    robot = {f for f in b.space.robot_features if f.kind in kinds}
    out: list[tuple[Feature, int | None]] = []
    for feature in sorted(human | robot):
        if feature in human and feature in robot:
            out.append((feature, None))
        else:
            out.append((feature, b.candidate_of[(feature.kind, feature)]))
    return out


def _believed_initially(b: _Builder, candidate: int) -> bool:
    """Does the person's own model contain the candidate's feature?"""
    return b.problem.differences[candidate].op == "remove"


class _FactNames:
    """Unique PDDL names: lower-case letters, digits, ``-`` and ``_``."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def make(self, prefix: str, text: str) -> str:
        cleaned = "".join(ch if ch.isalnum() else "_" for ch in text.lower()).strip("_")
        while "__" in cleaned:
            cleaned = cleaned.replace("__", "_")
        base = f"{prefix}_{cleaned}" if cleaned else prefix
        name, number = base, 1
        while name in self.used:
            number += 1
            name = f"{base}_{number}"
        self.used.add(name)
        return name


def describe(task: CompiledTask) -> dict[str, Any]:
    """A JSON-safe summary of the compiled task (sizes and the meaning of each bit)."""
    return {"facts": dict(zip(task.facts, task.descriptions, strict=True)),
            "actions": [a.name for a in task.actions], "scale": task.scale,
            **task.stats()}


__all__ = ["CompiledAction", "CompiledTask", "Guard", "WhenMu", "compile_problem", "write_compiled",
           "describe", "exact"]


def write_compiled(problem: BalancedProblem, directory: str | Path,
                   **options: Any) -> tuple[Path, Path]:
    """Compile ``problem`` (options as :func:`compile_problem`) and write
    ``directory/domain.pddl`` and ``directory/problem.pddl``; returns the two paths."""
    from xaip.balanced.compile_pddl import write_pddl

    return write_pddl(compile_problem(problem, **options), directory)
