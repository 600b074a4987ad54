"""Conditions in disjunctive normal form over fluent literals, kept small.

Why: grounding turns every condition into DNF (a list of clauses, each a pair of atom sets
that must hold / must not hold). Products of disjunctions grow exponentially, so the
operations here drop duplicate and subsumed clauses and merge plain literals before
multiplying; the guard stops a product that would still pass the size cap.
"""

from __future__ import annotations

from collections.abc import Iterable

from xaip.errors import BudgetExhausted
from xaip.planning.grounding_limits import UNGUARDED, GroundingGuard
from xaip.planning.pddl.model import Atom

# A DNF clause over fluent atoms: (atoms that must hold, atoms that must not hold).
Clause = tuple[frozenset[Atom], frozenset[Atom]]
TRUE_CLAUSE: Clause = (frozenset(), frozenset())


def and_clauses(left: list[Clause], right: list[Clause], guard: GroundingGuard = UNGUARDED
                 ) -> list[Clause]:
    guard.tick()
    if len(left) * len(right) > guard.max_size:
        raise BudgetExhausted(
            f"grounding stopped: a condition's disjunctive normal form would exceed "
            f"{guard.max_size} clauses ({len(left)} x {len(right)})",
            phase="grounding", sizes=guard.sizes())
    if right == [TRUE_CLAUSE]:
        return left
    if left == [TRUE_CLAUSE]:
        return right
    out: list[Clause] = []
    for lp, ln in left:
        for rp, rn in right:
            pos, neg = lp | rp, ln | rn
            if not pos & neg:
                out.append((pos, neg))
    return dedupe(out) if len(out) > 1 else out


def conjoin(parts: Iterable[list[Clause]], guard: GroundingGuard) -> list[Clause]:
    """The conjunction of DNF ``parts``: single-clause parts (plain literals, the usual
    case) are merged into one clause first, so only real disjunctions multiply out, and a
    conjunction of k literals costs O(k) rather than O(k^2)."""
    pos: set[Atom] = set()
    neg: set[Atom] = set()
    multi: list[list[Clause]] = []
    for clauses in parts:
        if not clauses:
            return []
        if len(clauses) == 1:
            pos |= clauses[0][0]
            neg |= clauses[0][1]
        else:
            multi.append(clauses)
    if pos & neg:
        return []
    result = [(frozenset(pos), frozenset(neg))]
    for clauses in multi:
        result = and_clauses(result, clauses, guard)
        if not result:
            break
    return result


def dedupe(clauses: list[Clause]) -> list[Clause]:
    """The disjunction without duplicate and subsumed clauses, in first-seen order.

    Why: a clause whose literals include another clause's is implied by it, so dropping it
    keeps the meaning. Without this, ``(forall (?s) (imply <static test> (not (occupied
    ?s))))`` (IPC airport) doubles the DNF per object whose static test is false, since
    ``(or true (not (occupied s)))`` stayed two clauses: 262,144 preconditions for one move.
    """
    unique = list(dict.fromkeys(clauses))
    if len(unique) < 2:
        return unique
    if TRUE_CLAUSE in unique:
        return [TRUE_CLAUSE]
    kept: list[Clause] = []
    for pos, neg in sorted(unique, key=lambda c: len(c[0]) + len(c[1])):
        if not any(kp <= pos and kn <= neg for kp, kn in kept):
            kept.append((pos, neg))
    if len(kept) == len(unique):
        return unique
    keep = set(kept)
    return [clause for clause in unique if clause in keep]
