"""Planning in two models at once (F08): plans valid in both the robot's and the person's
model, cheapest in the person's model first, then in the robot's (lexicographic costs).

Why: with the cost-difference distance and the person's optimal plans as the expected set,
the most explicable robot plan is exactly the plan valid in both models with the lowest
cost in the person's model (a plan the person's model cannot execute has infinite IE);
among those, the decision function Λ* takes the cheapest for the robot (book ch. 3 §3.4).

How: uniform-cost search over product states ``(s_R, s_H)``. A robot action is applicable
when it is applicable in ``s_R`` and an action of the same name is applicable in ``s_H``.
As in plan enumeration (:mod:`xaip.planning.search.enumerate`) a plan ends at the first
state where the robot's goal holds: such a state is a solution if the person's goal holds
too and a dead end otherwise. With a robot cost bound the robot's cost so far joins the
state, so the search stays exact (and finite) under the bound.

``step`` replaces the person's side of a move (default: her action's effect on ``s_H``);
balanced planning's watched execution (:mod:`xaip.balanced.epistemic`) updates her beliefs
with what she sees and carries a mask of facts the plan used, which joins the state.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass

from xaip.explicable.problem import ExplicableProblem
from xaip.planning.search.successors import Successors
from xaip.planning.task import GroundAction, State
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock, as_clock


@dataclass(frozen=True)
class ProductAnswer:
    """The product search's answer; ``plan`` is ``None`` when no plan is valid in both."""

    status: Status  # solved, unsolvable or budget_exhausted
    plan: tuple[GroundAction, ...] | None
    human_cost: int | None
    robot_cost: int | None
    expanded: int


#: The person's side of one product step: ``(robot action, s_R, next s_R, s_H, her
#: action, memo) -> (next s_H, next memo)``; ``memo`` is extra state (0 when unused).
HumanStep = Callable[[GroundAction, State, State, State, GroundAction, int],
                     tuple[State, int]]


def product_search(problem: ExplicableProblem, max_cost: int | None = None,
                   budget: Budget | BudgetClock | None = None,
                   step: HumanStep | None = None) -> ProductAnswer:
    """The plan valid in both models minimising (person's cost, robot's cost)."""
    clock = as_clock(budget)
    robot, human = problem.robot_task, problem.human_task
    succ = Successors(robot)
    names = [action.name for action in robot.actions]
    human_ids = human.action_index
    Key = tuple[int, int, int, int]  # (s_R, s_H, memo, robot g or 0)
    start: Key = (robot.init, human.init, 0, 0)
    # (human g, robot g, tie, key)
    queue: list[tuple[int, int, int, Key]] = [(0, 0, 0, start)]
    parent: dict[Key, tuple[Key, int] | None] = {start: None}
    best: dict[Key, tuple[int, int]] = {start: (0, 0)}
    closed: set[Key] = set()
    counter = 1
    expanded = 0
    while queue:
        hg, rg, _, key = heapq.heappop(queue)
        if key in closed:
            continue
        closed.add(key)
        s_r, s_h, memo, _ = key
        if robot.is_goal(s_r):
            if human.is_goal(s_h):
                return ProductAnswer(Status.SOLVED, _path(parent, key, robot.actions), hg, rg,
                                     expanded)
            continue
        if not clock.charge():
            return ProductAnswer(Status.BUDGET_EXHAUSTED, None, None, None, expanded)
        expanded += 1
        for index, next_r, cost in succ(s_r):
            g_r = rg + cost
            if max_cost is not None and g_r > max_cost:
                continue
            variant = next((i for i in human_ids.get(names[index], ())
                            if human.actions[i].applicable(s_h)), None)
            if variant is None:
                continue
            move = human.actions[variant]
            if step is None:
                child: Key = (next_r, move.apply(s_h), 0, g_r if max_cost is not None else 0)
            else:
                next_h, next_memo = step(robot.actions[index], s_r, next_r, s_h, move, memo)
                child = (next_r, next_h, next_memo, g_r if max_cost is not None else 0)
            label = (hg + move.cost, g_r)
            if child in closed or best.get(child, (label[0] + 1, 0)) <= label:
                continue
            best[child] = label
            parent[child] = (key, index)
            heapq.heappush(queue, (label[0], label[1], counter, child))
            counter += 1
    return ProductAnswer(Status.UNSOLVABLE, None, None, None, expanded)


def _path(parent: dict, key: tuple[int, ...], actions: tuple[GroundAction, ...]
          ) -> tuple[GroundAction, ...]:
    out = []
    link = parent[key]
    while link is not None:
        key, index = link
        out.append(actions[index])
        link = parent[key]
    return tuple(reversed(out))
