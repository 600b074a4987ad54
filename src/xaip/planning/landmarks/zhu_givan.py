"""Complete delete-relaxation fact landmarks by label propagation (Zhu and Givan).

Why labels: every fact f gets the set label(f) of facts that every relaxed way of reaching
f must make true first (f included); an operator's label is the union of its
preconditions' labels, and a fact's label is itself plus the intersection of its
achievers' labels. Starting from "everything" for facts not initially true and shrinking
until nothing changes yields the greatest fixpoint, which is exactly the set of *causal*
landmarks of each fact (those used on every relaxed path). The goal facts' labels together
are the causal landmarks of the task, found by one propagation instead of one test per
fact.

Side-effect landmarks: a fact that every plan produces but none needs (``(holding c)``
when ``c`` must be unstacked to clear another block) is a landmark but in no label. To be
complete for the exact definition (:func:`is_landmark`), the remaining facts that one
relaxed plan touches are tested one by one; they are flagged ``causal=False``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from xaip.planning.landmarks.achievers import (
    Meter,
    Relaxation,
    _Exhausted,
    relaxed_plan,
)
from xaip.planning.task import bits


@dataclass
class ZGResult:
    causal: list[int] = field(default_factory=list)  # fact indices
    side_effects: list[int] = field(default_factory=list)
    complete: bool = True


def propagate_labels(relax: Relaxation, reached: int, meter: Meter | None = None) -> list[int]:
    """Greatest-fixpoint labels (fact masks) of every fact; unreachable facts keep "all"."""
    task = relax.task
    init = task.init
    full = (1 << task.num_facts) - 1
    label = [full] * task.num_facts
    for f in bits(init):
        label[f] = 1 << f
    ops = relax.ops
    usable = [op.pre & ~reached == 0 for op in ops]
    queue: deque[int] = deque(o for o, ok in enumerate(usable) if ok)
    queued = bytearray(1 if ok else 0 for ok in usable)
    while queue:
        o = queue.popleft()
        queued[o] = 0
        op = ops[o]
        if meter is not None:
            meter.charge(1 + relax.pre_count[o])
        op_label = 0
        for p in bits(op.pre):
            op_label |= label[p]
        for f in bits(op.add & ~init):
            new = label[f] & (op_label | (1 << f))
            if new != label[f]:
                label[f] = new
                for user in relax.users[f]:
                    if usable[user] and not queued[user]:
                        queued[user] = 1
                        queue.append(user)
    return label


def zg_landmarks(
    relax: Relaxation, reached: int, meter: Meter, *, causal_only: bool = False
) -> ZGResult:
    """All delete-relaxation fact landmarks (the caller has checked the goal is reachable).

    On budget exhaustion before the labels converge only the goal facts are returned
    (intermediate labels over-approximate and are not sound); exhaustion during the
    side-effect tests keeps the causal landmarks. Either way ``complete`` is ``False``.
    """
    task = relax.task
    result = ZGResult()
    try:
        label = propagate_labels(relax, reached, meter)
    except _Exhausted:
        result.causal = list(bits(task.goal))
        result.complete = False
        return result
    causal = 0
    for g in bits(task.goal):
        causal |= label[g]
    result.causal = list(bits(causal))
    if causal_only:
        return result
    try:
        plan = relaxed_plan(relax, meter)
        assert plan is not None
        touched = task.goal
        for o in plan:
            touched |= relax.ops[o].pre | relax.ops[o].add
        for f in bits(touched & ~causal):
            mask = 1 << f
            rest = relax.explore(task.init & ~mask, block_adders_of=mask, meter=meter)
            if not relax.goal_reachable(rest):
                result.side_effects.append(f)
    except _Exhausted:
        result.complete = False
    return result
