"""Dead ends: states from which no policy can reach the goal.

Why an exact test: an SSP solver that treats an unrecognised dead end as an ordinary state
keeps raising its value forever (every step costs something and the goal never comes), and
a dead end that is reported has to really be one. A state is a dead end iff the goal is
unreachable from it in the all-outcomes determinisation, i.e. by any sequence of outcomes
of any actions. :class:`DeadEndDetector` decides that by a forward search over all
outcomes, guided by (and pruned with) the relaxed estimate: an infinite estimate proves a
dead end at once, and a search that finds a goal proves every state on its path alive.
Results are memoised, so asking about many states of one region costs one search.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable

from xaip.errors import InputError
from xaip.planning.mdp.budgets import spend
from xaip.planning.mdp.heuristic import INFINITY, RelaxedLayers
from xaip.planning.mdp.task import ProbabilisticTask
from xaip.planning.task import State
from xaip.runtime.budget import BudgetClock


class NoProperPolicy(InputError):  # noqa: N818 - the name says what the user must know
    """The initial state has no proper policy: every policy reaches a dead end (or never
    reaches the goal) with positive probability.

    ``dead_ends`` holds the dead-end states found, each spelled as its true facts.
    """

    def __init__(self, task_name: str, dead_ends: Iterable[str], detail: str = "") -> None:
        self.dead_ends: tuple[str, ...] = tuple(dead_ends)
        shown = "; ".join(self.dead_ends[:3]) if self.dead_ends else "none recorded"
        more = f" (and {len(self.dead_ends) - 3} more)" if len(self.dead_ends) > 3 else ""
        message = (
            f"task '{task_name}' has no proper policy: the goal cannot be reached with "
            f"certainty. Dead-end states found: {len(self.dead_ends)}: {shown}{more}"
        )
        if detail:
            message += f". {detail}"
        super().__init__(message)


class DeadEndDetector:
    """Exact, memoised dead-end test for the states of one probabilistic task."""

    def __init__(
        self,
        ptask: ProbabilisticTask,
        estimate: Callable[[State], float] | None = None,
    ) -> None:
        self.task = ptask
        self.estimate = estimate if estimate is not None else RelaxedLayers(ptask)
        self.dead: set[State] = set()
        self.alive: set[State] = set()

    def is_dead_end(self, state: State, clock: BudgetClock | None = None) -> bool | None:
        """``True`` if the goal is unreachable from ``state``, ``False`` if reachable,
        ``None`` if ``clock`` ran out before the search could tell."""
        task = self.task
        if state in self.dead:
            return True
        if state in self.alive or task.is_goal(state):
            return False
        estimate = self.estimate
        if estimate(state) == INFINITY:
            self.dead.add(state)
            return True
        # Greedy best-first search over all outcomes of all actions.
        parent: dict[State, State | None] = {state: None}
        frontier: list[tuple[float, int, State]] = [(estimate(state), 0, state)]
        counter = 1
        found: State | None = None
        while frontier:
            _, _, current = heapq.heappop(frontier)
            if clock is not None and not spend(clock):
                return None
            for i in task.applicable_ids(current):
                for outcome in task.actions[i].outcomes:
                    succ = outcome.apply(current)
                    if succ in parent or succ in self.dead:
                        continue
                    parent[succ] = current
                    if succ in self.alive or task.is_goal(succ):
                        found = succ
                        break
                    h = estimate(succ)
                    if h == INFINITY:
                        self.dead.add(succ)
                        continue
                    heapq.heappush(frontier, (h, counter, succ))
                    counter += 1
                if found is not None:
                    break
            if found is not None:
                break
        if found is None:
            # Everything reachable from ``state`` was generated and none of it is a goal.
            self.dead.update(parent)
            return True
        node: State | None = found
        while node is not None:
            self.alive.add(node)
            node = parent[node]
        return False

    def dead_ends_among(self, states: Iterable[State]) -> list[State]:
        """The dead ends among ``states`` (exact; no budget)."""
        return [s for s in states if self.is_dead_end(s)]


def is_dead_end(ptask: ProbabilisticTask, state: State) -> bool:
    """Whether the goal is unreachable from ``state`` under every policy."""
    return bool(DeadEndDetector(ptask).is_dead_end(state))


def find_dead_ends(ptask: ProbabilisticTask, states: Iterable[State]) -> list[State]:
    """The dead ends among ``states``, in the given order."""
    return DeadEndDetector(ptask).dead_ends_among(states)
