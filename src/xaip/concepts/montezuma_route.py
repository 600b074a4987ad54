"""How the screen-4 route was found: breadth-first search over the simulator's own steps.

Why a route and not a saved emulator state: a plain action list replays on any machine
with ale-py 0.12.1 and can be read and checked; a snapshot is an opaque binary. Why
breadth-first search: the game is deterministic, so a shortest sequence of steps to a
goal is found by expanding states in order of depth, deduplicated by a *key* — the part
of the RAM that matters for what can happen next (room, agent position and mode,
inventory, lives, the skull's position, and in room 0 the laser phase, so that waiting
for the lasers to switch off is not pruned away).

    python -m xaip.concepts.montezuma_route > screen-4.route.txt

regenerates a route (six minutes on a loaded two-core machine; 122 steps where the
bundled route, found leg by leg with finer goals, has 129). Both end at the top of screen
4's ladder, but at different moments of the crab's walk, so the bundled plan and foil
(timed against the crab) belong to the bundled route.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from typing import Any

from xaip.concepts.montezuma import (
    INVENTORY,
    LIVES,
    MODE,
    ROOM,
    SKULL_X,
    Montezuma,
    MontezumaState,
    X,
    Y,
    has_key,
)
from xaip.concepts.simulator import Invalid
from xaip.errors import InputError

LASER_ROOM = 0  # its lasers switch on and off with RAM byte 0 (a frame counter)


def route_key(state: MontezumaState) -> tuple[int, ...]:
    """What the search treats as "the same state" (see the module docstring)."""
    ram = state.ram
    laser = (ram[0] >> 3) & 15 if ram[ROOM] == LASER_ROOM else 0
    return (ram[ROOM], ram[X], ram[Y], ram[MODE], ram[INVENTORY], ram[SKULL_X] // 4,
            ram[LIVES], laser)


def shortest_steps(sim: Montezuma, start: MontezumaState,
                   goal: Callable[[MontezumaState], bool], limit: int = 400_000
                   ) -> list[str]:
    """The shortest action list from ``start`` to a state meeting ``goal`` (failing steps
    are never taken); :class:`InputError` when ``limit`` keys are seen without one."""
    seen: set[Hashable] = {route_key(start)}
    queue: deque[tuple[MontezumaState, tuple[str, ...]]] = deque([(start, ())])
    while queue:
        state, path = queue.popleft()
        for action in sim.actions:
            outcome = sim.step(state, action)
            if isinstance(outcome, Invalid):
                continue
            following = outcome[0]
            assert isinstance(following, MontezumaState)
            key = route_key(following)
            if key in seen:
                continue
            if goal(following):
                return [*path, action]
            seen.add(key)
            if len(seen) > limit:
                raise InputError(f"no route within {limit} states")
            queue.append((following, (*path, action)))
    raise InputError("no route: every reachable state was searched")


def _in_room(room: int) -> Callable[[MontezumaState], bool]:
    return lambda state: state.byte(ROOM) == room


# the legs of the screen-4 route: to the key, through the left door into room 0, past its
# lasers and down its ladder into room 4
LEGS: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("the key", has_key),
    ("room 0", _in_room(0)),
    ("room 4", _in_room(4)),
)


def find_screen_4_route(sim: Montezuma | None = None) -> list[str]:
    """Every action from the start of the game to the top of screen 4's ladder."""
    sim = sim or Montezuma()
    state = sim.initial()
    route: list[str] = []
    for _, goal in LEGS:
        leg = shortest_steps(sim, state, goal)
        for action in leg:
            outcome = sim.step(state, action)
            assert not isinstance(outcome, Invalid)
            following = outcome[0]
            assert isinstance(following, MontezumaState)
            state = following
        route += leg
    return route


if __name__ == "__main__":
    print("\n".join(find_screen_4_route()))
