"""The lifted PDDL/PPDDL model: frozen, hashable dataclasses.

Why our own model: model reconciliation edits lifted actions thousands of times, so the
model must be cheap to copy-with-changes (``dataclasses.replace``), hashable (to cache
planner calls by model) and writable back to PDDL. Source locations ride along with
``compare=False`` so that two models that differ only in where they were read from are
equal.

Terms are plain strings: a variable starts with ``?``, anything else is an object or
constant name. All names are lower-cased by the reader (PDDL is case-insensitive).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

OBJECT = "object"


def either_members(type_name: str) -> tuple[str, ...] | None:
    """The member types of an ``(either a b ...)`` type name, or None for a plain type.

    Why a string: an ``either`` type is written ``(either a b)`` in a parameter list and is
    kept as that text in :attr:`TypedName.type`, so every consumer that looks types up in
    :meth:`Domain.subtypes_closure` (grounding, validation, checks) treats it as the union
    of its members without knowing about it, and the writer prints it back unchanged.
    """
    if type_name.startswith("(either ") and type_name.endswith(")"):
        return tuple(type_name[len("(either "):-1].split())
    return None


@dataclass(frozen=True, slots=True)  # slots: a large problem holds millions of these
class Location:
    """Where a construct starts in its source file (1-based line and column)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


def _loc() -> Location | None:
    return field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class TypedName:
    """A typed parameter, object or constant: ``?x - block`` or ``b1 - block``."""

    name: str
    type: str = OBJECT


# --------------------------------------------------------------------------- conditions


@dataclass(frozen=True, slots=True)  # slots: a large problem holds millions of atoms
class Atom:
    """``(pred t1 ... tn)``; the predicate ``=`` is equality."""

    predicate: str
    args: tuple[str, ...] = ()
    location: Location | None = _loc()

    def __str__(self) -> str:
        return "(" + " ".join((self.predicate, *self.args)) + ")"

    def __deepcopy__(self, memo: dict[int, Any]) -> Atom:
        """Itself: an atom is immutable, so a deep copy may share it. Why: discovery's
        capability splits deep-copy states full of atoms, and rebuilding each atom took a
        quarter of a cookmepasta 8x8 run's CPU (issue 26)."""
        return self


#: The cost fluent of ``:action-costs`` (the only numeric fluent classical tasks use).
COST_FLUENT = "total-cost"
#: A fact no action adds: a goal that contains it is unreachable (used to encode "no goal
#: can be met" in compiled tasks).
IMPOSSIBLE = Atom("xaip-impossible-goal")


@dataclass(frozen=True)
class Not:
    operand: Condition
    location: Location | None = _loc()


@dataclass(frozen=True)
class And:
    operands: tuple[Condition, ...]
    location: Location | None = _loc()


@dataclass(frozen=True)
class Or:
    operands: tuple[Condition, ...]
    location: Location | None = _loc()


@dataclass(frozen=True)
class Imply:
    antecedent: Condition
    consequent: Condition
    location: Location | None = _loc()


@dataclass(frozen=True)
class Exists:
    variables: tuple[TypedName, ...]
    body: Condition
    location: Location | None = _loc()


@dataclass(frozen=True)
class Forall:
    variables: tuple[TypedName, ...]
    body: Condition
    location: Location | None = _loc()


Condition = Atom | Not | And | Or | Imply | Exists | Forall

TRUE = And(())

# --------------------------------------------------------------------------- effects


@dataclass(frozen=True)
class FunctionTerm:
    """A numeric fluent term ``(f t1 ... tn)``, e.g. ``(total-cost)`` or ``(road-length ?a ?b)``."""

    name: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"


NumericExpression = Fraction | FunctionTerm


@dataclass(frozen=True)
class Increase:
    """``(increase f value)``: the only numeric effect we support.

    ``(decrease f c)`` with a constant ``c`` (PPDDL rewards) is read as an increase by
    ``-c`` and written back as a decrease, so round trips preserve the model.
    """

    fluent: FunctionTerm
    value: NumericExpression
    location: Location | None = _loc()


@dataclass(frozen=True)
class AndEffect:
    operands: tuple[Effect, ...]
    location: Location | None = _loc()


@dataclass(frozen=True)
class When:
    condition: Condition
    effect: Effect
    location: Location | None = _loc()


@dataclass(frozen=True)
class ForallEffect:
    variables: tuple[TypedName, ...]
    effect: Effect
    location: Location | None = _loc()


@dataclass(frozen=True)
class Probabilistic:
    """PPDDL ``(probabilistic p1 e1 ... pn en)``; the remaining mass is "no change"."""

    outcomes: tuple[tuple[Fraction, Effect], ...]
    location: Location | None = _loc()


# A literal effect is an ``Atom`` (add) or ``Not(Atom)`` (delete).
Effect = Atom | Not | AndEffect | When | ForallEffect | Increase | Probabilistic

NO_EFFECT = AndEffect(())

# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Predicate:
    name: str
    parameters: tuple[TypedName, ...] = ()
    location: Location | None = _loc()


@dataclass(frozen=True)
class Function:
    """A declared numeric function; ``type`` is ``number`` unless declared otherwise."""

    name: str
    parameters: tuple[TypedName, ...] = ()
    type: str = "number"
    location: Location | None = _loc()


@dataclass(frozen=True)
class Action:
    name: str
    parameters: tuple[TypedName, ...] = ()
    precondition: Condition = TRUE
    effect: Effect = NO_EFFECT
    location: Location | None = _loc()


@dataclass(frozen=True)
class DerivedRule:
    """``(:derived (name ?x - t ...) condition)``: one rule defining a derived predicate.

    Why rules and not actions: a derived predicate is not changed by actions; in every
    state it holds exactly where the least fixpoint of its rules (stratified by negation,
    see :mod:`xaip.planning.pddl.derived`) says it does.
    """

    name: str
    parameters: tuple[TypedName, ...] = ()
    condition: Condition = TRUE
    location: Location | None = _loc()


@dataclass(frozen=True)
class Domain:
    """A PDDL domain.

    ``types`` maps each declared type to its parent (``object`` for roots). Parameters and
    quantified variables may have ``(either a b)`` types (see :func:`either_members`);
    declared types, constants and objects have one type each.
    """

    name: str
    requirements: tuple[str, ...] = ()
    types: tuple[tuple[str, str], ...] = ()
    constants: tuple[TypedName, ...] = ()
    predicates: tuple[Predicate, ...] = ()
    functions: tuple[Function, ...] = ()
    actions: tuple[Action, ...] = ()
    source: str | None = field(default=None, compare=False, repr=False)
    #: Where named declarations were read: keys ``type:NAME`` and ``constant:NAME``.
    locations: tuple[tuple[str, Location], ...] = field(default=(), compare=False, repr=False)
    #: ``:derived`` rules, in file order (several rules may define one predicate).
    derived: tuple[DerivedRule, ...] = ()

    def location_of(self, key: str) -> Location | None:
        """Where ``key`` (e.g. ``type:truck``) was declared, if the domain was read from text."""
        return _location_table(self).get(key)

    def action(self, name: str) -> Action:
        for action in self.actions:
            if action.name == name:
                return action
        raise KeyError(name)

    def predicate(self, name: str) -> Predicate:
        for predicate in self.predicates:
            if predicate.name == name:
                return predicate
        raise KeyError(name)

    def type_parent(self) -> dict[str, str]:
        return dict(self.types)

    def subtypes_closure(self) -> dict[str, frozenset[str]]:
        """Map each type to the set of types that are (reflexively) below it.

        Computed once per domain (it is immutable): grounding, validation and the checks
        each ask, and finding the ``either`` types walks every action (a fifth of grounding
        and validating a small task)."""
        cached: dict[str, frozenset[str]] | None = self.__dict__.get("_subtypes_closure")
        if cached is None:
            cached = self._subtypes_closure()
            object.__setattr__(self, "_subtypes_closure", cached)
        return dict(cached)

    def _subtypes_closure(self) -> dict[str, frozenset[str]]:
        parents = dict(self.types)
        names = {OBJECT, *parents, *parents.values()}
        below: dict[str, set[str]] = {name: {name} for name in names}
        for name in names:
            seen: set[str] = set()
            current = name
            while current in parents and current not in seen and current != OBJECT:
                seen.add(current)
                current = parents[current]
                below.setdefault(current, {current}).add(name)
            below[OBJECT].add(name)
        for either in _either_types(self):
            members = either_members(either) or ()
            below[either] = set().union(*(below.get(m, {m}) for m in members))
        return {name: frozenset(group) for name, group in below.items()}

    @property
    def derived_predicates(self) -> frozenset[str]:
        """Names of the predicates that ``:derived`` rules define."""
        return frozenset(rule.name for rule in self.derived)

    @property
    def declares_action_costs(self) -> bool:
        """The domain *declares* action costs (``:action-costs`` or a ``total-cost`` function).

        Declaring is not counting: whether a plan's cost sums the declared costs depends on the
        problem's metric too -- ask :func:`xaip.planning.semantics.counts_action_costs`.
        """
        return ":action-costs" in self.requirements or any(
            f.name == COST_FLUENT for f in self.functions
        )


@dataclass(frozen=True)
class Problem:
    """A PDDL problem. ``numeric_init`` holds ``(= (f args) value)`` facts."""

    name: str
    domain_name: str
    requirements: tuple[str, ...] = ()
    objects: tuple[TypedName, ...] = ()
    init: tuple[Atom, ...] = ()
    numeric_init: tuple[tuple[FunctionTerm, Fraction], ...] = ()
    goal: Condition = TRUE
    metric: tuple[str, FunctionTerm] | None = None
    goal_reward: Fraction | None = None  # PPDDL ``(:goal-reward n)``
    source: str | None = field(default=None, compare=False, repr=False)
    #: Where parts were read: keys ``domain`` (the ``:domain`` section) and ``object:NAME``.
    locations: tuple[tuple[str, Location], ...] = field(default=(), compare=False, repr=False)

    def location_of(self, key: str) -> Location | None:
        """Where ``key`` (e.g. ``object:b1``) was declared, if the problem was read from text."""
        return _location_table(self).get(key)


# --------------------------------------------------------------------------- helpers


def _location_table(model: Domain | Problem) -> dict[str, Location]:
    """``model.locations`` as a dict, built once per model: a checker that asks where each
    of 18,000 objects was declared must not rebuild it on every question (that was
    quadratic: 20 s for one problem)."""
    table: dict[str, Location] | None = model.__dict__.get("_location_table")
    if table is None:
        table = dict(model.locations)
        object.__setattr__(model, "_location_table", table)
    return table


def _either_types(domain: Domain) -> set[str]:
    """Every ``(either ...)`` type a domain's parameters or quantified variables use."""
    from xaip.planning.pddl.visitor import walk  # the visitor module imports this one

    typed: list[TypedName] = [*domain.constants]
    for predicate in domain.predicates:
        typed.extend(predicate.parameters)
    for function in domain.functions:
        typed.extend(function.parameters)
    for action in domain.actions:
        typed.extend(action.parameters)
        for part in (action.precondition, action.effect):
            for node in walk(part):
                if isinstance(node, Exists | Forall | ForallEffect):
                    typed.extend(node.variables)
    for rule in domain.derived:
        typed.extend(rule.parameters)
        for node in walk(rule.condition):
            if isinstance(node, Exists | Forall):
                typed.extend(node.variables)
    return {t.type for t in typed if t.type.startswith("(either ")}


def conjuncts(condition: Condition) -> tuple[Condition, ...]:
    """The top-level conjuncts of a condition (flattening nested ``and``)."""
    if isinstance(condition, And):
        out: list[Condition] = []
        for operand in condition.operands:
            out.extend(conjuncts(operand))
        return tuple(out)
    return (condition,)


def effect_parts(effect: Effect) -> tuple[Effect, ...]:
    """The top-level parts of an effect (flattening nested ``and``)."""
    if isinstance(effect, AndEffect):
        out: list[Effect] = []
        for operand in effect.operands:
            out.extend(effect_parts(operand))
        return tuple(out)
    return (effect,)
