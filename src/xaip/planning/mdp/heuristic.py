"""Admissible estimates for SSP search, computed on the all-outcomes determinisation.

Why h_max: every run of any policy that reaches the goal is a plan of the all-outcomes
determinisation, so the cost of that plan — and therefore its delete-relaxed lower bound
h_max — bounds the cost of the run from below. A run that ends in a dead end instead pays
the dead-end penalty ``D``, so ``min(h_max, D)`` is admissible for the penalised SSP. And
h_max is infinite exactly when the goal is unreachable even in the relaxation, a cheap,
sound dead-end test.

We compute h_max by layers of the relaxed planning graph (a fact's layer is the fewest
parallel relaxed steps that reach it) with bitmask operations, and multiply the goal's
layer by the smallest step cost: with unit costs that *is* h_max, with other costs it is a
lower bound on it (each layer needs one more action, which costs at least the minimum).
Negative preconditions and negative goals are ignored, as in any delete relaxation.
"""

from __future__ import annotations

import math

from xaip.planning.mdp.task import ProbabilisticTask
from xaip.planning.task import State, bits

INFINITY = math.inf


class RelaxedLayers:
    """``h(state)``: layered h_max of the all-outcomes determinisation, memoised."""

    def __init__(self, ptask: ProbabilisticTask, memo_limit: int = 1_000_000) -> None:
        self.goal = ptask.goal
        relaxed: dict[tuple[int, int], None] = {}
        min_cost = INFINITY
        for action in ptask.actions:
            for outcome in action.outcomes:
                min_cost = min(min_cost, outcome.cost)
                if outcome.add & ~action.pre:
                    relaxed[(action.pre, outcome.add & ~action.pre)] = None
                for effect in outcome.conditional:
                    pre = action.pre | effect.cond_pos
                    if effect.add & ~pre:
                        relaxed[(pre, effect.add & ~pre)] = None
        self.actions: list[tuple[int, int]] = list(relaxed)
        self.unit = 1.0 if min_cost == INFINITY else float(min_cost)
        self.memo: dict[State, float] = {}
        self.memo_limit = memo_limit
        # Counter-based propagation: an action fires once its last precondition is reached.
        self.needs = [pre.bit_count() for pre, _ in self.actions]
        self.free_adds = 0
        users: list[list[int]] = [[] for _ in ptask.facts]
        for j, (pre, add) in enumerate(self.actions):
            if not pre:
                self.free_adds |= add
            for fact in bits(pre):
                users[fact].append(j)
        self.users = users
        self.adds = [add for _, add in self.actions]

    def layers(self, state: State) -> float:
        """The goal's layer in the relaxed planning graph from ``state`` (inf if never)."""
        goal = self.goal
        if state & goal == goal:
            return 0.0
        needs = self.needs.copy()
        users = self.users
        adds = self.adds
        reached = state
        # ``current`` and ``following`` are masks of the facts first reached in the
        # current and the next layer; bits are peeled off inline (hot loop).
        current = state
        following = self.free_adds & ~state  # no preconditions: they fire in layer 1
        reached |= following
        level = 0
        while True:
            while current:
                low = current & -current
                current ^= low
                for j in users[low.bit_length() - 1]:
                    needs[j] -= 1
                    if needs[j] == 0:
                        new = adds[j] & ~reached
                        if new:
                            reached |= new
                            following |= new
            level += 1
            if reached & goal == goal:
                return float(level)
            if not following:
                break
            current, following = following, 0
        return INFINITY

    def __call__(self, state: State) -> float:
        value = self.memo.get(state)
        if value is None:
            value = self.layers(state) * self.unit
            if len(self.memo) < self.memo_limit:
                self.memo[state] = value
        return value


class Blind:
    """``h = 0`` except on states without any applicable action (sound dead ends)."""

    def __init__(self, ptask: ProbabilisticTask) -> None:
        self.task = ptask

    def __call__(self, state: State) -> float:
        if self.task.is_goal(state):
            return 0.0
        return 0.0 if self.task.applicable_ids(state) else INFINITY
