"""Black-box simulators with failures and costs, and the samplers that probe them.

Why a separate protocol from :class:`xaip.agents.simulator.Simulator`: "why not my plan?"
(ICLR'22, book ch. 8) needs two things that protocol does not carry. An action may *fail*
(the invalid outcome ⊥: a move into a wall, a push with nothing to push), and a successful
action has a *cost* that may depend on the state. ``step`` therefore returns either
``(successor, cost)`` or :data:`INVALID`.

States are immutable, hashable values, so saving and restoring a state is keeping the
value (``get_state`` / ``set_state`` exist for simulators that wrap a stateful engine).

The samplers draw the "local region" of the paper: states near the plan and the foil,
reached by random walks from their trace states, or drawn uniformly from the states
reachable within a radius. Both are deterministic for a seed, so a sampling run can be
split into batches over worker processes and still give the same samples in the same order.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable

#: The paper's extra goal action appended to a foil (§4): it succeeds exactly in goal
#: states, so "the foil never reaches the goal" is explained as this action's missing
#: precondition, a concept every goal state has and the foil's last state lacks.
GOAL_ACTION = "reach-goal"


class Invalid:
    """The invalid outcome ⊥ of an action that cannot be executed (a single value)."""

    _instance: Invalid | None = None

    def __new__(cls) -> Invalid:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "INVALID"

    def __reduce__(self) -> str:
        return "INVALID"  # pickles as the module-level singleton


INVALID: Final = Invalid()

Outcome = tuple[Hashable, float] | Invalid


@runtime_checkable
class BlackBox(Protocol):
    """A deterministic simulator whose actions may fail and have state-dependent costs.

    ``step`` is pure: it returns ``(successor, cost)`` or :data:`INVALID` and leaves its
    argument untouched.
    """

    name: str

    @property
    def actions(self) -> tuple[str, ...]:
        """Every action label, valid or not in a given state."""
        ...

    def initial(self) -> Hashable:
        """The initial state of the task."""
        ...

    def step(self, state: Hashable, action: str) -> Outcome:
        """``(successor, cost)`` of ``action`` in ``state``, or :data:`INVALID`."""
        ...

    def is_goal(self, state: Hashable) -> bool:
        """Whether ``state`` is in the goal set."""
        ...


class Session:
    """A black box with a current state: ``get_state`` / ``set_state`` save and restore it,
    ``act`` executes one action from the current state (the stateful view some users and
    wrapped engines expect)."""

    def __init__(self, sim: BlackBox) -> None:
        self.sim = sim
        self._state = sim.initial()

    def get_state(self) -> Hashable:
        return self._state

    def set_state(self, state: Hashable) -> None:
        self._state = state

    def act(self, action: str) -> Outcome:
        outcome = self.sim.step(self._state, action)
        if not isinstance(outcome, Invalid):
            self._state = outcome[0]
        return outcome


@dataclass(frozen=True)
class Trace:
    """The run of an action sequence: ``states[i]`` is the state before step ``i``.

    When a step fails, ``failed_step`` is its index, ``states`` ends with the state in
    which it failed, and ``cost`` is the cost of the steps before it.
    """

    actions: tuple[str, ...]
    states: tuple[Hashable, ...]
    costs: tuple[float, ...]
    failed_step: int | None

    @property
    def cost(self) -> float:
        return sum(self.costs)

    @property
    def valid(self) -> bool:
        return self.failed_step is None

    @property
    def final(self) -> Hashable:
        return self.states[-1]


def run_trace(sim: BlackBox, actions: Sequence[str], start: Hashable | None = None) -> Trace:
    """Execute ``actions`` from ``start`` (default: the initial state), stopping at ⊥."""
    state = sim.initial() if start is None else start
    states = [state]
    costs: list[float] = []
    for index, action in enumerate(actions):
        outcome = sim.step(state, action)
        if isinstance(outcome, Invalid):
            return Trace(tuple(actions), tuple(states), tuple(costs), index)
        state, cost = outcome
        states.append(state)
        costs.append(cost)
    return Trace(tuple(actions), tuple(states), tuple(costs), None)


def random_walks(sim: BlackBox, starts: Sequence[Hashable], count: int, seed: int,
                 max_depth: int = 15) -> list[Hashable]:
    """``count`` states, each the end of a random walk of 0..``max_depth`` steps from a
    start chosen uniformly in ``starts``. A failing action leaves the walker in place
    (the walk spends a step), as an agent pressing a useless key would."""
    if not starts:
        return []
    rng = random.Random(seed)
    actions = sim.actions
    out: list[Hashable] = []
    for _ in range(count):
        state = starts[rng.randrange(len(starts))]
        for _ in range(rng.randint(0, max_depth)):
            outcome = sim.step(state, actions[rng.randrange(len(actions))])
            if not isinstance(outcome, Invalid):
                state = outcome[0]
        out.append(state)
    return out


def reachable(sim: BlackBox, starts: Sequence[Hashable], radius: int | None = None,
              limit: int | None = None) -> list[Hashable]:
    """The states reachable from ``starts`` within ``radius`` steps (breadth first, in a
    deterministic order), at most ``limit`` of them."""
    seen = dict.fromkeys(starts)
    frontier = list(seen)
    depth = 0
    while frontier and (radius is None or depth < radius):
        depth += 1
        following: list[Hashable] = []
        for state in frontier:
            for action in sim.actions:
                outcome = sim.step(state, action)
                if isinstance(outcome, Invalid) or outcome[0] in seen:
                    continue
                seen[outcome[0]] = None
                following.append(outcome[0])
                if limit is not None and len(seen) >= limit:
                    return list(seen)
        frontier = following
    return list(seen)


def reachability_samples(sim: BlackBox, starts: Sequence[Hashable], count: int, seed: int,
                         radius: int = 6) -> list[Hashable]:
    """``count`` states drawn uniformly (with replacement) from those within ``radius``
    steps of ``starts``: the paper's reachability-bounded local region."""
    region = reachable(sim, starts, radius)
    rng = random.Random(seed)
    return [region[rng.randrange(len(region))] for _ in range(count)] if region else []
