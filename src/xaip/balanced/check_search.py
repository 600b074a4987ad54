"""The checker's own optimal planner: A* with LM-cut on any grounded task.

Why its own: the checker must not share the search that found an answer. MEGA* and
model-space search get every ``C*`` from the engines' A* (:mod:`xaip.planning.engines`);
the checker's ``C*`` of the robot's model, of the person's updated model (both on fresh
groundings) and of every edit set in the optimality proof comes from the loop below. It
shares the planning core's successor generator and its LM-cut values (an admissible
estimate; the C core's when built, else the Python LM-cut). Uniform-cost search, which
the checker used before, needed more than 120 s for one logistics MRP whose optimum is 27
(issue 21); this A* needs well under a second there.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from xaip.errors import BudgetExhausted
from xaip.planning.search.successors import Successors
from xaip.planning.task import State, Task
from xaip.runtime.budget import BudgetClock

#: The admissible estimate of every search of the checker (the core's, as MEGA*'s bounds).
PROOF_HEURISTIC = "lmcut"
INF = float("inf")

Estimate = Callable[[State], float]


def estimate(task: Task, clock: BudgetClock) -> Estimate:
    """LM-cut of ``task`` (admissible; ``INF`` on a proven dead end), cached per state, in
    C when the core is built (the Python LM-cut otherwise)."""
    from xaip.planning.engines.compiled import compile_task, core_available
    from xaip.planning.heuristics import make_heuristic

    cache: dict[State, float] = {}
    core = compile_task(task) if core_available() else None
    size = 8 * (task.num_facts // 64 + 1)
    python = None if core is not None else make_heuristic(PROOF_HEURISTIC, task, clock)

    def value(state: State) -> float:
        found = cache.get(state)
        if found is None:
            if core is not None:
                raw = core.evaluate(PROOF_HEURISTIC, state.to_bytes(size, "little"))
                found = INF if raw is None else float(raw)
            else:
                assert python is not None
                found = float(python(state))
            cache[state] = found
        return found

    return value


class Unfinished(Exception):
    """The search stopped at its caller's expansion limit (not the budget's): no answer."""


def optimal_plan(task: Task, h: Estimate, clock: BudgetClock,
                 max_expansions: int | None = None) -> tuple[tuple[int, ...], int] | None:
    """An optimal plan of ``task`` (action indices) and its cost (``None``: no plan) by A*
    with the admissible ``h``, reopening states (consistency is not assumed, so the first
    goal popped is optimal all the same), one budget charge per expansion;
    :class:`BudgetExhausted` when the budget runs out, :class:`Unfinished` after
    ``max_expansions`` (a caller's choice of strategy, never an answer)."""
    if h(task.init) == INF:
        return None
    moves = Successors(task)
    best: dict[State, int] = {task.init: 0}
    parent: dict[State, tuple[State, int]] = {}
    # ties on f go to the deeper node: the last f layer is crossed, not swept
    heap: list[tuple[float, int, int, State]] = [(h(task.init), 0, 0, task.init)]
    counter = 0
    while heap:
        _, minus_g, _, state = heapq.heappop(heap)
        g = -minus_g
        if best.get(state, -1) < g:
            continue  # reached more cheaply since it was queued
        if task.is_goal(state):
            steps: list[int] = []
            while state in parent:
                state, index = parent[state]
                steps.append(index)
            return tuple(reversed(steps)), g
        if not clock.charge():
            raise BudgetExhausted("budget exhausted", phase="checking")
        if max_expansions is not None:
            max_expansions -= 1
            if max_expansions < 0:
                raise Unfinished
        for index, child, cost in moves(state):
            g_child = g + cost
            if g_child >= best.get(child, g_child + 1):
                continue
            rest = h(child)
            if rest == INF:
                continue
            best[child] = g_child
            parent[child] = (state, index)
            counter += 1
            heapq.heappush(heap, (g_child + rest, -g_child, counter, child))
    return None


def optimum(task: Task, h: Estimate, clock: BudgetClock,
            max_expansions: int | None = None) -> int | None:
    """``C*`` of ``task`` (``None``: no plan), see :func:`optimal_plan`."""
    found = optimal_plan(task, h, clock, max_expansions)
    return None if found is None else found[1]
