"""The one PDDL printer for conditions and effects, used by the writer and the sentences.

Why one: the writer (whose output Fast Downward and people read) and the English renderer
(which shows structural differences between models) printed the same trees with two near
copies that had drifted apart (``(increase (reward) -5)`` in one, ``(decrease (reward) 5)``
in the other). The contract is the writer's: what is printed reads back to the same model.

Printing is iterative: each node becomes a list of text pieces and child nodes (a
:class:`~xaip.planning.pddl.visitor.Visitor`), and an explicit stack expands them, so the
printer has no recursion depth at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from xaip.planning.pddl.model import (
    OBJECT,
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
from xaip.planning.pddl.visitor import Node, Visitor

Piece = str | Node


def format_number(value: Fraction) -> str:
    """An exact PDDL number: ``3``, ``0.05``, or ``1/3`` when no finite decimal exists."""
    if value.denominator == 1:
        return str(value.numerator)
    denominator, twos, fives = value.denominator, 0, 0
    while denominator % 2 == 0:
        denominator //= 2
        twos += 1
    while denominator % 5 == 0:
        denominator //= 5
        fives += 1
    if denominator != 1:
        return f"{value.numerator}/{value.denominator}"
    digits = max(twos, fives)
    scaled = abs(value) * 10**digits
    text = str(scaled.numerator).rjust(digits + 1, "0")
    sign = "-" if value < 0 else ""
    return f"{sign}{text[:-digits]}.{text[-digits:]}"


def typed_names(names: Iterable[TypedName]) -> str:
    """``a b - t c - u`` grouping consecutive names of one type.

    ``- object`` is left implicit only on the last group: an untyped group in front of a
    typed one would take the later type when read back.
    """
    groups: list[tuple[str, list[str]]] = []
    for typed in names:
        if groups and groups[-1][0] == typed.type:
            groups[-1][1].append(typed.name)
        else:
            groups.append((typed.type, [typed.name]))
    parts = []
    for index, (group_type, group) in enumerate(groups):
        if group_type == OBJECT and index == len(groups) - 1:
            parts.append(" ".join(group))
        else:
            parts.append(f"{' '.join(group)} - {group_type}")
    return " ".join(parts)


def _joined(head: str, operands: Iterable[Node]) -> list[Piece]:
    pieces: list[Piece] = [f"({head}"]
    for operand in operands:
        pieces.extend((" ", operand))
    pieces.append(")")
    return pieces


class _Pieces(Visitor[list[Piece]]):
    """Each node as text pieces and child nodes (expanded by :func:`_render`)."""

    def visit_Atom(self, node: Atom) -> list[Piece]:
        return [str(node)]

    def visit_Not(self, node: Not) -> list[Piece]:
        return ["(not ", node.operand, ")"]

    def visit_And(self, node: And) -> list[Piece]:
        return _joined("and", node.operands) if node.operands else ["()"]

    def visit_Or(self, node: Or) -> list[Piece]:
        return _joined("or", node.operands)

    def visit_Imply(self, node: Imply) -> list[Piece]:
        return ["(imply ", node.antecedent, " ", node.consequent, ")"]

    def visit_Exists(self, node: Exists) -> list[Piece]:
        return [f"(exists ({typed_names(node.variables)}) ", node.body, ")"]

    def visit_Forall(self, node: Forall) -> list[Piece]:
        return [f"(forall ({typed_names(node.variables)}) ", node.body, ")"]

    def visit_AndEffect(self, node: AndEffect) -> list[Piece]:
        return _joined("and", node.operands) if node.operands else ["()"]

    def visit_When(self, node: When) -> list[Piece]:
        return ["(when ", node.condition, " ", node.effect, ")"]

    def visit_ForallEffect(self, node: ForallEffect) -> list[Piece]:
        return [f"(forall ({typed_names(node.variables)}) ", node.effect, ")"]

    def visit_Increase(self, node: Increase) -> list[Piece]:
        value = node.value
        if isinstance(value, FunctionTerm):
            return [f"(increase {node.fluent} {value})"]
        if value < 0:  # the reader turns (decrease f c) into an increase by -c
            return [f"(decrease {node.fluent} {format_number(-value)})"]
        return [f"(increase {node.fluent} {format_number(value)})"]

    def visit_Probabilistic(self, node: Probabilistic) -> list[Piece]:
        pieces: list[Piece] = ["(probabilistic"]
        for probability, outcome in node.outcomes:
            pieces.extend((f" {format_number(probability)} ", outcome))
        pieces.append(")")
        return pieces


_PIECES = _Pieces()


def _render(root: Node) -> str:
    out: list[str] = []
    stack: list[Piece] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        else:
            stack.extend(reversed(_PIECES.visit(item)))
    return "".join(out)


def print_condition(condition: Condition) -> str:
    """A condition as PDDL on one line (reads back to an equal condition)."""
    return _render(condition)


def print_effect(effect: Effect) -> str:
    """An effect as PDDL on one line (reads back to an equal effect)."""
    return _render(effect)
