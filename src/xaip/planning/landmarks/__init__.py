"""Fact landmarks with orderings, computed on the delete relaxation.

A landmark is a fact (or a disjunction of facts) that is true in some state of every
plan; orderings say which landmarks must, or had better, come before which. Explainers
use them as subgoals a person can follow (policy summaries compute them on a compiled
deterministic task, so everything here works on any :class:`~xaip.planning.task.Task`,
with conditional effects and negative conditions).

* :func:`find_landmarks` — ``method="rhw"`` backchains from the goals through shared
  preconditions of first achievers (sound, fast, finds disjunctive landmarks);
  ``method="zg"`` propagates labels and is complete for delete-relaxation fact landmarks.
* :func:`is_landmark` — the exact yes/no test for one fact or disjunction.

The result lists initial facts and goal facts that are landmarks too, flagged
``is_initial``/``is_goal`` so callers can filter them.
"""

from __future__ import annotations

from xaip.errors import InputError
from xaip.planning.axioms import axioms_as_actions
from xaip.planning.landmarks.achievers import (
    BudgetExhausted,
    Meter,
    Relaxation,
    _Exhausted,
    is_landmark,
)
from xaip.planning.landmarks.graph import (
    ORDERING_KINDS,
    Landmark,
    LandmarkGraph,
    Ordering,
    OrderingKind,
)
from xaip.planning.landmarks.negations import compile_negations
from xaip.planning.landmarks.orderings import LandmarkInfo, compute_orderings_into
from xaip.planning.landmarks.rhw import rhw_landmarks
from xaip.planning.landmarks.zhu_givan import zg_landmarks
from xaip.planning.task import Task, bits
from xaip.runtime.budget import Budget

METHODS: tuple[str, ...] = ("rhw", "zg")

__all__ = [
    "METHODS",
    "ORDERING_KINDS",
    "BudgetExhausted",
    "Landmark",
    "LandmarkGraph",
    "Ordering",
    "OrderingKind",
    "find_landmarks",
    "is_landmark",
]


def find_landmarks(
    task: Task,
    method: str = "rhw",
    budget: Budget | None = None,
    *,
    disjunctive: bool = True,
    causal_only: bool = False,
    reasonable: bool = True,
) -> LandmarkGraph:
    """Landmarks of ``task`` and orderings between them.

    ``disjunctive`` (rhw only): also report disjunctive landmarks. ``causal_only`` (zg
    only): skip the per-fact search for side-effect landmarks. ``reasonable``: also
    compute reasonable orderings. Landmarks come sorted by the relaxed-planning-graph
    layer at which they first become reachable, so early subgoals come first.

    Negative goals, preconditions and effect conditions are compiled into positive facts
    before the relaxation (as Fast Downward does), so landmarks needed only to make a fact
    false are found too; only landmarks over the task's own facts are reported.

    If the goal is relaxed-unreachable, the task has no plan; the graph is then empty with
    ``solvable=False``. If ``budget`` runs out, the graph holds what was proven so far,
    with ``complete=False``. Raises :class:`~xaip.errors.InputError` for an unknown method.
    """
    if method not in METHODS:
        raise InputError(
            f"unknown landmark method {method!r}; expected one of: {', '.join(METHODS)}"
        )
    # Axioms (derived predicates) become zero-cost actions ``derived:PRED``, reported as
    # achievers like actions.
    task = axioms_as_actions(task)
    # Negative goals and conditions become positive "not p" facts (indices from
    # task.num_facts on): without them the relaxation would miss every landmark needed only
    # to make something false. Landmarks on those companion facts are not reported.
    positive = compile_negations(task)
    relax = Relaxation(positive)
    meter = Meter(budget)
    reached = relax.explore(positive.init)
    if not relax.goal_reachable(reached):
        return LandmarkGraph((), (), method=method, solvable=False, task=task)

    complete = True
    masks: list[int]
    disjunctive_of: dict[int, bool] = {}
    side_effect: set[int] = set()
    known_first: dict[int, list[int]] = {}
    if method == "rhw":
        found = rhw_landmarks(relax, meter, disjunctive=disjunctive)
        masks, disjunctive_of, known_first = found.masks, found.disjunctive, found.first_achievers
        complete = found.complete
    else:
        result = zg_landmarks(relax, reached, meter, causal_only=causal_only)
        masks = [1 << f for f in (*result.causal, *result.side_effects)]
        side_effect = {1 << f for f in result.side_effects}
        complete = result.complete

    original = (1 << task.num_facts) - 1
    masks = [mask for mask in masks if mask & ~original == 0]
    level = relax.levels()

    def first_level(mask: int) -> int:
        return min((lv for f in bits(mask) if (lv := level[f]) is not None), default=0)

    masks = sorted(
        set(masks),
        key=lambda m: (first_level(m), disjunctive_of.get(m, False), sorted(bits(m))),
    )
    first_ops: list[tuple[int, ...]] = []
    for mask in masks:
        if mask & task.init:
            first_ops.append(())
        elif mask in known_first:
            first_ops.append(tuple(known_first[mask]))
        elif complete:
            try:
                first_ops.append(tuple(relax.first_achiever_ops(mask, meter)))
            except _Exhausted:
                complete = False
                first_ops.append(tuple(relax.adder_ops(mask)))
        else:
            first_ops.append(tuple(relax.adder_ops(mask)))

    landmarks = tuple(
        Landmark(
            facts=tuple(bits(mask)),
            disjunctive=disjunctive_of.get(mask, False),
            is_initial=bool(mask & task.init),
            is_goal=bool(mask & task.goal),
            causal=mask not in side_effect,
            first_achievers=relax.actions_of(ops),
            achievers=relax.actions_of(relax.adder_ops(mask)),
        )
        for mask, ops in zip(masks, first_ops, strict=True)
    )
    infos = [
        LandmarkInfo(
            mask=mask,
            initial=lm.is_initial,
            goal=lm.is_goal,
            disjunctive=lm.disjunctive,
            first_achiever_ops=ops,
        )
        for mask, lm, ops in zip(masks, landmarks, first_ops, strict=True)
    ]
    orderings: list[Ordering] = []
    if complete:
        try:
            compute_orderings_into(orderings, relax, infos, meter, reasonable=reasonable)
        except _Exhausted:
            complete = False
    return LandmarkGraph(
        landmarks=landmarks,
        orderings=tuple(sorted(orderings, key=lambda o: (o.before, o.after))),
        method=method,
        solvable=True,
        complete=complete,
        task=task,
    )
