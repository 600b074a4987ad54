"""Renaming the free variables of conditions and effects.

Why: two models may call the same action's parameters differently (``?x`` in one,
``?b`` in the other). Features compare modulo such renaming by construction; the opaque
remainders of actions (quantifiers, conditional effects) have to be renamed explicitly
before they can be compared. Quantified variables shadow the mapping inside their scope.
"""

from __future__ import annotations

from collections.abc import Mapping

from xaip.planning.pddl.model import (
    And,
    AndEffect,
    Atom,
    Condition,
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
    TypedName,
    When,
)

Mapping_ = Mapping[str, str]


def _args(args: tuple[str, ...], mapping: Mapping_) -> tuple[str, ...]:
    return tuple(mapping.get(a, a) for a in args)


def _shadow(mapping: Mapping_, variables: tuple[TypedName, ...]) -> dict[str, str]:
    bound = {v.name for v in variables}
    return {k: v for k, v in mapping.items() if k not in bound}


def rename_condition(condition: Condition, mapping: Mapping_) -> Condition:
    """``condition`` with free variables renamed by ``mapping`` (locations dropped)."""
    if not mapping:
        return condition
    if isinstance(condition, Atom):
        return Atom(condition.predicate, _args(condition.args, mapping))
    if isinstance(condition, Not):
        return Not(rename_condition(condition.operand, mapping))
    if isinstance(condition, And):
        return And(tuple(rename_condition(c, mapping) for c in condition.operands))
    if isinstance(condition, Or):
        return Or(tuple(rename_condition(c, mapping) for c in condition.operands))
    if isinstance(condition, Imply):
        return Imply(
            rename_condition(condition.antecedent, mapping),
            rename_condition(condition.consequent, mapping),
        )
    if isinstance(condition, Exists):
        return Exists(
            condition.variables,
            rename_condition(condition.body, _shadow(mapping, condition.variables)),
        )
    if isinstance(condition, Forall):
        return Forall(
            condition.variables,
            rename_condition(condition.body, _shadow(mapping, condition.variables)),
        )
    raise TypeError(f"not a condition: {condition!r}")


def rename_effect(effect: Effect, mapping: Mapping_) -> Effect:
    """``effect`` with free variables renamed by ``mapping`` (locations dropped)."""
    if not mapping:
        return effect
    if isinstance(effect, Atom):
        return Atom(effect.predicate, _args(effect.args, mapping))
    if isinstance(effect, Not):
        operand = effect.operand
        assert isinstance(operand, Atom)
        return Not(Atom(operand.predicate, _args(operand.args, mapping)))
    if isinstance(effect, AndEffect):
        return AndEffect(tuple(rename_effect(e, mapping) for e in effect.operands))
    if isinstance(effect, When):
        return When(
            rename_condition(effect.condition, mapping), rename_effect(effect.effect, mapping)
        )
    if isinstance(effect, ForallEffect):
        return ForallEffect(
            effect.variables, rename_effect(effect.effect, _shadow(mapping, effect.variables))
        )
    if isinstance(effect, Increase):
        fluent = FunctionTerm(effect.fluent.name, _args(effect.fluent.args, mapping))
        value = effect.value
        if isinstance(value, FunctionTerm):
            value = FunctionTerm(value.name, _args(value.args, mapping))
        return Increase(fluent, value)
    if isinstance(effect, Probabilistic):
        return Probabilistic(
            tuple((p, rename_effect(e, mapping)) for p, e in effect.outcomes)
        )
    raise TypeError(f"not an effect: {effect!r}")
