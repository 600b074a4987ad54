"""Plan distances: hand-computed values, identity, symmetry and range."""

from __future__ import annotations

import itertools

import pytest

from xaip.errors import InputError
from xaip.explicable.distances import (
    action_distance,
    causal_link_distance,
    composite_distance,
    state_distance,
    trace_of,
)
from xaip.explicable.measures import compare_plans
from xaip.explicable.problem import plan_in
from xaip.planning.grounding import ground
from xaip.planning.pddl import read_domain, read_problem
from xaip.planning.search.enumerate import all_plans

from .grids import DOMAIN

HUMAN = DOMAIN.parent / "b1-human.pddl"
EXPECTED = ["pick-up c10", "move c10 c11", "move c11 c12", "put-down c12"]
DETOUR = ["pick-up c10", "move c10 c20", "move c20 c21", "move c21 c22", "move c22 c12",
          "put-down c12"]


@pytest.fixture(scope="module")
def task():
    return ground(read_domain(DOMAIN), read_problem(HUMAN))


def traces(task, *plans):
    out = []
    for plan in plans:
        grounded = plan_in(task, plan)
        assert grounded is not None
        out.append(trace_of(task, grounded))
    return out


def test_hand_computed_values(task) -> None:
    a, b = traces(task, EXPECTED, DETOUR)
    # 2 shared actions (pick-up, put-down) of 8 distinct.
    assert action_distance(a, b) == pytest.approx(1 - 2 / 8)
    # Links: 8 in the expected plan, 10 in the detour, 5 shared (three init -> pick-up,
    # pick-up -(holding)-> put-down, put-down -> goal): 1 - 5/13.
    assert causal_link_distance(a, b) == pytest.approx(8 / 13)
    # States after steps 1..4: equal, 2/3, 2/3, 1 apart; two extra steps count 1 each.
    assert state_distance(a, b) == pytest.approx((0 + 2 / 3 + 2 / 3 + 1 + 2) / 6)
    assert composite_distance(a, b) == pytest.approx((0.75 + 8 / 13 + 13 / 18) / 3)
    assert composite_distance(a, b, {"action": 1, "causal": 0, "state": 0}) == \
        pytest.approx(0.75)


def test_identity_symmetry_range(task) -> None:
    plans = all_plans(task, 8).plans
    assert len(plans) > 5
    ts = [trace_of(task, p) for p in plans]
    for d in (action_distance, causal_link_distance, state_distance, composite_distance):
        for x in ts:
            assert d(x, x) == 0
        for x, y in itertools.combinations(ts, 2):
            assert d(x, y) == pytest.approx(d(y, x))
            assert 0 <= d(x, y) <= 1


def test_compare_plans_and_bad_input(task) -> None:
    result = compare_plans(task, EXPECTED, DETOUR)
    assert result.action == pytest.approx(0.75)
    assert result.to_dict()["status"] == "complete"
    with pytest.raises(InputError, match="second plan"):
        compare_plans(task, EXPECTED, EXPECTED[:2])
    with pytest.raises(InputError, match="weight"):
        compare_plans(task, EXPECTED, DETOUR, {"speed": 1.0})
