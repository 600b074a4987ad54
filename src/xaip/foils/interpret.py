"""The checker's reading of the foil language, written apart from :mod:`xaip.foils.compile`.

Why a second reading: the checker must not trust the monitor facts it is checking. Here each
kind is its definition on an action sequence a1..an (steps as ``(schema, args)``):

* ``use A``: some ai matches A.          * ``avoid A``: no ai matches A.
* ``before``/``sequence`` A1..Ak: indices i1 < ... < ik with a(ij) matching Aj.
* ``never C after D``: no i < j with ai matching D and aj matching C.

:func:`holds` decides one constraint on a whole plan; :func:`step`/:func:`accepting` are the
same definitions as an automaton read one action at a time, for the checker's product search.
Shared with the compiler: only :meth:`~xaip.foils.language.Pattern.matches`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xaip.foils.language import Constraint, Pattern

Step = tuple[str, tuple[str, ...]]


def holds(constraint: Constraint, plan: Sequence[Step]) -> bool:
    """Does ``plan`` satisfy ``constraint`` (by the definition above)?"""
    kind, patterns = constraint.kind, constraint.patterns
    if kind == "use":
        return any(patterns[0].matches(*a) for a in plan)
    if kind == "avoid":
        return not any(patterns[0].matches(*a) for a in plan)
    if kind == "never_after":
        first, later = patterns
        return not any(first.matches(*plan[i]) and later.matches(*plan[j])
                       for i in range(len(plan)) for j in range(i + 1, len(plan)))
    return _embeds(patterns, plan)


def _embeds(patterns: Sequence[Pattern], plan: Sequence[Step]) -> bool:
    """Are there indices i1 < ... < ik with plan[ij] matching patterns[j]? Tried over every
    choice of index (memoised on (pattern position, plan position)), not a greedy scan."""
    failed: set[tuple[int, int]] = set()

    def from_(p: int, start: int) -> bool:
        if p == len(patterns):
            return True
        if (p, start) in failed:
            return False
        for i in range(start, len(plan)):
            if patterns[p].matches(*plan[i]) and from_(p + 1, i + 1):
                return True
        failed.add((p, start))
        return False

    return from_(0, 0)


def initial(constraint: Constraint) -> int:
    """The automaton's first state: 0 actions of the order seen / no D yet."""
    return 0


def step(constraint: Constraint, state: int, action: Step) -> int | None:
    """The automaton state after ``action``, or ``None`` when the action breaks the
    constraint for good (an avoided action, a C after a D)."""
    return step_matched(constraint, state,
                        tuple(p.matches(*action) for p in constraint.patterns))


def step_matched(constraint: Constraint, state: int, matched: tuple[bool, ...]) -> int | None:
    """:func:`step` given which of the constraint's patterns the action matches (the
    product search computes that once per ground action)."""
    kind = constraint.kind
    if kind == "avoid":
        return None if matched[0] else 0
    if kind == "never_after":
        if state and matched[1]:
            return None
        return 1 if state or matched[0] else 0
    if state < len(matched) and matched[state]:
        return state + 1
    return state


def accepting(constraint: Constraint, state: int) -> bool:
    """May a plan end in ``state``? Orders must be complete; prohibitions always may."""
    if constraint.kind in ("avoid", "never_after"):
        return True
    return state == len(constraint.patterns)
