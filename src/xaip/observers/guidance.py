"""Heuristics that guide the COPP search (book eq. 4.1, 4.2, 9.1 and §9.1.1).

Each combines a classical heuristic towards the true goal from the *true* state with
heuristic distances from the observer's *belief* to the other candidate goals:

* goal legibility (eq. 4.1): ``h(s, G_A) + max_{G ∈ keep} h(b, G) − min_{G ∈ avoid} h(b, G)``
  — reach the true goal while the belief stays far from the goals it must drop. ``keep``
  is the ``j − 1`` confounders currently nearest the belief (the book leaves the choice
  open; nearest is the cheapest set to keep), ``avoid`` the rest;
* goal obfuscation: ``h(s, G_A) + max_{G ∈ decoys} h(b, G)`` over the ``k − 1`` decoys
  nearest the belief (or the ones the caller fixed);
* plan legibility / obfuscation: ``h(s, G_A)`` by default; with ``spread=True`` also the
  BPS terms of eq. 4.2 (``+ max`` pairwise distance: keep look-alikes similar) and eq. 9.1
  (``− min`` pairwise distance: keep them apart), computed on the first ``bps_sample``
  members of each node's BPS (an estimate: the goal tests check the whole BPS).

``h(b, G) = min_{ŝ} h(ŝ, G)`` over the node's belief: the book evaluates it on the
Δ-approximate belief ``b_Δ``; since every node carries its full belief (the book's
optimisation), we use up to ``sample`` states of it (the true state first), because at
Δ = 1 ``b_Δ = {s}`` would make the agent pursue the decoys in its *true* state (measured on
the port: a 3-step plan instead of 2 for secure obfuscation). Belief terms are
capped at ``cap`` so that an unreachable confounder (``h = ∞``) counts as "very far"
without swamping the true-goal term; an unreachable *true* goal prunes the node.
Guidance only: completeness and soundness do not depend on these values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from xaip.errors import InputError
from xaip.observers.beliefs import BeliefTracker, belief_plan_set
from xaip.observers.copp import Node, NodeHeuristic
from xaip.observers.goals import Goal
from xaip.observers.planset import spread as bps_spread
from xaip.planning.heuristics import HEURISTICS, make_heuristic
from xaip.planning.task import State, Task

#: The heuristics the observer searches accept (``blind`` makes each Δ iteration a
#: uniform-cost search, so the first plan found is a cheapest one passing the test).
GUIDANCE = ("blind", "hadd", "hff", "hmax")


class GoalDistance:
    """``h(s, G)`` for any candidate goal, one compiled classical heuristic per goal,
    values cached per (goal, state)."""

    def __init__(self, task: Task, goals: Sequence[Goal], name: str = "hadd") -> None:
        if name not in GUIDANCE or name not in HEURISTICS:
            raise InputError(f"unknown heuristic '{name}' (one of {', '.join(GUIDANCE)})")
        self.name = name
        self._h = {}
        for goal in goals:
            if goal.reachable:
                self._h[goal.name] = make_heuristic(name, replace(task, goal=goal.mask,
                                                                  goal_neg=0))
        self._cache: dict[tuple[str, State], float] = {}

    def __call__(self, state: State, goal: Goal) -> float:
        if self.name == "blind":
            return 0.0
        h = self._h.get(goal.name)
        if h is None:
            return math.inf
        key = (goal.name, state)
        value = self._cache.get(key)
        if value is None:
            value = self._cache[key] = float(h(state))
        return value

    def from_belief(self, states: Sequence[State], goal: Goal) -> float:
        return min((self(s, goal) for s in states), default=math.inf)


def _capped(value: float, cap: float) -> float:
    return cap if math.isinf(value) or value > cap else value


def legibility_heuristic(distance: GoalDistance, goals: Sequence[Goal], true: Goal, j: int,
                         cap: float = 50.0, sample: int = 64) -> NodeHeuristic:
    """Eq. 4.1 with the ``j − 1`` nearest confounders kept."""
    others = [g for g in goals if g.name != true.name]

    def h(node: Node, delta: int) -> float:
        own = distance(node.state, true)
        if math.isinf(own):
            return math.inf
        approx = node.approximate(max(delta, sample))
        far = sorted(_capped(distance.from_belief(approx, g), cap) for g in others)
        keep, avoid = far[: j - 1], far[j - 1:]
        return own + (max(keep) if keep else 0.0) - (min(avoid) if avoid else 0.0)

    return h


def ambiguity_heuristic(distance: GoalDistance, goals: Sequence[Goal], true: Goal, k: int,
                        decoys: Sequence[Goal] | None = None, cap: float = 50.0,
                        sample: int = 64) -> NodeHeuristic:
    """Progress to the true goal plus the worst belief distance to the ``k − 1`` decoys
    (fixed ``decoys``, or the nearest ones at each node)."""
    others = [g for g in goals if g.name != true.name]

    def h(node: Node, delta: int) -> float:
        own = distance(node.state, true)
        if math.isinf(own):
            return math.inf
        approx = node.approximate(max(delta, sample))
        if decoys is not None:
            chosen = [_capped(distance.from_belief(approx, g), cap) for g in decoys]
        else:
            chosen = sorted(_capped(distance.from_belief(approx, g), cap)
                            for g in others)[: k - 1]
        return own + (max(chosen) if chosen else 0.0)

    return h


def true_goal_heuristic(distance: GoalDistance, true: Goal, spread: str | None = None,
                        tracker: BeliefTracker | None = None, plan_distance: str = "action",
                        bps_sample: int = 20) -> NodeHeuristic:
    """``h(s, G_A)`` (plan legibility and plan obfuscation), plus with ``spread`` ``"max"``
    the largest or with ``"min"`` minus the smallest pairwise distance in a sample of the
    node's BPS (eq. 4.2, eq. 9.1)."""

    def h(node: Node, delta: int) -> float:
        own = distance(node.state, true)
        if spread is None or math.isinf(own) or tracker is None or node.parent is None:
            return own
        bps = belief_plan_set(tracker, node.beliefs(), node.tokens(), cap=bps_sample)
        found = bps_spread(tracker.task, bps, plan_distance)
        if spread == "max":
            return own + (found.maximum or 0.0)
        return own - (found.minimum if found.minimum is not None else 1.0)

    return h
