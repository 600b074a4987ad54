"""The blind heuristic: 0 at goal states, the cheapest action cost elsewhere.

Why not plain 0: a non-goal state needs at least one more action, so the cheapest action
cost is still admissible (and consistent) and breaks ties in favour of goal states for free.
It never detects dead ends.
"""

from __future__ import annotations

from xaip.planning.task import Task


class Blind:
    """Callable blind heuristic for one task."""

    name = "blind"
    admissible = True

    def __init__(self, task: Task) -> None:
        self.goal = task.goal
        self.goal_neg = task.goal_neg
        self.min_cost = min((action.cost for action in task.actions), default=0)

    def __call__(self, state: int) -> int:
        if state & self.goal == self.goal and not state & self.goal_neg:
            return 0
        return self.min_cost
