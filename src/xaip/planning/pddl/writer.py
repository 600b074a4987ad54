"""Write the lifted model back to PDDL text.

Why it matters: model reconciliation shows a person the updated model, and external
engines (Fast Downward) read what we write. The contract is the round trip:
``parse(write(model)) == model`` for every model the reader produces.
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
    Domain,
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
    Problem,
    TypedName,
    When,
)

_INDENT = "  "


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


def _typed(names: Iterable[TypedName]) -> str:
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


def _atom(atom: Atom) -> str:
    return str(atom)


def condition_text(condition: Condition) -> str:
    """A condition on one line."""
    if isinstance(condition, Atom):
        return _atom(condition)
    if isinstance(condition, Not):
        return f"(not {condition_text(condition.operand)})"
    if isinstance(condition, And):
        return "(and " + " ".join(condition_text(c) for c in condition.operands) + ")" \
            if condition.operands else "()"
    if isinstance(condition, Or):
        return "(or " + " ".join(condition_text(c) for c in condition.operands) + ")"
    if isinstance(condition, Imply):
        return (f"(imply {condition_text(condition.antecedent)} "
                f"{condition_text(condition.consequent)})")
    keyword = "exists" if isinstance(condition, Exists) else "forall"
    assert isinstance(condition, Exists | Forall)
    return f"({keyword} ({_typed(condition.variables)}) {condition_text(condition.body)})"


def _value(value: Fraction | FunctionTerm) -> str:
    return str(value) if isinstance(value, FunctionTerm) else format_number(value)


def effect_text(effect: Effect) -> str:
    """An effect on one line."""
    if isinstance(effect, Atom):
        return _atom(effect)
    if isinstance(effect, Not):
        return f"(not {condition_text(effect.operand)})"
    if isinstance(effect, AndEffect):
        return "(and " + " ".join(effect_text(e) for e in effect.operands) + ")" \
            if effect.operands else "()"
    if isinstance(effect, When):
        return f"(when {condition_text(effect.condition)} {effect_text(effect.effect)})"
    if isinstance(effect, ForallEffect):
        return f"(forall ({_typed(effect.variables)}) {effect_text(effect.effect)})"
    if isinstance(effect, Increase):
        if isinstance(effect.value, Fraction) and effect.value < 0:
            return f"(decrease {effect.fluent} {format_number(-effect.value)})"
        return f"(increase {effect.fluent} {_value(effect.value)})"
    assert isinstance(effect, Probabilistic)
    outcomes = " ".join(f"{format_number(p)} {effect_text(e)}" for p, e in effect.outcomes)
    return f"(probabilistic {outcomes})"


def _block(keyword: str, items: list[str], depth: int = 1) -> str:
    """A conjunction laid out one conjunct per line, which people can diff and read."""
    pad = _INDENT * depth
    if not items:
        return f"{pad}{keyword} ()"
    if len(items) == 1:
        return f"{pad}{keyword} {items[0]}"
    inner = "\n".join(f"{pad}{_INDENT * 2}{item}" for item in items)
    return f"{pad}{keyword} (and\n{inner})"


def write_domain(domain: Domain) -> str:
    """The domain as PDDL text."""
    lines = [f"(define (domain {domain.name})"]
    if domain.requirements:
        lines.append(f"{_INDENT}(:requirements {' '.join(domain.requirements)})")
    if domain.types:
        lines.append(f"{_INDENT}(:types {_typed(TypedName(c, p) for c, p in domain.types)})")
    if domain.constants:
        lines.append(f"{_INDENT}(:constants {_typed(domain.constants)})")
    if domain.predicates:
        lines.append(f"{_INDENT}(:predicates")
        for predicate in domain.predicates:
            params = _typed(predicate.parameters)
            lines.append(f"{_INDENT * 2}({predicate.name}{' ' + params if params else ''})")
        lines[-1] += ")"
    if domain.functions:
        parts = []
        for function in domain.functions:
            params = _typed(function.parameters)
            parts.append(f"({function.name}{' ' + params if params else ''}) - {function.type}")
        lines.append(f"{_INDENT}(:functions {' '.join(parts)})")
    for action in domain.actions:
        lines.append("")
        lines.append(f"{_INDENT}(:action {action.name}")
        lines.append(f"{_INDENT * 2}:parameters ({_typed(action.parameters)})")
        pre = action.precondition
        pre_items = [condition_text(c) for c in pre.operands] if isinstance(pre, And) \
            else [condition_text(pre)]
        if not (isinstance(pre, And) and not pre.operands):
            if isinstance(pre, And) and len(pre.operands) == 1:
                pre_items = [condition_text(pre)]
            lines.append(_block(":precondition", pre_items, 2))
        eff = action.effect
        eff_items = [effect_text(e) for e in eff.operands] if isinstance(eff, AndEffect) \
            else [effect_text(eff)]
        if isinstance(eff, AndEffect) and len(eff.operands) == 1:
            eff_items = [effect_text(eff)]
        lines.append(_block(":effect", eff_items, 2) + ")")
    lines.append(")")
    return "\n".join(lines) + "\n"


def write_problem(problem: Problem) -> str:
    """The problem as PDDL text."""
    lines = [f"(define (problem {problem.name})", f"{_INDENT}(:domain {problem.domain_name})"]
    if problem.requirements:
        lines.append(f"{_INDENT}(:requirements {' '.join(problem.requirements)})")
    if problem.objects:
        lines.append(f"{_INDENT}(:objects {_typed(problem.objects)})")
    lines.append(f"{_INDENT}(:init")
    for atom in problem.init:
        lines.append(f"{_INDENT * 2}{_atom(atom)}")
    for term, value in problem.numeric_init:
        lines.append(f"{_INDENT * 2}(= {term} {format_number(value)})")
    lines[-1] += ")"
    goal = problem.goal
    goal_items = [condition_text(c) for c in goal.operands] if isinstance(goal, And) \
        else [condition_text(goal)]
    if isinstance(goal, And) and len(goal.operands) == 1:
        goal_items = [condition_text(goal)]
    lines.append(_block("(:goal", goal_items, 1) + ")")
    if problem.goal_reward is not None:
        lines.append(f"{_INDENT}(:goal-reward {format_number(problem.goal_reward)})")
    if problem.metric is not None:
        lines.append(f"{_INDENT}(:metric {problem.metric[0]} {problem.metric[1]})")
    lines.append(")")
    return "\n".join(lines) + "\n"
