"""Exact solution of the linear systems of policy evaluation.

Why not iterate: values of policies that loop (elevators, tireworld's tyre change) converge
only geometrically under repeated backups, and with large dead-end penalties the error
starts large. ``x = r + P x`` over the transient states of a policy graph is solved
exactly instead, one strongly connected component at a time (most are single states),
by sparse Gaussian elimination.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xaip.planning.mdp.reachability import strongly_connected_components
from xaip.planning.task import State


def solve_linear(
    states: Sequence[State],
    succ: Mapping[State, Mapping[State, float]],
    fixed: Mapping[State, float],
    reward: Mapping[State, float],
) -> dict[State, float]:
    """Solve ``x(s) = reward(s) + sum_t P(s,t) x(t)`` with ``x`` given on ``fixed``.

    The caller guarantees that from every unfixed state a fixed one is reached with
    probability 1, so each component's system is non-singular. Components are solved
    sinks first, so values leaving a component are always known.
    """
    values: dict[State, float] = dict(fixed)
    graph = {s: [t for t in succ.get(s, {}) if t not in fixed] for s in states if s not in fixed}
    for component in strongly_connected_components(list(graph), graph):
        members = set(component)
        rows: dict[State, dict[State, float]] = {}
        const: dict[State, float] = {}
        for s in component:
            b = reward.get(s, 0.0)
            row: dict[State, float] = {}
            for t, p in succ.get(s, {}).items():
                if t in members:
                    row[t] = row.get(t, 0.0) + p
                else:
                    b += p * values[t]
            rows[s] = row
            const[s] = b
        values.update(_eliminate(component, rows, const))
    return values


def _eliminate(
    order: list[State], rows: dict[State, dict[State, float]], const: dict[State, float]
) -> dict[State, float]:
    """Sparse Gaussian elimination for ``x_i = const_i + sum_j rows[i][j] x_j``.

    No pivoting is needed: ``I - P`` of a transient substochastic ``P`` is an M-matrix,
    whose elimination is stable in any order.
    """
    users: dict[State, set[State]] = {s: set() for s in order}
    for s, row in rows.items():
        for t in row:
            users[t].add(s)
    done: set[State] = set()
    for v in order:
        done.add(v)
        row = rows[v]
        self_weight = row.pop(v, 0.0)
        scale = 1.0 / (1.0 - self_weight)
        for t in row:
            row[t] *= scale
        const[v] *= scale
        # Substitute x_v into every equation not yet eliminated that mentions it.
        for u in users.pop(v):
            if u in done:
                continue
            urow = rows[u]
            weight = urow.pop(v, 0.0)
            if not weight:
                continue
            const[u] += weight * const[v]
            for t, w in row.items():
                if t not in urow:
                    users[t].add(u)
                urow[t] = urow.get(t, 0.0) + weight * w
    values: dict[State, float] = {}
    for v in reversed(order):
        x = const[v]
        for t, w in rows[v].items():
            x += w * values[t]
        values[v] = x
    return values
