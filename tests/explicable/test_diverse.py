"""Diverse plans: distinct, within the bound, greedy choice checked by brute force."""

from __future__ import annotations

import itertools

import pytest

from xaip.errors import InputError
from xaip.explicable.distances import action_distance, trace_of
from xaip.explicable.diverse import diverse_plans
from xaip.planning.grounding import ground
from xaip.planning.pddl import read_domain, read_problem
from xaip.planning.search.enumerate import all_plans

from .grids import DOMAIN


@pytest.fixture(scope="module")
def task():
    return ground(read_domain(DOMAIN), read_problem(DOMAIN.parent / "b2-human.pddl"))


def test_diverse_plans(task) -> None:
    result = diverse_plans(task, 3, "action", cost_bound=7)
    assert len(result.plans) == 3 and len(set(result.plans)) == 3
    assert all(cost <= 7 for cost in result.costs)
    everything = all_plans(task, 7).plans
    # The second plan is as far from the first as any plan can be.
    first = trace_of(task, result.plans[0])
    farthest = max(action_distance(first, trace_of(task, p)) for p in everything)
    assert action_distance(first, trace_of(task, result.plans[1])) == pytest.approx(farthest)
    # Greedy max-min is within a factor 2 of the best triple.
    best = max(min(action_distance(trace_of(task, a), trace_of(task, b))
                   for a, b in itertools.combinations(triple, 2))
               for triple in itertools.combinations(everything[:40], 3))
    assert result.min_distance is not None and 2 * result.min_distance >= best - 1e-9
    only = diverse_plans(task, 10)  # the three optimal plans
    assert len(only.plans) == 3 and only.considered == 3
    with pytest.raises(InputError):
        diverse_plans(task, 0)
