"""Landmarks by backchaining from the goals (Richter, Helmert and Westphal style).

Why backchaining: a landmark L that is not initially true must be made true for the first
time by one of its *first achievers* (operators that can add L before L was ever true,
see :meth:`Relaxation.first_achiever_ops`). Whatever all first achievers require is true
right before L first becomes true, so it is a landmark too, greedy-necessarily ordered
before L. Starting from the goal facts and repeating this finds landmarks that are needed
as preconditions, each with a reason a person can follow.

Disjunctive landmarks: when the first achievers share no precondition but each needs
*some* fact of the same predicate (``(at truck ?l)`` for different ``?l``), the set of
those facts is a disjunctive landmark (one of them holds right before L is first made
true). Sets of more than ``max_disjunction`` facts, sets containing an initially true fact
(trivially satisfied) and sets containing a fact landmark (implied by it) are dropped.

The method is sound but incomplete; :mod:`.zhu_givan` is complete for the relaxation.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from xaip.planning.landmarks.achievers import (
    Meter,
    Relaxation,
    _Exhausted,
    shared_preconditions,
)
from xaip.planning.task import bits


@dataclass
class RHWResult:
    """Landmark fact masks in discovery order, with what was learnt about them."""

    masks: list[int] = field(default_factory=list)
    disjunctive: dict[int, bool] = field(default_factory=dict)
    first_achievers: dict[int, list[int]] = field(default_factory=dict)
    complete: bool = True


def rhw_landmarks(
    relax: Relaxation,
    meter: Meter,
    *,
    disjunctive: bool = True,
    max_disjunction: int = 4,
) -> RHWResult:
    """Backchain from the goal facts; the caller has checked the goal is relaxed-reachable.

    On budget exhaustion the landmarks found so far are returned with ``complete=False``
    (each was derived soundly, so a partial answer is still correct).
    """
    task = relax.task
    init = task.init
    predicate = [atom.predicate for atom in task.facts]
    result = RHWResult()
    fact_landmarks = 0
    queue: deque[int] = deque()

    def add(mask: int, is_disjunctive: bool) -> None:
        if mask in result.disjunctive:
            return
        result.disjunctive[mask] = is_disjunctive
        result.masks.append(mask)
        queue.append(mask)

    for g in bits(task.goal):
        fact_landmarks |= 1 << g
        add(1 << g, False)
    try:
        while queue:
            landmark = queue.popleft()
            if landmark & init:
                continue  # true from the start: nothing has to happen before it
            if result.disjunctive[landmark] and landmark & fact_landmarks:
                continue  # implied by a fact landmark found later; dropped below
            ops = relax.first_achiever_ops(landmark, meter)
            result.first_achievers[landmark] = ops
            if not ops:
                continue
            shared = shared_preconditions(relax, ops)
            for p in bits(shared):
                fact_landmarks |= 1 << p
                add(1 << p, False)
            if disjunctive:
                for candidate in _disjunctions(relax, ops, shared, predicate, max_disjunction):
                    if not candidate & (init | fact_landmarks):
                        add(candidate, True)
    except _Exhausted:
        result.complete = False
    kept = [m for m in result.masks if not (result.disjunctive[m] and m & fact_landmarks)]
    result.masks = kept
    return result


def _disjunctions(
    relax: Relaxation,
    ops: Sequence[int],
    shared: int,
    predicate: Sequence[str],
    max_size: int,
) -> Iterator[int]:
    """Per predicate: the union of each first achiever's non-shared preconditions of that
    predicate, if every first achiever has at least one and the union is small."""
    per_op: list[dict[str, int]] = []
    for o in ops:
        groups: dict[str, int] = {}
        for p in bits(relax.ops[o].pre & ~shared):
            groups[predicate[p]] = groups.get(predicate[p], 0) | (1 << p)
        per_op.append(groups)
    common = set(per_op[0])
    for groups in per_op[1:]:
        common &= set(groups)
    for name in sorted(common):
        union = 0
        for groups in per_op:
            union |= groups[name]
        if 2 <= union.bit_count() <= max_size:
            yield union
