"""The simulator protocol: what a black-box agent's world must offer to be interrogated.

Why a protocol and pure transitions: capability discovery asks thousands of "starting in s,
can you reach s'?" questions. Answering one means searching from an arbitrary state, so the
simulator must (1) accept any state (``set_state`` / ``step`` from a given state), (2) never
change a state in place, and (3) use states that are hashable values, so that a search can
keep them in sets and dictionaries without copying. Games written for xaip make states small
tuples; foreign environments are wrapped by :mod:`xaip.agents.gym`.

States are deliberately opaque to the agents: only the simulator and the user's vocabulary
(:mod:`xaip.vocab`) look inside them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Protocol, TypeVar, runtime_checkable

from xaip.runtime.budget import BudgetClock
from xaip.runtime.executors import on_worker_start

StateT = TypeVar("StateT", bound=Hashable)
StateT_contra = TypeVar("StateT_contra", bound=Hashable, contravariant=True)


@runtime_checkable
class Simulator(Protocol[StateT]):
    """A deterministic, fully observable world with named primitive actions.

    ``step`` is pure: it returns the successor and leaves its argument (and the simulator's
    current state) untouched. ``actions`` lists only the actions that change the state, so a
    search never wastes nodes on no-ops; ``step`` with any other known action returns the
    state unchanged.
    """

    def reset(self, seed: int | None = None) -> StateT:
        """Start an episode (a new random level when ``seed`` is given) and return its state."""
        ...

    def get_state(self) -> StateT:
        """The current state of the simulator."""
        ...

    def set_state(self, state: StateT) -> None:
        """Make ``state`` the current state."""
        ...

    def actions(self, state: StateT) -> tuple[str, ...]:
        """The primitive actions that are applicable (change the state) in ``state``."""
        ...

    def step(self, state: StateT, action: str) -> StateT:
        """The successor of ``state`` under ``action``; ``state`` is not modified."""
        ...

    def is_goal(self, state: StateT) -> bool:
        """Whether ``state`` satisfies the simulator's own task (e.g. the game is won)."""
        ...

    def render_text(self, state: StateT) -> str:
        """A plain-text picture of ``state``."""
        ...

    def render_png(self, state: StateT, path: str | Path) -> None:
        """Write a PNG picture of ``state`` to ``path``."""
        ...


#: A distance bound at or above this value says the goal cannot be reached at all; search
#: agents never expand such states.
UNREACHABLE = 10**9


@runtime_checkable
class HasDistanceBound(Protocol[StateT_contra]):
    """Optional: an admissible lower bound on the number of actions from one state to another.

    Search agents use it as an A* heuristic when the goal is a concrete state; policy agents
    use it to decide which way is "toward" the target. It must never overestimate, or search
    agents lose their optimality guarantee. Returning :data:`UNREACHABLE` (or more) proves
    the goal unreachable from the state, which prunes it from the search.
    """

    def distance_lower_bound(self, state: StateT_contra, goal: StateT_contra) -> int:
        """At least how many actions are needed to get from ``state`` to ``goal``."""
        ...


@runtime_checkable
class HasSuccessors(Protocol[StateT]):
    """Optional: all ``(action, successor)`` pairs at once, in ``actions`` order.

    Why: for games where finding the applicable actions already computes the successors
    (pushing, combining), asking ``actions`` then ``step`` does the work twice; searches use
    this method when the simulator has it.
    """

    def successors(self, state: StateT) -> list[tuple[str, StateT]]:
        """``(action, step(state, action))`` for every action in ``actions(state)``."""
        ...


def successors(sim: Simulator[StateT], state: StateT) -> list[tuple[str, StateT]]:
    """``(action, successor)`` for every applicable action of ``state``, in ``actions`` order."""
    if isinstance(sim, HasSuccessors):
        return sim.successors(state)
    step = sim.step
    return [(action, step(state, action)) for action in sim.actions(state)]


def successor_function(
    sim: Simulator[StateT],
) -> Callable[[StateT], list[tuple[str, StateT]]]:
    """The fastest way to expand states of ``sim``: its ``successors`` method if it has one."""
    if isinstance(sim, HasSuccessors):
        return sim.successors
    actions, step = sim.actions, sim.step

    def expand(state: StateT) -> list[tuple[str, StateT]]:
        return [(action, step(state, action)) for action in actions(state)]

    return expand


def execute(
    sim: Simulator[StateT], state: StateT, plan: tuple[str, ...] | list[str]
) -> list[StateT]:
    """The states visited by applying ``plan`` from ``state`` (``state`` first)."""
    states = [state]
    for action in plan:
        state = sim.step(state, action)
        states.append(state)
    return states


def random_walk(
    sim: Simulator[StateT], state: StateT, steps: int, rng: random.Random | int
) -> list[StateT]:
    """A seeded random walk of at most ``steps`` applicable actions (stops in dead ends).

    Why: random walks are the cheapest way to produce reachable target states for random
    tasks (the traces of capability discovery) without knowing anything about the game.
    """
    rand = rng if isinstance(rng, random.Random) else random.Random(rng)
    states = [state]
    expand = successor_function(sim)  # one expansion per step, not actions and then step
    for _ in range(steps):
        options = expand(state)
        if not options:
            break
        state = options[rand.randrange(len(options))][1]
        states.append(state)
    return states


# --------------------------------------------------------------------------- run deadlines


class OutOfTime(Exception):  # noqa: N818 - a signal, not an error
    """Raised inside long set-up work (level generation, distance tables) when the deadline
    installed by :func:`deadline` has passed; the caller that installed it catches it and
    reports "budget exhausted"."""


_DEADLINE: ContextVar[BudgetClock | None] = ContextVar("xaip_deadline", default=None)


@contextmanager
def deadline(clock: BudgetClock | None) -> Iterator[None]:
    """Make ``clock``'s deadline hold inside the block, also in set-up code that takes no
    budget argument (level generation, board tables): it calls :func:`check_deadline`.

    Why a context variable: the deadline of a discovery run must reach code several layers
    down (a game's constructor, its board's distance table) without every signature on the
    way growing a budget parameter."""
    token = _DEADLINE.set(clock)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _forget_deadline() -> None:
    """In a forked executor worker: the parent's deadline is not the worker's (each query
    carries its own budget), and checking it while unpickling a queued query broke the
    pool once the parent's deadline had passed."""
    _DEADLINE.set(None)


on_worker_start(_forget_deadline)


def check_deadline() -> None:
    """Raise :class:`OutOfTime` when the deadline installed by :func:`deadline` passed."""
    clock = _DEADLINE.get()
    if clock is not None and clock.out_of_time():
        raise OutOfTime("budget exhausted")
