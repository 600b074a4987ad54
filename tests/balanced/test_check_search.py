"""The checker's own A* (``xaip.balanced.check_search``) finds true optima.

Why: since issue 21 every ``C*`` of the balanced checker (the robot's, her updated
model's, each edit set's in the optimality proof) comes from this loop instead of
uniform-cost search; a wrong optimum there would let the checker confirm a wrong answer.
Compared here with the engines' uniform-cost search, which shares no code with it but the
successor generator.
"""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

from xaip.balanced.check_search import estimate, optimal_plan, optimum
from xaip.balanced.instances import usar_problem
from xaip.planning.engines import get_engine
from xaip.planning.grounding import ground
from xaip.planning.pddl import read_domain, read_problem
from xaip.planning.task import State, Task
from xaip.runtime import Budget, Status

BLOCKS = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "blocksworld"


def _ucs(task: Task) -> int | None:
    result = get_engine("default", search="ucs", heuristic="blind").solve(task, optimal=True)
    return None if result.status != Status.SOLVED or result.cost is None else \
        int(result.cost)


def _replay(task: Task, plan: tuple[int, ...]) -> tuple[bool, int]:
    """(does the plan reach the goal, its cost) by applying the ground actions."""
    state, cost = task.init, 0
    for index in plan:
        action = task.actions[index]
        if not action.applicable(state):
            return False, cost
        state, cost = action.apply(state), cost + action.cost
    return task.is_goal(state), cost


def test_blocksworld_optimum_and_plan() -> None:
    task = ground(read_domain(BLOCKS / "domain.pddl"), read_problem(BLOCKS / "problem-5.pddl"))
    clock = Budget().start()
    found = optimal_plan(task, estimate(task, clock), clock)
    assert found is not None
    reaches, cost = _replay(task, found[0])
    assert reaches and cost == found[1] == _ucs(task)


def test_every_edit_set_of_usar_matches_uniform_cost_search() -> None:
    """The proof's ``C*_E`` on each of USAR's model-space tasks (her models with every
    subset of the differences, unsolvable ones included)."""
    problem = usar_problem("balanced")
    space = problem.space
    count = len(problem.differences)
    checked = 0
    for size in range(count + 1):
        for subset in itertools.combinations(range(count), size):
            task = space.task(subset)
            clock = Budget().start()
            assert optimum(task, estimate(task, clock), clock) == _ucs(task), subset
            checked += 1
    assert checked == 2 ** count


def test_an_inconsistent_estimate_still_gives_the_optimum() -> None:
    """States may be reached more cheaply after their expansion (an admissible but
    inconsistent estimate): the loop reopens them and the first goal popped is optimal."""
    task = ground(read_domain(BLOCKS / "domain.pddl"), read_problem(BLOCKS / "problem-5.pddl"))
    clock = Budget().start()
    lmcut = estimate(task, clock)

    def patchy(state: State) -> float:
        # LM-cut on half the states, 0 on the rest: admissible, not consistent
        return lmcut(state) if state % 3 else 0.0

    found = optimal_plan(task, patchy, clock)
    assert found is not None and found[1] == _ucs(task)


def test_no_plan_is_none() -> None:
    """A goal that asks a fact both true and false: the search runs out of states."""
    task = ground(read_domain(BLOCKS / "domain.pddl"), read_problem(BLOCKS / "problem-5.pddl"))
    low = task.goal & -task.goal
    impossible = dataclasses.replace(task, goal_neg=task.goal_neg | low)
    clock = Budget().start()
    assert optimal_plan(impossible, estimate(impossible, clock), clock) is None
    assert _ucs(impossible) is None
