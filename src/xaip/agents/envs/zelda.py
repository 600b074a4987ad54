"""Zelda: Link must defeat Ganon, take the key and leave through the door.

Rules (the paper's appendix A.1 and the rules shown to its user-study participants):

- Link faces one of four directions. Pressing a direction Link is not facing turns Link
  without moving; pressing the direction Link faces moves one cell, unless the cell is
  outside the grid or holds a wall, the key or the door.
- Moving into a living monster kills Link: the game is lost (``dead``), Link stands on the
  monster's cell and nothing can be done any more.
- ``use`` acts on the cell Link faces: it defeats a monster there, picks up the key there,
  or — when Link holds the key and every monster is defeated — opens the door there and Link
  escapes (the game is won and over).
- Monsters do not move. A defeated monster and a picked-up key leave the grid.

Levels as text (``render_text`` writes the same format)::

    #..d
    >.g.
    .k..
    ; has_key=0 escaped=0

``#`` wall, ``.`` empty, ``^ v < >`` Link facing up/down/left/right (``A`` = facing down),
``g`` a monster, ``k`` the key, ``d`` the door, ``X`` dead Link on a monster's cell. The
optional ``;`` line holds ``defeated=N`` (defeated monsters, listed after the living ones),
``has_key=1`` (Link holds the key; the level then has no ``k``) and ``escaped=1``.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from xaip.agents.envs._base import PLAYER, GridGame
from xaip.agents.envs._grid import (
    ARROWS,
    DIRECTION_INDEX,
    DIRECTIONS,
    NONE,
    Board,
    draw_text,
    flag,
    parse_level,
    random_layout,
    route_bound,
    single,
)
from xaip.agents.png import Colour
from xaip.agents.simulator import UNREACHABLE
from xaip.errors import InputError

MONSTER: Colour = (200, 40, 40)
KEY: Colour = (230, 190, 30)
DOOR: Colour = (120, 70, 30)


class ZeldaState(NamedTuple):
    """A Zelda state. Cells are ``row * cols + col``; ``-1`` (``NONE``) means "not on the grid".

    ``monsters[i]`` is the cell of monster ``i`` or ``NONE`` once defeated; ``key`` is
    ``NONE`` once Link holds it.
    """

    board: Board
    player: int
    facing: int
    monsters: tuple[int, ...]
    key: int
    door: int
    escaped: bool = False
    dead: bool = False

    @property
    def has_key(self) -> bool:
        return self.key == NONE

    @property
    def over(self) -> bool:
        return self.escaped or self.dead


def monster_names(count: int) -> tuple[str, ...]:
    """Object names of the monsters: ``ganon`` for the first, then ``ganon2``, ``ganon3``..."""
    return tuple("ganon" if i == 0 else f"ganon{i + 1}" for i in range(count))


class Zelda(GridGame[ZeldaState]):
    """The Zelda-like game of the paper as a simulator (see the module docstring)."""

    name = "zelda"
    ACTIONS = (*DIRECTIONS, "use")
    LEGEND = ((PLAYER, "link"), (MONSTER, "ganon"), (KEY, "key"), (DOOR, "door"))

    def __init__(
        self,
        rows: int = 6,
        cols: int = 6,
        *,
        seed: int = 0,
        obstacles: float = 0.2,
        monsters: int = 1,
        level: ZeldaState | str | None = None,
    ) -> None:
        if monsters < 1:
            raise InputError("Zelda needs at least one monster")
        self.n_monsters = monsters
        super().__init__(rows, cols, seed=seed, obstacles=obstacles, level=level)

    # ----------------------------------------------------------------- rules

    def actions(self, state: ZeldaState) -> tuple[str, ...]:
        if state.escaped or state.dead:
            return ()
        step_to = state.board.step_to
        base = 4 * state.player
        out: list[str] = []
        for d in range(4):
            if d != state.facing:
                out.append(DIRECTIONS[d])
                continue
            target = step_to[base + d]
            if target >= 0 and target != state.key and target != state.door:
                out.append(DIRECTIONS[d])
        front = step_to[base + state.facing]
        if front >= 0 and (
            front in state.monsters
            or front == state.key
            or (front == state.door and state.key == NONE and self._all_defeated(state))
        ):
            out.append("use")
        return tuple(out)

    @staticmethod
    def _all_defeated(state: ZeldaState) -> bool:
        return all(m == NONE for m in state.monsters)

    def step(self, state: ZeldaState, action: str) -> ZeldaState:
        board, player, facing, monsters, key, door, escaped, dead = state
        d = DIRECTION_INDEX.get(action)
        if d is not None:
            if escaped or dead:
                return state
            if d != facing:
                return ZeldaState(board, player, d, monsters, key, door, escaped, dead)
            target = board.step_to[4 * player + d]
            if target < 0 or target in (key, door):
                return state
            if target in monsters:
                return ZeldaState(board, target, facing, monsters, key, door, False, True)
            return ZeldaState(board, target, facing, monsters, key, door, False, False)
        if action != "use":
            raise InputError(f"unknown Zelda action '{action}'; actions: {', '.join(self.ACTIONS)}")
        if escaped or dead:
            return state
        front = board.step_to[4 * player + facing]
        if front < 0:
            return state
        if front in monsters:
            left = tuple(NONE if m == front else m for m in monsters)
            return ZeldaState(board, player, facing, left, key, door, False, False)
        if front == key:
            return ZeldaState(board, player, facing, monsters, NONE, door, False, False)
        if front == door and key == NONE and all(m == NONE for m in monsters):
            return ZeldaState(board, player, facing, monsters, key, door, True, False)
        return state

    def is_goal(self, state: ZeldaState) -> bool:
        return state.escaped

    def distance_lower_bound(self, state: ZeldaState, goal: ZeldaState) -> int:
        """Moves + turns + uses that are certainly needed (each action does exactly one);
        moves are at least the walk to stand next to each monster, key or door to be used.

        ``UNREACHABLE`` (a huge number) when the goal cannot be reached at all: a different
        board or door, a monster that must come back to life or move, a key that must be put
        back, or a finished game.
        """
        if state == goal:
            return 0
        if state.escaped or state.dead or state.board != goal.board or state.door != goal.door:
            return UNREACHABLE
        if len(state.monsters) != len(goal.monsters):
            return UNREACHABLE
        if goal.player != state.player and goal.player in state.board.walls:
            return UNREACHABLE  # (a made-up goal) nobody walks into a wall
        stops: list[int] = []  # cells Link must stand next to (and face) to use something
        for here, there in zip(state.monsters, goal.monsters, strict=True):
            if here == there:
                continue
            if there != NONE:
                return UNREACHABLE
            stops.append(here)
        if state.key != goal.key:
            if goal.key != NONE:
                return UNREACHABLE
            stops.append(state.key)
        if goal.escaped:
            stops.append(state.door)
        # Link never walks into the door (using it from beside it ends the game).
        board = state.board if state.player == state.door else \
            state.board.with_walls(frozenset({state.door}))
        moves = board.distance(state.player, goal.player)
        for cell in stops:
            moves = max(moves, route_bound(board, state.player, [(cell, 1)], goal.player))
        turn = 1 if state.facing != goal.facing else 0
        return moves + len(stops) + turn

    def progress_estimate(self, state: ZeldaState, goal: ZeldaState) -> int:
        """The walk of a player who deals with the nearest thing first — each monster to
        defeat, then the key, then the door — and then walks to the goal cell, plus one
        use per thing. Unlike the lower bound (the longest single errand), it drops with
        every errand done, which is what a greedy policy needs to make progress."""
        bound = self.distance_lower_bound(state, goal)
        if bound in (0, UNREACHABLE):
            return bound
        # walk around everything that stops Link today: the door, the key, live monsters
        blocking = {state.door, state.key, *state.monsters} - {NONE, state.player}
        board = state.board.with_walls(frozenset(blocking))
        errands = [m for m, g in zip(state.monsters, goal.monsters, strict=True) if m != g]
        if state.key != goal.key:
            errands.append(state.key)
        here, walk = state.player, 0
        while errands:
            nearest = min(errands, key=lambda cell: (board.distance(here, cell), cell))
            walk += max(0, board.distance(here, nearest) - 1)
            here = nearest
            errands.remove(nearest)
        uses = 0
        if goal.escaped:
            walk += max(0, board.distance(here, state.door) - 1)
            here, uses = state.door, uses + 1
        walk += board.distance(here, goal.player)
        changed = sum(1 for m, g in zip(state.monsters, goal.monsters, strict=True) if m != g)
        uses += changed + (state.key != goal.key)
        return max(bound, walk + uses)

    def goal_lower_bound(self, state: ZeldaState) -> int:
        if state.escaped:
            return 0
        if state.dead:
            return UNREACHABLE
        alive = sum(1 for m in state.monsters if m != NONE)
        key = 1 if state.key != NONE else 0
        near = max(0, state.board.distance(state.player, state.door) - 1)
        return alive + key + 1 + near

    # ----------------------------------------------------------------- levels

    @staticmethod
    def board_of(state: ZeldaState) -> Board:
        return state.board

    def random_state(self, rng: random.Random) -> ZeldaState:
        board, cells = random_layout(
            self.rows, self.cols, rng, self.obstacles, 3 + self.n_monsters, "Zelda"
        )
        player, key, door, *monsters = cells
        return ZeldaState(board, player, rng.randrange(4), tuple(monsters), key, door)

    @classmethod
    def from_text(cls, text: str) -> ZeldaState:
        rows, cols, cells, status = parse_level(text, "^v<>AXgkd")
        links = [(ch, cell) for ch in "^v<>AX" for cell in cells.get(ch, [])]
        if len(links) != 1:
            raise InputError(
                f"a Zelda level needs exactly one Link (^ v < > A X), got {len(links)}"
            )
        ch, player = links[0]
        facing = ARROWS.index(ch) if ch in ARROWS else DIRECTION_INDEX["down"]
        if "facing" in status:
            if status["facing"] not in DIRECTION_INDEX:
                raise InputError(f"unknown facing '{status['facing']}'")
            facing = DIRECTION_INDEX[status["facing"]]
        dead = ch == "X"
        alive = sorted(cells.get("g", []) + ([player] if dead else []))
        defeated = int(status.get("defeated", "0"))
        has_key = flag(status, "has_key")
        key = single(cells, "k", "key", required=not has_key)
        if has_key and key != NONE:
            raise InputError("the level says has_key=1 but also shows the key")
        door = single(cells, "d", "door")
        board = Board(rows, cols, cells.get("#", []))
        monsters = tuple(alive) + (NONE,) * defeated
        if not monsters:
            raise InputError("a Zelda level needs at least one monster ('g' or defeated=N)")
        return ZeldaState(board, player, facing, monsters, key, door, flag(status, "escaped"), dead)

    def render_text(self, state: ZeldaState) -> str:
        marks = {m: "g" for m in state.monsters if m != NONE}
        if state.key != NONE:
            marks[state.key] = "k"
        marks[state.door] = "d"
        marks[state.player] = "X" if state.dead else ARROWS[state.facing]
        status = [f"has_key={int(state.has_key)}", f"escaped={int(state.escaped)}"]
        defeated = sum(1 for m in state.monsters if m == NONE)
        if defeated:
            status.append(f"defeated={defeated}")
        if state.dead:
            status.append(f"facing={DIRECTIONS[state.facing]}")
        return draw_text(state.board, marks, status)

    def cell_layers(self, state: ZeldaState) -> dict[tuple[int, int], list[Colour]]:
        board = state.board
        layers = self.base_layers(board)
        for m in state.monsters:
            if m != NONE:
                layers[board.coords(m)].append(MONSTER)
        if state.key != NONE:
            layers[board.coords(state.key)].append(KEY)
        layers[board.coords(state.door)].append(DOOR)
        layers[board.coords(state.player)].append(PLAYER)
        if state.has_key:
            layers[board.coords(state.player)].append(KEY)
        return layers
