"""Sokoban-switch and Sokoban-cells, the paper's two Sokoban variants, as black boxes.

Why our own engine: gym-sokoban generates random rooms, has no switch or pink cells and
breaks on current numpy (see the research notes); the paper's variants are a few rules on
a grid, and symbolic states let the checker enumerate every reachable state.

Rules (ICLR'22, appendix A.6): nine actions, ``move-up/down/left/right``,
``push-up/down/left/right`` and ``noop``. A move succeeds only into an empty floor cell
(no wall, no box); a push succeeds only when a box is next to the player in that direction
and the cell beyond it is free, and then the box moves and the player takes its cell.
Anything else is the invalid outcome ⊥. ``noop`` always succeeds.

* ``switch`` levels have a switch cell ``s``. It starts off; the player entering it turns it
  on, the next entry turns it off again. Variant ``precondition``: a push while the switch
  is off fails. Variant ``cost``: a push costs 10 while the switch is off, 1 while it is on.
* ``cells`` levels have pink cells ``c``: a push made while the player stands on a pink cell
  costs 10. Every other action costs 1.

Level text: ``#`` wall, space or ``-`` floor, ``@`` player, ``$`` box, ``.`` target,
``*`` box on target, ``+`` player on target, ``s`` switch (off), ``c`` pink cell.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from xaip.concepts.simulator import INVALID, Outcome
from xaip.errors import InputError
from xaip.sidefiles import read_text

DIRECTIONS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
ACTIONS = (*(f"move-{d}" for d in DIRECTIONS), *(f"push-{d}" for d in DIRECTIONS), "noop")
VARIANTS = {"sokoban-switch": ("precondition", "cost"), "sokoban-cells": ("cost",)}
EXPENSIVE_PUSH = 10.0


class SokobanState(NamedTuple):
    """Player cell, box cells (sorted) and whether the switch is on. Cells are
    ``row * width + column``."""

    player: int
    boxes: tuple[int, ...]
    switch_on: bool = False


@dataclass(frozen=True)
class Level:
    """The fixed part of a level: its grid and special cells, plus the initial state."""

    width: int
    height: int
    walls: frozenset[int]
    targets: frozenset[int]
    pink: frozenset[int]
    switch: int | None
    start: SokobanState
    name: str = "level"

    def cell(self, row: int, col: int) -> int:
        return row * self.width + col

    def position(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.width)

    def neighbour(self, cell: int, direction: str) -> int | None:
        """The cell next to ``cell`` in ``direction``, or ``None`` off the grid."""
        row, col = self.position(cell)
        dr, dc = DIRECTIONS[direction]
        row, col = row + dr, col + dc
        if 0 <= row < self.height and 0 <= col < self.width:
            return self.cell(row, col)
        return None

    def free(self, cell: int | None, boxes: tuple[int, ...]) -> bool:
        return cell is not None and cell not in self.walls and cell not in boxes


_SYMBOLS = set("# -@$.*+sc")


def parse_level(text: str, name: str = "level") -> Level:
    """Read a level from its text; bad levels raise :class:`InputError` with the line."""
    lines = [line.rstrip("\r\n") for line in text.splitlines()]
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise InputError(f"{name}: the level is empty")
    width, height = max(len(line) for line in lines), len(lines)
    walls: set[int] = set()
    targets: set[int] = set()
    pink: set[int] = set()
    boxes: list[int] = []
    players: list[int] = []
    switches: list[int] = []
    for row, line in enumerate(lines):
        for col, symbol in enumerate(line.ljust(width)):
            if symbol not in _SYMBOLS:
                raise InputError(f"{name}:{row + 1}:{col + 1}: unknown level symbol "
                                 f"{symbol!r} (use # - space @ $ . * + s c)")
            cell = row * width + col
            if symbol == "#":
                walls.add(cell)
            if symbol in ".*+":
                targets.add(cell)
            if symbol in "$*":
                boxes.append(cell)
            if symbol in "@+":
                players.append(cell)
            if symbol == "s":
                switches.append(cell)
            if symbol == "c":
                pink.add(cell)
    if len(players) != 1:
        raise InputError(f"{name}: a level needs exactly one player (@ or +), found "
                         f"{len(players)}")
    if not boxes:
        raise InputError(f"{name}: a level needs at least one box ($ or *)")
    if len(targets) < len(boxes):
        raise InputError(f"{name}: {len(boxes)} boxes but only {len(targets)} targets")
    if len(switches) > 1:
        raise InputError(f"{name}: at most one switch cell (s), found {len(switches)}")
    start = SokobanState(players[0], tuple(sorted(boxes)), False)
    return Level(width, height, frozenset(walls), frozenset(targets), frozenset(pink),
                 switches[0] if switches else None, start, name)


def read_level(path: str | Path) -> Level:
    text = read_text(path, "level")  # limits, devices, FIFOs, UTF-8 errors
    return parse_level(text, str(path))


def parse_actions(text: str, name: str = "plan") -> tuple[str, ...]:
    """One action per line; blank lines and ``;`` comments are skipped; ``(push-up)``
    parentheses are accepted; an unknown action raises :class:`InputError`."""
    out: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(";", 1)[0].strip().strip("()").strip().lower()
        if not line:
            continue
        if line not in ACTIONS:
            raise InputError(f"{name}:{number}: unknown action {line[:40]!r} (one of "
                             f"{', '.join(ACTIONS)})")
        out.append(line)
    return tuple(out)


def read_actions(path: str | Path) -> tuple[str, ...]:
    text = read_text(path, "actions")  # limits, devices, FIFOs, UTF-8 errors
    return parse_actions(text, str(path))


@dataclass(frozen=True)
class Sokoban:
    """One Sokoban variant on one level, as a :class:`~xaip.concepts.simulator.BlackBox`.

    ``env`` is ``sokoban-switch`` or ``sokoban-cells``; ``variant`` is ``precondition`` or
    ``cost`` (Sokoban-cells has only ``cost``).
    """

    level: Level
    env: str = "sokoban-switch"
    variant: str = "precondition"

    def __post_init__(self) -> None:
        if self.env not in VARIANTS:
            raise InputError(f"unknown environment {self.env!r} (one of "
                             f"{', '.join(VARIANTS)})")
        if self.variant not in VARIANTS[self.env]:
            raise InputError(f"{self.env} has no {self.variant!r} variant (one of "
                             f"{', '.join(VARIANTS[self.env])})")
        if self.env == "sokoban-switch" and self.level.switch is None:
            raise InputError(f"{self.level.name}: a sokoban-switch level needs a switch (s)")

    @property
    def name(self) -> str:
        return f"{self.env}/{self.variant}"

    @property
    def actions(self) -> tuple[str, ...]:
        return ACTIONS

    def initial(self) -> SokobanState:
        return self.level.start

    def is_goal(self, state: Hashable) -> bool:
        assert isinstance(state, SokobanState)
        return all(box in self.level.targets for box in state.boxes)

    def step(self, state: Hashable, action: str) -> Outcome:
        assert isinstance(state, SokobanState)
        if action == "noop":
            return state, 1.0
        kind, _, direction = action.partition("-")
        if direction not in DIRECTIONS or kind not in ("move", "push"):
            raise InputError(f"unknown action {action!r}")
        level = self.level
        ahead = level.neighbour(state.player, direction)
        boxes = state.boxes
        cost = 1.0
        if kind == "move":
            if not level.free(ahead, boxes):
                return INVALID
        else:
            if ahead is None or ahead not in boxes:
                return INVALID
            beyond = level.neighbour(ahead, direction)
            if not level.free(beyond, boxes):
                return INVALID
            if self.env == "sokoban-switch" and not state.switch_on:
                if self.variant == "precondition":
                    return INVALID
                cost = EXPENSIVE_PUSH
            if self.env == "sokoban-cells" and state.player in level.pink:
                cost = EXPENSIVE_PUSH
            assert beyond is not None
            boxes = tuple(sorted(beyond if box == ahead else box for box in boxes))
        assert ahead is not None
        switch_on = state.switch_on ^ (ahead == level.switch)
        return SokobanState(ahead, boxes, switch_on), cost

    def show(self, state: SokobanState) -> str:
        """The state as level text, for people and pictures: the switch cell shows ``S``
        while on; ``P`` and ``B`` are the player and a box on a pink cell."""
        level = self.level
        rows = []
        for row in range(level.height):
            line = []
            for col in range(level.width):
                cell = level.cell(row, col)
                if cell in level.walls:
                    line.append("#")
                elif cell == state.player:
                    line.append("+" if cell in level.targets
                                else "P" if cell in level.pink else "@")
                elif cell in state.boxes:
                    line.append("*" if cell in level.targets
                                else "B" if cell in level.pink else "$")
                elif cell in level.targets:
                    line.append(".")
                elif cell == level.switch:
                    line.append("S" if state.switch_on else "s")
                elif cell in level.pink:
                    line.append("c")
                else:
                    line.append(" ")
            rows.append("".join(line).rstrip())
        return "\n".join(rows)
