"""Lifting grounded candidates into parameterised ones and merging them by unification
(Alg. 1 lines 3-4).

Lifting follows the paper: the effect literals are sorted, and the objects are numbered in
order of first appearance; each numbered object becomes a parameter named after its type
(``?cell1``, ``?cell2``...). Which objects become parameters is a choice: objects of the
*lifted types* (by default the numerous, interchangeable ones such as grid cells) are
replaced by variables, the others (Link, Ganon, the key, the four ingredients) stay
constants. Why: keeping named things as constants keeps roles apart that the vocabulary
cannot tell apart (pushing the tuna into the sauce is not pushing the pasta into the
sauce), and reads naturally ("pick up the key").

Two lifted candidates are merged when a type-preserving bijection between their parameters
maps one's effects onto the other's (unification); the merged capability keeps every
grounding (binding plus observed transition) that it came from.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.capabilities.candidates import GroundCandidate
from xaip.planning.pddl.model import Atom

Param = tuple[str, str]  # (variable, type)
Binding = dict[str, str]  # variable -> object


def is_var(term: str) -> bool:
    return term.startswith("?")


def ground_atom(atom: Atom, binding: Mapping[str, str]) -> Atom:
    """``atom`` with its variables replaced by their objects in ``binding``."""
    if not atom.args:
        return atom
    return Atom(atom.predicate, tuple(map(binding.get, atom.args, atom.args)))


@dataclass(frozen=True)
class Signature:
    """The lifted effects of a candidate: parameters and lifted add/delete lists."""

    params: tuple[Param, ...]
    add: frozenset[Atom]
    delete: frozenset[Atom]

    def var_types(self) -> dict[str, str]:
        return dict(self.params)

    def shape(self) -> tuple[Any, ...]:
        """A key that unifiable signatures share (variables replaced by their types)."""
        types = self.var_types()

        def pattern(atom: Atom, sign: int) -> tuple[Any, ...]:
            return (atom.predicate, sign, tuple(types.get(t, "=" + t) for t in atom.args))

        parts = sorted([pattern(a, 0) for a in self.add] + [pattern(a, 1) for a in self.delete])
        return tuple(parts)

    def rename(self, mapping: Mapping[str, str]) -> Signature:
        types = self.var_types()
        return Signature(
            tuple((mapping[v], types[v]) for v, _ in self.params),
            frozenset(ground_atom(a, mapping) for a in self.add),
            frozenset(ground_atom(a, mapping) for a in self.delete),
        )


def _order_key(atom: Atom, sign: int) -> tuple[Any, ...]:
    return (atom.predicate, sign, atom.args)


def lift(
    candidate: GroundCandidate,
    objects: Mapping[str, str],
    lifted_types: frozenset[str],
) -> tuple[Signature, Binding]:
    """The lifted signature of ``candidate`` and the binding of its parameters.

    Objects of ``lifted_types`` are numbered per type in order of first appearance in the
    sorted effect literals (add effects before delete effects of the same predicate).
    """
    literals = sorted(
        [(a, 0) for a in candidate.add] + [(a, 1) for a in candidate.delete],
        key=lambda pair: _order_key(*pair),
    )
    names: dict[str, str] = {}
    counts: dict[str, int] = {}
    params: list[Param] = []
    for atom, _ in literals:
        for obj in atom.args:
            if obj in names:
                continue
            typ = objects.get(obj)
            if typ is None or typ not in lifted_types:
                continue
            counts[typ] = counts.get(typ, 0) + 1
            var = f"?{typ}{counts[typ]}"
            names[obj] = var
            params.append((var, typ))
    signature = Signature(
        tuple(params),
        frozenset(ground_atom(a, names) for a in candidate.add),
        frozenset(ground_atom(a, names) for a in candidate.delete),
    )
    return signature, {var: obj for obj, var in names.items()}


def unify(a: Signature, b: Signature) -> dict[str, str] | None:
    """A type-preserving bijection from ``a``'s variables to ``b``'s under which their
    effects coincide, or ``None``."""
    if len(a.params) != len(b.params) or len(a.add) != len(b.add) or \
            len(a.delete) != len(b.delete):
        return None
    if a.shape() != b.shape():
        return None
    by_type_a: dict[str, list[str]] = {}
    by_type_b: dict[str, list[str]] = {}
    for var, typ in a.params:
        by_type_a.setdefault(typ, []).append(var)
    for var, typ in b.params:
        by_type_b.setdefault(typ, []).append(var)
    if {t: len(v) for t, v in by_type_a.items()} != {t: len(v) for t, v in by_type_b.items()}:
        return None
    types = sorted(by_type_a)
    choices = [list(itertools.permutations(by_type_b[t])) for t in types]
    for combo in itertools.product(*choices):
        mapping: dict[str, str] = {}
        for typ, targets in zip(types, combo, strict=True):
            mapping.update(zip(by_type_a[typ], targets, strict=True))
        if frozenset(ground_atom(x, mapping) for x in a.add) == b.add and \
                frozenset(ground_atom(x, mapping) for x in a.delete) == b.delete:
            return mapping
    return None


@dataclass(frozen=True)
class Grounding:
    """An observed instance of a lifted capability: the binding and the transition."""

    binding: tuple[tuple[str, str], ...]
    candidate: GroundCandidate

    def as_dict(self) -> Binding:
        return dict(self.binding)


@dataclass(frozen=True)
class LiftedCandidate:
    """A parameterised partial capability and the grounded candidates merged into it."""

    signature: Signature
    groundings: tuple[Grounding, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "parameters": [f"{v} - {t}" for v, t in self.signature.params],
            "add": sorted(str(a) for a in self.signature.add),
            "delete": sorted(str(a) for a in self.signature.delete),
            "groundings": len(self.groundings),
        }


def merge(
    candidates: Iterable[GroundCandidate],
    objects: Mapping[str, str],
    lifted_types: frozenset[str],
) -> list[LiftedCandidate]:
    """Lift every candidate and merge those whose signatures unify, in order of first
    appearance."""
    groups: list[tuple[Signature, list[Grounding]]] = []
    by_shape: dict[tuple[Any, ...], list[int]] = {}
    for candidate in candidates:
        signature, binding = lift(candidate, objects, lifted_types)
        shape = signature.shape()
        placed = False
        for index in by_shape.get(shape, []):
            target, members = groups[index]
            mapping = unify(signature, target)
            if mapping is None:
                continue
            renamed = {mapping[v]: obj for v, obj in binding.items()}
            members.append(Grounding(tuple(sorted(renamed.items())), candidate))
            placed = True
            break
        if not placed:
            by_shape.setdefault(shape, []).append(len(groups))
            groups.append((signature, [Grounding(tuple(sorted(binding.items())), candidate)]))
    return [LiftedCandidate(sig, tuple(members)) for sig, members in groups]


def default_lifted_types(objects: Mapping[str, str], max_constants: int = 4) -> frozenset[str]:
    """Types with more than ``max_constants`` objects: interchangeable places rather than
    named things (a heuristic for user vocabularies; the bundled games lift ``cell``)."""
    counts: dict[str, int] = {}
    for typ in objects.values():
        counts[typ] = counts.get(typ, 0) + 1
    return frozenset(t for t, n in counts.items() if n > max_constants)


def lifted_atoms(
    predicates: Sequence[tuple[str, tuple[str, ...]]],
    params: Sequence[Param],
    constants: Mapping[str, str],
    any_type: str = "object",
) -> list[Atom]:
    """Every atom over the parameters and the constants, type-correct, with no term used
    twice in one atom — the atoms whose modes a capability's PAL tuples decide."""
    terms: list[tuple[str, str]] = [*params, *sorted(constants.items())]
    out: list[Atom] = []
    for name, arg_types in predicates:
        pools = [
            [term for term, typ in terms if want in (any_type, typ)] for want in arg_types
        ]
        for args in itertools.product(*pools):
            if len(set(args)) != len(args):
                continue
            out.append(Atom(name, tuple(args)))
    return out
