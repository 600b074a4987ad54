"""Snowman: carry the three pieces, one at a time, and stack them in order on the goal cell.

Rules (the paper's appendix A.4):

- The player faces one of four directions. Pressing a direction turns the player that way
  and moves one cell if the cell is inside the grid and free; walls, pieces, the goal cell
  and closed doors stop the move (the player still turns). Walking onto the key picks it
  up; walking into a closed door with the key opens it (the door is gone, the key kept).
- ``use`` acts on the cell the player faces:

  * with empty hands, it picks up the piece lying there;
  * holding a piece, facing the goal cell, it places the piece on the snowman — only in
    order: bottom, then middle, then top;
  * holding a piece, facing a free cell (not the goal, no wall, piece, key or door), it puts
    the piece down there.

- The game is won (and over) when all three pieces are placed.

Levels as text (``render_text`` writes the same format)::

    A.1.#
    .#..g
    3.k.d
    ..2..
    ; holding=none placed=0 has_key=0

``^ v < >`` the player facing up/down/left/right (``A`` = facing down), ``1 2 3`` the bottom,
middle and top pieces lying on the grid, ``g`` the goal cell, ``k`` key, ``d`` closed door.
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
from xaip.agents.envs.cookmepasta import choke_point, key_on_players_side
from xaip.agents.png import Colour
from xaip.agents.simulator import UNREACHABLE
from xaip.errors import InputError

PIECES: tuple[str, ...] = ("bottom", "middle", "top")
PIECE_COLOURS: tuple[Colour, ...] = ((250, 250, 255), (215, 225, 245), (180, 195, 235))
GOAL: Colour = (120, 200, 120)
KEY: Colour = (230, 190, 30)
DOOR: Colour = (120, 70, 30)


class SnowmanState(NamedTuple):
    """A Snowman state. ``pieces[i]`` is the cell where piece ``PIECES[i]`` lies, or ``NONE``
    while held or once placed; ``held`` is the held piece's index or ``NONE``; ``placed``
    counts the pieces on the snowman (always the first ``placed`` of bottom, middle, top)."""

    board: Board
    player: int
    facing: int
    pieces: tuple[int, int, int]
    held: int
    placed: int
    key: int
    has_key: bool
    doors: frozenset[int]
    goal: int

    @property
    def over(self) -> bool:
        return self.placed == 3


class Snowman(GridGame[SnowmanState]):
    """The Snowman game of the paper as a simulator (see the module docstring)."""

    name = "snowman"
    ACTIONS = (*DIRECTIONS, "use")
    LEGEND = ((PLAYER, "player"), *zip(PIECE_COLOURS, PIECES, strict=True), (GOAL, "goal"),
              (KEY, "key"), (DOOR, "door"))

    # ----------------------------------------------------------------- rules

    def actions(self, state: SnowmanState) -> tuple[str, ...]:
        return tuple(action for action, _ in self.successors(state))

    def successors(self, state: SnowmanState) -> list[tuple[str, SnowmanState]]:
        if state.placed == 3:
            return []
        out = []
        for d in range(4):
            nxt = self._move(state, d)
            if nxt is not state:
                out.append((DIRECTIONS[d], nxt))
        nxt = self._use(state)
        if nxt is not state:
            out.append(("use", nxt))
        return out

    def step(self, state: SnowmanState, action: str) -> SnowmanState:
        if state.placed == 3:
            if action not in self.ACTIONS:
                raise InputError(f"unknown Snowman action '{action}'")
            return state
        d = DIRECTION_INDEX.get(action)
        if d is not None:
            return self._move(state, d)
        if action == "use":
            return self._use(state)
        raise InputError(f"unknown Snowman action '{action}'; actions: {', '.join(self.ACTIONS)}")

    @staticmethod
    def _move(state: SnowmanState, d: int) -> SnowmanState:
        board, player, facing, pieces, held, placed, key, has_key, doors, goal = state
        target = board.step_to[4 * player + d]
        blocked = (
            target < 0 or target in pieces or target == goal or (target in doors and not has_key)
        )
        if blocked:
            if facing == d:
                return state
            return SnowmanState(board, player, d, pieces, held, placed, key, has_key, doors, goal)
        if target == key:
            return SnowmanState(board, target, d, pieces, held, placed, NONE, True, doors, goal)
        if target in doors:
            return SnowmanState(
                board, target, d, pieces, held, placed, key, has_key, doors - {target}, goal
            )
        return SnowmanState(board, target, d, pieces, held, placed, key, has_key, doors, goal)

    @staticmethod
    def _use(state: SnowmanState) -> SnowmanState:
        board, player, facing, pieces, held, placed, key, has_key, doors, goal = state
        front = board.step_to[4 * player + facing]
        if front < 0:
            return state
        if held == NONE:
            if front in pieces:
                i = pieces.index(front)
                new = (
                    NONE if i == 0 else pieces[0],
                    NONE if i == 1 else pieces[1],
                    NONE if i == 2 else pieces[2],
                )
                return SnowmanState(
                    board, player, facing, new, i, placed, key, has_key, doors, goal
                )
            return state
        if front == goal:
            if held != placed:
                return state
            return SnowmanState(
                board, player, facing, pieces, NONE, placed + 1, key, has_key, doors, goal
            )
        if front in pieces or front == key or front in doors:
            return state
        new = (
            front if held == 0 else pieces[0],
            front if held == 1 else pieces[1],
            front if held == 2 else pieces[2],
        )
        return SnowmanState(board, player, facing, new, NONE, placed, key, has_key, doors, goal)

    def is_goal(self, state: SnowmanState) -> bool:
        return state.placed == 3

    def distance_lower_bound(self, state: SnowmanState, goal: SnowmanState) -> int:
        """Moves plus the ``use`` actions each piece certainly needs (pick up, put down,
        place), plus a turn when only the facing differs. Moves are at least the longest
        of the walks the player must make for any one piece, the key or a door (e.g. next to
        a piece, then next to where it must lie, then to its own final cell)."""
        if state == goal:
            return 0
        if (
            state.over
            or state.board != goal.board
            or state.goal != goal.goal
            or goal.placed < state.placed
            or not goal.doors <= state.doors
            or (state.has_key and not goal.has_key)
            or (goal.key != NONE and goal.key != state.key)
        ):
            return UNREACHABLE
        # Cells the player never enters on the way: the snowman's cell, doors that must stay
        # closed, and the key if it must stay put (walking in would take it). Nothing is put
        # down on them either. (Cells where a made-up description already put the player or
        # a key to be taken are left open: the rules' order of checks lets it in there.)
        closed = goal.doors | {state.goal}
        if goal.key != NONE:
            closed = closed | {goal.key}
        forbidden = closed - {state.player} if goal.key != NONE else \
            closed - {state.player, state.key}
        if goal.player != state.player and (
            goal.player in forbidden or goal.player in state.board.walls
        ):
            return UNREACHABLE
        if state.key != goal.key and (
            state.key in state.board.walls or (state.key in state.doors and not state.has_key)
        ):
            return UNREACHABLE  # (a made-up start) the key is taken by walking onto it
        board = state.board.with_walls(forbidden)
        uses = 0
        routes: list[list[tuple[int, int]]] = []
        for i in range(3):
            here = "placed" if i < state.placed else "held" if state.held == i else "lying"
            there = "placed" if i < goal.placed else "held" if goal.held == i else "lying"
            if here == "placed" or (here == there == "held"):
                continue
            if here == "lying" and there == "lying" and state.pieces[i] == goal.pieces[i]:
                continue
            if there == "lying" and goal.pieces[i] in closed:
                return UNREACHABLE  # pieces are put down only on free cells
            stops = [(state.pieces[i], 1)] if here == "lying" else []
            if there == "lying":
                stops.append((goal.pieces[i], 1))
            elif there == "placed":
                stops.append((state.goal, 1))
            uses += len(stops)  # one use per pick-up, put-down or placing
            routes.append(stops)
        if state.key != goal.key:
            routes.append([(state.key, 0)])
        routes.extend([(door, 0)] for door in state.doors - goal.doors)
        moves = board.distance(state.player, goal.player)
        for stops in routes:
            moves = max(moves, route_bound(board, state.player, stops, goal.player))
        turn = 1 if moves == 0 and state.facing != goal.facing else 0
        return moves + uses + turn

    def progress_estimate(self, state: SnowmanState, goal: SnowmanState) -> int:
        """For goals that place pieces: the walk of a player who builds the snowman in
        order — put down what it holds if that is not the next piece, fetch the next piece,
        carry it beside the snowman's cell, place it — then walks to the goal cell, with
        one use per pick-up, put-down and placing; walking around walls, lying pieces,
        the snowman's cell and closed doors. Otherwise the lower bound. It drops with each
        piece fetched or placed, which a greedy policy needs to make progress."""
        bound = self.distance_lower_bound(state, goal)
        if bound in (0, UNREACHABLE) or goal.placed <= state.placed:
            return bound
        lying = {c for c in state.pieces if c != NONE}
        blocked = (lying | set(state.doors) | {state.goal}) - {state.player}
        board = state.board.with_walls(frozenset(blocked))
        here, walk, uses = state.player, 0, 0
        held = state.held
        where = list(state.pieces)
        for i in range(state.placed, goal.placed):
            if held != i:
                if held != NONE:
                    uses += 1  # put the wrong piece down (about) where the player stands
                    where[held] = here
                walk += max(0, board.distance(here, where[i]) - 1)
                here, uses = where[i], uses + 1
            walk += max(0, board.distance(here, state.goal) - 1)
            here, uses, held = state.goal, uses + 1, NONE
        walk += board.distance(here, goal.player)
        return max(bound, walk + uses)

    def goal_lower_bound(self, state: SnowmanState) -> int:
        if state.placed == 3:
            return 0
        # Each remaining piece is carried (the player holds one piece at a time, so these
        # moves never overlap) from where it lies to next to the goal; with empty hands the
        # player first walks next to some piece.
        board, goal = state.board, state.goal
        uses = 0
        carry = 0
        nearest = UNREACHABLE
        for i in range(state.placed, 3):
            if state.held == i:
                uses += 1
                carry += max(0, board.distance(state.player, goal) - 1)
            else:
                uses += 2
                cell = state.pieces[i]
                carry += max(0, board.distance(cell, goal) - 2)
                nearest = min(nearest, board.distance(state.player, cell) - 1)
        walk = max(0, nearest) if state.held == NONE else 0
        return uses + carry + walk

    # ----------------------------------------------------------------- levels

    @staticmethod
    def board_of(state: SnowmanState) -> Board:
        return state.board

    def random_state(self, rng: random.Random) -> SnowmanState:
        board, cells = random_layout(self.rows, self.cols, rng, self.obstacles, 7, "Snowman")
        player, bottom, middle, top, key, door, goal = cells
        door = choke_point(board, rng, {player, bottom, middle, top, key, goal}) or door
        key = key_on_players_side(board, rng, player, door, key, {bottom, middle, top, goal})
        return SnowmanState(
            board,
            player,
            rng.randrange(4),
            (bottom, middle, top),
            NONE,
            0,
            key,
            False,
            frozenset({door}),
            goal,
        )

    @classmethod
    def from_text(cls, text: str) -> SnowmanState:
        rows, cols, cells, status = parse_level(text, "^v<>A123gkd")
        players = [(ch, c) for ch in "^v<>A" for c in cells.get(ch, [])]
        if len(players) != 1:
            raise InputError(f"a Snowman level needs exactly one player, got {len(players)}")
        ch, player = players[0]
        facing = ARROWS.index(ch) if ch in ARROWS else DIRECTION_INDEX["down"]
        holding = status.get("holding", "none")
        if holding not in (*PIECES, "none"):
            raise InputError(f"holding={holding}: expected none, bottom, middle or top")
        held = PIECES.index(holding) if holding != "none" else NONE
        placed = int(status.get("placed", "0"))
        if not 0 <= placed <= 3:
            raise InputError(f"placed={placed}: expected 0 to 3")
        pieces = []
        for i, mark in enumerate("123"):
            needed = i >= placed and held != i
            cell = single(cells, mark, f"{PIECES[i]} piece", required=needed)
            if not needed and cell != NONE:
                raise InputError(f"the {PIECES[i]} piece is shown but is held or placed")
            pieces.append(cell)
        has_key = flag(status, "has_key")
        key = single(cells, "k", "key", required=False)
        return SnowmanState(
            Board(rows, cols, cells.get("#", [])),
            player,
            facing,
            (pieces[0], pieces[1], pieces[2]),
            held,
            placed,
            key,
            has_key,
            frozenset(cells.get("d", [])),
            single(cells, "g", "goal"),
        )

    def render_text(self, state: SnowmanState) -> str:
        marks: dict[int, str] = {d: "d" for d in state.doors}
        if state.key != NONE:
            marks[state.key] = "k"
        marks[state.goal] = "g"
        for i, cell in enumerate(state.pieces):
            if cell != NONE:
                marks[cell] = "123"[i]
        marks[state.player] = ARROWS[state.facing]
        holding = PIECES[state.held] if state.held != NONE else "none"
        status = [f"holding={holding}", f"placed={state.placed}", f"has_key={int(state.has_key)}"]
        return draw_text(state.board, marks, status)

    def cell_layers(self, state: SnowmanState) -> dict[tuple[int, int], list[Colour]]:
        board = state.board
        layers = self.base_layers(board)
        for d in state.doors:
            layers[board.coords(d)].append(DOOR)
        if state.key != NONE:
            layers[board.coords(state.key)].append(KEY)
        layers[board.coords(state.goal)].append(GOAL)
        for i in range(state.placed):
            layers[board.coords(state.goal)].append(PIECE_COLOURS[i])
        for i, cell in enumerate(state.pieces):
            if cell != NONE:
                layers[board.coords(cell)].append(PIECE_COLOURS[i])
        layers[board.coords(state.player)].append(PLAYER)
        if state.held != NONE:
            layers[board.coords(state.player)].append(PIECE_COLOURS[state.held])
        return layers
