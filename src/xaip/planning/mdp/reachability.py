"""Reachable state spaces and graph utilities for probabilistic tasks.

Why explicit enumeration: value iteration, dead-end analysis and policy evaluation all
work on the finite graph of states reachable from the initial state (under every action,
or under one policy). Goal states are absorbing, so we never expand them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.planning.mdp.budgets import as_clock, spend
from xaip.planning.mdp.task import ProbabilisticTask
from xaip.planning.task import State
from xaip.runtime.budget import Budget, BudgetClock


@dataclass(frozen=True)
class ReachableStates:
    """States reachable from ``start`` by any outcomes of any actions, in BFS order.

    ``complete`` is ``False`` when the budget ran out before the enumeration finished.
    """

    start: State
    states: tuple[State, ...]
    complete: bool

    def __len__(self) -> int:
        return len(self.states)

    def to_dict(self) -> dict[str, Any]:
        return {"states": len(self.states), "complete": self.complete}


def reachable_states(
    ptask: ProbabilisticTask,
    start: State | None = None,
    budget: Budget | BudgetClock | None = None,
    expand: Callable[[State], bool] | None = None,
) -> ReachableStates:
    """Enumerate the states reachable from ``start`` (default: the initial state).

    Goal states are not expanded; neither is any state for which ``expand`` returns
    ``False`` (e.g. recognised dead ends). Each expanded state charges one node of
    ``budget`` (or of a clock shared with other phases).
    """
    first = ptask.init if start is None else start
    clock = as_clock(budget)
    seen: dict[State, None] = {first: None}
    queue = [first]
    head = 0
    complete = True
    while head < len(queue):
        state = queue[head]
        head += 1
        if ptask.is_goal(state) or (expand is not None and not expand(state)):
            continue
        if not spend(clock):
            complete = False
            break
        for i in ptask.applicable_ids(state):
            for outcome in ptask.actions[i].outcomes:
                succ = outcome.apply(state)
                if succ not in seen:
                    seen[succ] = None
                    queue.append(succ)
    return ReachableStates(first, tuple(seen), complete)


def strongly_connected_components(
    nodes: Sequence[State], successors: Mapping[State, Iterable[State]]
) -> list[list[State]]:
    """Tarjan's algorithm (iterative). Components come out in reverse topological order:
    every edge leaving a component points into a component listed earlier."""
    index: dict[State, int] = {}
    low: dict[State, int] = {}
    on_stack: set[State] = set()
    stack: list[State] = []
    components: list[list[State]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[State, list[State], int]] = []
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work.append((root, list(successors.get(root, ())), 0))
        while work:
            node, succs, position = work[-1]
            if position < len(succs):
                work[-1] = (node, succs, position + 1)
                succ = succs[position]
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, list(successors.get(succ, ())), 0))
                elif succ in on_stack:
                    low[node] = min(low[node], index[succ])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[State] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components


def backward_closure(
    targets: Iterable[State], predecessors: Mapping[State, Iterable[State]]
) -> set[State]:
    """``targets`` and every state with a path into them (following ``predecessors``)."""
    closure = set(targets)
    stack = list(closure)
    while stack:
        state = stack.pop()
        for pred in predecessors.get(state, ()):
            if pred not in closure:
                closure.add(pred)
                stack.append(pred)
    return closure
