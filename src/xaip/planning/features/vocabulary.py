"""Vocabulary mismatches: declarations that two models do not share.

Why separate from features: features assume both models speak the same language — the
same predicates with the same arities, the same actions with the same parameter types.
When they do not, a feature diff is still computed (features compare by name and
position), but the caller must be told exactly which declarations disagree, because an
explanation phrased in a symbol the other side does not know is not communicable.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from xaip.errors import SemanticError
from xaip.planning.pddl.model import COST_FLUENT, Domain, Function, Problem, TypedName

Category = Literal["type", "constant", "predicate", "function", "action", "object"]


@dataclass(frozen=True, order=True)
class Mismatch:
    """One declaration that differs: ``in_a``/``in_b`` describe it, ``None`` when absent."""

    category: Category
    name: str
    in_a: str | None
    in_b: str | None

    @property
    def detail(self) -> str:
        if self.in_a is None:
            return f"declared only in B as {self.in_b}"
        if self.in_b is None:
            return f"declared only in A as {self.in_a}"
        return f"declared as {self.in_a} in A but as {self.in_b} in B"

    def __str__(self) -> str:
        return f"{self.category} '{self.name}' {self.detail}"

    def swapped(self) -> Mismatch:
        return Mismatch(self.category, self.name, self.in_b, self.in_a)

    def to_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "name": self.name,
            "in_a": self.in_a,
            "in_b": self.in_b,
            "text": str(self),
        }


def signature(name: str, parameters: Sequence[TypedName]) -> str:
    """``move(?from - location, ?to - location)``: how a declaration is shown."""
    return f"{name}(" + ", ".join(f"{p.name} - {p.type}" for p in parameters) + ")"


def _types(parameters: Sequence[TypedName]) -> tuple[str, ...]:
    return tuple(p.type for p in parameters)


def _compare(
    category: Category,
    a: dict[str, tuple[Any, str]],
    b: dict[str, tuple[Any, str]],
) -> list[Mismatch]:
    """Mismatches between two ``name -> (comparison key, description)`` tables."""
    out = []
    for name in sorted(a.keys() | b.keys()):
        left, right = a.get(name), b.get(name)
        if left is None or right is None or left[0] != right[0]:
            out.append(
                Mismatch(
                    category,
                    name,
                    None if left is None else left[1],
                    None if right is None else right[1],
                )
            )
    return out


def _typed_table(items: Iterable[TypedName]) -> dict[str, tuple[Any, str]]:
    return {t.name: (t.type, f"{t.name} - {t.type}") for t in items}


def _is_cost_total(function: Function) -> bool:
    """``(total-cost)``: bookkeeping of action costs, which are features (one model that
    declares costs and one that does not differ in cost features, not in vocabulary)."""
    return function.name == COST_FLUENT and not function.parameters


def domain_mismatches(a: Domain, b: Domain) -> tuple[Mismatch, ...]:
    """Types, constants, predicates, functions and action signatures that differ.

    Parameter *names* never matter (they are placeholders); arities and types do. The
    ``(total-cost)`` function is not vocabulary (see :func:`_is_cost_total`).
    """
    out: list[Mismatch] = []
    out += _compare(
        "type",
        {t: (p, f"{t} - {p}") for t, p in a.types},
        {t: (p, f"{t} - {p}") for t, p in b.types},
    )
    out += _compare("constant", _typed_table(a.constants), _typed_table(b.constants))
    out += _compare(
        "predicate",
        {p.name: (_types(p.parameters), signature(p.name, p.parameters)) for p in a.predicates},
        {p.name: (_types(p.parameters), signature(p.name, p.parameters)) for p in b.predicates},
    )
    out += _compare(
        "function",
        {f.name: (_types(f.parameters), signature(f.name, f.parameters)) for f in a.functions
         if not _is_cost_total(f)},
        {f.name: (_types(f.parameters), signature(f.name, f.parameters)) for f in b.functions
         if not _is_cost_total(f)},
    )
    out += _compare(
        "action",
        {x.name: (_types(x.parameters), signature(x.name, x.parameters)) for x in a.actions},
        {x.name: (_types(x.parameters), signature(x.name, x.parameters)) for x in b.actions},
    )
    return tuple(out)


def problem_mismatches(a: Problem, b: Problem) -> tuple[Mismatch, ...]:
    """Objects declared on one side only, or with different types."""
    return tuple(_compare("object", _typed_table(a.objects), _typed_table(b.objects)))


def raise_for_mismatches(mismatches: Sequence[Mismatch]) -> None:
    """Raise one :class:`SemanticError` listing every mismatch (no-op when there are none)."""
    if mismatches:
        lines = "\n".join(f"  - {m}" for m in mismatches)
        raise SemanticError(f"the two models do not share a vocabulary:\n{lines}")
