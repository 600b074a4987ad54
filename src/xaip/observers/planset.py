"""Distances inside a belief plan set (book Def. 17–18, 42): how alike are the plans an
observer cannot tell apart?

Plan legibility wants them close (maximum pairwise distance ≤ d); plan obfuscation wants
them far apart (minimum pairwise distance ≥ d). Distances are the plan distances of the
explicable-behaviour work (:mod:`xaip.explicable.distances`: action, causal-link, state,
composite), computed on each plan's trace from its own start state.

Why "unknown" is an answer: when the BPS has more members than the enumeration cap, the
pairwise extremes over the listed plans only bound the true ones, so :func:`spread`
returns ``exact=False`` and the goal tests treat the condition as not met (sound, and the
cap is reported).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from xaip.errors import InputError
from xaip.explicable.distances import TRACE_DISTANCES, PlanTrace, trace_distance, trace_of
from xaip.observers.beliefs import BeliefPlanSet
from xaip.planning.task import Task


@dataclass(frozen=True)
class Spread:
    """Minimum and maximum pairwise distance of a BPS (``None`` with fewer than 2 plans)."""

    minimum: float | None
    maximum: float | None
    exact: bool
    pairs: int


def check_distance(name: str) -> str:
    if name not in TRACE_DISTANCES:
        raise InputError(f"unknown plan distance '{name}' (one of {', '.join(TRACE_DISTANCES)})")
    return name


def traces(task: Task, bps: BeliefPlanSet) -> list[PlanTrace]:
    """Each listed BPS plan's trace from its own start state."""
    starts: dict[int, Task] = {}
    out = []
    for plan in bps.plans:
        base = starts.get(plan.start)
        if base is None:
            base = starts[plan.start] = (task if plan.start == task.init
                                         else replace(task, init=plan.start))
        out.append(trace_of(base, plan.ground(task), prefix=True))
    return out


def spread(task: Task, bps: BeliefPlanSet, distance: str = "action") -> Spread:
    """Pairwise distance extremes over the listed plans (exact when the BPS is complete)."""
    check_distance(distance)
    listed = traces(task, bps)
    low: float | None = None
    high: float | None = None
    pairs = 0
    for a, b in itertools.combinations(listed, 2):
        value = trace_distance(distance, a, b)
        pairs += 1
        low = value if low is None else min(low, value)
        high = value if high is None else max(high, value)
    return Spread(low, high, bps.complete, pairs)
