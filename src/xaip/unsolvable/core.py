"""Unsolvable cores: the smallest subsets of the goal that no reachable state satisfies.

Why subsets of the goal are enough to search: a goal subset has a plan exactly when some
reachable state satisfies it, and a superset of an unsolvable subset is unsolvable too
(monotonicity), so the cores of size ``k`` are found by trying every ``k``-subset in goal
order, smallest ``k`` first. That is exponential in the goal size, so the enumeration is
charged to the budget; when it runs out, deletion (drop each literal in goal order while the
rest stays unsolvable) still gives a subset-minimal core in linear time.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from xaip.runtime.budget import BudgetClock
from xaip.runtime.progress import Progress, report

MINIMUM = "minimum"
SUBSET_MINIMAL = "subset-minimal"


def maximal(masks: Iterable[int]) -> list[int]:
    """The masks not strictly contained in another (enough to decide every subset)."""
    ordered = sorted(set(masks), key=lambda m: -m.bit_count())
    kept: list[int] = []
    for mask in ordered:
        if not any(mask & ~other == 0 for other in kept):
            kept.append(mask)
    return kept


def solvable(subset: int, masks: list[int]) -> bool:
    """Does some reachable state (given by its goal mask) satisfy every literal of
    ``subset``?"""
    return any(subset & ~mask == 0 for mask in masks)


@dataclass(frozen=True)
class Core:
    """Goal positions (0-based, goal order) of a core and how minimal it is proved."""

    positions: tuple[int, ...]
    kind: str
    subsets_tried: int


def minimum_core(size: int, masks: list[int], clock: BudgetClock,
                 progress: Progress | None = None) -> Core:
    """The first (in goal order) among the smallest unsolvable goal subsets; a
    subset-minimal one by deletion when ``clock`` runs out first. The whole goal (``size``
    literals) must be unsolvable."""
    tried = 0
    for k in range(1, size + 1):
        for combo in itertools.combinations(range(size), k):
            tried += 1
            if tried % 10000 == 0:
                report(progress, "core", tried, message=f"subsets of {k} goal facts")
            if not clock.charge():
                return Core(deletion_core(size, masks), SUBSET_MINIMAL, tried)
            if not solvable(_mask(combo), masks):
                return Core(combo, MINIMUM, tried)
    raise ValueError("the whole goal is solvable: no core")


def deletion_core(size: int, masks: list[int]) -> tuple[int, ...]:
    """Drop each goal literal in order while the rest stays unsolvable: every proper
    subset of the result is solvable (each is inside some ``result - {g}``, which was
    solvable when ``g`` was kept, and subsets of solvable sets are solvable)."""
    kept = list(range(size))
    for position in range(size):
        rest = [p for p in kept if p != position]
        if not solvable(_mask(rest), masks):
            kept = rest
    return tuple(kept)


def _mask(positions: Iterable[int]) -> int:
    mask = 0
    for position in positions:
        mask |= 1 << position
    return mask
