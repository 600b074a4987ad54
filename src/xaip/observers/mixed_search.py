"""The bounded ⟨k, j⟩ search for mixed observers (book §9.2.2.2).

Greedy best-first search over nodes (robot state, every observer's full belief). The goal
test: the robot's state satisfies the true goal, every adversary's final belief keeps at
least ``k`` candidate goals, every friend's at most ``j``.

Δ-approximation (book Algorithm 3, as in COPP): duplicate detection looks at each belief
only through a Δ-subset of it that always contains the robot's true state. Small Δ prunes
hard (fast, but may discard a path whose full belief differed); when an iteration pruned
some node only because of the approximation and found nothing, Δ grows and the search
restarts. Once Δ reaches the largest belief seen, the key is the full belief and the
search is exhaustive over (state, beliefs, depth ≤ horizon), so it is complete: it returns
``unsolvable`` only when no plan within the horizon meets the bounds.

Deviation from the book, and why: the book enumerates *every* Δ-sized combination of the
belief as a separate node. We use one canonical Δ-subset (the true state plus the Δ − 1
smallest other state indices). Both are exact at the final Δ; the combinations only change
which duplicates are kept at smaller Δ, and one subset keeps the node count per iteration
at most that of the exact search.

Heuristic (in the spirit of the book's two terms, on exact distances in the listed state
space): steps from the robot's state to the true goal, plus for each adversary the steps
until its belief could hold ``k`` goals (the k-th smallest over goals of the distance from
its nearest belief state), plus for each friend the number of goals over ``j`` its belief
still holds.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any

from xaip.observers.mixed import StateSpace
from xaip.runtime import BudgetClock, Status


def _approx(belief: frozenset[int], true_state: int, delta: int) -> tuple[int, ...]:
    others = sorted(belief - {true_state})
    return (true_state, *others[: max(0, delta - 1)])


def kj_search(space: StateSpace, k: int, j: int, horizon: int | None, clock: BudgetClock
              ) -> tuple[Status, tuple[int, ...] | None, dict[str, Any]]:
    """First plan (transition indices) meeting ⟨k, j⟩: (status, path, stats)."""
    inputs = space.inputs
    n_obs = len(inputs.observers)
    roles = [o.role for o in inputs.observers]
    n_goals = len(inputs.goal_masks)
    dist = [space.distances_to(g) for g in range(n_goals)]
    to_goal = dist[inputs.true_goal]
    stats: dict[str, Any] = {"nodes": 0, "delta_iterations": 0}

    def goals(belief: frozenset[int]) -> int:
        return len(space.goals_of(belief))

    def meets(beliefs: tuple[frozenset[int], ...]) -> bool:
        for i, belief in enumerate(beliefs):
            count = goals(belief)
            if roles[i] == "adversary" and count < k:
                return False
            if roles[i] == "friend" and count > j:
                return False
        return True

    def h(state: int, beliefs: tuple[frozenset[int], ...]) -> float:
        value = to_goal[state]
        for i, belief in enumerate(beliefs):
            if roles[i] == "adversary":
                reach = sorted(min(dist[g][s] for s in belief) for g in range(n_goals))
                value += reach[k - 1]
            else:
                value += max(0, goals(belief) - j)
        return value

    start = (space.initial, tuple(space.initial_beliefs))
    delta = 1
    largest = max(len(b) for b in space.initial_beliefs)
    while True:
        stats["delta_iterations"] += 1
        counter = itertools.count()
        opened: list[tuple[float, int, int, int, tuple[frozenset[int], ...],
                           tuple[int, ...]]] = [(h(*start), 0, next(counter), start[0],
                                                 start[1], ())]
        best_depth: dict[tuple[Any, ...], int] = {}
        exact: dict[tuple[Any, ...], int] = {}
        approximated = False
        while opened:
            _, depth, _, state, beliefs, path = heapq.heappop(opened)
            if not clock.charge(1):
                return Status.BUDGET_EXHAUSTED, None, stats
            stats["nodes"] += 1
            if to_goal[state] == 0 and meets(beliefs):
                stats["delta"] = delta
                return Status.FOUND, path, stats
            key = (state, tuple(_approx(b, state, delta) for b in beliefs))
            full = (state, beliefs)
            if key in best_depth and best_depth[key] <= depth:
                if exact.get(full, depth + 1) > depth:
                    approximated = True  # a different full belief was cut off here
                continue
            best_depth[key] = depth
            exact[full] = min(exact.get(full, depth), depth)
            if horizon is not None and depth >= horizon:
                continue
            for t in space.outgoing[state]:
                nxt_state = space.transitions[t][2]
                if horizon is not None and to_goal[nxt_state] > horizon - depth - 1:
                    continue
                nxt = tuple(space.update(i, beliefs[i], space.tokens[i][t])
                            for i in range(n_obs))
                largest = max(largest, *(len(b) for b in nxt))
                heapq.heappush(opened, (h(nxt_state, nxt), depth + 1, next(counter),
                                        nxt_state, nxt, (*path, t)))
        if not approximated or delta >= largest:
            stats["delta"] = delta
            return Status.UNSOLVABLE, None, stats
        delta += 1
