"""Agents that run tasks in a simulator and answer "starting in s, can you reach s'?".

Why two kinds: capability discovery treats the agent as a black box, and what the agent can
do depends on how it decides, not only on the simulator. A :class:`SearchAgent` reaches every
state its search can find within its budget (so its capabilities are the simulator's
reachability); a :class:`PolicyAgent` follows a fixed goal-conditioned policy and fails
whenever a target does not suit that policy, as in the paper's comparison of search and
policy agents. Both return an :class:`Attempt` that says *why* a query failed (unreachable,
budget exhausted, policy stuck or looping), because the discovery algorithm records failed
answers with their reason.
"""

from __future__ import annotations

import heapq
import time
from collections import deque
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Generic, Literal, Protocol, TypeVar

from xaip.agents.simulator import (
    UNREACHABLE,
    HasDistanceBound,
    Simulator,
    successor_function,
)
from xaip.errors import InputError
from xaip.runtime.budget import Budget, BudgetClock

S = TypeVar("S", bound=Hashable)

Status = Literal["reached", "unreachable", "budget", "stuck", "loop"]
Plan = tuple[str, ...]
#: A goal: a concrete state to reach exactly, or a test on states.
Goal = Any
#: ``heuristic(state, goal)``: a lower bound on the number of actions still needed.
Heuristic = Callable[[Any, Any], int]
#: ``on_exhausted(reached, ruled_out)``: what a search that proved its goal unreachable saw.
Exhausted = Callable[[Collection[Any], set[Any]], None]
#: ``policy(state, goal)``: the action to take, or ``None`` when the policy gives up.
Policy = Callable[[Any, Any], str | None]

DEFAULT_BUDGET = Budget(max_nodes=1_000_000)
POLICY_BUDGET = Budget(max_nodes=10_000)


@dataclass(frozen=True)
class AnyOf:
    """A goal met by any one of several states, e.g. "this place, facing any way".

    Why: a person's vocabulary often cannot see part of a state (the player's facing), so
    a waypoint described in it stands for several concrete states; asking the agent for one
    of them in particular would turn a hidden detail into a false "cannot". Agents reach
    whichever member is nearest and say which in ``Attempt.states[-1]``; distance bounds
    are the least over the members.
    """

    states: tuple[Any, ...]

    def __post_init__(self) -> None:
        if not self.states:
            raise InputError("AnyOf needs at least one state")

    def __contains__(self, state: object) -> bool:
        return state in self.states

    @property
    def first(self) -> Any:
        """The representative state (the most plausible reading comes first)."""
        return self.states[0]


def representative(goal: Goal) -> Any:
    """A concrete state standing for ``goal`` (the first member of an :class:`AnyOf`)."""
    return goal.first if isinstance(goal, AnyOf) else goal


def goal_test(goal: Goal) -> Callable[[Any], bool]:
    """A test for ``goal``: the goal itself when callable, membership for :class:`AnyOf`,
    else equality with the goal state."""
    if isinstance(goal, AnyOf):
        members = frozenset(goal.states)

        def one_of(state: Any) -> bool:
            return state in members

        return one_of
    if callable(goal):
        test: Callable[[Any], bool] = goal
        return test
    target = goal

    def equals(state: Any) -> bool:
        return bool(state == target)

    return equals


@dataclass(frozen=True)
class Attempt(Generic[S]):
    """The outcome of one query or task.

    ``status`` is ``reached`` on success; otherwise it says why the agent failed:
    ``unreachable`` (search proved no plan exists), ``budget`` (node or time budget spent),
    ``stuck`` (the policy had no action) or ``loop`` (the policy revisited a state).
    ``states`` starts with the start state and follows ``plan`` (for a failure, as far as
    the agent got; empty for a search that failed). ``nodes`` counts expanded states or
    policy steps.
    """

    status: Status
    plan: Plan
    states: tuple[S, ...]
    nodes: int
    seconds: float
    reason: str = ""

    @property
    def reached(self) -> bool:
        return self.status == "reached"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reached": self.reached,
            "plan": list(self.plan),
            "length": len(self.plan),
            "nodes": self.nodes,
            "seconds": self.seconds,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class AgentTask(Generic[S]):
    """A task for an agent: reach ``goal`` (a state or a test on states) from ``start``."""

    start: S
    goal: Goal
    name: str = ""
    budget: Budget | None = field(default=None, compare=False)


class Agent(Protocol[S]):
    """What capability discovery needs from an agent."""

    simulator: Simulator[S]

    def query(self, start: S, goal: Goal, budget: Budget | None = None) -> Attempt[S]:
        """Try to reach ``goal`` from ``start``; the attempt says how it went."""
        ...

    def reachable(self, start: S, goal: Goal, budget: Budget | None = None) -> Plan | None:
        """The agent's plan from ``start`` to ``goal``, or ``None`` when it cannot get there."""
        ...

    def run(self, task: AgentTask[S]) -> Attempt[S]:
        """Carry out ``task``; the attempt holds the execution trace."""
        ...


# --------------------------------------------------------------------------- search


def _plan_from(parents: dict[Any, tuple[Any, str] | None], state: Any) -> tuple[Plan, tuple]:
    actions: list[str] = []
    states = [state]
    link = parents[state]
    while link is not None:
        state, action = link
        actions.append(action)
        states.append(state)
        link = parents[state]
    actions.reverse()
    states.reverse()
    return tuple(actions), tuple(states)


def bfs(
    sim: Simulator[S],
    start: S,
    goal: Goal,
    budget: Budget | None = None,
    *,
    on_exhausted: Exhausted | None = None,
) -> Attempt[S]:
    """Breadth-first search: a shortest plan (fewest actions) from ``start`` to ``goal``.

    ``on_exhausted(reached, set())`` receives every state reachable from ``start`` when the
    search proves the goal unreachable (see :class:`SearchAgent`'s memory)."""
    test = goal_test(goal)
    clock = (budget or DEFAULT_BUDGET).start()
    parents: dict[Any, tuple[Any, str] | None] = {start: None}
    if test(start):
        return Attempt("reached", (), (start,), 0, clock.elapsed())
    queue: deque[Any] = deque([start])
    expand = successor_function(sim)
    expanded = 0
    while queue:
        if not clock.charge():
            return _out_of_budget(clock, expanded)
        state = queue.popleft()
        expanded += 1
        for action, nxt in expand(state):
            if nxt in parents:
                continue
            parents[nxt] = (state, action)
            if test(nxt):
                plan, states = _plan_from(parents, nxt)
                return Attempt("reached", plan, states, expanded, clock.elapsed())
            queue.append(nxt)
    if on_exhausted is not None:
        on_exhausted(parents.keys(), set())
    return Attempt(
        "unreachable", (), (), expanded, clock.elapsed(), "no plan exists from the start state"
    )


def astar(
    sim: Simulator[S],
    start: S,
    goal: Goal,
    heuristic: Heuristic | None = None,
    budget: Budget | None = None,
    *,
    weight: float = 1.0,
    on_exhausted: Exhausted | None = None,
) -> Attempt[S]:
    """A* with unit action costs; optimal when ``heuristic`` never overestimates.

    Without a heuristic this is uniform-cost search. Nodes are re-opened when a cheaper path
    is found, so an admissible but inconsistent heuristic still yields optimal plans.
    ``weight > 1`` gives weighted A* (f = g + weight * h): faster, plans at most ``weight``
    times longer than optimal — for callers that only need to know a plan exists.
    States whose heuristic value is :data:`UNREACHABLE` or more are never queued (the
    bound proves the goal out of their reach). When the search proves the goal unreachable,
    ``on_exhausted(reached, ruled_out)`` receives the states it reached and those it left
    unexpanded for that reason: together with everything reachable from the latter, they
    are every state reachable from ``start``.
    """
    test = goal_test(goal)
    clock = (budget or DEFAULT_BUDGET).start()
    h: Callable[[Any], float | None]
    if heuristic is None:

        def h(_s: Any) -> float | None:
            return 0
    else:

        def h(s: Any) -> float | None:
            value = heuristic(s, goal)
            return None if value >= UNREACHABLE else weight * value

    first = h(start)
    if first is None and not test(start):
        return Attempt("unreachable", (), (), 0, clock.elapsed(),
                       "no plan exists: the simulator's distance bound rules the goal out")
    parents: dict[Any, tuple[Any, str] | None] = {start: None}
    best: dict[Any, int] = {start: 0}
    dead: set[Any] = set()  # states the bound rules out (never queued)
    tie = count()
    frontier: list[tuple[float, int, int, Any]] = [(first or 0, 0, next(tie), start)]
    expand = successor_function(sim)
    expanded = 0
    while frontier:
        _, neg_g, _, state = heapq.heappop(frontier)
        g = -neg_g
        if g > best[state]:
            continue
        if test(state):
            plan, states = _plan_from(parents, state)
            return Attempt("reached", plan, states, expanded, clock.elapsed())
        if not clock.charge():
            return _out_of_budget(clock, expanded)
        expanded += 1
        g1 = g + 1
        for action, nxt in expand(state):
            old = best.get(nxt)
            if old is not None:
                if old <= g1:
                    continue
                estimate = h(nxt)
            else:
                if nxt in dead:
                    continue
                estimate = h(nxt)
                if estimate is None:
                    dead.add(nxt)
                    continue
            best[nxt] = g1
            parents[nxt] = (state, action)
            heapq.heappush(frontier, (g1 + (estimate or 0), -g1, next(tie), nxt))
    if on_exhausted is not None:
        on_exhausted(best.keys(), dead)
    return Attempt(
        "unreachable", (), (), expanded, clock.elapsed(), "no plan exists from the start state"
    )


def _out_of_budget(clock: BudgetClock, expanded: int) -> Attempt[Any]:
    limit = clock.budget
    what = (
        f"{limit.max_nodes} nodes"
        if limit.max_nodes is not None and clock.nodes > limit.max_nodes
        else f"{limit.max_seconds} seconds"
    )
    return Attempt("budget", (), (), expanded, clock.elapsed(), f"search budget of {what} spent")


def simulator_heuristic(sim: object) -> Heuristic | None:
    """The simulator's ``distance_lower_bound`` as a heuristic for state goals, if it has one.

    For goals given as tests the heuristic is 0 (the bound needs a concrete target).
    """
    if not isinstance(sim, HasDistanceBound):
        return None
    bound = sim.distance_lower_bound

    def heuristic(state: Any, goal: Any) -> int:
        if isinstance(goal, AnyOf):
            return min(bound(state, member) for member in goal.states)
        return 0 if callable(goal) else bound(state, goal)

    return heuristic


class SearchAgent(Generic[S]):
    """An agent that plans with A* (or BFS) over the simulator's primitive actions.

    It answers a reachability query with a shortest plan when one exists within its budget.
    The heuristic defaults to the simulator's admissible ``distance_lower_bound`` when the
    simulator has one, so plans stay optimal.

    Why it remembers: proving a goal unreachable means exhausting every state reachable
    from the start, and capability discovery asks many such questions from nearby starts.
    When a search exhausts, the agent keeps the set R(s) of states it reached. A later
    start inside R(s) reaches only states inside R(s) (reachability is transitive), so a
    goal outside R(s) is unreachable from it without searching again. The answers are the
    same as without memory; ``memory`` caps the states kept (0 turns memory off, oldest
    sets are forgotten first).
    """

    def __init__(
        self,
        simulator: Simulator[S],
        *,
        budget: Budget = DEFAULT_BUDGET,
        heuristic: Heuristic | None = None,
        algorithm: Literal["astar", "bfs"] = "astar",
        memory: int = 2_000_000,
    ) -> None:
        if algorithm not in ("astar", "bfs"):
            raise InputError(f"unknown search algorithm '{algorithm}' (use astar or bfs)")
        if memory < 0:
            raise InputError("the search agent's memory must be 0 (off) or a number of states")
        self.simulator = simulator
        self.budget = budget
        self.algorithm = algorithm
        self.heuristic = heuristic if heuristic is not None else simulator_heuristic(simulator)
        self.memory = memory
        self._exhausted: deque[Collection[Any]] = deque()
        self._remembered = 0

    def query(self, start: S, goal: Goal, budget: Budget | None = None) -> Attempt[S]:
        known = self._known_unreachable(start, goal)
        if known is not None:
            return known
        limit = budget or self.budget
        remember = self._remember if self.memory else None
        if self.algorithm == "bfs":
            return bfs(self.simulator, start, goal, limit, on_exhausted=remember)
        return astar(self.simulator, start, goal, self.heuristic, limit,
                     on_exhausted=remember)

    def known(self, start: S, goal: Goal) -> Attempt[S] | None:
        """The answer :meth:`query` would give from memory alone (the goal lies outside a
        reachable set remembered from an earlier exhausted search that reached ``start``),
        or ``None`` when answering needs a search. Lets a caller that hands queries to
        worker processes keep the ones this agent answers at once (discovery's executor
        dispatch: a worker does not have this memory and would search again)."""
        return self._known_unreachable(start, goal) if self.memory else None

    def _known_unreachable(self, start: S, goal: Goal) -> Attempt[S] | None:
        began = time.perf_counter()
        for reachable in self._exhausted:
            if start not in reachable:
                continue
            if isinstance(goal, AnyOf):
                if any(member in reachable for member in goal.states):
                    continue
            elif callable(goal):
                if any(goal(state) for state in reachable):
                    continue
            elif goal in reachable:
                continue
            return Attempt("unreachable", (), (), 0, time.perf_counter() - began,
                           "no plan exists: the goal is outside every state reachable from "
                           "an earlier search that reached this start")
        return None

    def _remember(self, reachable: Collection[Any], ruled_out: set[Any]) -> None:
        if len(reachable) + len(ruled_out) > self.memory:
            return
        if ruled_out:
            # The bound cut the search short of some states; finish the closure from them
            # (a plain traversal, cheaper than the search was) so that the set serves
            # later questions about other goals too.
            # Given up when it grows past four times what the search saw.
            limit = min(self.memory, 4 * (len(reachable) + len(ruled_out)) + 10_000)
            closed = set(reachable)
            closed |= ruled_out
            queue = deque(ruled_out)
            expand = successor_function(self.simulator)
            while queue:
                for _, nxt in expand(queue.popleft()):
                    if nxt not in closed:
                        closed.add(nxt)
                        if len(closed) > limit:
                            return
                        queue.append(nxt)
            reachable = closed
        self._exhausted.append(reachable)
        self._remembered += len(reachable)
        while self._remembered > self.memory:
            self._remembered -= len(self._exhausted.popleft())

    def forget(self) -> None:
        """Drop the remembered reachable sets (e.g. after changing the simulator)."""
        self._exhausted.clear()
        self._remembered = 0

    def reachable(self, start: S, goal: Goal, budget: Budget | None = None) -> Plan | None:
        attempt = self.query(start, goal, budget)
        return attempt.plan if attempt.reached else None

    def run(self, task: AgentTask[S]) -> Attempt[S]:
        return self.query(task.start, task.goal, task.budget)
