"""Grounded tasks handed to Fast Downward agree with the built-in optimal planner."""

from __future__ import annotations

import pytest

from xaip.domains.generators import blocksworld, gripper, logistics
from xaip.planning.engines.fast_downward import fd_available
from xaip.planning.engines.grounded import fd_cheaper_plan, task_pddl
from xaip.planning.grounding import ground
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.planner import plan_task
from xaip.planning.plans import is_valid

pytestmark = pytest.mark.skipif(not fd_available(), reason="Fast Downward not installed")

CASES = [blocksworld(4, seed=1), blocksworld(5, seed=2), gripper(3),
         logistics(2, 2, seed=3)]


@pytest.mark.parametrize("texts", CASES)
def test_optimal_costs_and_bounds_agree(texts: tuple[str, str]) -> None:
    task = ground(parse_domain(texts[0]), parse_problem(texts[1]))
    ours = plan_task(task, optimal=True)
    status, plan, cost = fd_cheaper_plan(task, None)
    assert status == "solved" and cost == ours.cost
    assert is_valid(task, plan)
    assert fd_cheaper_plan(task, cost)[0] == "unsolvable"
    assert fd_cheaper_plan(task, cost + 1)[0] == "solved"


def test_written_task_mentions_every_action() -> None:
    task = ground(*(f(t) for f, t in zip((parse_domain, parse_problem), gripper(2),
                                         strict=True)))
    domain, problem = task_pddl(task)
    assert domain.count("(:action") == len(task.actions)
    assert "(:goal" in problem
