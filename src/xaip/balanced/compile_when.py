"""Conditional effects and inferred conditions in the MEGA* compilation (B05).

Why: the reconciliation model space compiles conjunctions of literals only, so the
compilation used to refuse models with ``(when …)`` effects, and with them the book's
inferred conditions (a watched fired conditional effect makes her believe its condition).
Explanations still edit features only, so the conditional effects are the same in both
models (the model space refuses models that differ in them); what differs is the state
they fire in: the world for the robot, her beliefs for her.

How:

* :func:`union_layout` grounds the relaxed union of every model of the space (as the
  model space does for conjunctive models: shared positive preconditions, every effect and
  initial fact) for the fact numbering and the ground action instances, and builds the
  robot's actions on those facts from its features and its lifted conditional effects;
* a compiled task action's belief bits are then set by *prioritised* conditional
  effects (:func:`prioritised`): per belief bit, the inferred value (false before true,
  as :class:`~xaip.balanced.epistemic.Watcher` applies them) over the watched value (what
  the robot's step asserts, an add over a delete) over her model's prediction (an add over
  a delete), each firing only when no earlier one does. A negated conjunction is a
  disjunction, so each item becomes one conditional effect per way the earlier ones can
  fail (the PDDL semantics "an add wins" would otherwise let her prediction override
  what she sees);
* inferred conditions need "facts used by earlier steps": one *used* bit per fact that
  occurs in the condition of a watched conditional effect, set by every task action that
  mentions the fact (precondition, effect, or any part of a conditional effect).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.balanced.objectives import BalancedProblem
from xaip.errors import UnsupportedFeature
from xaip.planning.features import Edit, Feature, FeatureKind, apply_edits
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import IMPOSSIBLE, Atom, Domain, Not, When, conjuncts, effect_parts
from xaip.planning.task import ConditionalEffect, GroundAction, Task

_K = FeatureKind
Ref = tuple[str, int]  # ("w"|"b"|"s"|"mu"|"u", index)
Condition = tuple[frozenset[Ref], frozenset[Ref]]  # (must hold, must not hold)


@dataclass(frozen=True)
class LiftedWhen:
    """``(when (and pos (not neg)) (and add (not delete)))`` of an action schema."""

    pos: tuple[Atom, ...]
    neg: tuple[Atom, ...]
    add: tuple[Atom, ...]
    delete: tuple[Atom, ...]


def lifted_whens(domain: Domain) -> dict[str, tuple[LiftedWhen, ...]]:
    """Every schema's conditional effects; :class:`UnsupportedFeature` for one that is
    not a conjunction of literals under a conjunction of literals."""
    out: dict[str, tuple[LiftedWhen, ...]] = {}
    for action in domain.actions:
        found: list[LiftedWhen] = []
        for part in effect_parts(action.effect):
            if not isinstance(part, When):
                continue
            pos: list[Atom] = []
            neg: list[Atom] = []
            for literal in conjuncts(part.condition):
                if isinstance(literal, Atom):
                    pos.append(Atom(literal.predicate, literal.args))
                elif isinstance(literal, Not) and isinstance(literal.operand, Atom):
                    neg.append(Atom(literal.operand.predicate, literal.operand.args))
                else:
                    raise _unsupported(action.name)
            add: list[Atom] = []
            delete: list[Atom] = []
            for effect in effect_parts(part.effect):
                if isinstance(effect, Atom):
                    add.append(Atom(effect.predicate, effect.args))
                elif isinstance(effect, Not) and isinstance(effect.operand, Atom):
                    delete.append(Atom(effect.operand.predicate, effect.operand.args))
                else:
                    raise _unsupported(action.name)
            found.append(LiftedWhen(tuple(pos), tuple(neg), tuple(add), tuple(delete)))
        if found:
            out[action.name] = tuple(found)
    return out


def _unsupported(name: str) -> UnsupportedFeature:
    return UnsupportedFeature(
        f"MEGA* compiles conditional effects that are conjunctions of literals under a "
        f"conjunction of literals; {name} has another one (use --method model-space)")


def bind(atom: Atom, parameters: Sequence[str], args: Sequence[str]) -> Atom:
    mapping = dict(zip(parameters, args, strict=True))
    return Atom(atom.predicate, tuple(mapping.get(a, a) for a in atom.args))


@dataclass
class Layout:
    """What the compilation is built on: fact numbering, ground action instances, the
    robot's ground actions on those facts, the schemas' conditional effects."""

    facts: tuple[Atom, ...]
    fact_index: dict[Atom, int]
    static_predicates: frozenset[str]
    instance_index: dict[str, tuple[str, tuple[str, ...]]]  # name -> (schema, args)
    robot_task: Task
    whens: dict[str, tuple[LiftedWhen, ...]]
    parameters: dict[str, tuple[str, ...]]  # schema -> parameter names (robot's)


def union_layout(problem: BalancedProblem, robot_costs: dict[str, int]) -> Layout:
    """The layout of a model space that is not compiled (conditional effects): see the
    module docstring. ``robot_costs`` prices the robot's actions by name (its own
    grounding); others never occur in its plans (cost 1)."""
    space = problem.space
    if problem.robot_domain.derived or problem.human_domain.derived:
        raise UnsupportedFeature("MEGA* does not compile derived predicates; use "
                                 "--method model-space")
    whens = lifted_whens(problem.robot_domain)
    if whens != lifted_whens(problem.human_domain):
        raise UnsupportedFeature("the models' conditional effects differ; explanations "
                                 "edit features only")
    shared = space.human_features & space.robot_features
    edits = [e for e in space.lifted_edits if e.op == "add" and e.feature.kind in (
        _K.ADD_EFFECT, _K.DELETE_EFFECT, _K.INIT, _K.COST, _K.INIT_VALUE)]
    edits += [Edit(f, "remove") for f in space.human_features
              if f.kind is _K.NEGATIVE_PRECONDITION
              or (f.kind is _K.PRECONDITION and f not in shared)]
    domain, union_problem = apply_edits(problem.human_domain, problem.human_problem, edits,
                                        source_domain=problem.robot_domain,
                                        source_problem=problem.robot_problem)
    assert union_problem is not None
    union = ground(domain, union_problem)
    facts = (*(Atom(f.predicate, f.args) for f in union.facts), IMPOSSIBLE)
    index = {fact: i for i, fact in enumerate(facts)}
    fluent = {a.predicate for a in facts}
    statics = frozenset(p.name for p in (*problem.robot_domain.predicates,
                                         *problem.human_domain.predicates)
                        if p.name not in fluent)
    instances = {a.name: (a.schema, a.args) for a in union.actions}
    schemas = {a.name: a for a in problem.robot_domain.actions}
    parameters = {a.name: tuple(p.name for p in a.parameters)
                  for a in problem.robot_domain.actions}
    robot_init = {Atom(a.predicate, a.args) for a in problem.robot_problem.init}
    features: dict[str, list[Feature]] = {}
    for feature in space.robot_features:
        if feature.action:
            features.setdefault(feature.action, []).append(feature)

    def truth(atom: Atom) -> int | bool:
        """A world bit, or the truth of an atom no action changes."""
        if atom.predicate == "=":
            return atom.args[0] == atom.args[1]
        if atom in index:
            return index[atom]
        if atom.predicate in statics:
            return atom in robot_init
        return False  # a fluent atom no model reaches

    actions: list[GroundAction] = []
    for name, (schema, args) in instances.items():
        if schema not in schemas:
            continue  # an action only she has: never the robot's
        params = parameters[schema]
        pre = neg = add = delete = 0
        possible = True
        for feature in features.get(schema, ()):
            if feature.atom is None:
                continue
            value = truth(bind(feature.atom, feature.parameters, args))
            kind = feature.kind
            if kind is _K.PRECONDITION:
                if value is False:
                    possible = False
                elif value is not True:
                    pre |= 1 << value
            elif kind is _K.NEGATIVE_PRECONDITION:
                if value is True:
                    possible = False
                elif value is not False:
                    neg |= 1 << value
            elif kind in (_K.ADD_EFFECT, _K.DELETE_EFFECT) and not isinstance(value, bool):
                if kind is _K.ADD_EFFECT:
                    add |= 1 << value
                else:
                    delete |= 1 << value
        if not possible or pre & neg:
            continue
        conditional = tuple(c for c in (_ground_when(w, params, args, truth)
                                        for w in whens.get(schema, ())) if c is not None)
        actions.append(GroundAction(schema, args, pre, add, delete & ~add,
                                    robot_costs.get(name, 1), neg, conditional))
    goal = goal_neg = 0
    for feature in space.robot_features:
        if feature.kind in (_K.GOAL, _K.NEGATIVE_GOAL) and feature.atom is not None:
            value = truth(feature.atom)
            wanted = feature.kind is _K.GOAL
            if isinstance(value, bool):
                if value != wanted:
                    goal |= 1 << index[IMPOSSIBLE]
            elif wanted:
                goal |= 1 << value
            else:
                goal_neg |= 1 << value
    init = 0
    for atom in robot_init:
        if atom in index:
            init |= 1 << index[atom]
    task = Task(name="megastar-robot", facts=facts, actions=tuple(actions), init=init,
                goal=goal, goal_neg=goal_neg, has_costs=problem.robot_task.has_costs)
    return Layout(facts, index, statics, instances, task, whens, parameters)


def _ground_when(when: LiftedWhen, params: Sequence[str], args: Sequence[str],
                 truth: object) -> ConditionalEffect | None:
    """One conditional effect on world bits (``None``: it can never fire)."""
    pos = neg = add = delete = 0
    for atoms, positive in ((when.pos, True), (when.neg, False)):
        for atom in atoms:
            value = truth(bind(atom, params, args))  # type: ignore[operator]
            if isinstance(value, bool):
                if value != positive:
                    return None
            elif positive:
                pos |= 1 << value
            else:
                neg |= 1 << value
    for atoms, adds in ((when.add, True), (when.delete, False)):
        for atom in atoms:
            value = truth(bind(atom, params, args))  # type: ignore[operator]
            if not isinstance(value, bool):
                if adds:
                    add |= 1 << value
                else:
                    delete |= 1 << value
    if pos & neg:
        return None
    return ConditionalEffect(pos, neg, add, delete)


def lifted_costs(domain: Any, problem: Any) -> Callable[[str], int | None]:
    """Her cost of a ground action by name in her lifted model (``None``: no such
    schema): what her step costs whatever she believes (costs do not depend on the
    state in the models the compilation takes)."""
    from xaip.planning.plans import _effects, _World

    world = _World(domain, problem)
    schemas = {a.name: a for a in domain.actions}
    cache: dict[str, int | None] = {}

    def cost(name: str) -> int | None:
        if name not in cache:
            schema_name, *args = name.split()
            schema = schemas.get(schema_name)
            if schema is None or len(args) != len(schema.parameters):
                cache[name] = None
            else:
                binding = dict(zip((p.name for p in schema.parameters), args, strict=True))
                step = _effects(schema.effect, frozenset(), binding, world, set(), set())
                cache[name] = int(step or 0) if world.uses_costs else 1
        return cache[name]

    return cost


# ---------------------------------------------------------------------- priorities


@dataclass(frozen=True)
class Item:
    """Set ``target`` to ``value`` when ``condition`` holds and none of ``blockers``
    does (each a conjunction)."""

    target: Ref
    value: bool
    condition: Condition
    blockers: tuple[Condition, ...] = ()


def _negations(blockers: Sequence[Condition]) -> Iterable[Condition]:
    """Conjunctions whose disjunction is "no blocker holds" (one violated literal each)."""
    options: list[list[Condition]] = []
    for pos, neg in blockers:
        literals: list[Condition] = [(frozenset(), frozenset({r})) for r in sorted(pos)] + \
            [(frozenset({r}), frozenset()) for r in sorted(neg)]
        if not literals:
            return  # an empty conjunction always holds: nothing escapes it
        options.append(literals)
    for choice in itertools.product(*options):
        pos_all: set[Ref] = set()
        neg_all: set[Ref] = set()
        for p, n in choice:
            pos_all |= p
            neg_all |= n
        if not pos_all & neg_all:
            yield frozenset(pos_all), frozenset(neg_all)


def prioritised(items: Sequence[Item]) -> list[tuple[Condition, Ref, bool]]:
    """Conditional effects (condition, target, value) that give each target the value of
    its first item (in ``items`` order) that *fires*: its condition holds, none of its
    blockers does and no earlier item for the target fires. When an item fires is kept
    as a disjunction of conjunctions (the conditions of its effects), and a later item
    needs every one of them false."""
    out: list[tuple[Condition, Ref, bool]] = []
    earlier: dict[Ref, list[Condition]] = {}
    for item in items:
        before = earlier.setdefault(item.target, [])
        pos, neg = item.condition
        if pos & neg:
            continue
        fired: list[Condition] = []
        for extra_pos, extra_neg in _negations([*item.blockers, *before]):
            cond_pos, cond_neg = pos | extra_pos, neg | extra_neg
            if not cond_pos & cond_neg:
                fired.append((cond_pos, cond_neg))
        fired = _absorbed(fired)
        out.extend((condition, item.target, item.value) for condition in fired)
        before.extend(fired)
    return out


def _absorbed(terms: list[Condition]) -> list[Condition]:
    """A disjunction without terms implied by others (a superset of another's literals)."""
    unique = sorted(set(terms), key=lambda t: (len(t[0]) + len(t[1]), sorted(t[0]),
                                                sorted(t[1])))
    kept: list[Condition] = []
    for pos, neg in unique:
        if not any(p <= pos and n <= neg for p, n in kept):
            kept.append((pos, neg))
    return kept
