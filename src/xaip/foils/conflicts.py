"""When the foil cannot be realised: every maximal realisable subset of the constraints and
every minimal conflict set (MUS), by subset search with pruning.

Why this search: realisability is monotone -- adding a constraint only removes plans -- so a
superset of an unrealisable set is unrealisable and a subset of a realisable one realisable.
Subsets are visited smallest first; one that contains a known conflict is skipped, one inside
a known realisable set is not planned again. A subset that needs a planner call and has no
plan is a minimal conflict (all its proper subsets were visited before and were realisable).
A realisable one is grown greedily into a maximal realisable set, which then covers all its
subsets. The maximal realisable sets are finally read off the conflicts: the maximal subsets
that contain none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from xaip.runtime.budget import BudgetClock
from xaip.runtime.progress import Progress, report

#: ``realisable(mask)``: True (has a plan), False (proved none), None (budget ran out).
Oracle = Callable[[int], "bool | None"]


@dataclass(frozen=True)
class Conflicts:
    """Masks over the constraints (bit i = constraint i). ``complete`` is false when the
    budget ran out: the conflicts found are then true minimal conflicts, but the lists may
    miss some and ``maximal`` is not computed."""

    minimal_conflicts: tuple[int, ...]
    maximal: tuple[int, ...]
    complete: bool
    planner_calls: int


def find_conflicts(n: int, realisable: Oracle, clock: BudgetClock,
                   progress: Progress | None = None) -> Conflicts:
    """All minimal unrealisable and maximal realisable subsets of ``n`` constraints."""
    conflicts: list[int] = []
    covers: list[int] = []
    calls = 0

    def known(mask: int) -> bool | None:
        if any(c & mask == c for c in conflicts):
            return False
        if any(mask & r == mask for r in covers):
            return True
        return None

    def decide(mask: int) -> bool | None:
        nonlocal calls
        answer = known(mask)
        if answer is None:
            calls += 1
            answer = realisable(mask)
        return answer

    for size in range(n + 1):
        for members in combinations(range(n), size):
            mask = sum(1 << i for i in members)
            if known(mask) is not None:
                continue
            if clock.out_of_time() or clock.exhausted:
                return Conflicts(tuple(conflicts), (), False, calls)
            answer = decide(mask)
            report(progress, "conflicts", calls, message=f"{len(conflicts)} conflicts")
            if answer is None:
                return Conflicts(tuple(conflicts), (), False, calls)
            if not answer:
                conflicts.append(mask)
                continue
            grown = mask
            for i in range(n):
                if grown >> i & 1 or known(grown | 1 << i) is False:
                    continue
                more = decide(grown | 1 << i)
                if more is None:
                    return Conflicts(tuple(conflicts), (), False, calls)
                if more:
                    grown |= 1 << i
            covers.append(grown)
    return Conflicts(tuple(conflicts), maximal_free(n, tuple(conflicts)), True, calls)


def maximal_free(n: int, conflicts: tuple[int, ...]) -> tuple[int, ...]:
    """The maximal subsets of ``range(n)`` that contain no conflict (largest first)."""
    free = frozenset(m for m in range(1 << n) if not any(c & m == c for c in conflicts))
    keep = [m for m in free
            if not any(not m >> i & 1 and m | 1 << i in free for i in range(n))]
    return tuple(sorted(keep, key=lambda m: (-bin(m).count("1"), m)))


def members(mask: int) -> tuple[int, ...]:
    """The 0-based constraint indices in ``mask``."""
    return tuple(i for i in range(mask.bit_length()) if mask >> i & 1)
