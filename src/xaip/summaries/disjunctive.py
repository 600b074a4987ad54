"""Disjunctive policy landmarks: "either A or B happens on every run of this policy".

A single fact is a policy landmark when every goal-reaching run of the policy passes a
state where it holds (:mod:`xaip.summaries.landmarks`). Often no single fact is, but one of
a few is: the policy takes one of two roads. A *disjunctive policy landmark* is a set of
facts such that every run from the initial state to a goal state passes a state where at
least one of them holds, and that is minimal: no proper subset has that property (in
particular no member is a landmark alone).

How it is computed, on the policy graph the summary already built: ``{a, b}`` is one iff
removing every state where ``a`` or ``b`` holds disconnects the initial state from every
goal state. Rather than one graph search per pair, one label propagation per fact ``a``:
over the graph without the ``a``-states, ``label(s)`` is the set of facts true in some
state of every path from the initial state to ``s`` (a greatest fixpoint, so loops are
handled); the facts in the label of every reachable goal state are exactly the ``b`` with
``{a, b}`` a cut. Size 3 repeats this over the graph without the ``a``- and ``b``-states
for every pair that is not a cut. Facts that are landmarks alone (among them every fact
true initially or in every goal state) are pruned: no minimal set contains one.

For every reported set and every member ``m``, a *witness* is kept: a goal-reaching run
that avoids every other member (found by breadth-first search), showing that ``m`` is
needed. The independent check is :func:`xaip.summaries.disjunctive_check.check_disjunctive`.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xaip.planning.mdp import PolicyGraph, ProbabilisticTask
from xaip.planning.mdp.budgets import require
from xaip.planning.pddl.model import Atom
from xaip.planning.task import State, bits
from xaip.runtime.budget import BudgetClock
from xaip.summaries.exact import alive_states, path_labels

#: Sizes ``--disjunctive-size`` accepts (0 switches the search off).
SIZES: tuple[int, ...] = (0, 2, 3)
DEFAULT_SIZE = 2
_ALL = -1  # the top of the label lattice: every fact


@dataclass(frozen=True)
class DisjunctiveLandmark:
    """One minimal set of facts, at least one of which holds on every goal-reaching run.

    ``witnesses[i]`` is a goal-reaching run (its states, initial state first) on which no
    member other than ``facts[i]`` ever holds: the proof that ``facts[i]`` cannot be left
    out of the set.
    """

    facts: tuple[int, ...]
    witnesses: tuple[tuple[State, ...], ...]

    def to_dict(self, task: ProbabilisticTask) -> dict[str, Any]:
        facts = task.facts
        return {
            "facts": [str(facts[f]) for f in self.facts],
            "witnesses": [
                {"needs": str(facts[f]), "avoids": [str(facts[g]) for g in self.facts if g != f],
                 "states": [task.state_key(s) for s in run]}
                for f, run in zip(self.facts, self.witnesses, strict=True)
            ],
        }


@dataclass(frozen=True)
class DisjunctiveSet:
    """Every minimal disjunctive policy landmark of at most ``size`` facts.

    ``candidates`` are the facts considered (true in some reachable state, not a landmark
    alone); ``landmarks`` holds the sets found, smallest first. ``complete`` is ``False``
    when the budget ran out (then the sets found so far are real, but some may be missing).
    """

    size: int
    candidates: tuple[int, ...]
    landmarks: tuple[DisjunctiveLandmark, ...]
    complete: bool = True

    @property
    def count(self) -> int:
        return len(self.landmarks)

    def sets(self) -> set[tuple[int, ...]]:
        return {d.facts for d in self.landmarks}

    def to_dict(self, task: ProbabilisticTask) -> dict[str, Any]:
        return {
            "max_size": self.size,
            "candidates": len(self.candidates),
            "complete": self.complete,
            "landmarks": [d.to_dict(task) for d in self.landmarks],
        }


def _goal_label(graph: PolicyGraph, alive: frozenset[State], without: int) -> int | None:
    """Facts true on every path from the initial state to a goal state that never enters
    a state with a fact of ``without``; ``None`` when no such path exists."""
    label = path_labels(graph, alive, without)
    common = _ALL
    reached = False
    for goal in graph.goal_states:
        if goal in label:
            common &= label[goal]
            reached = True
    return common if reached else None


def avoiding_run(graph: PolicyGraph, without: int) -> tuple[State, ...] | None:
    """A shortest goal-reaching run that never enters a state with a fact of ``without``."""
    init = graph.init
    if init & without:
        return None
    parent: dict[State, State | None] = {init: None}
    work = deque([init])
    goals = graph.goal_states
    while work:
        state = work.popleft()
        if state in goals:
            run = [state]
            while (back := parent[run[-1]]) is not None:
                run.append(back)
            return tuple(reversed(run))
        for edge in graph.out_edges(state):
            if edge.target not in parent and not edge.target & without:
                parent[edge.target] = state
                work.append(edge.target)
    return None


def disjunctive_landmarks(
    graph: PolicyGraph,
    size: int = DEFAULT_SIZE,
    clock: BudgetClock | None = None,
) -> DisjunctiveSet:
    """The minimal disjunctive policy landmarks of ``graph`` with 2..``size`` facts.

    Each label propagation charges ``clock`` one node per graph state; when it runs out
    the sets found so far are returned with ``complete=False``.
    """
    if size not in SIZES:
        raise ValueError(f"disjunctive landmark size must be one of {SIZES}, not {size}")
    if size == 0 or not graph.goal_states:
        return DisjunctiveSet(size, (), ())
    seen = 0
    for state in graph.states:
        seen |= state
    alive = alive_states(graph)
    single = _goal_label(graph, alive, 0)
    singles = 0 if single is None else single
    candidates = tuple(f for f in bits(seen & ~singles))
    found: list[tuple[int, ...]] = []
    pairs: set[tuple[int, int]] = set()
    try:
        for a in candidates:
            _charge(clock, graph)
            label = _goal_label(graph, alive, 1 << a)
            if label is None:  # a landmark alone: cannot happen for a non-single fact
                continue
            for b in bits(label & ~singles):
                if b > a:
                    pairs.add((a, b))
        found.extend(sorted(pairs))
        if size == 3:
            triples: set[tuple[int, ...]] = set()
            for a, b in itertools.combinations(candidates, 2):
                if (a, b) in pairs:
                    continue
                _charge(clock, graph)
                label = _goal_label(graph, alive, 1 << a | 1 << b)
                if label is None:
                    continue
                for c in bits(label & ~singles):
                    if c > b and (a, c) not in pairs and (b, c) not in pairs:
                        triples.add((a, b, c))
            found.extend(sorted(triples))
    except _OutOfBudget:
        return DisjunctiveSet(size, candidates, _with_witnesses(graph, found), complete=False)
    return DisjunctiveSet(size, candidates, _with_witnesses(graph, found))


class _OutOfBudget(Exception):
    pass


def _charge(clock: BudgetClock | None, graph: PolicyGraph) -> None:
    if clock is None:
        return
    from xaip.planning.landmarks import BudgetExhausted

    try:
        require(clock, len(graph.states), "the disjunctive landmarks")
    except BudgetExhausted:
        raise _OutOfBudget from None


def _with_witnesses(graph: PolicyGraph,
                    found: Sequence[tuple[int, ...]]) -> tuple[DisjunctiveLandmark, ...]:
    result = []
    for facts in found:
        runs = []
        for f in facts:
            others = sum(1 << g for g in facts if g != f)
            run = avoiding_run(graph, others)
            if run is None:  # the search says {others} is itself a cut: not minimal
                raise AssertionError(f"disjunctive landmark {facts} is not minimal")
            runs.append(run)
        result.append(DisjunctiveLandmark(facts, tuple(runs)))
    return tuple(result)


def disjunctive_sentence(landmark: DisjunctiveLandmark, facts: Sequence[Atom]) -> str:
    """``either (at t1 l2) or (at t2 l2) happens on every run of this policy``."""
    names = [str(facts[f]) for f in landmark.facts]
    if len(names) == 2:
        said = f"either {names[0]} or {names[1]}"
    else:
        said = "one of " + ", ".join(names[:-1]) + " or " + names[-1]
    return f"{said} happens on every run of this policy"


__all__ = [
    "DEFAULT_SIZE",
    "SIZES",
    "DisjunctiveLandmark",
    "DisjunctiveSet",
    "avoiding_run",
    "disjunctive_landmarks",
    "disjunctive_sentence",
]
