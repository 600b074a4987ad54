"""The generic controlled-observability search (book §4.1.2, Algorithm 3 with its
optimisation; L03).

A COPP is a planning task, an observer's sensor model and candidate goals. Its solutions
are plans whose *observer's* final belief passes a goal test (few goals: legible; many:
ambiguous; few or many similar plans: plan legible / diverse). The search runs greedy
best-first in the joint space of (true state, observer belief). Each node keeps the full
belief ``b`` (the book's optimisation), so goal tests are exact at every Δ.

What Δ does here. Duplicate detection decides which paths are explored; the book keys the
closed list on Δ-sized *approximate beliefs* ``b_Δ ⊆ b`` that contain the true state, and
raises Δ in an outer loop. We keep exactly that semantics without generating one child per
combination: a node is pruned when *every* Δ-combination of its belief that contains the
true state was already expanded at no greater cost. A belief with at most Δ states is
keyed by itself. With Δ = 1 this is classical duplicate detection on the true state; with
Δ ≥ |b| it is exact duplicate detection on (s, b). (Beliefs with more than
``max_combinations`` combinations are keyed by themselves, which prunes less and is always
safe.) A prune is *inexact* when no node with the very same belief was expanded no worse:
some path was cut only because an approximate belief matched.

Termination, completeness and soundness (Proposition 1). An iteration in which no node was
pruned through a proper sub-belief explored every (s, b[, history]) reachable within the
cost bound with exact duplicate detection that reopens a key reached more cheaply (or, under
a step horizon, in fewer steps), so if it fails there is no
solution and the search answers ``unsolvable``; otherwise Δ grows by one. Beliefs are
finite, so Δ reaches the largest belief after finitely many iterations. A returned node
passed the goal test, which is evaluated on its full belief (sound). Goal tests that look
at the whole observation history (plan legibility and obfuscation, through the BPS) set
``history=True`` so that the key also holds the token sequence; those need a cost bound to
be finite, as the book says.

Cheapest plans (``exact=True``). The Δ-approximation keeps the search small but it is not
cost-optimal: at Δ = 1 a node is pruned when its *true state* was expanded no worse under
another belief, and the cheapest passing path may run through exactly such a node (found by
the differential tests: a cost-5 2-ambiguous plan returned where a cost-3 one exists,
because the cost-3 path revisits a state first reached, more cheaply, with a smaller
belief). An iteration that finds a plan is returned at once, so growing Δ only on failure
never repairs this. With ``exact=True`` the closed list is keyed on the full (state,
belief[, history]) and, without a heuristic, the open list is ordered by cost: a
uniform-cost search whose first passing node is a cheapest passing plan within the bounds
(the goal test depends only on what the key holds; under a horizon a node is pruned only
by one expanded no costlier *and* no deeper). One iteration, no Δ.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from math import comb
from typing import Any

from xaip.observers.beliefs import Belief, BeliefTracker
from xaip.observers.sensors import Token
from xaip.planning.task import GroundAction, State, Task
from xaip.runtime import Budget, BudgetClock, Status


class Node:
    """A search node: true state, full belief, the step that led here, and its cost."""

    __slots__ = ("state", "belief", "parent", "action", "token", "g", "depth", "history")

    def __init__(self, state: State, belief: Belief, parent: Node | None, action: int | None,
                 token: Token | None, g: int, history: tuple[Token, ...] | None) -> None:
        self.state = state
        self.belief = belief
        self.parent = parent
        self.action = action
        self.token = token
        self.g = g
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.history = history

    def _chain(self) -> list[Node]:
        chain = []
        node: Node | None = self
        while node is not None:
            chain.append(node)
            node = node.parent
        chain.reverse()
        return chain

    def plan(self) -> tuple[int, ...]:
        """The action indices from the root to here."""
        return tuple(n.action for n in self._chain()[1:] if n.action is not None)

    def tokens(self) -> tuple[Token, ...]:
        return tuple(n.token for n in self._chain()[1:] if n.token is not None)

    def beliefs(self) -> tuple[Belief, ...]:
        """The belief sequence ``b_0 .. b_n`` along the path."""
        return tuple(n.belief for n in self._chain())

    def approximate(self, delta: int) -> tuple[State, ...]:
        """A Δ-sized approximate belief: the true state and the Δ − 1 smallest others
        (the deterministic representative heuristics evaluate, as in the book's ``b_Δ``)."""
        others = sorted(s for s in self.belief if s != self.state)
        return (self.state, *others[: max(0, delta - 1)])


GoalTest = Callable[[Node], bool]
#: A heuristic sees the node and the current Δ; ``math.inf`` prunes the node (dead end).
NodeHeuristic = Callable[[Node, int], float]


@dataclass(frozen=True)
class SearchOutcome:
    """What :func:`copp_search` found: a goal node (or ``None``) and its effort."""

    status: Status
    node: Node | None
    delta: int
    stats: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    #: Exact duplicate detection and cost order: a found plan is a cheapest passing one.
    cheapest: bool = False

    def plan(self, task: Task) -> tuple[GroundAction, ...]:
        return () if self.node is None else tuple(task.actions[i] for i in self.node.plan())


def _keys(state: State, belief: Belief, delta: int, history: Any,
          max_combinations: int) -> list[Any]:
    """The closed-list keys of a node at ``delta``: (true state, approximate belief,
    history) for every ``min(Δ, |b|)``-subset of the belief that holds the true state.

    A belief with more such subsets than ``max_combinations`` is keyed by itself (finer,
    so it prunes less: always safe)."""
    if len(belief) <= delta or comb(len(belief) - 1, delta - 1) > max_combinations:
        return [(state, belief, history)]
    others = sorted(s for s in belief if s != state)
    return [(state, frozenset((state, *c)), history)
            for c in itertools.combinations(others, delta - 1)]


#: A closed-list entry: the cost and depth a node was expanded at, and its full belief.
Mark = tuple[int, int, Belief]


def copp_search(tracker: BeliefTracker, goal_test: GoalTest,
                heuristic: NodeHeuristic | None = None, cost_bound: int | None = None,
                budget: Budget | BudgetClock | None = None, history: bool = False,
                delta_start: int = 1, max_combinations: int = 256,
                max_depth: int | None = None,
                on_iteration: Callable[[int, dict[str, int]], None] | None = None,
                exact: bool = False) -> SearchOutcome:
    """Greedy best-first COPP search with the outer loop over Δ.

    ``goal_test(node)`` decides solutions; ``heuristic(node, delta)`` orders the open list
    (ties broken by cost, then age; blind by default, which makes each iteration a
    uniform-cost search). ``cost_bound`` prunes plans costing more, ``max_depth`` plans
    with more steps (a horizon). ``history`` keys nodes
    on their token sequence too (needed when the goal test depends on the whole belief
    sequence). One node of ``budget`` is one expansion. ``exact`` keys the closed list on
    the full belief (no Δ); with no ``heuristic`` the result then claims ``cheapest``
    (module docstring).
    """
    task = tracker.task
    clock = budget if isinstance(budget, BudgetClock) else (budget or Budget()).start()
    started = time.perf_counter()
    # grounding priced every action by xaip.planning.semantics (declared costs only under
    # the total-cost metric, else 1), so the search reads the price off the action
    costs = [int(a.cost) for a in task.actions]
    cheapest = exact and heuristic is None
    stats = {"expanded": 0, "generated": 0, "iterations": 0, "inexact_prunes": 0,
             "max_belief": 0}
    delta = max(1, delta_start)
    tie = itertools.count()
    root = Node(task.init, tracker.initial, None, None, None, 0, () if history else None)
    while True:
        stats["iterations"] += 1
        closed: dict[Any, list[Mark]] = {}
        inexact = 0
        open_list: list[tuple[float, int, int, Node]] = []
        h0 = heuristic(root, delta) if heuristic else 0.0
        if not math.isinf(h0):
            heapq.heappush(open_list, (h0, 0, next(tie), root))
        while open_list:
            _, _, _, node = heapq.heappop(open_list)
            stats["max_belief"] = max(stats["max_belief"], len(node.belief))
            if goal_test(node):
                return SearchOutcome(Status.SOLVED, node, delta, _final(stats, tracker),
                                     time.perf_counter() - started, cheapest)
            keys = ([(node.state, node.belief, node.history)] if exact else
                    _keys(node.state, node.belief, delta, node.history, max_combinations))
            mark = (node.g, node.depth if max_depth is not None else 0, node.belief)
            if all(_dominated(closed.get(k), mark) for k in keys):
                # exact when a node with this very belief was expanded no worse
                if not _dominated(closed.get(keys[0]), mark, same_belief=True):
                    inexact += 1
                continue
            for k in keys:
                _close(closed, k, mark)
            if not clock.charge():
                return SearchOutcome(Status.BUDGET_EXHAUSTED, None, delta,
                                     _final(stats, tracker), time.perf_counter() - started)
            stats["expanded"] += 1
            if max_depth is not None and node.depth >= max_depth:
                continue
            for child in _children(tracker, node, costs, cost_bound):
                h = heuristic(child, delta) if heuristic else 0.0
                if math.isinf(h):
                    continue
                stats["generated"] += 1
                heapq.heappush(open_list, (h, child.g, next(tie), child))
        stats["inexact_prunes"] += inexact
        if on_iteration is not None:
            on_iteration(delta, dict(stats))
        if inexact == 0:
            return SearchOutcome(Status.UNSOLVABLE, None, delta, _final(stats, tracker),
                                 time.perf_counter() - started, cheapest)
        delta += 1


def _dominated(marks: list[Mark] | None, mark: Mark, same_belief: bool = False) -> bool:
    """Whether a node reached at ``mark`` adds nothing to the nodes expanded under one key
    (one of them was no costlier and no deeper; with ``same_belief``, one with the same
    belief)."""
    if marks is None:
        return False
    g, d, belief = mark
    return any(mg <= g and md <= d and (not same_belief or mb == belief)
               for mg, md, mb in marks)


def _close(closed: dict[Any, list[Mark]], key: Any, mark: Mark) -> None:
    marks = closed.setdefault(key, [])
    if not _dominated(marks, mark, same_belief=True):
        g, d, belief = mark
        marks[:] = [m for m in marks if not (g <= m[0] and d <= m[1] and m[2] == belief)]
        marks.append(mark)


def _children(tracker: BeliefTracker, node: Node, costs: list[int],
              cost_bound: int | None) -> Iterator[Node]:
    updates: dict[Token, Belief] = {}
    for token, edges in tracker.successors(node.state).items():
        for index, nxt in edges:
            g = node.g + costs[index]
            if cost_bound is not None and g > cost_bound:
                continue
            belief = updates.get(token)
            if belief is None:
                belief = updates[token] = tracker.update(node.belief, token)
            hist = None if node.history is None else (*node.history, token)
            yield Node(nxt, belief, node, index, token, g, hist)


def _final(stats: dict[str, int], tracker: BeliefTracker) -> dict[str, int]:
    out = dict(stats)
    out["tracked_states"] = tracker.expanded
    return out
