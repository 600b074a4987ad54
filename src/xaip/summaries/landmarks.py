"""Policy landmarks and model landmarks, with orderings, as fact sets.

Three sources, all returning a :class:`LandmarkSet` over the fact indices of the
probabilistic task:

* :func:`concise_landmarks` — causal landmarks of D(M) (delete relaxation, label
  propagation of Zhu and Givan, as the paper's Keyder-Richter-Helmert landmarks) and the
  *natural* orderings between them, tested on D(M)'s relaxation. Sound for the policy
  (Theorem 1), not complete. Greedy-necessary orderings of D(M) are *not* reported: D(M)'s
  actions add the union of their outcomes, so an action's relaxed first-achiever status
  does not carry over to executions (an outcome that makes B true in D(M) may not be the
  one taken), and the rule can be wrong; natural orderings survive the argument of
  Theorem 1 (see :func:`_natural_orderings`).
* :func:`complete_landmarks` — exact landmarks of D(M)^c computed on its real state
  space (not on its relaxation, whose landmarks coincide with D(M)'s): a fact is a
  landmark iff no plan avoids it, greedy-necessary and natural orderings are decided by
  searching for a plan that violates them. Exact, so complete (Theorem 2).
* :func:`model_landmarks` — causal landmarks of the all-outcomes determinisation, with
  its greedy-necessary and natural orderings: landmarks of *every* policy.

Counts in the paper exclude initial-state and goal facts; :attr:`LandmarkSet.subgoals`
gives exactly those.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from xaip.planning.landmarks import find_landmarks
from xaip.planning.landmarks.achievers import Relaxation
from xaip.planning.mdp import PolicyGraph, ProbabilisticTask, determinise
from xaip.planning.mdp.budgets import as_clock, remaining, spend
from xaip.planning.pddl.model import Atom
from xaip.planning.task import Task, bits
from xaip.runtime.budget import Budget, BudgetClock
from xaip.summaries.compile import complete_compilation, concise_compilation

OrderingKind = Literal["greedy-necessary", "natural"]
Source = Literal["concise", "complete", "model"]

#: What each source is, for people reading JSON or text output.
SOURCE_LABELS: dict[str, str] = {
    "concise": "policy landmarks from the concise compilation D(M)",
    "complete": "policy landmarks from the complete compilation D(M)^c",
    "model": "model landmarks from the all-outcomes determinisation",
}


@dataclass(frozen=True)
class FactOrdering:
    """``before`` → ``after`` between two landmark facts (fact indices).

    ``natural``: on every goal-reaching execution, ``before`` holds at some step strictly
    before the first step at which ``after`` holds. ``greedy-necessary``: ``before`` holds
    in the state right before ``after`` first holds (which implies natural).
    """

    before: int
    after: int
    kind: OrderingKind

    def to_dict(self, facts: Sequence[Atom]) -> dict[str, Any]:
        return {"before": str(facts[self.before]), "after": str(facts[self.after]),
                "kind": self.kind}


@dataclass(frozen=True)
class LandmarkSet:
    """Fact landmarks of one source, with orderings.

    ``facts`` lists every landmark fact (initial and goal facts included), early subgoals
    first. ``initial`` and ``goal`` flag those that hold initially or are goal facts;
    ``causal`` those needed (as a precondition or goal) by every plan of the compiled
    task, not only produced on the way. ``solvable`` is ``False`` when no execution
    reaches the goal (then there are no landmarks to speak of and ``facts`` is empty).
    ``complete`` is ``False`` when the budget ran out: what is reported is sound, but
    landmarks or orderings may be missing.
    """

    source: Source
    facts: tuple[int, ...]
    initial: frozenset[int]
    goal: frozenset[int]
    causal: frozenset[int]
    orderings: tuple[FactOrdering, ...]
    solvable: bool = True
    complete: bool = True
    seconds: float = 0.0
    compiled_actions: int = 0

    @property
    def subgoals(self) -> tuple[int, ...]:
        """Landmark facts that are neither initially true nor goal facts (the paper's count)."""
        return tuple(f for f in self.facts if f not in self.initial and f not in self.goal)

    @property
    def count(self) -> int:
        return len(self.subgoals)

    def to_dict(self, facts: Sequence[Atom]) -> dict[str, Any]:
        return {
            "source": self.source,
            "description": SOURCE_LABELS[self.source],
            "facts": [str(facts[f]) for f in self.subgoals],
            "count": self.count,
            "landmarks": [
                {
                    "fact": str(facts[f]),
                    "initial": f in self.initial,
                    "goal": f in self.goal,
                    "causal": f in self.causal,
                }
                for f in self.facts
            ],
            "orderings": [o.to_dict(facts) for o in self.orderings],
            "solvable": self.solvable,
            "complete": self.complete,
            "compiled_actions": self.compiled_actions,
            "seconds": self.seconds,
        }


def _unsolvable(source: Source, started: float, actions: int) -> LandmarkSet:
    return LandmarkSet(source, (), frozenset(), frozenset(), frozenset(), (), solvable=False,
                       seconds=time.perf_counter() - started, compiled_actions=actions)


# --------------------------------------------------------------------------- relaxed


def concise_landmarks(
    ptask: ProbabilisticTask, graph: PolicyGraph, budget: Budget | BudgetClock | None = None
) -> LandmarkSet:
    """Causal landmarks of D(M) with natural orderings (sound policy landmarks).

    ``budget`` (or a clock shared with other phases) is charged one node per compiled
    action and by the extraction; when it runs out the set is sound but ``complete`` is
    ``False``.
    """
    started = time.perf_counter()
    clock = as_clock(budget)
    task = concise_compilation(ptask, graph)
    if not spend(clock, len(task.actions)):
        return _unfinished("concise", started, len(task.actions))
    return _relaxed_landmarks(task, "concise", clock, started, keep_greedy=False)


def model_landmarks(
    ptask: ProbabilisticTask, budget: Budget | BudgetClock | None = None
) -> LandmarkSet:
    """Causal landmarks of the all-outcomes determinisation (landmarks of every policy)."""
    started = time.perf_counter()
    clock = as_clock(budget)
    task, _ = determinise(ptask)
    if not spend(clock, len(task.actions)):
        return _unfinished("model", started, len(task.actions))
    return _relaxed_landmarks(task, "model", clock, started, keep_greedy=True)


def _unfinished(source: Source, started: float, actions: int) -> LandmarkSet:
    """Nothing proven yet: an empty, incomplete set (sound, and claims nothing)."""
    return LandmarkSet(source, (), frozenset(), frozenset(), frozenset(), (), complete=False,
                       seconds=time.perf_counter() - started, compiled_actions=actions)


def _relaxed_landmarks(
    task: Task, source: Source, clock: BudgetClock, started: float, *, keep_greedy: bool
) -> LandmarkSet:
    graph = find_landmarks(task, "zg", remaining(clock), causal_only=True, reasonable=False)
    if not graph.complete:
        clock.exhausted = True
    if clock.out_of_time():
        return _unfinished(source, started, len(task.actions))
    if not graph.solvable:
        return _unsolvable(source, started, len(task.actions))
    facts = tuple(lm.facts[0] for lm in graph.landmarks if not lm.disjunctive)
    initial = frozenset(f for f in facts if task.init >> f & 1)
    goal = frozenset(f for f in facts if task.goal >> f & 1)
    complete = graph.complete
    orderings: dict[tuple[int, int], OrderingKind] = {}
    if keep_greedy and complete:
        for o in graph.orderings:
            a, b = graph.landmarks[o.before], graph.landmarks[o.after]
            if o.kind != "greedy-necessary" or a.disjunctive or b.disjunctive:
                continue
            if a.facts[0] in initial or b.facts[0] in initial:
                continue
            orderings[(a.facts[0], b.facts[0])] = "greedy-necessary"
    if complete:
        complete = _natural_orderings(task, facts, initial, orderings, clock)
    return LandmarkSet(
        source=source,
        facts=facts,
        initial=initial,
        goal=goal,
        causal=frozenset(facts),
        orderings=_sorted_orderings(orderings, facts),
        solvable=True,
        complete=complete,
        seconds=time.perf_counter() - started,
        compiled_actions=len(task.actions),
    )


def _natural_orderings(
    task: Task,
    facts: Sequence[int],
    initial: frozenset[int],
    out: dict[tuple[int, int], OrderingKind],
    clock: BudgetClock,
) -> bool:
    """Add natural orderings ``a → b``: ``b`` is relaxed-unreachable when ``a`` is forbidden.

    Why this is sound for the policy even on D(M): take an execution on which ``a`` is
    false in every state before ``b`` first holds. The D(M) actions of those states never
    need ``a``, and applied in the relaxation with ``a`` forbidden they reach a superset of
    each state minus ``a`` — so ``b`` would be reachable. Returns ``False`` if the budget
    ran out (the orderings added so far are sound).
    """
    relax = Relaxation(task)
    for a in facts:
        if a in initial:
            continue
        if not spend(clock, relax.size):
            return False
        reached = relax.explore(task.init, forbidden=1 << a)
        for b in facts:
            if b != a and b not in initial and not reached >> b & 1:
                out.setdefault((a, b), "natural")
    return True


def _sorted_orderings(
    orderings: dict[tuple[int, int], OrderingKind], facts: Sequence[int]
) -> tuple[FactOrdering, ...]:
    position = {f: i for i, f in enumerate(facts)}
    return tuple(
        FactOrdering(a, b, kind)
        for (a, b), kind in sorted(orderings.items(), key=lambda x: (position[x[0][0]],
                                                                     position[x[0][1]]))
    )


# --------------------------------------------------------------------------- exact


@dataclass
class _Space:
    """The explicit state space of a deterministic task, restricted to *alive* states
    (reachable from the initial state and able to reach a goal state)."""

    states: list[int] = field(default_factory=list)
    succ: list[list[tuple[int, int]]] = field(default_factory=list)  # (state id, action id)
    goal: list[bool] = field(default_factory=list)
    alive: list[bool] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)
    complete: bool = True


def _successor_index(task: Task) -> tuple[dict[int, list[int]] | None, list[list[int]]]:
    """An exact-state index when every action fixes the whole state (D(M)^c), else
    actions filed under their highest precondition bit."""
    everything = (1 << task.num_facts) - 1
    if task.actions and all(a.pre | a.neg_pre == everything for a in task.actions):
        exact: dict[int, list[int]] = {}
        for i, action in enumerate(task.actions):
            exact.setdefault(action.pre, []).append(i)
        return exact, []
    by_bit: list[list[int]] = [[] for _ in range(task.num_facts + 1)]
    for i, action in enumerate(task.actions):
        by_bit[action.pre.bit_length()].append(i)
    return None, by_bit


def explore_task(task: Task, clock: BudgetClock) -> _Space:
    """Breadth-first exploration of ``task``'s real state space (goal states absorbing)."""
    exact, by_bit = _successor_index(task)
    space = _Space()
    ids: dict[int, int] = {}

    def add(state: int, depth: int, parent: int) -> int:
        ids[state] = len(space.states)
        space.states.append(state)
        space.succ.append([])
        space.goal.append(task.is_goal(state))
        space.depth.append(depth)
        space.parent.append(parent)
        return ids[state]

    add(task.init, 0, -1)
    head = 0
    while head < len(space.states):
        k = head
        head += 1
        state = space.states[k]
        if space.goal[k]:
            continue
        if not spend(clock):
            space.complete = False
            break
        if exact is not None:
            candidates: list[int] = exact.get(state, [])
        else:
            candidates = list(by_bit[0])
            for f in bits(state):
                candidates.extend(by_bit[f + 1])
        for i in candidates:
            action = task.actions[i]
            if not action.applicable(state):
                continue
            target = action.apply(state)
            j = ids.get(target)
            if j is None:
                j = add(target, space.depth[k] + 1, k)
            space.succ[k].append((j, i))
    # Alive: can reach a goal state (backward closure over the explored edges).
    preds: list[list[int]] = [[] for _ in space.states]
    for k, edges in enumerate(space.succ):
        for j, _ in edges:
            preds[j].append(k)
    alive = [False] * len(space.states)
    stack = [k for k, g in enumerate(space.goal) if g]
    for k in stack:
        alive[k] = True
    while stack:
        k = stack.pop()
        for p in preds[k]:
            if not alive[p]:
                alive[p] = True
                stack.append(p)
    space.alive = alive
    return space


def _avoiding(space: _Space, avoid_state: int = 0, avoid_pre: int = 0,
              task: Task | None = None) -> list[int]:
    """Ids of alive states reachable from the initial state without entering a state
    with a fact of ``avoid_state`` and without using an action whose precondition has a
    fact of ``avoid_pre``. Empty if the initial state itself is avoided or dead."""
    if not space.alive[0] or space.states[0] & avoid_state:
        return []
    seen = [False] * len(space.states)
    seen[0] = True
    order = [0]
    queue = deque([0])
    while queue:
        k = queue.popleft()
        for j, i in space.succ[k]:
            if seen[j] or not space.alive[j] or space.states[j] & avoid_state:
                continue
            if avoid_pre and task is not None and task.actions[i].pre & avoid_pre:
                continue
            seen[j] = True
            order.append(j)
            queue.append(j)
    return order


def complete_landmarks(
    ptask: ProbabilisticTask, graph: PolicyGraph, budget: Budget | BudgetClock | None = None
) -> LandmarkSet:
    """Exact policy landmarks and orderings from D(M)^c (see the module docstring)."""
    started = time.perf_counter()
    clock = as_clock(budget)
    task = complete_compilation(ptask, graph)
    if not spend(clock, len(task.actions)):
        return _unfinished("complete", started, len(task.actions))
    return exact_task_landmarks(task, "complete", clock, started)


def exact_task_landmarks(
    task: Task, source: Source = "complete", budget: Budget | BudgetClock | None = None,
    started: float | None = None,
) -> LandmarkSet:
    """Exact landmarks of a deterministic task by search in its real state space.

    Practical when the reachable state space is small — always the case for D(M)^c, whose
    states are the policy's. A fact is a landmark iff the goal is unreachable when states
    containing it are never entered; it is causal iff the goal is unreachable when actions
    needing it are never used (or it is a goal fact).
    """
    started = time.perf_counter() if started is None else started
    clock = as_clock(budget)
    space = explore_task(task, clock)
    if not space.alive[0]:
        if not space.complete:
            # Nothing proven either way; report an empty, incomplete, solvable set.
            return LandmarkSet(source, (), frozenset(), frozenset(), frozenset(), (),
                               complete=False, seconds=time.perf_counter() - started,
                               compiled_actions=len(task.actions))
        return _unsolvable(source, started, len(task.actions))
    complete = space.complete
    # Candidates: facts on every one of a few plans (landmarks hold on all of them).
    candidates = -1
    for end in _plan_ends(space):
        on_path = 0
        k = end
        while k >= 0:
            on_path |= space.states[k]
            k = space.parent[k]
        candidates &= on_path
    # On an incomplete exploration a "landmark" could be avoided by unexplored plans.
    found: list[int] = []
    causal: set[int] = set()
    if complete:
        for f in bits(candidates):
            if not spend(clock, len(space.states)):
                complete = False
                break
            if task.init >> f & 1 or not _reaches_goal(space, _avoiding(space, 1 << f)):
                found.append(f)
                if task.goal >> f & 1 or not _reaches_goal(
                    space, _avoiding(space, avoid_pre=1 << f, task=task)
                ):
                    causal.add(f)
    first_depth = {f: _first_depth(space, f) for f in found}
    facts = tuple(sorted(found, key=lambda f: (first_depth[f], f)))
    initial = frozenset(f for f in facts if task.init >> f & 1)
    goal = frozenset(f for f in facts if task.goal >> f & 1)
    orderings: dict[tuple[int, int], OrderingKind] = {}
    if complete:
        complete = _exact_orderings(space, facts, initial, orderings, clock)
    return LandmarkSet(
        source=source,
        facts=facts,
        initial=initial,
        goal=goal,
        causal=frozenset(causal),
        orderings=_sorted_orderings(orderings, facts),
        solvable=True,
        complete=complete,
        seconds=time.perf_counter() - started,
        compiled_actions=len(task.actions),
    )


def _plan_ends(space: _Space) -> list[int]:
    """A few alive goal states (the first and last found); their BFS-tree paths are plans."""
    goals = [k for k, g in enumerate(space.goal) if g]
    return sorted({goals[0], goals[-1], goals[len(goals) // 2]}) if goals else []


def _reaches_goal(space: _Space, region: list[int]) -> bool:
    return any(space.goal[k] for k in region)


def _first_depth(space: _Space, fact: int) -> int:
    return min(
        (space.depth[k] for k, s in enumerate(space.states) if space.alive[k] and s >> fact & 1),
        default=0,
    )


def _exact_orderings(
    space: _Space,
    facts: Sequence[int],
    initial: frozenset[int],
    out: dict[tuple[int, int], OrderingKind],
    clock: BudgetClock,
) -> bool:
    """Exact natural and greedy-necessary orderings between non-initial landmarks.

    natural a → b fails iff some plan reaches a state with ``b`` (or with both) through
    states without ``a``: collect every fact of the states reachable while avoiding ``a``
    and of their successors. greedy-necessary a → b holds iff ``a`` is in every state from
    which an edge first enters ``b`` (the source reached while avoiding ``b``).
    """
    movable = [f for f in facts if f not in initial]
    natural: dict[int, int] = {}
    gn: dict[int, int] = {}
    for a in movable:
        if not spend(clock, len(space.states)):
            return False
        touched = 0
        for k in _avoiding(space, 1 << a):
            touched |= space.states[k]
            for j, _ in space.succ[k]:
                if space.alive[j]:
                    touched |= space.states[j]
        natural[a] = touched
    for b in movable:
        if not spend(clock, len(space.states)):
            return False
        before = -1
        for k in _avoiding(space, 1 << b):
            for j, _ in space.succ[k]:
                if space.alive[j] and space.states[j] >> b & 1:
                    before &= space.states[k]
        gn[b] = before
    for a in movable:
        for b in movable:
            if a == b:
                continue
            if gn[b] >> a & 1 and gn[b] != -1:
                out[(a, b)] = "greedy-necessary"
            elif not natural[a] >> b & 1:
                out[(a, b)] = "natural"
    return True
