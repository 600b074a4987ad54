"""One way to walk the PDDL syntax tree: class-name dispatch, children, iterative walks.

Why: before this module, a dozen modules walked conditions and effects with their own
``isinstance`` chains, each to be extended when a node type is added (``either`` types,
derived predicates...). A :class:`Visitor` names its handlers after the node classes
(``visit_And``, ``visit_ForallEffect``), so a missing case fails loudly with the class name
instead of falling through an ``else``; :func:`children` and :func:`walk` give the
structure once, without recursion, for the many walks that only collect things.

Depth: the reader refuses trees deeper than :data:`~xaip.planning.pddl.limits.MAX_DEPTH`
(200), so a recursive visitor (two or three Python frames per level) stays below Python's
default recursion limit; :func:`walk` and the printer do not recurse at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from xaip.planning.pddl.model import (
    And,
    AndEffect,
    Atom,
    Condition,
    Effect,
    Exists,
    Forall,
    ForallEffect,
    Imply,
    Increase,
    Not,
    Or,
    Probabilistic,
    When,
)

Node = Condition | Effect
T = TypeVar("T")


class Visitor(Generic[T]):
    """``visit(node)`` calls ``self.visit_<ClassName>(node)``; subclasses define those.

    A node class without a handler goes to :meth:`generic_visit`, which raises
    ``TypeError`` naming the class (override it to give a default).
    """

    def visit(self, node: Any) -> T:
        method: Callable[[Any], T] | None = getattr(
            self, "visit_" + type(node).__name__, None)
        if method is None:
            return self.generic_visit(node)
        return method(node)

    def generic_visit(self, node: Any) -> T:
        raise TypeError(f"{type(self).__name__} cannot handle {type(node).__name__}")


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-conditions and sub-effects of ``node``, in source order."""
    if isinstance(node, Atom | Increase):
        return ()
    if isinstance(node, Not):
        return (node.operand,)
    if isinstance(node, And | Or | AndEffect):
        return node.operands
    if isinstance(node, Imply):
        return (node.antecedent, node.consequent)
    if isinstance(node, Exists | Forall):
        return (node.body,)
    if isinstance(node, When):
        return (node.condition, node.effect)
    if isinstance(node, ForallEffect):
        return (node.effect,)
    if isinstance(node, Probabilistic):
        return tuple(effect for _, effect in node.outcomes)
    raise TypeError(f"not a PDDL condition or effect: {type(node).__name__}")


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree below ``node`` (itself first), pre-order, without recursion."""
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def atoms(node: Node) -> Iterator[Atom]:
    """Every atom in ``node`` (conditions, added and deleted atoms), in source order."""
    return (n for n in walk(node) if isinstance(n, Atom))


class _ChangedAtoms(Visitor[Iterator[Atom]]):
    """The atoms an effect adds or deletes (not the atoms of its ``when`` conditions)."""

    def visit_Atom(self, effect: Atom) -> Iterator[Atom]:
        yield effect

    def visit_Not(self, effect: Not) -> Iterator[Atom]:
        yield from self.visit(effect.operand)

    def visit_AndEffect(self, effect: AndEffect) -> Iterator[Atom]:
        for operand in effect.operands:
            yield from self.visit(operand)

    def visit_When(self, effect: When) -> Iterator[Atom]:
        yield from self.visit(effect.effect)

    def visit_ForallEffect(self, effect: ForallEffect) -> Iterator[Atom]:
        yield from self.visit(effect.effect)

    def visit_Probabilistic(self, effect: Probabilistic) -> Iterator[Atom]:
        for _, outcome in effect.outcomes:
            yield from self.visit(outcome)

    def visit_Increase(self, effect: Increase) -> Iterator[Atom]:
        return iter(())


def changed_atoms(effect: Effect) -> Iterator[Atom]:
    """The atoms ``effect`` may add or delete, lifted (what makes a predicate fluent)."""
    return _ChangedAtoms().visit(effect)

