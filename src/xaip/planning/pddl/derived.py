"""Derived predicates: which predicate occurrences are negative, and the strata.

Why strata: a rule may use a derived predicate negated (``(not (above ?x ?y))``); its
meaning is only well defined when that predicate is computed completely first. PDDL 2.2
(as Fast Downward) therefore requires the rules to be *stratified*: every derived
predicate gets a stratum such that a rule's head is in a stratum at least that of every
derived predicate its body uses positively, and strictly above every one it uses
negatively. Grounding (ground axioms evaluated layer by layer) and the lifted plan
validator both evaluate derived predicates stratum by stratum in this order.

Polarity is read off the condition tree: ``not`` and the antecedent of ``imply`` flip it;
``forall`` does not (over finitely many objects it is a conjunction of its instances), so
an occurrence is negative exactly when the grounded condition has it as a negative literal.
"""

from __future__ import annotations

from collections.abc import Iterator

from xaip.errors import SemanticError
from xaip.planning.pddl.limits import quoted
from xaip.planning.pddl.model import (
    And,
    Atom,
    Condition,
    DerivedRule,
    Domain,
    Exists,
    Forall,
    Imply,
    Not,
    Or,
)


def occurrences(condition: Condition, positive: bool = True) -> Iterator[tuple[Atom, bool]]:
    """Every atom of ``condition`` with its polarity (True: occurs positively)."""
    if isinstance(condition, Atom):
        yield condition, positive
    elif isinstance(condition, Not):
        yield from occurrences(condition.operand, not positive)
    elif isinstance(condition, And | Or):
        for operand in condition.operands:
            yield from occurrences(operand, positive)
    elif isinstance(condition, Imply):
        yield from occurrences(condition.antecedent, not positive)
        yield from occurrences(condition.consequent, positive)
    elif isinstance(condition, Exists | Forall):
        yield from occurrences(condition.body, positive)


def stratify(domain: Domain) -> dict[str, int]:
    """The stratum (0, 1, ...) of each derived predicate of ``domain``.

    Raises :class:`SemanticError` naming the rule (file:line) whose negated body atom closes
    a dependency cycle: such a predicate would depend on its own negation. Otherwise the
    strata are the least solution of the constraints above.
    """
    names = domain.derived_predicates
    if not names:
        return {}
    edges: list[tuple[str, str, bool, DerivedRule]] = []  # (head, body, negative, rule)
    for rule in domain.derived:
        for atom, positive in occurrences(rule.condition):
            if atom.predicate in names:
                edges.append((rule.name, atom.predicate, not positive, rule))
    uses: dict[str, set[str]] = {name: set() for name in names}
    for head, body, _, _ in edges:
        uses[head].add(body)
    for head, body, negative, rule in edges:
        if negative and head in _reachable(uses, body):
            location = rule.location
            at = f"{location}: " if location is not None else (
                f"{domain.source}: " if domain.source else "")
            through = "" if body == head else f" through {quoted(body)}"
            raise SemanticError(
                f"{at}derived predicates are not stratifiable: {quoted(head)} depends on "
                f"the negation of itself{through}")
    stratum = dict.fromkeys(sorted(names), 0)
    changed = True
    while changed:  # ends: no cycle has a negative edge, so strata stay below len(names)
        changed = False
        for head, body, negative, _ in edges:
            need = stratum[body] + (1 if negative else 0)
            if stratum[head] < need:
                stratum[head] = need
                changed = True
    return stratum


def _reachable(uses: dict[str, set[str]], start: str) -> set[str]:
    """Predicates that ``start``'s rules depend on, directly or not (``start`` included)."""
    seen = {start}
    stack = [start]
    while stack:
        for nxt in uses[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen
