"""Explicable planning against brute force: the returned plan minimises (IE, cost)."""

from __future__ import annotations

import math
import random

import pytest

from xaip.errors import InputError
from xaip.explicable.measures import DISTANCES, Scorer
from xaip.explicable.planner import explicable_plan
from xaip.explicable.problem import load_problem
from xaip.planning.task import Task
from xaip.runtime import Budget, Status

from .grids import DOMAIN, passages, problem_text

FOLDER = DOMAIN.parent


def every_plan(task: Task, bound: int) -> list[tuple]:
    """All plans of cost <= bound that stop at the first goal state (plain DFS)."""
    out: list[tuple] = []

    def dfs(state: int, prefix: list, cost: int) -> None:
        if task.is_goal(state):
            out.append(tuple(prefix))
            return
        for action in task.applicable(state):
            if cost + action.cost <= bound:
                prefix.append(action)
                dfs(action.apply(state), prefix, cost + action.cost)
                prefix.pop()

    dfs(task.init, [], 0)
    return out


def brute_force(problem, distance: str, bound: int) -> tuple[float, int]:
    scorer = Scorer(problem, distance)
    keys = [(scorer.score(p).inexplicability, sum(a.cost for a in p))
            for p in every_plan(problem.robot_task, bound)]
    return min(keys)


@pytest.fixture(scope="module")
def b1():
    return load_problem(DOMAIN, DOMAIN, FOLDER / "b1.pddl", FOLDER / "b1-human.pddl")


@pytest.mark.parametrize("distance", DISTANCES)
def test_restaurant_minimises_ie_then_cost(b1, distance: str) -> None:
    result = explicable_plan(b1, distance, max_cost=8)
    assert result.status == Status.FOUND and result.verified
    ie = math.inf if result.inexplicability is None else result.inexplicability
    assert (ie, result.robot_cost) == pytest.approx(brute_force(b1, distance, 8))


def test_cost_distance_book_numbers(b1) -> None:
    result = explicable_plan(b1)  # product model, no bound
    assert (result.robot_cost, result.human_cost, result.inexplicability) == (6, 6, 2.0)
    assert result.method == "product" and result.verified
    assert result.nearest_expected == ("pick-up c10", "move c10 c11", "move c11 c12",
                                       "put-down c12")


def _random_problem(tmp_path, seed: int):
    rng = random.Random(seed)
    every = passages(3, 2)
    robot_open = [p for p in every if rng.random() < 0.8]
    human_open = [p for p in every if p in robot_open or rng.random() < 0.7]
    human_open = [p for p in human_open if rng.random() < 0.9]
    cells = [(x, y) for x in range(3) for y in range(2)]
    start, goal = rng.sample(cells, 2)
    (tmp_path / f"r{seed}.pddl").write_text(problem_text(3, 2, robot_open, start, goal))
    (tmp_path / f"h{seed}.pddl").write_text(problem_text(3, 2, human_open, start, goal))
    return load_problem(DOMAIN, DOMAIN, tmp_path / f"r{seed}.pddl", tmp_path / f"h{seed}.pddl")


@pytest.mark.parametrize("seed", range(6))
def test_random_grids_against_brute_force(tmp_path, seed: int) -> None:
    problem = _random_problem(tmp_path, seed)
    for distance in DISTANCES:
        result = explicable_plan(problem, distance, max_cost=7)
        if not result.plan:
            assert result.status == Status.UNSOLVABLE
            assert not every_plan(problem.robot_task, 7)
            continue
        assert result.verified, result.check
        ie = math.inf if result.inexplicability is None else result.inexplicability
        assert (ie, result.robot_cost) == pytest.approx(brute_force(problem, distance, 7))
    # Without a bound, the product model agrees with enumeration under a large bound.
    product = explicable_plan(problem)
    if product.plan and product.inexplicability is not None and product.robot_cost <= 9:
        enumerated = explicable_plan(problem, "cost", max_cost=9, method="enumerate")
        assert (enumerated.inexplicability, enumerated.robot_cost) == \
            (product.inexplicability, product.robot_cost)


def test_budget_and_bad_input(b1) -> None:
    assert explicable_plan(b1, budget=Budget(max_nodes=1)).status == Status.BUDGET_EXHAUSTED
    unfinished = explicable_plan(b1, "action", 8, budget=Budget(max_nodes=1))
    assert unfinished.status == Status.BUDGET_EXHAUSTED and not unfinished.verified
    with pytest.raises(InputError, match="distance"):
        explicable_plan(b1, "nearness")
    with pytest.raises(InputError, match="product"):
        explicable_plan(b1, "action", method="product")
    low = explicable_plan(b1, max_cost=3)
    assert low.status == Status.UNSOLVABLE and not low.plan and low.verified


def test_mapping_is_monotone(b1) -> None:
    for mapping in ("identity", "saturating", "square"):
        result = explicable_plan(b1, "action", 8, mapping=mapping)
        assert result.verified
        assert result.plan == explicable_plan(b1, "action", 8).plan
