"""Write the lifted model back to PDDL text.

Why it matters: model reconciliation shows a person the updated model, and external
engines (Fast Downward) read what we write. The contract is the round trip:
``parse(write(model)) == model`` for every model the reader produces.
"""

from __future__ import annotations

from xaip.planning.pddl.model import (
    And,
    AndEffect,
    Atom,
    Condition,
    Domain,
    Effect,
    Problem,
    TypedName,
)
from xaip.planning.pddl.printer import format_number, print_condition, print_effect, typed_names

__all__ = ["condition_text", "effect_text", "format_number", "write_domain", "write_problem"]

_INDENT = "  "
_typed = typed_names


def _atom(atom: Atom) -> str:
    return str(atom)


def condition_text(condition: Condition) -> str:
    """A condition on one line (the shared printer, :mod:`xaip.planning.pddl.printer`)."""
    return print_condition(condition)


def effect_text(effect: Effect) -> str:
    """An effect on one line (the shared printer, :mod:`xaip.planning.pddl.printer`)."""
    return print_effect(effect)


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
    for rule in domain.derived:
        params = _typed(rule.parameters)
        lines.append("")
        lines.append(f"{_INDENT}(:derived ({rule.name}{' ' + params if params else ''})")
        lines.append(f"{_INDENT * 2}{condition_text(rule.condition)})")
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
