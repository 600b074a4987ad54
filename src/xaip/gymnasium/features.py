"""Named features of stock Gymnasium environments' states, for concepts written as data.

Why named features: a vocabulary file must say "the agent stands next to a hole" without
Python code. Each supported environment exposes a few features of a state -- its row and
column, the tile under the agent and the tiles around it, where Taxi's passenger is -- read
from the state's key (:func:`xaip.gymnasium.adapter.state_key`) and the environment's own
map. Concepts are then conditions on them (:mod:`xaip.gymnasium.vocabulary`).

Features are computed from the key and the map only, never by restoring the environment,
so evaluating a concept is cheap and has no side effect. Every environment has ``state``
(the key itself, when it is an integer); Arcade Learning Environment games have
``ram-0`` ... ``ram-127`` (the bytes of the RAM).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from xaip.errors import InputError

Value = int | str
Reader = Callable[[Hashable], Value]

DIRECTIONS = {"left": (0, -1), "right": (0, 1), "up": (-1, 0), "down": (1, 0)}


@dataclass(frozen=True)
class FeatureSet:
    """The features of one environment: name -> reader, and the values each may take
    (``None``: any integer)."""

    env: str
    readers: dict[str, Reader]
    values: dict[str, tuple[Value, ...] | None]

    def reader(self, name: str) -> Reader:
        found = self.readers.get(name)
        if found is None:
            raise InputError(f"unknown feature {name!r} of {self.env} (features: "
                             f"{', '.join(self.readers)})")
        return found


def _grid_features(env: str, rows: int, cols: int, tile: Callable[[int, int], str],
                   tiles: tuple[str, ...]) -> FeatureSet:
    """row, col, tile and tile-left/right/up/down (``edge`` beyond the border)."""

    def cell(key: Hashable) -> tuple[int, int]:
        assert isinstance(key, int)
        return divmod(key, cols)

    def neighbour(direction: str) -> Reader:
        dr, dc = DIRECTIONS[direction]

        def read(key: Hashable) -> Value:
            r, c = cell(key)
            r, c = r + dr, c + dc
            return tile(r, c) if 0 <= r < rows and 0 <= c < cols else "edge"
        return read

    readers: dict[str, Reader] = {
        "state": lambda key: int(key),  # type: ignore[call-overload]
        "row": lambda key: cell(key)[0],
        "col": lambda key: cell(key)[1],
        "tile": lambda key: tile(*cell(key)),
    }
    values: dict[str, tuple[Value, ...] | None] = {
        "state": tuple(range(rows * cols)), "row": tuple(range(rows)),
        "col": tuple(range(cols)), "tile": tiles}
    for direction in DIRECTIONS:
        readers[f"tile-{direction}"] = neighbour(direction)
        values[f"tile-{direction}"] = (*tiles, "edge")
    return FeatureSet(env, readers, values)


def frozen_lake(unwrapped: Any) -> FeatureSet:
    """FrozenLake: tiles S (start), F (frozen), H (hole), G (goal)."""
    desc = [[bytes(ch).decode() if not isinstance(ch, str) else ch for ch in row]
            for row in unwrapped.desc.tolist()]
    rows, cols = len(desc), len(desc[0])
    return _grid_features("FrozenLake", rows, cols, lambda r, c: desc[r][c],
                          ("S", "F", "H", "G"))


def cliff_walking(unwrapped: Any) -> FeatureSet:
    """CliffWalking: tiles S (start), G (goal), C (cliff), F (floor)."""
    rows, cols = tuple(int(n) for n in unwrapped.shape)
    cliff = unwrapped._cliff.tolist()

    def tile(r: int, c: int) -> str:
        if cliff[r][c]:
            return "C"
        if (r, c) == (rows - 1, 0):
            return "S"
        return "G" if (r, c) == (rows - 1, cols - 1) else "F"

    return _grid_features("CliffWalking", rows, cols, tile, ("S", "F", "C", "G"))


def taxi(unwrapped: Any) -> FeatureSet:
    """Taxi: the taxi's row and column, where the passenger is (R, G, Y, B or taxi), the
    destination, the depot the taxi is at (or none), walls around the taxi, and whether the
    taxi is at the waiting passenger's depot, at the destination, and whether the passenger
    was delivered (yes or no)."""
    names = ("R", "G", "Y", "B")
    locs = [tuple(int(v) for v in loc) for loc in unwrapped.locs]
    desc = [[bytes(ch).decode() if not isinstance(ch, str) else ch for ch in row]
            for row in unwrapped.desc.tolist()]

    def decoded(key: Hashable) -> tuple[int, int, int, int]:
        row, col, passenger, dest = unwrapped.decode(int(key))  # type: ignore[call-overload]
        return int(row), int(col), int(passenger), int(dest)

    def side(offset: int, dr: int) -> Reader:
        def read(key: Hashable) -> Value:
            row, col, _, _ = decoded(key)
            if dr:
                return "wall" if not 0 <= row + dr < 5 else "open"
            return "wall" if desc[1 + row][2 * col + 1 + offset] != ":" else "open"
        return read

    def at(key: Hashable) -> Value:
        row, col, _, _ = decoded(key)
        return names[locs.index((row, col))] if (row, col) in locs else "none"

    readers: dict[str, Reader] = {
        "state": lambda key: int(key),  # type: ignore[call-overload]
        "taxi-row": lambda key: decoded(key)[0],
        "taxi-col": lambda key: decoded(key)[1],
        "passenger": lambda key: (*names, "taxi")[decoded(key)[2]],
        "destination": lambda key: names[decoded(key)[3]],
        "taxi-at": at,
        "east": side(1, 0), "west": side(-1, 0), "north": side(0, -1), "south": side(0, 1),
        "at-passenger": lambda key: "yes" if at(key) == (*names, "taxi")[decoded(key)[2]]
        else "no",
        "at-destination": lambda key: "yes" if at(key) == names[decoded(key)[3]] else "no",
        "delivered": lambda key: "yes" if decoded(key)[2] == decoded(key)[3] else "no",
    }
    values: dict[str, tuple[Value, ...] | None] = {
        "state": tuple(range(500)), "taxi-row": tuple(range(5)), "taxi-col": tuple(range(5)),
        "passenger": (*names, "taxi"), "destination": names, "taxi-at": (*names, "none"),
        "east": ("wall", "open"), "west": ("wall", "open"), "north": ("wall", "open"),
        "south": ("wall", "open"), "at-passenger": ("yes", "no"),
        "at-destination": ("yes", "no"), "delivered": ("yes", "no")}
    return FeatureSet("Taxi", readers, values)


def ale(unwrapped: Any) -> FeatureSet:
    """An Arcade Learning Environment game: ``ram-0`` ... ``ram-127``."""
    def byte(index: int) -> Reader:
        def read(key: Hashable) -> Value:
            assert isinstance(key, bytes)
            return key[index]
        return read

    readers = {f"ram-{i}": byte(i) for i in range(128)}
    return FeatureSet(type(unwrapped).__name__, dict(readers),
                      dict.fromkeys(readers, tuple(range(256))))


def generic(unwrapped: Any) -> FeatureSet:
    """Any other environment: ``state``, the key itself (an integer observation)."""
    def read(key: Hashable) -> Value:
        if isinstance(key, bool) or not isinstance(key, int):
            raise InputError(f"feature 'state' needs integer states; this one is "
                             f"{type(key).__name__}")
        return key
    return FeatureSet(type(unwrapped).__name__, {"state": read}, {"state": None})


BY_CLASS: dict[str, Callable[[Any], FeatureSet]] = {
    "FrozenLakeEnv": frozen_lake,
    "CliffWalkingEnv": cliff_walking,
    "TaxiEnv": taxi,
}


def features_of(env: Any, restore_kind: str) -> FeatureSet:
    """The features of ``env``'s states (by the environment's class, else generic)."""
    unwrapped = getattr(env, "unwrapped", env)
    if restore_kind == "ale":
        return ale(unwrapped)
    make = BY_CLASS.get(type(unwrapped).__name__)
    # the toy-text state ``s`` is also the observation, so replayed states have the same key
    if make is not None and restore_kind in ("attribute", "replay"):
        return make(unwrapped)
    return generic(unwrapped)
