"""Policy landmarks and orderings read directly off the policy graph: the checker.

Why a second, independent computation: the summaries are extracted from compiled
classical tasks (:mod:`xaip.summaries.landmarks`), and a bug in a compilation or in an
extraction would silently produce wrong subgoals. This module shares no code with them.
It works on the :class:`~xaip.planning.mdp.PolicyGraph` itself, by dominator-style label
propagation instead of search:

* restrict the graph to *alive* states (those from which the policy can still reach a goal
  state): exactly the prefixes of goal-reaching executions run through them;
* ``label(s)`` = facts true in some state of *every* path from the initial state to ``s``,
  the greatest fixpoint of ``label(t) = t | AND over predecessors p of label(p)`` (with
  ``label(s0) = s0``); loops are handled because the fixpoint starts from "all facts";
* a fact is a policy landmark iff it is in the label of every goal state;
* ``a`` is naturally before ``b`` iff, in the graph of states without ``b``, ``a`` is in the
  label of every state from which an edge first enters ``b``; greedy-necessarily iff it is
  in every such state itself.

:func:`check_landmarks` compares a :class:`~xaip.summaries.landmarks.LandmarkSet` with
these exact answers.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.planning.mdp import PolicyGraph, ProbabilisticTask
from xaip.planning.mdp.budgets import require
from xaip.planning.pddl.model import Atom
from xaip.planning.task import State, bits
from xaip.runtime.budget import BudgetClock
from xaip.summaries.landmarks import FactOrdering, LandmarkSet

ALL = -1  # "every fact": the top of the label lattice (Python ints are infinite bitsets)


def alive_states(graph: PolicyGraph) -> frozenset[State]:
    """Graph states from which the policy reaches a goal state with positive probability."""
    preds: dict[State, list[State]] = {}
    for edge in graph.edges:
        preds.setdefault(edge.target, []).append(edge.source)
    alive = set(graph.goal_states)
    stack = list(alive)
    while stack:
        state = stack.pop()
        for p in preds.get(state, ()):
            if p not in alive:
                alive.add(p)
                stack.append(p)
    return frozenset(alive)


def path_labels(graph: PolicyGraph, alive: frozenset[State], without: int = 0
                ) -> dict[State, int]:
    """Facts on every path from the initial state, over alive states lacking ``without``
    (also the disjunctive landmarks' search, :mod:`xaip.summaries.disjunctive`)."""
    init = graph.init
    if init not in alive or init & without:
        return {}
    label: dict[State, int] = {init: init}
    work = deque([init])
    queued = {init}
    while work:
        state = work.popleft()
        queued.discard(state)
        mine = label[state]
        for edge in graph.out_edges(state):
            target = edge.target
            if target == init or target not in alive or target & without:
                continue
            old = label.get(target, ALL)
            new = old & (target | mine)
            if new != old or target not in label:
                label[target] = new
                if target not in queued:
                    queued.add(target)
                    work.append(target)
    return label


def exact_policy_landmarks(graph: PolicyGraph) -> frozenset[int]:
    """Facts true in some state of every goal-reaching execution (empty if none exists)."""
    alive = alive_states(graph)
    label = path_labels(graph, alive)
    common = ALL
    for goal in graph.goal_states:
        if goal in label:
            common &= label[goal]
    if common == ALL:
        return frozenset()
    return frozenset(bits(common))


def first_entries(
    graph: PolicyGraph, fact: int, alive: frozenset[State] | None = None
) -> list[tuple[State, State]]:
    """Edges ``(p, t)`` by which a goal-reaching execution makes ``fact`` true for the first
    time: ``p`` is reached without ``fact`` ever holding, ``t`` has it and is alive."""
    alive = alive_states(graph) if alive is None else alive
    label = path_labels(graph, alive, 1 << fact)
    return [
        (p, e.target)
        for p in label
        for e in graph.out_edges(p)
        if e.target in alive and e.target >> fact & 1
    ]


def completions(graph: PolicyGraph, fact: int, goal_reaching: bool = True) -> frozenset[State]:
    """C(fact): the states in which ``fact`` holds for the first time on some execution.

    With ``goal_reaching`` (default), only executions that can still reach the goal count.
    The initial state is its own completion when the fact holds there.
    """
    if graph.init >> fact & 1:
        return frozenset({graph.init})
    if goal_reaching:
        return frozenset(t for _, t in first_entries(graph, fact))
    everything = frozenset(graph.states)
    label = path_labels(graph, everything, 1 << fact)
    return frozenset(
        e.target for p in label for e in graph.out_edges(p) if e.target >> fact & 1
    )


def exact_orderings(
    graph: PolicyGraph, facts: Iterable[int], clock: BudgetClock | None = None
) -> dict[tuple[int, int], str]:
    """All greedy-necessary and natural orderings between the given non-initial facts
    that hold on every goal-reaching execution (each pair reported with its strongest
    kind). Facts should be policy landmarks; for others the answer is about the
    executions on which they occur. Each fact charges ``clock`` one node per graph state
    (:class:`~xaip.planning.landmarks.BudgetExhausted` when it runs out)."""
    alive = alive_states(graph)
    chosen = [f for f in facts if not graph.init >> f & 1]
    result: dict[tuple[int, int], str] = {}
    for b in chosen:
        if clock is not None:
            require(clock, len(graph.states), "the check of the orderings")
        label = path_labels(graph, alive, 1 << b)
        natural = ALL
        greedy = ALL
        entered = False
        for p, lab in label.items():
            for edge in graph.out_edges(p):
                if edge.target in alive and edge.target >> b & 1:
                    natural &= lab
                    greedy &= p
                    entered = True
        if not entered:
            continue
        for a in chosen:
            if a == b:
                continue
            if greedy >> a & 1:
                result[(a, b)] = "greedy-necessary"
            elif natural >> a & 1:
                result[(a, b)] = "natural"
    return result


# --------------------------------------------------------------------------- checking


@dataclass(frozen=True)
class LandmarkCheck:
    """How a reported landmark set compares with the exact answer on the policy graph.

    ``unsound_landmarks``: reported facts that some goal-reaching execution avoids.
    ``violated_orderings``: reported orderings some goal-reaching execution breaks (a
    greedy-necessary ordering that only holds naturally counts as violated).
    ``missing_landmarks`` / ``missing_orderings``: exact ones not reported (expected for
    the concise compilation and the model; a complete source must have none). Initial
    facts, trivially landmarks, are not counted as missing; ``exact_landmarks`` counts the
    exact non-initial landmarks.
    """

    source: str
    unsound_landmarks: tuple[int, ...]
    violated_orderings: tuple[FactOrdering, ...]
    missing_landmarks: tuple[int, ...]
    missing_orderings: tuple[tuple[int, int, str], ...]
    exact_landmarks: int

    @property
    def sound(self) -> bool:
        return not self.unsound_landmarks and not self.violated_orderings

    @property
    def exact(self) -> bool:
        return self.sound and not self.missing_landmarks and not self.missing_orderings

    def to_dict(self, facts: Sequence[Atom]) -> dict[str, Any]:
        return {
            "source": self.source,
            "sound": self.sound,
            "exact": self.exact,
            "unsound_landmarks": [str(facts[f]) for f in self.unsound_landmarks],
            "violated_orderings": [o.to_dict(facts) for o in self.violated_orderings],
            "missing_landmarks": [str(facts[f]) for f in self.missing_landmarks],
            "missing_orderings": [
                {"before": str(facts[a]), "after": str(facts[b]), "kind": k}
                for a, b, k in self.missing_orderings
            ],
            "exact_landmarks": self.exact_landmarks,
        }


_STRENGTH: Mapping[str, int] = {"natural": 1, "greedy-necessary": 2}


def check_landmarks(
    ptask: ProbabilisticTask,
    graph: PolicyGraph,
    landmarks: LandmarkSet,
    clock: BudgetClock | None = None,
) -> LandmarkCheck:
    """Check ``landmarks`` against the exact policy landmarks of ``graph``.

    Model landmarks are landmarks of every policy, so the same check applies to them.
    ``clock`` (optional) is charged as in :func:`exact_orderings`.
    """
    del ptask  # the graph carries everything; the task is kept for a uniform signature
    if clock is not None:
        require(clock, len(graph.states), "the check of the landmarks")
    exact = exact_policy_landmarks(graph)
    reported = set(landmarks.facts)
    unsound = tuple(f for f in landmarks.facts if f not in exact)
    # Initial facts are trivially landmarks; only the others can be missed meaningfully.
    informative = {f for f in exact if not graph.init >> f & 1}
    missing = tuple(sorted(informative - reported))
    truth = exact_orderings(graph, sorted(exact | reported), clock)
    violated = tuple(
        o for o in landmarks.orderings
        if _STRENGTH.get(truth.get((o.before, o.after), ""), 0) < _STRENGTH[o.kind]
    )
    listed = {(o.before, o.after): o.kind for o in landmarks.orderings}
    missing_orderings = tuple(
        (a, b, kind)
        for (a, b), kind in sorted(truth.items())
        if a in exact and b in exact
        and _STRENGTH.get(listed.get((a, b), ""), 0) < _STRENGTH[kind]
    )
    return LandmarkCheck(
        source=landmarks.source,
        unsound_landmarks=unsound,
        violated_orderings=violated,
        missing_landmarks=missing,
        missing_orderings=missing_orderings,
        exact_landmarks=len(informative),
    )
