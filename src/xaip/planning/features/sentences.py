"""Features as plain English sentences, one clear template per kind.

Why templates and not prose: without a lexicon for the domain's predicates we cannot say
"the hand must be tucked"; we can say exactly which action needs which atom, in the
model's own symbols, so a person can check it against the PDDL. ``negated=True`` renders
the retraction of a feature ("... does not require ..."), which is how a ``remove`` edit
reads in an explanation.
"""

from __future__ import annotations

from fractions import Fraction

from xaip.planning.features.feature import Feature, FeatureKind, Value
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


def format_value(value: Value | None) -> str:
    if value is None:
        return "?"
    if isinstance(value, FunctionTerm):
        return str(value)
    if value.denominator == 1:
        return str(value.numerator)
    return str(float(value)) if _short_decimal(value) else str(value)


def _short_decimal(value: Fraction) -> bool:
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


_POSITIVE = {
    FeatureKind.PRECONDITION: "{action} requires {atom}",
    FeatureKind.NEGATIVE_PRECONDITION: "{action} requires {atom} to be false",
    FeatureKind.ADD_EFFECT: "{action} makes {atom} true",
    FeatureKind.DELETE_EFFECT: "{action} makes {atom} false",
    FeatureKind.COST: "{action} costs {value}",
    FeatureKind.INIT: "Initially {atom} holds",
    FeatureKind.INIT_VALUE: "Initially {atom} is {value}",
    FeatureKind.GOAL: "The goal includes {atom}",
    FeatureKind.NEGATIVE_GOAL: "The goal requires {atom} to be false",
}
_NEGATED = {
    FeatureKind.PRECONDITION: "{action} does not require {atom}",
    FeatureKind.NEGATIVE_PRECONDITION: "{action} does not require {atom} to be false",
    FeatureKind.ADD_EFFECT: "{action} does not make {atom} true",
    FeatureKind.DELETE_EFFECT: "{action} does not make {atom} false",
    FeatureKind.COST: "{action} does not cost {value}",
    FeatureKind.INIT: "Initially {atom} does not hold",
    FeatureKind.INIT_VALUE: "Initially {atom} is not {value}",
    FeatureKind.GOAL: "The goal does not include {atom}",
    FeatureKind.NEGATIVE_GOAL: "The goal does not require {atom} to be false",
}


def sentence(feature: Feature, negated: bool = False) -> str:
    """One sentence, e.g. ``move(?from, ?to) requires (hand-tucked)``."""
    subject = feature.atom if feature.atom is not None else feature.fluent
    template = (_NEGATED if negated else _POSITIVE)[feature.kind]
    return template.format(
        action=feature.action_label,
        atom="" if subject is None else str(subject),
        value=format_value(feature.value),
    )


# --------------------------------------------------------------------------- remainders


def _typed(variables: tuple[TypedName, ...]) -> str:
    return " ".join(f"{v.name} - {v.type}" for v in variables)


def format_condition(condition: Condition) -> str:
    """A condition in PDDL syntax (for reporting structural differences)."""
    if isinstance(condition, Atom):
        return str(condition)
    if isinstance(condition, Not):
        return f"(not {format_condition(condition.operand)})"
    if isinstance(condition, And | Or):
        word = "and" if isinstance(condition, And) else "or"
        return f"({word} " + " ".join(format_condition(c) for c in condition.operands) + ")"
    if isinstance(condition, Imply):
        return (
            f"(imply {format_condition(condition.antecedent)} "
            f"{format_condition(condition.consequent)})"
        )
    word = "exists" if isinstance(condition, Exists) else "forall"
    assert isinstance(condition, Exists | Forall)
    return f"({word} ({_typed(condition.variables)}) {format_condition(condition.body)})"


def format_effect(effect: Effect) -> str:
    """An effect in PDDL syntax (for reporting structural differences)."""
    if isinstance(effect, Atom):
        return str(effect)
    if isinstance(effect, Not):
        return f"(not {format_condition(effect.operand)})"
    if isinstance(effect, AndEffect):
        return "(and " + " ".join(format_effect(e) for e in effect.operands) + ")"
    if isinstance(effect, When):
        return f"(when {format_condition(effect.condition)} {format_effect(effect.effect)})"
    if isinstance(effect, ForallEffect):
        return f"(forall ({_typed(effect.variables)}) {format_effect(effect.effect)})"
    if isinstance(effect, Increase):
        value = effect.value
        shown = str(value) if isinstance(value, FunctionTerm) else format_value(value)
        return f"(increase {effect.fluent} {shown})"
    assert isinstance(effect, Probabilistic)
    outcomes = " ".join(f"{format_value(p)} {format_effect(e)}" for p, e in effect.outcomes)
    return f"(probabilistic {outcomes})"
