"""Reconciliation search: anytime, cost-bounded, equal to brute force when it finishes."""

from __future__ import annotations

import math

import pytest

from xaip.explicable.measures import DISTANCES
from xaip.explicable.planner import explicable_plan
from xaip.explicable.problem import load_problem
from xaip.explicable.search import reconciliation_search
from xaip.runtime import Budget, Status

from .grids import DOMAIN
from .test_planner import _random_problem, brute_force

FOLDER = DOMAIN.parent


@pytest.fixture(scope="module")
def b2():
    return load_problem(DOMAIN, DOMAIN, FOLDER / "b2.pddl", FOLDER / "b2-human.pddl")


def _key(result) -> tuple[float, int]:
    ie = math.inf if result.inexplicability is None else result.inexplicability
    return ie, result.robot_cost


@pytest.mark.parametrize("distance", DISTANCES)
def test_search_equals_brute_force(b2, distance: str) -> None:
    result = reconciliation_search(b2, distance, max_cost=9)
    assert result.status == Status.FOUND and result.verified, result.check
    assert _key(result) == pytest.approx(brute_force(b2, distance, 9))
    # The best-so-far only improves, and the last improvement is the answer.
    keys = [(math.inf if ie is None else ie, cost) for _, ie, cost in result.improvements]
    assert keys == sorted(keys, reverse=True) and keys[-1] == pytest.approx(_key(result))
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("seed", range(3))
def test_random_grids(tmp_path, seed: int) -> None:
    problem = _random_problem(tmp_path, seed)
    for distance in ("cost", "composite"):
        result = explicable_plan(problem, distance, 6, method="search")
        if result.plan:
            assert _key(result) == pytest.approx(brute_force(problem, distance, 6))


def test_anytime_under_budget(b2) -> None:
    full = reconciliation_search(b2, "state", max_cost=9)
    partial = reconciliation_search(b2, "state", max_cost=9, budget=Budget(max_nodes=3000))
    assert partial.status == Status.BUDGET_EXHAUSTED and not partial.verified
    if partial.plan:
        assert _key(partial) >= _key(full)
    events = []
    reconciliation_search(b2, "state", max_cost=9, progress=events.append, check=False)
    assert events and all(e.phase == "reconciliation search" for e in events)
