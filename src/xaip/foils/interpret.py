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
    return _embeds(patterns, plan, 0, 0)


def _embeds(patterns: Sequence[Pattern], plan: Sequence[Step], p: int, start: int) -> bool:
    """Is there i_p < i_(p+1) < ... within plan[start:] matching patterns[p:]? (Recursive
    over every choice of index, not a greedy scan.)"""
    if p == len(patterns):
        return True
    pattern = patterns[p]
    return any(pattern.matches(*plan[i]) and _embeds(patterns, plan, p + 1, i + 1)
               for i in range(start, len(plan)))


def initial(constraint: Constraint) -> int:
    """The automaton's first state: 0 actions of the order seen / no D yet."""
    return 0


def step(constraint: Constraint, state: int, action: Step) -> int | None:
    """The automaton state after ``action``, or ``None`` when the action breaks the
    constraint for good (an avoided action, a C after a D)."""
    kind, patterns = constraint.kind, constraint.patterns
    if kind == "avoid":
        return None if patterns[0].matches(*action) else 0
    if kind == "never_after":
        if state and patterns[1].matches(*action):
            return None
        return 1 if state or patterns[0].matches(*action) else 0
    if state < len(patterns) and patterns[state].matches(*action):
        return state + 1
    return state


def accepting(constraint: Constraint, state: int) -> bool:
    """May a plan end in ``state``? Orders must be complete; prohibitions always may."""
    if constraint.kind in ("avoid", "never_after"):
        return True
    return state == len(constraint.patterns)
