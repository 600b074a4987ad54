"""Lifted formulas evaluated directly on a state of atoms: the validator's semantics.

This is what :func:`xaip.planning.plans.validate` (and the checkers that replay plans on
the lifted model) use instead of grounding: a condition is evaluated under a binding of its
free variables, quantifiers by trying the objects of their types, effects by collecting
adds, deletes and their cost, and ``:derived`` predicates by their stratified least
fixpoint. It shares nothing with grounding but the stratum order.

Quantifiers are evaluated in stages so that IPC domains with deep ``exists`` nests (optical
telegraphs, psr) stay fast: nested quantifiers of one kind are read as one, and each
conjunct of an ``exists`` body (each disjunct of a ``forall`` body) is tested as soon as the
variables it mentions have values, not once per full assignment. The answer is the same as
trying every assignment; only the order of the tests changes.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from xaip.errors import PlanFormatError, UnsupportedFeature
from xaip.planning.pddl.derived import stratify
from xaip.planning.pddl.limits import quoted
from xaip.planning.pddl.model import (
    COST_FLUENT,
    And,
    AndEffect,
    Atom,
    Condition,
    Domain,
    Effect,
    Exists,
    Forall,
    ForallEffect,
    FunctionTerm,
    Imply,
    Increase,
    Not,
    Or,
    Probabilistic,
    Problem,
    TypedName,
    When,
)
from xaip.planning.pddl.printer import print_condition
from xaip.planning.pddl.rename import rename_condition
from xaip.planning.semantics import counts_action_costs

__all__ = ["Derivation", "World", "effects", "ground_atom", "holds", "render"]


class World:
    """Objects, types and numeric values of a problem, for direct formula evaluation."""

    def __init__(self, domain: Domain, problem: Problem) -> None:
        below = domain.subtypes_closure()
        self.object_type: dict[str, str] = {}
        for typed in (*domain.constants, *problem.objects):
            self.object_type.setdefault(typed.name, typed.type)
        self.objects_by_type = {
            t: tuple(o for o, ot in self.object_type.items() if ot in group)
            for t, group in below.items()
        }
        self.below = below
        self.numeric: dict[FunctionTerm, Fraction] = dict(problem.numeric_init)
        self.uses_costs = counts_action_costs(domain, problem)
        #: Quantifiers read for staged evaluation, by ``id`` (see :func:`_quantified`).
        self.stages: dict[int, _Stages] = {}
        self.keep: list[Condition] = []

    def of_type(self, type_name: str) -> tuple[str, ...]:
        return self.objects_by_type.get(type_name, ())

    def quantify(self, variables: tuple[TypedName, ...]) -> Iterable[dict[str, str]]:
        names = [v.name for v in variables]
        for values in itertools.product(*(self.of_type(v.type) for v in variables)):
            yield dict(zip(names, values, strict=True))


def ground_atom(atom: Atom, binding: Mapping[str, str]) -> Atom:
    return Atom(atom.predicate, tuple([binding.get(a, a) for a in atom.args]))


def holds(
    cond: Condition, state: frozenset[Atom], binding: Mapping[str, str], world: World
) -> bool:
    if isinstance(cond, Atom):
        atom = ground_atom(cond, binding)
        if atom.predicate == "=":
            return atom.args[0] == atom.args[1]
        return atom in state
    if isinstance(cond, Not):
        return not holds(cond.operand, state, binding, world)
    if isinstance(cond, And):
        return all(holds(c, state, binding, world) for c in cond.operands)
    if isinstance(cond, Or):
        return any(holds(c, state, binding, world) for c in cond.operands)
    if isinstance(cond, Imply):
        return not holds(cond.antecedent, state, binding, world) or holds(
            cond.consequent, state, binding, world
        )
    if isinstance(cond, Exists | Forall):
        return _quantified(cond, state, binding, world)
    raise UnsupportedFeature(f"cannot evaluate condition {type(cond).__name__}")


@dataclass(frozen=True)
class _Stages:
    """A quantifier read for staged evaluation: its variables (nested quantifiers of the
    same kind merged) and, per variable index ``i``, the parts that can be tested once the
    first ``i`` variables have values (index 0: parts mentioning none of them).

    ``exists`` looks for an assignment where every conjunct holds; ``forall`` for one
    where every disjunct fails (a counterexample), so ``want`` is the value each part must
    take in the assignment searched for.
    """

    names: tuple[str, ...]
    types: tuple[str, ...]
    stages: tuple[tuple[Condition, ...], ...]
    want: bool


def _free_variables(cond: Condition) -> frozenset[str]:
    if isinstance(cond, Atom):
        return frozenset(a for a in cond.args if a.startswith("?"))
    if isinstance(cond, Not):
        return _free_variables(cond.operand)
    if isinstance(cond, And | Or):
        return frozenset().union(*(_free_variables(c) for c in cond.operands))
    if isinstance(cond, Imply):
        return _free_variables(cond.antecedent) | _free_variables(cond.consequent)
    if isinstance(cond, Exists | Forall):
        return _free_variables(cond.body) - {v.name for v in cond.variables}
    return frozenset()


def _stages(cond: Exists | Forall) -> _Stages:
    kind = type(cond)
    variables: list[TypedName] = []
    body: Condition = cond
    while isinstance(body, kind):
        # An inner variable of the same name shadows the outer one: keep the inner only.
        inner_names = {v.name for v in body.variables}
        variables = [v for v in variables if v.name not in inner_names] + list(body.variables)
        body = body.body
    connective = And if kind is Exists else Or
    parts = body.operands if isinstance(body, connective) else (body,)
    names = [v.name for v in variables]
    position = {name: i for i, name in enumerate(names)}
    stages: list[list[Condition]] = [[] for _ in range(len(names) + 1)]
    for part in parts:
        mentioned = [position[v] + 1 for v in _free_variables(part) if v in position]
        stages[max(mentioned, default=0)].append(part)
    return _Stages(tuple(names), tuple(v.type for v in variables),
                   tuple(tuple(s) for s in stages), kind is Exists)


def _quantified(cond: Exists | Forall, state: frozenset[Atom], binding: Mapping[str, str],
                world: World) -> bool:
    plan = world.stages.get(id(cond))
    if plan is None:
        plan = world.stages[id(cond)] = _stages(cond)
        world.keep.append(cond)  # the id stays this condition's while the world lives
    want = plan.want
    inner = dict(binding)
    stages = plan.stages
    if any(holds(part, state, inner, world) != want for part in stages[0]):
        return not want
    if not plan.names:
        return want
    domains = [world.of_type(t) for t in plan.types]
    names = plan.names
    depth = len(names)
    # Depth-first over the variables, testing each stage as soon as it can be tested.
    iterators = [iter(domains[0])]
    while iterators:
        level = len(iterators) - 1
        value = next(iterators[-1], None)
        if value is None:
            iterators.pop()
            continue
        inner[names[level]] = value
        if any(holds(part, state, inner, world) != want for part in stages[level + 1]):
            continue
        if level + 1 == depth:
            return want  # every part took the wanted value: a witness (or counterexample)
        iterators.append(iter(domains[level + 1]))
    return not want



def render(cond: Condition, binding: Mapping[str, str]) -> str:
    """A condition as PDDL text with the step's arguments substituted (the one printer)."""
    return print_condition(rename_condition(cond, binding))


_ZERO = Fraction(0)


def effects(
    effect: Effect,
    state: frozenset[Atom],
    binding: Mapping[str, str],
    world: World,
    adds: set[Atom],
    deletes: set[Atom],
) -> Fraction:
    """Collect adds/deletes of ``effect`` evaluated in ``state``; return its cost."""
    if isinstance(effect, Atom):
        adds.add(ground_atom(effect, binding))
        return _ZERO
    if isinstance(effect, Not):
        assert isinstance(effect.operand, Atom)
        deletes.add(ground_atom(effect.operand, binding))
        return _ZERO
    if isinstance(effect, AndEffect):
        total = _ZERO
        for part in effect.operands:
            cost = effects(part, state, binding, world, adds, deletes)
            if cost:  # Fraction additions dominated long plans; most parts cost nothing
                total = total + cost
        return total
    if isinstance(effect, When):
        if holds(effect.condition, state, binding, world):
            return effects(effect.effect, state, binding, world, adds, deletes)
        return Fraction(0)
    if isinstance(effect, ForallEffect):
        return sum(
            (
                effects(effect.effect, state, {**binding, **extra}, world, adds, deletes)
                for extra in world.quantify(effect.variables)
            ),
            Fraction(0),
        )
    if isinstance(effect, Increase):
        if effect.fluent.name != COST_FLUENT:
            return Fraction(0)
        value = effect.value
        if isinstance(value, FunctionTerm):
            term = FunctionTerm(value.name, tuple(binding.get(a, a) for a in value.args))
            if term not in world.numeric:
                raise PlanFormatError(f"the cost {quoted(term)} is not set in the problem's :init")
            return world.numeric[term]
        return value
    if isinstance(effect, Probabilistic):
        raise UnsupportedFeature(
            "probabilistic effects: a sequential plan cannot be validated against them"
        )
    raise UnsupportedFeature(f"cannot apply effect {type(effect).__name__}")



class Derivation:
    """The state with its derived atoms: the stratified least fixpoint of the ``:derived``
    rules, evaluated directly on atoms (it shares only the stratum order with grounding,
    :func:`~xaip.planning.pddl.derived.stratify`, not the ground axioms).

    Each stratum runs a work list over "rule, binding of its parameters". A binding whose
    body is false waits on the atoms of its own stratum that the evaluation looked up and
    found missing, and is evaluated again only when one of them is derived. That is exact:
    within a stratum the rules use their own stratum's atoms only positively (stratification
    puts a negated derived atom in a lower stratum, complete by then), atoms are only ever
    added, and evaluation is deterministic, so an evaluation whose looked-up atoms have not
    changed takes the same path to the same answer. (The plain "repeat every binding until
    nothing changes" took 15 s on IPC psr-large p02; see benchmarks/ipc_cpu.py.)
    """

    def __init__(self, domain: Domain, world: World) -> None:
        strata = stratify(domain)
        self.world = world
        levels = sorted(set(strata.values()))
        self.layers = [
            [rule for rule in domain.derived if strata[rule.name] == level] for level in levels
        ]
        self.layer_predicates = [
            frozenset(name for name, level in strata.items() if level == wanted)
            for wanted in levels
        ]
        # Every binding of every rule, with its head: the same for every state.
        self.bindings = [
            [(rule, binding, Atom(rule.name, tuple(binding[p.name] for p in rule.parameters)))
             for rule in rules for binding in world.quantify(rule.parameters)]
            for rules in self.layers
        ]

    def __call__(self, basic: set[Atom]) -> frozenset[Atom]:
        state = set(basic)
        for predicates, pending in zip(self.layer_predicates, self.bindings, strict=True):
            watching = Watching(state, predicates)
            # Read while it grows (only membership is tested).
            view: frozenset[Atom] = watching  # type: ignore[assignment]
            waiting: dict[Atom, list[int]] = {}
            queue = list(range(len(pending)))
            while queue:
                index = queue.pop()
                rule, binding, head = pending[index]
                if head in state:
                    continue
                watching.missed.clear()
                if holds(rule.condition, view, binding, self.world):
                    state.add(head)
                    queue.extend(waiting.pop(head, ()))
                else:
                    for atom in watching.missed:
                        waiting.setdefault(atom, []).append(index)
        return frozenset(state)


class Watching:
    """Membership in a growing state that remembers which atoms of the watched predicates
    were looked up and found missing (what a false rule body waits on)."""

    __slots__ = ("missed", "predicates", "state")

    def __init__(self, state: set[Atom], predicates: frozenset[str]) -> None:
        self.state = state
        self.predicates = predicates
        self.missed: list[Atom] = []

    def __contains__(self, atom: object) -> bool:
        if atom in self.state:
            return True
        if isinstance(atom, Atom) and atom.predicate in self.predicates:
            self.missed.append(atom)
        return False
