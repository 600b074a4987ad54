"""Grounding: from a lifted domain and problem to a :class:`~xaip.planning.task.Task`.

Why reachability-based: instantiating every action with every tuple of objects explodes
even on small logistics tasks. We compute the relaxed-reachable fluent atoms by a fixpoint
(negative conditions are ignored, so the result over-approximates reachability) and only
instantiate actions whose positive preconditions can become true. Predicates that no
action changes are *static*: they are evaluated during grounding and removed from the task.

Budgets: grounding can be the most expensive phase (a ``forall`` over many objects, a
large IPC task), so it reads the budget's clock while joining, expanding quantifiers and
assembling, and it refuses to build a task larger than ``max_size`` ground actions plus
conditional effects (a memory budget). Either way it raises
:class:`~xaip.errors.BudgetExhausted` saying how large the task was getting. The node
budget is left to the search that follows (grounding counts no nodes).

Conditions of any shape (``or``, ``imply``, ``exists``, ``forall``) are grounded into
disjunctive normal form over fluent literals. A precondition with several disjuncts
becomes several ground actions with the same name (one per disjunct), which is what a plan
validator needs: the step is applicable when any variant is.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from xaip.errors import SemanticError, UnsupportedFeature
from xaip.planning.axioms import AxiomEvaluator, GroundAxiom, closing
from xaip.planning.grounding_dnf import TRUE_CLAUSE, Clause, and_clauses, conjoin, dedupe
from xaip.planning.grounding_join import FactIndex, candidate_bindings
from xaip.planning.grounding_limits import MAX_GROUND_SIZE, UNGUARDED, GroundingGuard
from xaip.planning.pddl.derived import stratify
from xaip.planning.pddl.model import (
    COST_FLUENT,
    IMPOSSIBLE,
    Action,
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
from xaip.planning.pddl.visitor import changed_atoms
from xaip.planning.semantics import costs_ignored, counts_action_costs
from xaip.planning.task import ConditionalEffect, GroundAction, Task, mask_of
from xaip.runtime.budget import Budget, BudgetClock, as_clock

#: Numeric fluents we accept in effects but ignore when grounding a classical task.
IGNORED_FLUENTS = frozenset({"reward"})
#: The atom used as an unreachable goal when a goal literal is statically false.

Binding = Mapping[str, str]
#: Probability one, shared so that deterministic effects are recognised by identity
#: (Fraction arithmetic dominated grounding large STRIPS tasks).
ONE = Fraction(1)


@dataclass(frozen=True)
class _EffectPart:
    """One grounded effect part: adds/deletes under DNF ``conditions`` (None = always)."""

    conditions: tuple[Clause, ...] | None
    adds: frozenset[Atom]
    deletes: frozenset[Atom]
    cost: Fraction = Fraction(0)


class _Context:
    """Everything grounding needs to know about objects, types and static facts."""

    def __init__(self, domain: Domain, problem: Problem, guard: GroundingGuard = UNGUARDED) -> None:
        self.domain = domain
        self.problem = problem
        self.guard = guard
        below = domain.subtypes_closure()
        objects: dict[str, str] = {}
        for typed in (*domain.constants, *problem.objects):
            objects.setdefault(typed.name, typed.type)
        self.objects = objects
        self.by_type: dict[str, tuple[str, ...]] = {}
        for type_name, group in below.items():
            self.by_type[type_name] = tuple(o for o, t in objects.items() if t in group)
        # Derived predicates change with the state, so they are fluent (never static).
        self.fluent_predicates = _fluent_predicates(domain) | domain.derived_predicates
        self.static_facts: set[Atom] = {
            _strip(a) for a in problem.init if a.predicate not in self.fluent_predicates
        }
        self.static_by_predicate: dict[str, set[tuple[str, ...]]] = {}
        for atom in self.static_facts:
            self.static_by_predicate.setdefault(atom.predicate, set()).add(atom.args)
        self.numeric: dict[FunctionTerm, Fraction] = dict(problem.numeric_init)

    def objects_of(self, type_name: str) -> tuple[str, ...]:
        try:
            return self.by_type[type_name]
        except KeyError:
            raise SemanticError(f"unknown type '{type_name}'") from None

    def is_fluent(self, predicate: str) -> bool:
        return predicate in self.fluent_predicates

    def static_holds(self, atom: Atom) -> bool:
        if atom.predicate == "=":
            return atom.args[0] == atom.args[1]
        return atom.args in self.static_by_predicate.get(atom.predicate, ())


def _strip(atom: Atom) -> Atom:
    """The atom without its source location (so equal atoms hash equal)."""
    return Atom(atom.predicate, atom.args)


def _fluent_predicates(domain: Domain) -> frozenset[str]:
    return frozenset(atom.predicate for action in domain.actions
                     for atom in changed_atoms(action.effect))


def _substitute(args: tuple[str, ...], binding: Binding) -> tuple[str, ...]:
    return tuple(binding.get(a, a) if a.startswith("?") else a for a in args)


# --------------------------------------------------------------------------- conditions


def ground_condition(
    condition: Condition, binding: Binding, ctx: _Context, negated: bool = False
) -> list[Clause]:
    """The condition under ``binding`` as DNF over fluent atoms; ``[]`` means false.

    Static atoms and equality are decided here; quantifiers are expanded over the objects
    of their types.
    """
    if isinstance(condition, Atom):
        atom = Atom(condition.predicate, _substitute(condition.args, binding))
        if condition.predicate == "=" or not ctx.is_fluent(condition.predicate):
            return [TRUE_CLAUSE] if ctx.static_holds(atom) != negated else []
        if negated:
            return [(frozenset(), frozenset((atom,)))]
        return [(frozenset((atom,)), frozenset())]
    if isinstance(condition, Not):
        return ground_condition(condition.operand, binding, ctx, not negated)
    if isinstance(condition, And | Or):
        conjunctive = isinstance(condition, And) != negated
        if conjunctive:
            return conjoin(
                (ground_condition(operand, binding, ctx, negated)
                 for operand in condition.operands), ctx.guard)
        disjuncts: list[Clause] = []
        for operand in condition.operands:
            disjuncts.extend(ground_condition(operand, binding, ctx, negated))
        return dedupe(disjuncts)
    if isinstance(condition, Imply):
        rewritten = Or((Not(condition.antecedent), condition.consequent))
        return ground_condition(rewritten, binding, ctx, negated)
    if isinstance(condition, Exists | Forall):
        instances = (
            ground_condition(condition.body, {**binding, **extra}, ctx, negated)
            for extra in _bindings(condition.variables, ctx)
        )
        universal = isinstance(condition, Forall) != negated
        if universal:
            return conjoin(instances, ctx.guard)
        return dedupe([c for clauses in instances for c in clauses])
    raise UnsupportedFeature(f"unsupported condition {type(condition).__name__}")


def _bindings(variables: tuple[TypedName, ...], ctx: _Context) -> Iterator[dict[str, str]]:
    names = [v.name for v in variables]
    tick = ctx.guard.tick
    for values in itertools.product(*(ctx.objects_of(v.type) for v in variables)):
        tick()
        yield dict(zip(names, values, strict=True))


# --------------------------------------------------------------------------- effects


def _outcome_product(
    outcomes: list[tuple[Fraction, list[_EffectPart]]],
    sub: list[tuple[Fraction, list[_EffectPart]]],
    ctx: _Context,
) -> list[tuple[Fraction, list[_EffectPart]]]:
    """Every combination of an outcome so far with an outcome of the next part.

    Why guarded: independent probabilistic effects multiply (a ``forall`` over ten boxes
    of IPPC 2008 boxworld, each box with its own ``probabilistic``, has 2**10 outcomes per
    step of the product and more); the product counts against the grounding size cap and
    reads the clock as it grows, so a budget ends it instead of minutes of arithmetic.
    """
    ctx.guard.grow(len(outcomes) * len(sub))
    result: list[tuple[Fraction, list[_EffectPart]]] = []
    for p, a in outcomes:
        ctx.guard.tick()
        result.extend((p * q, a + b) for q, b in sub)
    return result


def _ground_effect(
    effect: Effect, binding: Binding, ctx: _Context
) -> list[tuple[Fraction, list[_EffectPart]]]:
    """The effect as a list of (probability, parts) outcomes."""
    if isinstance(effect, Atom):
        atom = Atom(effect.predicate, _substitute(effect.args, binding))
        return [(ONE, [_EffectPart(None, frozenset((atom,)), frozenset())])]
    if isinstance(effect, Not):
        negated = effect.operand
        assert isinstance(negated, Atom)
        atom = Atom(negated.predicate, _substitute(negated.args, binding))
        return [(ONE, [_EffectPart(None, frozenset(), frozenset((atom,)))])]
    if isinstance(effect, AndEffect):
        outcomes: list[tuple[Fraction, list[_EffectPart]]] = [(ONE, [])]
        for child in effect.operands:
            sub = _ground_effect(child, binding, ctx)
            if len(outcomes) == 1 and len(sub) == 1 and sub[0][0] is ONE:
                outcomes[0][1].extend(sub[0][1])  # deterministic: no products to build
            else:
                outcomes = _outcome_product(outcomes, sub, ctx)
        return outcomes
    if isinstance(effect, ForallEffect):
        outcomes = [(ONE, [])]
        for extra in _bindings(effect.variables, ctx):
            sub = _ground_effect(effect.effect, {**binding, **extra}, ctx)
            if len(outcomes) == 1 and len(sub) == 1 and sub[0][0] is ONE:
                outcomes[0][1].extend(sub[0][1])  # deterministic: extend in place
            else:
                outcomes = _outcome_product(outcomes, sub, ctx)
        return outcomes
    if isinstance(effect, When):
        clauses = ground_condition(effect.condition, binding, ctx)
        inner = _ground_effect(effect.effect, binding, ctx)
        if any(part.cost for _, parts in inner for part in parts):
            raise UnsupportedFeature(_where(effect) + "action costs inside conditional effects")
        if not clauses:  # statically false condition: the effect never fires
            return [(probability, []) for probability, _ in inner]
        if clauses == [TRUE_CLAUSE]:  # statically true: an unconditional effect
            return inner
        result = []
        for probability, parts in inner:
            conditioned = []
            for part in parts:
                combined = (
                    tuple(clauses)
                    if part.conditions is None
                    else tuple(and_clauses(list(clauses), list(part.conditions)))
                )
                conditioned.append(_EffectPart(combined, part.adds, part.deletes))
            result.append((probability, conditioned))
        return result
    if isinstance(effect, Increase):
        if effect.fluent.name in IGNORED_FLUENTS:
            return [(ONE, [])]
        if effect.fluent.name != COST_FLUENT:
            raise UnsupportedFeature(
                _where(effect) + f"numeric fluent '{effect.fluent.name}' (only total-cost)"
            )
        cost = _cost_value(effect, binding, ctx)
        return [(ONE, [_EffectPart(None, frozenset(), frozenset(), cost)])]
    if isinstance(effect, Probabilistic):
        outcomes = []
        total = Fraction(0)
        for probability, sub_effect in effect.outcomes:
            total += probability
            for q, parts in _ground_effect(sub_effect, binding, ctx):
                outcomes.append((probability * q, parts))
        if total < 1:
            outcomes.append((1 - total, []))
        return outcomes
    raise UnsupportedFeature(f"unsupported effect {type(effect).__name__}")


def _cost_value(effect: Increase, binding: Binding, ctx: _Context) -> Fraction:
    value = effect.value
    if isinstance(value, FunctionTerm):
        term = FunctionTerm(value.name, _substitute(value.args, binding))
        if term not in ctx.numeric:
            raise SemanticError(
                _where(effect) + f"cost {term} is used but not set in the problem's :init"
            )
        value = ctx.numeric[term]
    if value < 0:
        raise SemanticError(_where(effect) + f"negative action cost {value}")
    return Fraction(value)


def _where(node: object) -> str:
    location = getattr(node, "location", None)
    return f"{location}: " if location is not None else ""


# --------------------------------------------------------------------------- reachability


def _relaxed_adds(
    parts: Iterable[tuple[Fraction, list[_EffectPart]]], reached: set[Atom]
) -> set[Atom]:
    adds: set[Atom] = set()
    for _, outcome in parts:
        for part in outcome:
            if part.conditions is None or any(pos <= reached for pos, _ in part.conditions):
                adds |= part.adds
    return adds


@dataclass
class _Instance:
    action: Action
    args: tuple[str, ...]
    pre: list[Clause]
    outcomes: list[tuple[Fraction, list[_EffectPart]]]

    @property
    def conditional(self) -> bool:
        return any(part.conditions is not None for _, parts in self.outcomes for part in parts)


#: Name prefix of the pseudo-actions standing for ``:derived`` rules during exploration
#: (a space cannot occur in a PDDL name, so they never clash with an action).
RULE_PREFIX = ":derived "


def _rule_actions(domain: Domain) -> tuple[Action, ...]:
    """Each ``:derived`` rule as a zero-cost pseudo-action adding its head, so relaxed
    exploration grounds rules by reachability exactly like actions."""
    return tuple(
        Action(f"{RULE_PREFIX}{number} {rule.name}", rule.parameters, rule.condition,
               Atom(rule.name, tuple(p.name for p in rule.parameters)), rule.location)
        for number, rule in enumerate(domain.derived))


def _explore(domain: Domain, ctx: _Context) -> tuple[set[Atom], list[_Instance]]:
    """Relaxed reachability fixpoint; returns reachable fluent atoms and action instances
    (instances of rules, named with :data:`RULE_PREFIX`, included)."""
    reached: set[Atom] = {_strip(a) for a in ctx.problem.init if ctx.is_fluent(a.predicate)}
    index = FactIndex()
    for predicate, tuples in ctx.static_by_predicate.items():
        for args in tuples:
            index.add(predicate, args)
    for atom in reached:
        index.add(atom.predicate, atom.args)
    guard = ctx.guard
    guard.facts = len(reached)
    seen: set[tuple[str, tuple[str, ...]]] = set()
    instances: list[_Instance] = []
    pending: list[_Instance] = []  # instances whose relaxed precondition is not yet reachable
    changed = True
    delta: dict[str, list[tuple[str, ...]]] | None = None  # None: first round, join all
    while changed:
        changed = False
        new_atoms: set[Atom] = set()
        still_pending = []
        for instance in pending:
            if any(pos <= reached for pos, _ in instance.pre):
                instances.append(instance)
                new_atoms |= _relaxed_adds(instance.outcomes, reached)
            else:
                still_pending.append(instance)
        pending = still_pending
        for action in (*domain.actions, *_rule_actions(domain)):
            names = [p.name for p in action.parameters]
            for binding in candidate_bindings(action, ctx, index, delta):
                args = tuple(binding[n] for n in names)
                key = (action.name, args)
                if key in seen:
                    continue
                seen.add(key)
                pre = ground_condition(action.precondition, binding, ctx)
                if not pre:
                    continue
                guard.grow(1)
                instance = _Instance(action, args, pre, _ground_effect(action.effect, binding, ctx))
                guard.actions += 1
                if any(pos <= reached for pos, _ in pre):
                    instances.append(instance)
                    new_atoms |= _relaxed_adds(instance.outcomes, reached)
                else:
                    pending.append(instance)
        # Conditional effects of known instances may fire once more atoms are reached
        # (unconditional adds were collected when the instance became applicable).
        current = reached | new_atoms
        for instance in instances:
            if instance.conditional:
                guard.tick()
                new_atoms |= _relaxed_adds(instance.outcomes, current)
        new_atoms -= reached
        if new_atoms:
            changed = True
            reached |= new_atoms
            guard.facts = len(reached)
            delta = {}
            for atom in new_atoms:
                index.add(atom.predicate, atom.args)
                delta.setdefault(atom.predicate, []).append(atom.args)
    return reached, instances


# --------------------------------------------------------------------------- assembling


@dataclass(frozen=True)
class GroundSkeleton:
    """What deterministic and probabilistic grounding share: the reachable facts and
    action instances, the fact numbering, and the initial state and goal as bit masks."""

    ctx: _Context
    reached: set[Atom]
    instances: list[_Instance]
    facts: tuple[Atom, ...]
    index: dict[Atom, int]
    init: int
    goal: int
    goal_neg: int
    #: Instances of ``:derived`` rules (``instances`` holds only actions).
    rules: tuple[_Instance, ...] = ()

    def mask(self, atoms: Iterable[Atom]) -> int:
        return mask_of(self.index[a] for a in atoms if a in self.index)


def ground_skeleton(
    domain: Domain,
    problem: Problem,
    budget: Budget | BudgetClock | None = None,
    max_size: int = MAX_GROUND_SIZE,
    derived: bool = False,
) -> GroundSkeleton:
    """Reachability analysis and fact numbering for ``problem`` (static facts removed).

    Raises :class:`~xaip.errors.BudgetExhausted` when ``budget``'s time runs out or the
    task would pass ``max_size`` ground actions and conditional effects. A caller that
    handles ``:derived`` rules (``skeleton.rules``) says so with ``derived``; for the others
    a domain with rules is refused.
    """
    if domain.derived and not derived:
        raise UnsupportedFeature(_where(domain.derived[0]) + "derived predicates in a "
                                 "probabilistic task are not supported")
    clock = None if budget is None else as_clock(budget)
    ctx = _Context(domain, problem, GroundingGuard(clock, max_size))
    reached, instances = _explore(domain, ctx)
    goal_clauses = ground_condition(problem.goal, {}, ctx)
    if len(goal_clauses) > 1:
        raise UnsupportedFeature(_where(problem.goal) + "disjunctive goals")
    impossible = not goal_clauses
    goal_pos, goal_neg = goal_clauses[0] if goal_clauses else (frozenset(), frozenset())
    facts = sorted(reached | set(goal_pos), key=lambda a: (a.predicate, a.args))
    if impossible:
        facts.append(IMPOSSIBLE)
    index = {atom: i for i, atom in enumerate(facts)}

    def mask(atoms: Iterable[Atom]) -> int:
        return mask_of(index[a] for a in atoms if a in index)

    # Exploration order follows set iteration (string hashing, which varies between
    # processes); sorting makes tasks, and so search tie-breaking, the same in every run.
    ordered = sorted(instances, key=lambda i: (i.action.name, i.args))
    rules = tuple(i for i in ordered if i.action.name.startswith(RULE_PREFIX))
    if rules:
        ordered = [i for i in ordered if not i.action.name.startswith(RULE_PREFIX)]
    return GroundSkeleton(
        rules=rules,
        ctx=ctx, reached=reached, instances=ordered, facts=tuple(facts), index=index,
        init=mask(_strip(a) for a in problem.init if ctx.is_fluent(a.predicate)),
        goal=mask(goal_pos) | (1 << index[IMPOSSIBLE] if impossible else 0),
        goal_neg=mask(a for a in goal_neg if a in reached))


def ground(
    domain: Domain,
    problem: Problem,
    probabilistic: Literal["reject", "all-outcomes"] = "reject",
    budget: Budget | BudgetClock | None = None,
    max_size: int = MAX_GROUND_SIZE,
) -> Task:
    """Ground ``problem`` over ``domain`` into a :class:`Task`.

    ``probabilistic="all-outcomes"`` turns each outcome of a PPDDL action into its own
    deterministic action (schema name suffixed ``_o1``, ``_o2``, ... when there are
    several); the default rejects probabilistic effects.

    ``budget`` (unlimited by default; a running :class:`BudgetClock` is shared, so a caller
    can ground and then search within one budget using ``clock.remaining()``) bounds the
    time; ``max_size`` bounds ground actions plus conditional effects. When either runs
    out, :class:`~xaip.errors.BudgetExhausted` says how large the task was getting
    (``.sizes``: actions, facts, conditional effects).
    """
    skeleton = ground_skeleton(domain, problem, budget, max_size, derived=True)
    guard = skeleton.ctx.guard
    guard.actions = 0
    actions: list[GroundAction] = []
    for instance in skeleton.instances:
        guard.tick()
        before = len(actions)
        actions.extend(_assemble(instance, skeleton.reached, skeleton.mask, probabilistic,
                                 skeleton.ctx))
        for action in actions[before:]:
            guard.grow(1 + len(action.conditional))
            guard.actions += 1
            guard.effects += len(action.conditional)
    init = skeleton.init
    axioms: tuple[GroundAxiom, ...] = ()
    derived = 0
    if domain.derived:
        axioms, derived = ground_axioms(domain, skeleton)
        guard.grow(len(axioms))
        closure = AxiomEvaluator(axioms, derived)
        actions = [closing(action, closure) for action in actions]
        init = closure(init)
    return Task(
        name=problem.name,
        facts=skeleton.facts,
        actions=tuple(actions),
        init=init,
        axioms=axioms,
        derived=derived,
        goal=skeleton.goal,
        goal_neg=skeleton.goal_neg,
        static_facts=frozenset(skeleton.ctx.static_facts),
        has_costs=counts_action_costs(domain, problem),
        costs_ignored=costs_ignored(domain, problem),
    )


def _assemble(
    instance: _Instance,
    reached: set[Atom],
    mask: Callable[[Iterable[Atom]], int],
    probabilistic: str,
    ctx: _Context,
) -> Iterator[GroundAction]:
    outcomes = instance.outcomes
    name = instance.action.name
    if len(outcomes) > 1 and probabilistic == "reject":
        raise UnsupportedFeature(
            _where(instance.action)
            + f"probabilistic effects in action '{name}' (use a probabilistic task)"
        )
    uses_costs = counts_action_costs(ctx.domain, ctx.problem)
    for number, (_, parts) in enumerate(outcomes, start=1):
        schema = name if len(outcomes) == 1 else f"{name}_o{number}"
        add: set[Atom] = set()
        delete: set[Atom] = set()
        cost = Fraction(0) if uses_costs else Fraction(1)
        conditional: list[ConditionalEffect] = []
        for part in parts:
            if uses_costs:
                cost += part.cost
            if part.conditions is None:
                add |= part.adds
                delete |= part.deletes
                continue
            for pos, neg in part.conditions:
                if not pos <= reached:
                    continue
                conditional.append(
                    ConditionalEffect(mask(pos), mask(neg), mask(part.adds), mask(part.deletes))
                )
        if cost.denominator != 1:
            raise UnsupportedFeature(
                _where(instance.action) + f"non-integer action cost {cost} in '{name}'"
            )
        for pos, neg in instance.pre:
            if not pos <= reached:
                continue
            yield GroundAction(
                schema=schema,
                args=instance.args,
                pre=mask(pos),
                add=mask(add),
                delete=mask(delete) & ~mask(add),
                cost=int(cost),
                neg_pre=mask(neg),
                conditional=tuple(dict.fromkeys(conditional)),
            )


def ground_axioms(domain: Domain, skeleton: GroundSkeleton) -> tuple[tuple[GroundAxiom, ...], int]:
    """The ground axioms of the reachable rule instances (one per DNF clause of a rule's
    body, in its head predicate's stratum) and the mask of the derived facts."""
    strata = stratify(domain)
    names = domain.derived_predicates
    index, reached, mask = skeleton.index, skeleton.reached, skeleton.mask
    axioms: list[GroundAxiom] = []
    for instance in skeleton.rules:
        head = Atom(instance.action.effect.predicate, instance.args)  # type: ignore[union-attr]
        stratum = strata[head.predicate]
        for pos, neg in instance.pre:
            if pos <= reached:
                axioms.append(GroundAxiom(index[head], mask(pos), mask(neg), stratum))
    derived = mask(a for a in skeleton.facts if a.predicate in names)
    return tuple(dict.fromkeys(axioms)), derived
