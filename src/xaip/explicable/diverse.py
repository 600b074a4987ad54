"""Diverse plans under a plan distance (F07): candidates for the person to choose from, or
for plan selection by the labelling model.

How ([D], greedy max-min diversification): list every plan within the cost bound (default:
the optimal cost) by plan enumeration; start from the cheapest plan; repeatedly add the
plan whose smallest distance to the plans chosen so far is largest (ties: cheaper, then
earlier in the enumeration order). Greedy max-min is within a factor 2 of the best
achievable minimum pairwise distance.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xaip.errors import InputError
from xaip.explicable.distances import TRACE_DISTANCES, trace_distance, trace_of
from xaip.planning.search.enumerate import all_plans
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget, Status


@dataclass(frozen=True)
class DiversePlans:
    status: Status
    plans: tuple[tuple[GroundAction, ...], ...]
    costs: tuple[int, ...]
    min_distance: float | None  # smallest pairwise distance (None for fewer than 2 plans)
    considered: int


def diverse_plans(task: Task, k: int, distance: str = "action", cost_bound: int | None = None,
                  weights: Mapping[str, float] | None = None, max_plans: int = 5000,
                  budget: Budget | None = None) -> DiversePlans:
    """Up to ``k`` plans of cost ``<= cost_bound``, spread out under ``distance``."""
    if distance not in TRACE_DISTANCES:
        raise InputError(f"diverse plans use one of {', '.join(TRACE_DISTANCES)}")
    if k < 1:
        raise InputError(f"k must be at least 1, not {k}")
    listed = all_plans(task, cost_bound, budget, max_plans)
    plans = listed.plans
    traces = [trace_of(task, p) for p in plans]
    chosen: list[int] = []
    nearest = [float("inf")] * len(plans)
    while plans and len(chosen) < min(k, len(plans)):
        if not chosen:
            pick = 0
        else:
            pick = max((i for i in range(len(plans)) if i not in chosen),
                       key=lambda i: (nearest[i], -listed.costs[i], -i))
        chosen.append(pick)
        for i in range(len(plans)):
            nearest[i] = min(nearest[i], trace_distance(distance, traces[i], traces[pick],
                                                        weights))
    pairwise = [trace_distance(distance, traces[a], traces[b], weights)
                for x, a in enumerate(chosen) for b in chosen[x + 1:]]
    return DiversePlans(listed.status, tuple(plans[i] for i in chosen),
                        tuple(listed.costs[i] for i in chosen),
                        min(pairwise) if pairwise else None, len(plans))
