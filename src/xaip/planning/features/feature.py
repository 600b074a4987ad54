"""Features: the atomic, communicable facts a planning model is made of (Γ(M)).

Why a model is a *set of features*: model reconciliation searches over models by adding
or removing one fact at a time ("``move`` requires ``(hand-tucked)``"), and an explanation
is the set of facts it communicated. A frozen, hashable, orderable :class:`Feature` makes
a model a ``frozenset`` that can key caches and be printed in a stable order.

Parameter names are placeholders. ``pickup(?x) requires (clear ?x)`` and
``pickup(?b) requires (clear ?b)`` say the same thing, so two features are equal when
they agree after each action parameter is replaced by its position. The names are kept
(and rendered) as written in the feature's own model. Only ``?``-variables that are
parameters of the feature's action are replaced: ground features (parameters are
objects) compare by their objects.

Two kinds are *functional*: an action has exactly one cost and a numeric fluent has
exactly one initial value. Changing one is a single edit that replaces the old value
(adding ``cost(drive) = 3`` overwrites ``cost(drive) = 1``); removing one is an error.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any, Literal

from xaip.planning.pddl.model import Atom, FunctionTerm


class FeatureKind(StrEnum):
    """What a feature says. The declaration order is the order features are listed in."""

    PRECONDITION = "precondition"
    NEGATIVE_PRECONDITION = "negative-precondition"
    ADD_EFFECT = "add-effect"
    DELETE_EFFECT = "delete-effect"
    COST = "cost"
    INIT = "init"
    INIT_VALUE = "init-value"
    GOAL = "goal"
    NEGATIVE_GOAL = "negative-goal"


ACTION_KINDS = frozenset(
    {
        FeatureKind.PRECONDITION,
        FeatureKind.NEGATIVE_PRECONDITION,
        FeatureKind.ADD_EFFECT,
        FeatureKind.DELETE_EFFECT,
        FeatureKind.COST,
    }
)
LITERAL_ACTION_KINDS = ACTION_KINDS - {FeatureKind.COST}
PROBLEM_KINDS = frozenset(FeatureKind) - ACTION_KINDS
#: Kinds with one value per key: an edit replaces the value instead of adding a feature.
FUNCTIONAL_KINDS = frozenset({FeatureKind.COST, FeatureKind.INIT_VALUE})
_KIND_ORDER = {kind: number for number, kind in enumerate(FeatureKind)}

#: A cost or initial value: a number, or (lifted costs only) a numeric fluent term.
Value = Fraction | FunctionTerm

# A canonical term: (0, parameter position) or (1, name). Tuples so they sort.
_Term = tuple[int, Any]


def _canonical(args: tuple[str, ...], positions: dict[str, int]) -> tuple[_Term, ...]:
    return tuple((0, positions[a]) if a in positions else (1, a) for a in args)


@functools.total_ordering
@dataclass(frozen=True, eq=False)
class Feature:
    """One atomic fact of a model.

    * action kinds: ``action`` names the action schema (lifted) or the ground action's
      schema; ``parameters`` are its parameter names (``?from``) or, for a ground action,
      its objects (``loc1``). ``atom`` is the literal's atom (negation is in the kind);
      for :attr:`FeatureKind.COST`, ``atom`` is ``None`` and ``value`` holds the cost.
    * problem kinds: ``action`` is ``""`` and ``parameters`` is ``()``. ``atom`` is the
      init or goal fact; for :attr:`FeatureKind.INIT_VALUE`, ``fluent`` names the numeric
      term and ``value`` its initial value.

    Build features with the constructors (:meth:`precondition`, :meth:`cost`, ...).
    """

    kind: FeatureKind
    action: str = ""
    parameters: tuple[str, ...] = ()
    atom: Atom | None = None
    fluent: FunctionTerm | None = None
    value: Value | None = None
    _key: tuple[Any, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Store atoms without source locations so that features print and pickle alike.
        if self.atom is not None and self.atom.location is not None:
            object.__setattr__(self, "atom", Atom(self.atom.predicate, self.atom.args))
        if isinstance(self.value, int | float) and not isinstance(self.value, bool):
            object.__setattr__(self, "value", Fraction(self.value))
        object.__setattr__(self, "_key", self._sort_key())

    # ------------------------------------------------------------------ constructors

    @classmethod
    def precondition(cls, action: str, parameters: tuple[str, ...], atom: Atom) -> Feature:
        return cls(FeatureKind.PRECONDITION, action, tuple(parameters), atom)

    @classmethod
    def negative_precondition(
        cls, action: str, parameters: tuple[str, ...], atom: Atom
    ) -> Feature:
        return cls(FeatureKind.NEGATIVE_PRECONDITION, action, tuple(parameters), atom)

    @classmethod
    def add_effect(cls, action: str, parameters: tuple[str, ...], atom: Atom) -> Feature:
        return cls(FeatureKind.ADD_EFFECT, action, tuple(parameters), atom)

    @classmethod
    def delete_effect(cls, action: str, parameters: tuple[str, ...], atom: Atom) -> Feature:
        return cls(FeatureKind.DELETE_EFFECT, action, tuple(parameters), atom)

    @classmethod
    def cost(
        cls, action: str, parameters: tuple[str, ...], value: Value | int
    ) -> Feature:
        number: Value = Fraction(value) if isinstance(value, int) else value
        return cls(FeatureKind.COST, action, tuple(parameters), value=number)

    @classmethod
    def init(cls, atom: Atom) -> Feature:
        return cls(FeatureKind.INIT, atom=atom)

    @classmethod
    def init_value(cls, fluent: FunctionTerm, value: Fraction | int) -> Feature:
        return cls(FeatureKind.INIT_VALUE, fluent=fluent, value=Fraction(value))

    @classmethod
    def goal(cls, atom: Atom) -> Feature:
        return cls(FeatureKind.GOAL, atom=atom)

    @classmethod
    def negative_goal(cls, atom: Atom) -> Feature:
        return cls(FeatureKind.NEGATIVE_GOAL, atom=atom)

    # ------------------------------------------------------------------ identity

    def _sort_key(self) -> tuple[Any, ...]:
        positions = {p: i for i, p in enumerate(self.parameters) if p.startswith("?")}
        atom_key: tuple[Any, ...] = ()
        if self.atom is not None:
            atom_key = (self.atom.predicate, _canonical(self.atom.args, positions))
        fluent_key: tuple[Any, ...] = ()
        if self.fluent is not None:
            fluent_key = (self.fluent.name, _canonical(self.fluent.args, positions))
        value_key: tuple[Any, ...] = ()
        if isinstance(self.value, Fraction):
            value_key = (0, self.value)
        elif isinstance(self.value, FunctionTerm):
            value_key = (1, self.value.name, _canonical(self.value.args, positions))
        return (
            _KIND_ORDER[self.kind],
            self.action,
            _canonical(self.parameters, positions),
            atom_key,
            fluent_key,
            value_key,
        )

    @property
    def slot(self) -> tuple[Any, ...]:
        """What a functional feature is the value *of*: equal slots replace each other."""
        return self._key[:5]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Feature):
            return NotImplemented
        return self._key == other._key

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Feature):
            return NotImplemented
        return self._key < other._key

    def __hash__(self) -> int:
        return hash(self._key)

    # ------------------------------------------------------------------ queries

    @property
    def is_functional(self) -> bool:
        return self.kind in FUNCTIONAL_KINDS

    @property
    def is_action_feature(self) -> bool:
        return self.kind in ACTION_KINDS

    @property
    def is_lifted(self) -> bool:
        """True when the action has ``?``-variable parameters (a schema, not a ground action)."""
        return any(p.startswith("?") for p in self.parameters)

    @property
    def action_label(self) -> str:
        """``move(?from, ?to)``, ``move(loc1, loc2)`` or ``tuck()``; ``""`` for problem features."""
        if not self.action:
            return ""
        return f"{self.action}({', '.join(self.parameters)})"

    def renamed(self, parameters: tuple[str, ...]) -> Feature:
        """The same feature written with the action's parameters called ``parameters``.

        Renaming is positional; the result is equal to ``self``. Used to phrase a feature
        of one model in the parameter names of another model's action.
        """
        if len(parameters) != len(self.parameters):
            raise ValueError(
                f"{self.action_label} has {len(self.parameters)} parameters, not "
                f"{len(parameters)}"
            )
        if parameters == self.parameters:
            return self
        mapping = {
            old: new
            for old, new in zip(self.parameters, parameters, strict=True)
            if old.startswith("?")
        }

        def rename(args: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(mapping.get(a, a) for a in args)

        atom = None if self.atom is None else Atom(self.atom.predicate, rename(self.atom.args))
        value = self.value
        if isinstance(value, FunctionTerm):
            value = FunctionTerm(value.name, rename(value.args))
        return Feature(self.kind, self.action, tuple(parameters), atom, self.fluent, value)

    def __str__(self) -> str:
        from xaip.planning.features.sentences import sentence

        return sentence(self)

    def to_dict(self) -> dict[str, Any]:
        from xaip.planning.features.sentences import sentence

        subject = self.atom if self.atom is not None else self.fluent
        return {
            "kind": self.kind.value,
            "action": self.action or None,
            "parameters": list(self.parameters),
            "atom": None if subject is None else str(subject),
            "value": _value_to_json(self.value),
            "text": sentence(self),
        }


def _value_to_json(value: Value | None) -> int | float | str | None:
    if value is None:
        return None
    if isinstance(value, FunctionTerm):
        return str(value)
    if value.denominator == 1:
        return int(value)
    return float(value)


EditOp = Literal["add", "remove"]


@functools.total_ordering
@dataclass(frozen=True)
class Edit:
    """One model update: assert (``add``) or retract (``remove``) one feature.

    Adding a functional feature (cost, initial value) replaces the old value; removing
    one is rejected by :func:`~xaip.planning.features.apply.apply_edits`.
    """

    feature: Feature
    op: EditOp = "add"

    def __post_init__(self) -> None:
        if self.op not in ("add", "remove"):
            raise ValueError(f"an edit's op is 'add' or 'remove', not {self.op!r}")

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Edit):
            return NotImplemented
        return (self.feature, self.op) < (other.feature, other.op)

    def to_dict(self) -> dict[str, Any]:
        from xaip.planning.features.sentences import sentence

        return {
            "op": self.op,
            "feature": self.feature.to_dict(),
            "text": sentence(self.feature, negated=self.op == "remove"),
        }


def add(feature: Feature) -> Edit:
    return Edit(feature, "add")


def remove(feature: Feature) -> Edit:
    return Edit(feature, "remove")


def update_features(
    features: Iterable[Feature],
    edits: Iterable[Edit],
    default_cost: Fraction | None = None,
) -> frozenset[Feature]:
    """``(Γ(M) ∪ E⁺) \\ E⁻`` on feature sets: the set-level meaning of applying edits.

    Mirrors :func:`~xaip.planning.features.apply.apply_edits`: a feature both added and
    removed ends up removed; an added functional feature replaces its slot's value;
    removing an action's (present) cost feature removes the action with all its
    features. Pass the model's ``default_cost`` to also give an action that gains its
    first feature a cost feature, as :func:`apply_edits` does when it creates an action.
    """
    edits = tuple(edits)
    removes = {e.feature for e in edits if e.op == "remove"}
    adds = {e.feature for e in edits if e.op == "add"} - removes
    result = set(features)
    deleted = {_action_key(f) for f in removes & result if f.kind is FeatureKind.COST}
    result = {f for f in result - removes if _action_key(f) not in deleted}
    for feature in adds:
        if feature.is_functional:
            result = {f for f in result if f.slot != feature.slot}
        result.add(feature)
    if default_cost is not None:
        costed = {_action_key(f) for f in result if f.kind is FeatureKind.COST}
        for feature in sorted(f for f in adds if f.is_action_feature):
            if _action_key(feature) not in costed:
                result.add(Feature.cost(feature.action, feature.parameters, default_cost))
                costed.add(_action_key(feature))
    return frozenset(result)


def _action_key(feature: Feature) -> tuple[Any, ...]:
    """Which action a feature is about (problem features: a key no action has)."""
    if not feature.is_action_feature:
        return ("",)
    return feature.slot[1:3]
