"""The oracle worlds of the Gymnasium differential tests: FrozenLake and Taxi written from
their documented rules (Gymnasium's environment pages), never from xaip's adapter or
features, nor from the environments' code.

A world gives its start state, its actions, the move rule (successor, episode over,
reward), the key the adapter must show for a state (the documented state number), the
goal, and each concept of the environment file twice: as the file's condition text and as
a test written from the concept's meaning.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

Test = Callable[[Any], bool]


@dataclass
class World:
    env: dict[str, Any]  # the environment file's env, make, seed and goal
    actions: tuple[str, ...]
    start: Hashable
    move: Callable[[Any, str], tuple[Any, bool, float]]
    key: Callable[[Any], int]
    is_goal: Test
    terminal: Test
    concepts: dict[str, tuple[str, Test]] = field(default_factory=dict)
    opposite: dict[str, str] = field(default_factory=dict)


# ------------------------------------------------------------------------------ FrozenLake

LAKE_MOVES = {"left": (0, -1), "down": (1, 0), "right": (0, 1), "up": (-1, 0)}


def _tile(lake: list[str], r: int, c: int) -> str:
    return lake[r][c] if 0 <= r < len(lake) and 0 <= c < len(lake[0]) else "edge"


def frozen_lake(rng: random.Random) -> World:
    """A random lake, 3 to 5 cells a side, ``S`` top left, ``G`` bottom right. The rules:
    a move goes one cell (off the lake: stay), a hole or the goal ends the episode, the
    goal pays 1."""
    size = rng.randint(3, 5)
    rate = rng.choice((0.1, 0.2, 0.3))
    rows = [["H" if rng.random() < rate else "F" for _ in range(size)] for _ in range(size)]
    rows[0][0], rows[-1][-1] = "S", "G"
    lake = ["".join(row) for row in rows]

    def move(cell: tuple[int, int], action: str) -> tuple[Any, bool, float]:
        dr, dc = LAKE_MOVES[action]
        r, c = cell[0] + dr, cell[1] + dc
        if _tile(lake, r, c) == "edge":
            r, c = cell
        return (r, c), lake[r][c] in "HG", 1.0 if lake[r][c] == "G" else 0.0

    concepts: dict[str, tuple[str, Test]] = {
        "on-start": ("tile == S", lambda p: _tile(lake, *p) == "S"),
        "at-goal": ("tile == G", lambda p: _tile(lake, *p) == "G"),
        "in-hole": ("tile == H", lambda p: _tile(lake, *p) == "H"),
        "top-row": ("row == 0", lambda p: p[0] == 0),
        "left-column": ("col == 0", lambda p: p[1] == 0),
    }
    for name, (dr, dc) in LAKE_MOVES.items():
        concepts[f"hole-{name}"] = (
            f"tile-{name} == H",
            lambda p, dr=dr, dc=dc: _tile(lake, p[0] + dr, p[1] + dc) == "H")
        concepts[f"edge-{name}"] = (
            f"tile-{name} == edge",
            lambda p, dr=dr, dc=dc: _tile(lake, p[0] + dr, p[1] + dc) == "edge")
    return World(
        env={"env": "FrozenLake-v1", "make": {"desc": lake, "is_slippery": False},
             "goal": "tile == G"},
        actions=tuple(LAKE_MOVES), start=(0, 0), move=move,
        key=lambda p: p[0] * size + p[1], is_goal=lambda p: lake[p[0]][p[1]] == "G",
        terminal=lambda p: lake[p[0]][p[1]] in "HG", concepts=concepts,
        opposite={"left": "right", "right": "left", "up": "down", "down": "up"})


# ------------------------------------------------------------------------------------ Taxi

#: The documented map: ``|`` is a wall between two cells of a row.
TAXI_MAP = ["|R: | : :G|", "| : | : : |", "| : : : : |", "| | : | : |", "|Y| : |B: |"]
DEPOTS = ((0, 0), (0, 4), (4, 0), (4, 3))  # R, G, Y, B
TAXI_ACTIONS = ("south", "north", "east", "west", "pickup", "dropoff")


def _wall(row: int, col: int, side: int) -> bool:
    """A wall east (``side`` 1) or west (-1) of the taxi (the map's border included)."""
    return TAXI_MAP[row][2 * col + 1 + side] == "|"


def taxi(rng: random.Random, start_key: Callable[[int], int]) -> World:
    """Taxi 5x5: moves cost 1 (into a wall: stay), a pickup where the passenger waits puts
    them in the taxi, a dropoff at the destination with the passenger aboard ends the
    episode (+20), at another depot leaves them there; any other pickup or dropoff is
    illegal (-10, nothing changes). State number ((row * 5 + col) * 5 + passenger) * 4 +
    destination, passenger 4 meaning in the taxi. ``start_key(seed)`` is the state the
    environment resets to (drawn by the environment)."""
    seed = rng.randrange(10_000)
    number = start_key(seed)
    start = (number // 100, number // 20 % 5, number // 4 % 5, number % 4)

    def move(s: tuple[int, int, int, int], action: str) -> tuple[Any, bool, float]:
        row, col, passenger, dest = s
        if action in ("south", "north"):
            row = min(row + 1, 4) if action == "south" else max(row - 1, 0)
        elif action in ("east", "west"):
            side = 1 if action == "east" else -1
            if not _wall(row, col, side):
                col += side
        elif action == "pickup":
            if passenger < 4 and (row, col) == DEPOTS[passenger]:
                return (row, col, 4, dest), False, -1.0
            return s, False, -10.0
        else:  # dropoff
            if passenger == 4 and (row, col) == DEPOTS[dest]:
                return (row, col, dest, dest), True, 20.0
            if passenger == 4 and (row, col) in DEPOTS:
                return (row, col, DEPOTS.index((row, col)), dest), False, -1.0
            return s, False, -10.0
        return (row, col, passenger, dest), False, -1.0

    concepts: dict[str, tuple[str, Test]] = {
        "at-passenger": ("at-passenger == yes",
                         lambda s: s[2] < 4 and (s[0], s[1]) == DEPOTS[s[2]]),
        "passenger-in-taxi": ("passenger == taxi", lambda s: s[2] == 4),
        "at-destination": ("at-destination == yes",
                           lambda s: (s[0], s[1]) == DEPOTS[s[3]]),
        "at-depot": ("taxi-at != none", lambda s: (s[0], s[1]) in DEPOTS),
        "wall-east": ("east == wall", lambda s: _wall(s[0], s[1], 1)),
        "wall-west": ("west == wall", lambda s: _wall(s[0], s[1], -1)),
        "top-row": ("taxi-row == 0", lambda s: s[0] == 0),
        "bottom-row": ("taxi-row == 4", lambda s: s[0] == 4),
    }
    return World(
        env={"env": "Taxi-v3", "seed": seed, "goal": "delivered == yes"},
        actions=TAXI_ACTIONS, start=start, move=move,
        key=lambda s: ((s[0] * 5 + s[1]) * 5 + s[2]) * 4 + s[3],
        is_goal=lambda s: s[2] == s[3], terminal=lambda s: s[2] == s[3],
        concepts=concepts,
        opposite={"south": "north", "north": "south", "east": "west", "west": "east"})
