"""ILAO* (Hansen and Zilberstein 2001): heuristic search for SSPs with loops.

Why ILAO*: the policies we summarise only need the states reachable from the initial
state under the policy, a tiny part of the reachable state space in the IPPC domains
(triangle-tireworld p04 has hundreds of thousands of reachable states, its optimal policy
a few thousand). ILAO* grows the *best partial solution graph* from the initial state:
each iteration walks the greedy graph depth first, expands its unexpanded tips, and backs
up every state of it in post-order. It stops when the greedy graph has no tips, the
largest change of a backup is below ``epsilon``, no greedy action changed and the greedy
policy has no trap; with an admissible heuristic the greedy policy is then optimal within
the tolerance.

When a pass expands nothing but has not converged, the greedy graph (and, if the greedy
policy is trapped, everything the trap can reach) is solved exactly by policy iteration —
the dynamic-programming step of the original LAO* — because plain backups converge only
geometrically on loops and, with a large dead-end penalty, from far away
(:meth:`~xaip.planning.mdp.explicit.ExplicitGraph.solve_region`).
"""

from __future__ import annotations

from xaip.planning.mdp.explicit import EXPANDED, INFINITY, TIP, ExplicitGraph
from xaip.planning.task import State


def ilao_star(graph: ExplicitGraph, epsilon: float) -> tuple[bool, int]:
    """Run ILAO* from the task's initial state on ``graph``.

    Returns ``(converged, iterations)``; ``converged`` is ``False`` if the budget ran out
    or the initial state was proved to have infinite value.
    """
    start = graph.task.init
    graph.generate(start)
    iterations = 0
    stalled = 0
    while True:
        if graph.kind[start] != TIP and graph.kind[start] != EXPANDED:
            return True, iterations  # the initial state is a goal or a dead end
        iterations += 1
        changes = graph.policy_changes
        done, expansions, residual = _iteration(graph, start, epsilon)
        stable = graph.policy_changes == changes
        if not done:
            return False, iterations
        if graph.value[start] == INFINITY:
            return False, iterations
        if graph.clock.out_of_time():
            return False, iterations
        if expansions:
            stalled = 0
            continue
        # Backups of the pass may have switched greedy actions towards unexpanded tips:
        # the greedy graph is then not fully expanded yet.
        if any(graph.kind[s] == TIP for s in graph.greedy_states([start])):
            continue
        # The greedy graph is fully expanded: converged, or solve it exactly.
        trap = graph.find_trap([start])
        if not trap and residual < epsilon and stable:
            return True, iterations
        if graph.solve_region(start):
            stalled = 0
        elif trap:
            graph.raise_trap(trap)
        else:
            # The region is already an exact fixed point; what is left is rounding.
            stalled += 1
            if stalled > 1:
                return True, iterations


def _iteration(graph: ExplicitGraph, start: State, epsilon: float) -> tuple[bool, int, float]:
    """One depth-first pass over the greedy graph: expand tips, back up in post-order.

    Only states marked dirty (a successor's value changed, or just expanded) are backed
    up: a backup of any other state cannot change anything. States are *labelled solved*
    (as in LRTDP) once every greedy successor is solved: values only rise (the heuristic
    is consistent), so the greedy action keeps the least Q-value and the state's value is
    final; later passes skip solved states. Returns ``(within budget, expansions,
    largest change)``.
    """
    kind = graph.kind
    trans = graph.trans
    best = graph.best
    dirty = graph.dirty
    solved = graph.solved
    charge = graph.clock.charge
    expansions = 0
    residual = 0.0
    visited = {start}
    # Post-order visits are pushed as ``~state`` (negative; states are non-negative).
    stack: list[State] = [start]
    clock = graph.clock
    pops = 0
    while stack:
        state = stack.pop()
        pops += 1
        if not pops & 1023 and clock.out_of_time():  # backups of a large graph take time
            return False, expansions, residual
        if state < 0:
            state = ~state
            if kind[state] != EXPANDED:
                continue
            change = 0.0
            if state in dirty:
                change = graph.backup(state)
                if change > residual:
                    residual = change
            graph.try_label(state, change, epsilon)
            continue
        if state in solved:
            continue
        k = kind[state]
        if k == TIP:
            if not charge():
                return False, expansions, residual
            graph.expand(state)
            expansions += 1
            if kind[state] == EXPANDED:
                change = graph.backup(state)
                if change > residual:
                    residual = change
            continue
        if k != EXPANDED:
            continue
        stack.append(~state)
        for succ in trans[state][best[state]][2]:
            if succ not in visited:
                visited.add(succ)
                stack.append(succ)
    return True, expansions, residual
