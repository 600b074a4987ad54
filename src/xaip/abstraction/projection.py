"""The projection abstraction ``f_P(M)``: the robot's model with the predicates ``P`` dropped.

Why a projection (book §6.3, Def. 32-33): a person who does not know or track some fluents
reasons in the model without them. Dropping a predicate from every precondition, effect, the
initial state and the goal gives a model in which every plan of the robot's model is still a
plan (a *complete* abstraction), and the fewer predicates are dropped, the fewer plans it
admits. For STRIPS actions this is exactly ``pre(a) \\ P``, ``add(a) \\ P``, ``del(a) \\ P``.

Richer conditions are projected the same way: in negation normal form every literal on a
dropped predicate becomes *true*, so the abstract condition holds wherever the concrete one
does (the abstraction stays complete); parts that mention no dropped predicate are kept as
written. Costs are kept (a projection never changes what an action costs).

What is refused, with one line naming the construct (:class:`~xaip.errors.InputError`):
hiding an undeclared predicate or equality; a conditional effect whose condition mentions a
hideable predicate (the abstract action would have to fire an effect in some abstract
states and not in others: no single abstract action is equivalent); derived predicates that
are hideable or defined from a hideable one; probabilistic effects. These are checked once
for the whole list of hideable predicates, so *every* subset of it projects to a valid
model -- the explanation and lattice searches rely on that.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from xaip.errors import InputError
from xaip.planning.pddl.model import (
    TRUE,
    And,
    AndEffect,
    Atom,
    Condition,
    Domain,
    Effect,
    Exists,
    Forall,
    ForallEffect,
    Imply,
    Increase,
    Not,
    Or,
    Probabilistic,
    Problem,
    When,
)
from xaip.planning.pddl.visitor import walk


def mentioned(node: Condition | Effect) -> frozenset[str]:
    """The predicate names that occur in a condition or effect (equality excluded)."""
    return frozenset(n.predicate for n in walk(node)
                     if isinstance(n, Atom) and n.predicate != "=")


def check_hideable(domain: Domain, problem: Problem, hideable: Iterable[str]) -> tuple[str, ...]:
    """``hideable`` without repeats, in the given order, after refusing what no projection of
    any of its subsets could handle (see the module docstring). Raises
    :class:`~xaip.errors.InputError` with one line."""
    names = tuple(dict.fromkeys(hideable))
    declared = {p.name for p in domain.predicates}
    for name in names:
        if name == "=":
            raise InputError("cannot hide equality (=): it is not a fluent")
        if name not in declared:
            known = " ".join(sorted(declared)) or "none"
            raise InputError(f"cannot hide ({name}): the domain declares no such predicate "
                             f"(it declares: {known})")
    hidden = frozenset(names)
    for rule in domain.derived:
        if rule.name in hidden:
            raise InputError(f"cannot hide ({rule.name}): it is a derived predicate "
                             "(hide the predicates it is derived from instead)")
        used = mentioned(rule.condition) & hidden
        if used:
            raise InputError(f"cannot hide ({min(used)}): the derived predicate "
                             f"({rule.name}) is defined from it")
    for action in domain.actions:
        for node in walk(action.effect):
            if isinstance(node, Probabilistic):
                raise InputError(f"action {action.name} has probabilistic effects: "
                                 "abstractions are built for deterministic models")
            if isinstance(node, When):
                used = mentioned(node.condition) & hidden
                if used:
                    raise InputError(
                        f"cannot hide ({min(used)}): a conditional effect of action "
                        f"{action.name} depends on it, so no abstract action is equivalent")
    return names


def project(domain: Domain, problem: Problem, hidden: Iterable[str]) -> tuple[Domain, Problem]:
    """``f_P(M)`` for ``P = hidden``: the domain and problem with those predicates dropped
    from declarations, preconditions, effects, the initial state and the goal. The caller
    has passed ``hidden`` (or a superset) through :func:`check_hideable`."""
    drop = frozenset(hidden)
    if not drop:
        return domain, problem
    actions = tuple(dataclasses.replace(
        a, precondition=_condition(a.precondition, drop, False),
        effect=_effect(a.effect, drop)) for a in domain.actions)
    new_domain = dataclasses.replace(
        domain, predicates=tuple(p for p in domain.predicates if p.name not in drop),
        actions=actions)
    new_problem = dataclasses.replace(
        problem, init=tuple(a for a in problem.init if a.predicate not in drop),
        goal=_condition(problem.goal, drop, False))
    return new_domain, new_problem


def _condition(cond: Condition, drop: frozenset[str], negated: bool) -> Condition:
    """``cond`` (negated when ``negated``) in negation normal form where it mentions a
    dropped predicate, each literal on one replaced by true; untouched elsewhere."""
    if not mentioned(cond) & drop:
        return Not(cond) if negated else cond
    if isinstance(cond, Atom):
        return TRUE
    if isinstance(cond, Not):
        return _condition(cond.operand, drop, not negated)
    if isinstance(cond, And | Or):
        parts = [_condition(c, drop, negated) for c in cond.operands]
        conjunction = isinstance(cond, And) != negated
        return _conjoin(parts) if conjunction else _disjoin(parts)
    if isinstance(cond, Imply):
        return _condition(Or((Not(cond.antecedent), cond.consequent)), drop, negated)
    if isinstance(cond, Exists | Forall):
        body = _condition(cond.body, drop, negated)
        if body == TRUE:
            return TRUE
        universal = isinstance(cond, Forall) != negated
        return Forall(cond.variables, body) if universal else Exists(cond.variables, body)
    raise TypeError(f"cannot project {type(cond).__name__}")


def _conjoin(parts: Sequence[Condition]) -> Condition:
    kept = tuple(p for p in parts if p != TRUE)
    return kept[0] if len(kept) == 1 else And(kept)


def _disjoin(parts: Sequence[Condition]) -> Condition:
    return TRUE if any(p == TRUE for p in parts) else Or(tuple(parts))


def _effect(effect: Effect, drop: frozenset[str]) -> Effect:
    if isinstance(effect, Atom):
        return AndEffect(()) if effect.predicate in drop else effect
    if isinstance(effect, Not):
        inner = effect.operand
        return AndEffect(()) if isinstance(inner, Atom) and inner.predicate in drop else effect
    if isinstance(effect, AndEffect):
        parts = [_effect(e, drop) for e in effect.operands]
        return AndEffect(tuple(p for p in parts if p != AndEffect(())))
    if isinstance(effect, When):
        return When(effect.condition, _effect(effect.effect, drop))
    if isinstance(effect, ForallEffect):
        return ForallEffect(effect.variables, _effect(effect.effect, drop))
    if isinstance(effect, Increase):
        return effect
    raise TypeError(f"cannot project {type(effect).__name__}")


def relevant(domain: Domain, problem: Problem, schemas: Iterable[str],
             hideable: Iterable[str]) -> tuple[str, ...]:
    """The hideable predicates (in their order) that occur in the precondition of one of
    ``schemas`` or in the goal: only these can make a plan of those actions fail, because a
    predicate that no such precondition or goal reads never blocks a step, and (conditional
    effects and derived predicates on hideable predicates being refused) its value never
    changes any other fluent's."""
    used = set(mentioned(problem.goal))
    names = set(schemas)
    for action in domain.actions:
        if action.name in names:
            used |= mentioned(action.precondition)
    return tuple(p for p in hideable if p in used)
