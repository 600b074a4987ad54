"""Which features a random perturbation may remove from, or add to, a robot model.

Why a module of its own: the two directions draw from different pools. Removal draws from
the model's own features (:func:`xaip.planning.features.model_features`); adding draws
from features the model does *not* have but could: well-typed literals over an action's
parameters, and well-typed ground facts over the problem's objects. Both pools are sorted
lists, so a seeded draw from them is reproducible across runs and machines.

Only the STRIPS-like kinds are perturbed (preconditions, add and delete effects, initial
and goal facts, and the negative kinds the model already uses when removing); costs and
numeric initial values are values of a slot, not facts one can forget, so they are never
drawn. Derived predicates are never added as effects or initial facts (rules define them).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from xaip.errors import InputError
from xaip.planning.features import Feature, FeatureKind, model_features
from xaip.planning.pddl.model import OBJECT, Atom, Domain, Problem, TypedName

#: The kinds a user may ask to perturb (``--kinds``), in the order they are listed.
PERTURBABLE_KINDS: tuple[FeatureKind, ...] = (
    FeatureKind.PRECONDITION,
    FeatureKind.NEGATIVE_PRECONDITION,
    FeatureKind.ADD_EFFECT,
    FeatureKind.DELETE_EFFECT,
    FeatureKind.INIT,
    FeatureKind.GOAL,
    FeatureKind.NEGATIVE_GOAL,
)
#: The default: the five kinds of the book's chapter 5 experiments.
DEFAULT_KINDS: tuple[FeatureKind, ...] = (
    FeatureKind.PRECONDITION,
    FeatureKind.ADD_EFFECT,
    FeatureKind.DELETE_EFFECT,
    FeatureKind.INIT,
    FeatureKind.GOAL,
)
#: Kinds that can be added as spurious features (negative ones would change requirements).
ADDABLE_KINDS = frozenset({FeatureKind.PRECONDITION, FeatureKind.ADD_EFFECT,
                           FeatureKind.DELETE_EFFECT, FeatureKind.INIT, FeatureKind.GOAL})
#: Never enumerate more candidate facts than this per kind (a large problem's ground facts).
MAX_CANDIDATES = 200_000


def parse_kinds(kinds: Iterable[str | FeatureKind]) -> tuple[FeatureKind, ...]:
    """The feature kinds named by the user, or a one-line :class:`InputError`."""
    chosen: list[FeatureKind] = []
    names = ", ".join(k.value for k in PERTURBABLE_KINDS)
    for kind in kinds:
        try:
            value = FeatureKind(str(kind).strip())
        except ValueError:
            raise InputError(f"unknown feature kind {str(kind)!r} (choose from {names})") from None
        if value not in PERTURBABLE_KINDS:
            raise InputError(f"{value.value} features are not perturbed (choose from {names})")
        if value not in chosen:
            chosen.append(value)
    if not chosen:
        raise InputError(f"no feature kinds given (choose from {names})")
    return tuple(chosen)


def removable(domain: Domain, problem: Problem,
              kinds: Sequence[FeatureKind]) -> list[Feature]:
    """The robot model's own features of ``kinds``, sorted."""
    wanted = set(kinds)
    return sorted(f for f in model_features(domain, problem) if f.kind in wanted)


def addable(domain: Domain, problem: Problem, kinds: Sequence[FeatureKind]) -> list[Feature]:
    """Well-typed features of ``kinds`` the model lacks, sorted (at most
    :data:`MAX_CANDIDATES` facts per predicate and kind)."""
    present = model_features(domain, problem)
    below = domain.subtypes_closure()
    derived = domain.derived_predicates
    out: set[Feature] = set()
    wanted = [k for k in kinds if k in ADDABLE_KINDS]
    action_kinds = [k for k in wanted if k in (FeatureKind.PRECONDITION, FeatureKind.ADD_EFFECT,
                                               FeatureKind.DELETE_EFFECT)]
    for action in domain.actions:
        names = tuple(p.name for p in action.parameters)
        terms = [*action.parameters, *domain.constants]
        for predicate in domain.predicates:
            for args in _typed_args(predicate.parameters, terms, below):
                atom = Atom(predicate.name, args)
                for kind in action_kinds:
                    if kind is not FeatureKind.PRECONDITION and predicate.name in derived:
                        continue
                    out.add(Feature(kind, action.name, names, atom))
    objects = [*domain.constants, *problem.objects]
    for fact_kind in (k for k in wanted if k in (FeatureKind.INIT, FeatureKind.GOAL)):
        for predicate in domain.predicates:
            if predicate.name in derived and fact_kind is FeatureKind.INIT:
                continue
            for args in _typed_args(predicate.parameters, objects, below):
                out.add(Feature(fact_kind, atom=Atom(predicate.name, args)))
    return sorted(out - present)


def _typed_args(parameters: Sequence[TypedName], terms: Sequence[TypedName],
                below: dict[str, frozenset[str]]) -> Iterable[tuple[str, ...]]:
    """Argument tuples whose every term's type is (a subtype of) the parameter's type."""
    choices = []
    for parameter in parameters:
        allowed = below.get(parameter.type, frozenset({parameter.type}))
        fitting = sorted({t.name for t in terms
                          if t.type in allowed or parameter.type == OBJECT})
        if not fitting:
            return
        choices.append(fitting)
    yield from itertools.islice(itertools.product(*choices), MAX_CANDIDATES)
