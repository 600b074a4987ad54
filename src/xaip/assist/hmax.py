"""h_max, written for the checker: an admissible estimate that keeps its optimality proofs
fast (a blind uniform-cost search took over a minute on the RADAR firefighting task).

Why its own code and not the search's heuristics: the checker must share no search with the
answer it checks. h_max (Bonet and Geffner) is the cost of the most expensive goal fact in
the delete relaxation, where a fact costs the cheapest achiever's cost plus its most
expensive precondition; it never overestimates, so A* with it proves optimality, and an
infinite value proves a state is a dead end. Negative conditions are dropped (a relaxation).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from xaip.planning.task import GroundAction, State, Task, bits

INFINITE = float("inf")


class HMax:
    """h_max of ``task``'s goal over the actions ``actions`` with unit or declared costs."""

    def __init__(self, task: Task, actions: Sequence[GroundAction]) -> None:
        self.goal = list(bits(task.goal))
        self.units: list[tuple[tuple[int, ...], tuple[int, ...], int]] = []
        for action in actions:
            cost = action.cost  # priced by the grounder (planning.semantics)
            self.units.append((tuple(bits(action.pre)), tuple(bits(action.add)), cost))
            for effect in action.conditional:
                self.units.append((tuple(bits(action.pre | effect.cond_pos)),
                                   tuple(bits(effect.add)), cost))
        self.needing: dict[int, list[int]] = {}
        for index, (pre, _, _) in enumerate(self.units):
            for fact in pre:
                self.needing.setdefault(fact, []).append(index)

    def __call__(self, state: State) -> float:
        cost: dict[int, float] = {}
        queue: list[tuple[float, int]] = []
        for fact in bits(state):
            cost[fact] = 0
            queue.append((0, fact))
        missing = [len(pre) for pre, _, _ in self.units]
        for pre, add, price in self.units:
            if not pre:
                for fact in add:
                    if price < cost.get(fact, INFINITE):
                        cost[fact] = price
                        heapq.heappush(queue, (price, fact))
        heapq.heapify(queue)
        done: set[int] = set()
        while queue:
            value, fact = heapq.heappop(queue)
            if fact in done or value > cost.get(fact, INFINITE):
                continue
            done.add(fact)
            for index in self.needing.get(fact, ()):
                missing[index] -= 1
                if missing[index] == 0:
                    pre, add, price = self.units[index]
                    reach = max(cost[f] for f in pre) + price
                    for other in add:
                        if reach < cost.get(other, INFINITE):
                            cost[other] = reach
                            heapq.heappush(queue, (reach, other))
        return max((cost.get(f, INFINITE) for f in self.goal), default=0)
