"""Value iteration over the states reachable from the initial state.

Why keep it next to ILAO*: it is the simple, obviously-correct reference. It enumerates
every reachable state (under every action), settles dead ends exactly by a backward
search from the goals, and then sweeps Gauss–Seidel backups over all states until the
largest change is below ``epsilon`` and the greedy policy has no trap. Tests compare
ILAO*'s values with it; on tasks with up to some ten thousand reachable states it is also
a practical solver.
"""

from __future__ import annotations

from xaip.planning.mdp.explicit import EXPANDED, TIP, ExplicitGraph


def value_iteration(graph: ExplicitGraph, epsilon: float) -> tuple[bool, int]:
    """Enumerate the reachable states into ``graph`` and solve them.

    Returns ``(converged, sweeps)``; ``converged`` is ``False`` if the budget ran out.
    """
    start = graph.task.init
    graph.generate(start)
    queue = [start]
    queued = {start}
    head = 0
    complete = True
    while head < len(queue):
        state = queue[head]
        head += 1
        if graph.kind[state] != TIP:
            continue
        if not graph.clock.charge():
            complete = False
            break
        graph.expand(state)
        if graph.kind[state] == EXPANDED:
            for _, _, succs, _ in graph.trans[state]:
                for succ in succs:
                    if succ not in queued:
                        queued.add(succ)
                        queue.append(succ)
    graph.exact_dead_ends()
    if complete:
        graph.dead_ends_exact = True
    order = [s for s in reversed(queue[:head]) if graph.kind[s] == EXPANDED]
    sweeps = 0
    while True:
        sweeps += 1
        residual = 0.0
        for state in order:
            if graph.kind[state] == EXPANDED:
                change = graph.backup(state)
                if change > residual:
                    residual = change
        if graph.clock.out_of_time():
            return False, sweeps
        expanded = [s for s in order if graph.kind[s] == EXPANDED]
        trapped = graph.fix_traps(expanded)
        if not trapped and residual < epsilon:
            return complete, sweeps
