"""Belief tracking for an observer who sees tokens (book §4.1.1, L01–L02).

The observer knows the agent's model and its own sensor model, so after tokens
``o_1..o_n`` it believes exactly the states reachable from its initial belief by action
sequences that emit those tokens (Def. 11–12). The *belief plan set* (Def. 13) is the set
of those action sequences themselves: every causally consistent chaining through the
belief sequence.

Why successors are grouped by token: an update ``update(b, o)`` needs, for each state of
``b``, only the successors whose token is ``o``. :class:`BeliefTracker` computes each
state's successors once, grouped by token, and every later update, BPS count and search
node reuses them.

API::

    tracker = BeliefTracker(task, model)                 # model: ObservationModel
    tokens = tracker.tokens_of(plan)                     # plan: sequence of GroundAction
    beliefs = tracker.sequence(tokens)                   # b_0 .. b_n (frozensets of states)
    count_plans(tracker, beliefs, tokens)                # |BPS| exactly, by DP
    bps = belief_plan_set(tracker, beliefs, tokens, cap=1000)   # enumerated up to cap
    bps.count, bps.plans, bps.complete, bps.names(task)

Counting is exact at any size (dynamic programming over the layered belief graph);
enumeration stops at ``cap`` plans and says so (``complete`` False).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from xaip.observers.sensors import ObservationModel, Token
from xaip.planning.task import GroundAction, State, Task

Belief = frozenset[State]
#: A successor: (index into ``task.actions``, resulting state).
Edge = tuple[int, State]


def initial_belief(task: Task, alternatives: Iterable[State] = ()) -> Belief:
    """``b_0``: the initial state, plus any states the observer cannot tell apart from it."""
    return frozenset((task.init, *alternatives))


class BeliefTracker:
    """One observer's belief updates on one task, with per-state successor caches."""

    def __init__(self, task: Task, model: ObservationModel, initial: Belief | None = None) -> None:
        self.task = task
        self.model = model
        self.initial: Belief = initial if initial is not None else initial_belief(task)
        if task.init not in self.initial:
            raise ValueError("the initial belief must contain the initial state")
        self._succ: dict[State, dict[Token, tuple[Edge, ...]]] = {}
        self.expanded = 0  # states whose successors were generated (an effort counter)

    def successors(self, state: State) -> dict[Token, tuple[Edge, ...]]:
        """``state``'s successors grouped by the token each transition emits."""
        found = self._succ.get(state)
        if found is None:
            grouped: dict[Token, list[Edge]] = {}
            model = self.model
            for index, action in enumerate(self.task.actions):
                if state & action.pre == action.pre and not state & action.neg_pre:
                    nxt = action.apply(state)
                    grouped.setdefault(model.observe(action, nxt), []).append((index, nxt))
            found = {token: tuple(edges) for token, edges in grouped.items()}
            self._succ[state] = found
            self.expanded += 1
        return found

    def update(self, belief: Iterable[State], token: Token) -> Belief:
        """``update(b, o)``: every state reachable from ``b`` by a transition emitting ``o``."""
        out: set[State] = set()
        for state in belief:
            for _, nxt in self.successors(state).get(token, ()):
                out.add(nxt)
        return frozenset(out)

    def sequence(self, tokens: Sequence[Token],
                 initial: Belief | None = None) -> tuple[Belief, ...]:
        """The belief sequence ``b_0 .. b_n`` for ``tokens``."""
        beliefs = [self.initial if initial is None else initial]
        for token in tokens:
            beliefs.append(self.update(beliefs[-1], token))
        return tuple(beliefs)

    def tokens_of(self, plan: Sequence[GroundAction],
                  start: State | None = None) -> tuple[Token, ...]:
        """The tokens ``plan`` emits from ``start`` (default: the initial state)."""
        return self.model.tokens(plan, start)


def _completions(tracker: BeliefTracker, beliefs: Sequence[Belief], tokens: Sequence[Token],
                 final: Callable[[State], bool] | None) -> list[dict[State, int]]:
    """``g[i][s]``: the number of ways to finish the token sequence from ``s`` at step ``i``
    (ending in a state that ``final`` accepts); states with no completion are absent."""
    n = len(tokens)
    layers: list[dict[State, int]] = [{} for _ in range(n + 1)]
    layers[n] = {s: 1 for s in beliefs[n] if final is None or final(s)}
    for i in range(n - 1, -1, -1):
        after = layers[i + 1]
        here = layers[i]
        for state in beliefs[i]:
            total = 0
            for _, nxt in tracker.successors(state).get(tokens[i], ()):
                total += after.get(nxt, 0)
            if total:
                here[state] = total
    return layers


def count_plans(tracker: BeliefTracker, beliefs: Sequence[Belief], tokens: Sequence[Token],
                final: Callable[[State], bool] | None = None) -> int:
    """``|BPS|`` exactly: the number of (start state, action sequence) pairs that emit
    ``tokens`` from ``beliefs[0]`` (and end in a state accepted by ``final``, if given)."""
    if len(beliefs) != len(tokens) + 1:
        raise ValueError("need one belief more than tokens")
    return sum(_completions(tracker, beliefs, tokens, final)[0].values())


@dataclass(frozen=True)
class BeliefPlan:
    """One member of a belief plan set: its start state, actions and states ``s_0..s_n``."""

    start: State
    actions: tuple[int, ...]
    states: tuple[State, ...]

    def names(self, task: Task) -> tuple[str, ...]:
        return tuple(task.actions[i].name for i in self.actions)

    def ground(self, task: Task) -> tuple[GroundAction, ...]:
        return tuple(task.actions[i] for i in self.actions)


@dataclass(frozen=True)
class BeliefPlanSet:
    """A belief plan set: ``count`` exact, ``plans`` the first ``cap`` in a fixed order."""

    count: int
    plans: tuple[BeliefPlan, ...]
    cap: int

    @property
    def complete(self) -> bool:
        """Whether ``plans`` holds every member (the count did not pass the cap)."""
        return len(self.plans) == self.count

    def names(self, task: Task) -> list[tuple[str, ...]]:
        return [p.names(task) for p in self.plans]


def belief_plan_set(tracker: BeliefTracker, beliefs: Sequence[Belief], tokens: Sequence[Token],
                    cap: int = 1000, final: Callable[[State], bool] | None = None) -> BeliefPlanSet:
    """The BPS of a belief sequence, enumerated depth first up to ``cap`` plans.

    The completion counts prune the enumeration, so it never walks into a dead end: the
    work is proportional to the plans listed times their length.
    """
    if len(beliefs) != len(tokens) + 1:
        raise ValueError("need one belief more than tokens")
    layers = _completions(tracker, beliefs, tokens, final)
    count = sum(layers[0].values())
    plans: list[BeliefPlan] = []
    n = len(tokens)
    for start in sorted(layers[0]):
        stack: list[tuple[int, State, tuple[int, ...], tuple[State, ...]]] = [
            (0, start, (), (start,))]
        while stack and len(plans) < cap:
            i, state, actions, states = stack.pop()
            if i == n:
                plans.append(BeliefPlan(start, actions, states))
                continue
            edges = tracker.successors(state).get(tokens[i], ())
            for index, nxt in reversed(edges):
                if nxt in layers[i + 1]:
                    stack.append((i + 1, nxt, (*actions, index), (*states, nxt)))
        if len(plans) >= cap:
            break
    return BeliefPlanSet(count, tuple(plans), cap)


def plan_beliefs(tracker: BeliefTracker, plan: Sequence[GroundAction]
                 ) -> tuple[tuple[Token, ...], tuple[Belief, ...]]:
    """Tokens and belief sequence of ``plan`` from the initial state (the common first step)."""
    tokens = tracker.tokens_of(plan)
    return tokens, tracker.sequence(tokens)
