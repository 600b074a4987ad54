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
from xaip.planning.pddl.model import Condition, Effect, FunctionTerm
from xaip.planning.pddl.printer import print_condition, print_effect


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


def format_condition(condition: Condition) -> str:
    """A condition in PDDL syntax (for reporting structural differences): the writer's
    printer, so what a person reads here is what the model file says."""
    return print_condition(condition)


def format_effect(effect: Effect) -> str:
    """An effect in PDDL syntax (for reporting structural differences)."""
    return print_effect(effect)
