"""The task hierarchy induced by policy landmarks (TLdR section 6) and its value.

Why a hierarchy: a partially ordered set of subgoals is hard to narrate; a *chain* of
subgoals ("first ..., then ...") with the remaining subgoals tucked under the chain step
they belong to is what a summary reads like, and it is also a MaxQ task hierarchy
(Dietterich 2000) in which the original policy can be executed.

Construction (paper, section 6):

* ``chain`` (Φ^tot) — a longest totally ordered subset of the non-initial landmarks under
  the transitive closure of the orderings; the root's last subtask is the goal itself (a
  single goal fact is that subtask, not a chain element);
* every *dropped* landmark becomes a child subtask of (1) its closest successor on the
  chain (the goal subtask when no chain element follows it) and (2) every chain element
  it is incomparable with.

The hierarchical policy executes, in order, one subtask per chain element and then the
goal subtask. A subtask runs its children first (each in turn, if its fact does not hold
yet), each child running the policy until its fact *or the parent's fact* holds, and then
runs the policy until its own fact holds. Every subtask also ends in an absorbing state
(a goal state, or a state where the policy stops). All primitive actions come from the
original policy, so the hierarchical value equals the policy's value (Proposition 3).
:func:`hierarchical_value` computes that value independently, one linear system per
(sub)subtask with exits priced by the next stage (the MaxQ decomposition
``V(parent, s) = V(child, s) + C(parent, s, child)``), so the equality is a real check on
the hierarchy's termination conditions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xaip.planning.mdp import PolicyGraph, ProbabilisticTask, state_values
from xaip.planning.mdp.linear import solve_linear
from xaip.planning.pddl.model import Atom
from xaip.planning.task import State
from xaip.summaries.landmarks import LandmarkSet

#: ``Proposition 3`` is checked up to this relative tolerance.
VALUE_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Subtask:
    """One child of the root: achieve ``fact`` (``None``: achieve the goal), running the
    dropped-landmark subtasks ``children`` (facts, in order) on the way."""

    fact: int | None
    children: tuple[int, ...]

    def to_dict(self, facts: Sequence[Atom]) -> dict[str, Any]:
        return {
            "terminates_when": "goal" if self.fact is None else str(facts[self.fact]),
            "children": [str(facts[c]) for c in self.children],
        }


@dataclass(frozen=True)
class Hierarchy:
    """The landmark hierarchy: ``chain`` (Φ^tot, ordered), ``dropped`` landmarks, where
    each dropped landmark is attached (chain facts, ``None`` for the goal subtask), and the
    root's subtasks in execution order (one per chain fact, then the goal)."""

    chain: tuple[int, ...]
    dropped: tuple[int, ...]
    attachments: tuple[tuple[int, tuple[int | None, ...]], ...]
    subtasks: tuple[Subtask, ...]
    goal: int

    def attached_to(self, fact: int) -> tuple[int | None, ...]:
        for dropped, places in self.attachments:
            if dropped == fact:
                return places
        return ()

    def to_dict(self, facts: Sequence[Atom]) -> dict[str, Any]:
        def name(f: int | None) -> str:
            return "goal" if f is None else str(facts[f])

        return {
            "chain": [str(facts[f]) for f in self.chain],
            "dropped": [
                {"fact": str(facts[d]), "attached_to": [name(p) for p in places]}
                for d, places in self.attachments
            ],
            "subtasks": [s.to_dict(facts) for s in self.subtasks],
        }


def _closure(items: Sequence[int], landmarks: LandmarkSet) -> dict[int, set[int]]:
    """``after[a]`` = every item that ``a`` is (transitively) ordered before."""
    present = set(items)
    after: dict[int, set[int]] = {a: set() for a in items}
    for o in landmarks.orderings:
        if o.before in present and o.after in present:
            after[o.before].add(o.after)
    changed = True
    while changed:
        changed = False
        for a in items:
            extra: set[int] = set()
            for b in after[a]:
                extra |= after[b]
            if not extra <= after[a]:
                after[a] |= extra
                changed = True
    for a in items:
        if a in after[a]:
            raise ValueError(f"landmark orderings form a cycle through fact {a}")
    return after


def build_hierarchy(landmarks: LandmarkSet, goal_mask: int) -> Hierarchy:
    """The section-6 hierarchy of ``landmarks`` (see the module docstring).

    Chains are chosen deterministically: among longest chains, the one whose elements come
    earliest in ``landmarks.facts`` (ties between equally long chains are frequent).
    """
    goal_facts = [f for f in range(goal_mask.bit_length()) if goal_mask >> f & 1]
    single_goal = goal_facts[0] if len(goal_facts) == 1 else None
    items = [f for f in landmarks.facts if f not in landmarks.initial and f != single_goal]
    after = _closure(items, landmarks)
    position = {f: i for i, f in enumerate(items)}
    # Topological order (items are roughly ordered already; repair with Kahn's algorithm).
    indegree = {f: 0 for f in items}
    for a in items:
        for b in after[a]:
            indegree[b] += 1
    ready = sorted((f for f in items if indegree[f] == 0), key=position.__getitem__)
    topo: list[int] = []
    while ready:
        f = ready.pop(0)
        topo.append(f)
        for b in sorted(after[f], key=position.__getitem__):
            indegree[b] -= 1
            if indegree[b] == 0:
                ready.append(b)
                ready.sort(key=position.__getitem__)
    # Longest chain ending at each item, with the earliest predecessor on ties.
    length: dict[int, int] = {}
    previous: dict[int, int | None] = {}
    for f in topo:
        best, best_prev = 1, None
        for p in topo:
            if p == f:
                break
            if f in after[p] and length[p] + 1 > best:
                best, best_prev = length[p] + 1, p
        length[f], previous[f] = best, best_prev
    chain: list[int] = []
    if topo:
        end = max(topo, key=lambda f: (length[f], -position[f]))
        node: int | None = end
        while node is not None:
            chain.append(node)
            node = previous[node]
        chain.reverse()
    on_chain = set(chain)
    dropped = [f for f in topo if f not in on_chain]
    attachments: list[tuple[int, tuple[int | None, ...]]] = []
    children: dict[int | None, list[int]] = {c: [] for c in chain}
    children[None] = []
    for d in dropped:
        places: list[int | None] = []
        successor = next((c for c in chain if c in after[d]), None)
        places.append(successor)
        for c in chain:
            if c != successor and c not in after[d] and d not in after[c]:
                places.append(c)
        attachments.append((d, tuple(places)))
        for place in places:
            children[place].append(d)
    subtasks = tuple(Subtask(c, tuple(children[c])) for c in chain) + (
        Subtask(None, tuple(children[None])),
    )
    return Hierarchy(tuple(chain), tuple(dropped), tuple(attachments), subtasks, goal_mask)


# --------------------------------------------------------------------------- value


@dataclass(frozen=True)
class HierarchyValue:
    """Proposition 3, checked: the hierarchical policy's value and the policy's value."""

    hierarchical: float
    policy: float
    dead_end_cost: float | None

    @property
    def equal(self) -> bool:
        if math.isinf(self.hierarchical) or math.isinf(self.policy):
            return self.hierarchical == self.policy
        scale = max(1.0, abs(self.policy))
        return abs(self.hierarchical - self.policy) <= VALUE_TOLERANCE * scale

    def to_dict(self) -> dict[str, Any]:
        return {
            "hierarchical_value": _finite(self.hierarchical),
            "policy_value": _finite(self.policy),
            "dead_end_cost": self.dead_end_cost,
            "equal": self.equal,
        }


def _finite(x: float) -> float | str:
    return x if math.isfinite(x) else "inf"


def hierarchical_value(
    hierarchy: Hierarchy,
    ptask: ProbabilisticTask,
    graph: PolicyGraph,
    dead_end_cost: float | None = None,
) -> float:
    """Expected cost from the initial state of the hierarchical policy (see the module
    docstring); a stop outside the goal costs ``dead_end_cost`` (``None``: infinite)."""
    penalty = math.inf if dead_end_cost is None else float(dead_end_cost)
    succ: dict[State, dict[State, float]] = {}
    cost: dict[State, float] = {}
    for state in graph.states:
        edges = graph.out_edges(state)
        if state in graph.goal_states or not edges:
            continue
        action = ptask.action_named(edges[0].action, state)
        if action is None:  # pragma: no cover - the graph was built from this task
            continue
        succ[state] = graph.successors(state)
        cost[state] = action.expected_cost
    absorbing = [s for s in graph.states if s not in succ]
    # Every graph state is reachable from the initial state, so the value is infinite
    # when some state cannot stop (the policy may run forever) or a stop outside the goal
    # is infinitely expensive; otherwise every stage's linear system is well posed.
    if penalty == math.inf and any(s not in graph.goal_states for s in absorbing):
        return math.inf
    preds: dict[State, list[State]] = {}
    for source, targets in succ.items():
        for target in targets:
            preds.setdefault(target, []).append(source)
    stops = set(absorbing)
    stack = list(absorbing)
    while stack:
        for p in preds.get(stack.pop(), ()):
            if p not in stops:
                stops.add(p)
                stack.append(p)
    if len(stops) < len(graph.states):
        return math.inf
    # Stages in execution order: (facts whose truth ends the stage).
    stages: list[int] = []
    for subtask in hierarchy.subtasks:
        parent = 0 if subtask.fact is None else 1 << subtask.fact
        for child in subtask.children:
            stages.append((1 << child) | parent)
        stages.append(parent)
    after: dict[State, float] = {
        s: (0.0 if s in graph.goal_states else penalty) for s in absorbing
    }
    # Backwards: a stage's exit states are priced by the following stage's values.
    following: dict[State, float] | None = None
    for stop in reversed(stages):
        nxt = after if following is None else following
        fixed = {
            s: nxt[s]
            for s in graph.states
            if s in graph.goal_states or s not in succ or (stop and s & stop)
        }
        following = solve_linear(graph.states, succ, fixed, cost)
    assert following is not None
    return following[graph.init]


def check_hierarchy(
    hierarchy: Hierarchy,
    ptask: ProbabilisticTask,
    graph: PolicyGraph,
    dead_end_cost: float | None = None,
) -> HierarchyValue:
    """Both values of Proposition 3 for ``hierarchy`` and the policy of ``graph``."""
    policy_value = state_values(ptask, graph, dead_end_cost).expected_cost[graph.init]
    return HierarchyValue(
        hierarchical_value(hierarchy, ptask, graph, dead_end_cost), policy_value, dead_end_cost
    )
