"""Escape: push blocks into the holes to clear a path to the cheese.

Rules (the paper's appendix A.3):

- The player moves one cell in any of four directions (no orientation); walls and the grid
  edge stop it.
- Walking into a block pushes it one cell further when that cell is inside the grid and
  holds no wall, block or the cheese. A block pushed into a hole fills it: block and hole
  both disappear and the cell becomes ordinary floor.
- Walking into a hole kills the player (the game is lost and over); reaching the cheese wins
  (the game is over).

Levels as text (``render_text`` writes the same format)::

    A.b.
    #.hg
    ..b.

``A`` player, ``b`` block, ``h`` hole, ``g`` the cheese (goal), ``W`` the player on the
cheese, ``X`` the player fallen into a hole.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from xaip.agents.envs._base import PLAYER, GridGame
from xaip.agents.envs._grid import (
    DIRECTION_INDEX,
    DIRECTIONS,
    FAR,
    NONE,
    OPPOSITE,
    Board,
    draw_text,
    parse_level,
    random_layout,
    ray,
    single,
)
from xaip.agents.png import Colour
from xaip.agents.simulator import UNREACHABLE
from xaip.errors import InputError

BLOCK: Colour = (150, 100, 50)
HOLE: Colour = (20, 20, 20)
CHEESE: Colour = (250, 210, 40)


class EscapeState(NamedTuple):
    """An Escape state: the player's cell, the cells of blocks and (unfilled) holes, and the
    cheese cell. The game is won when ``player == goal``."""

    board: Board
    player: int
    blocks: frozenset[int]
    holes: frozenset[int]
    goal: int
    dead: bool = False

    @property
    def won(self) -> bool:
        return self.player == self.goal

    @property
    def over(self) -> bool:
        return self.dead or self.player == self.goal


class Escape(GridGame[EscapeState]):
    """The Escape game of the paper as a simulator (see the module docstring).

    Obstacles (walls) default to 10% of the cells: in the paper Escape's obstacles are its
    blocks and holes rather than the 20% walls of the other games.
    """

    name = "escape"
    ACTIONS = DIRECTIONS
    LEGEND = ((PLAYER, "player"), (BLOCK, "block"), (HOLE, "hole"), (CHEESE, "goal"))

    def __init__(
        self,
        rows: int = 5,
        cols: int = 5,
        *,
        seed: int = 0,
        obstacles: float = 0.1,
        level: EscapeState | str | None = None,
    ) -> None:
        super().__init__(rows, cols, seed=seed, obstacles=obstacles, level=level)

    # ----------------------------------------------------------------- rules

    def actions(self, state: EscapeState) -> tuple[str, ...]:
        return tuple(action for action, _ in self.successors(state))

    def successors(self, state: EscapeState) -> list[tuple[str, EscapeState]]:
        if state.dead or state.player == state.goal:
            return []
        out = []
        for d in range(4):
            nxt = self._move(state, d)
            if nxt is not state:
                out.append((DIRECTIONS[d], nxt))
        return out

    def step(self, state: EscapeState, action: str) -> EscapeState:
        d = DIRECTION_INDEX.get(action)
        if d is None:
            raise InputError(f"unknown Escape action '{action}'; actions: {', '.join(DIRECTIONS)}")
        if state.dead or state.player == state.goal:
            return state
        return self._move(state, d)

    @staticmethod
    def _move(state: EscapeState, d: int) -> EscapeState:
        board, player, blocks, holes, goal, _ = state
        step_to = board.step_to
        target = step_to[4 * player + d]
        if target < 0:
            return state
        if target in blocks:
            beyond = step_to[4 * target + d]
            if beyond < 0 or beyond in blocks or beyond == goal:
                return state
            if beyond in holes:
                return EscapeState(board, target, blocks - {target}, holes - {beyond}, goal)
            return EscapeState(board, target, (blocks - {target}) | {beyond}, holes, goal)
        if target in holes:
            return EscapeState(board, target, blocks, holes, goal, True)
        return EscapeState(board, target, blocks, holes, goal)

    def is_goal(self, state: EscapeState) -> bool:
        return state.player == state.goal and not state.dead

    def distance_lower_bound(self, state: EscapeState, goal: EscapeState) -> int:
        """Every action moves the player one cell and fills at most one hole."""
        if state == goal:
            return 0
        if (
            state.over
            or state.board != goal.board
            or state.goal != goal.goal
            or not goal.holes <= state.holes
            or len(state.blocks) - len(goal.blocks) != len(state.holes) - len(goal.holes)
        ):
            return UNREACHABLE
        if goal.player != state.player and goal.player in state.board.walls:
            return UNREACHABLE  # (a made-up goal) nobody walks into a wall
        fills = len(state.holes) - len(goal.holes)
        # (at least one action: the states differ)
        return max(1, state.board.distance(state.player, goal.player), fills)

    def progress_estimate(self, state: EscapeState, goal: EscapeState) -> int:
        """Walks around the holes (walking in is death); for each hole the goal has filled,
        the cheapest errand of walking to a block and pushing it in (nearest first, by the
        pushes walls allow); then the walk to the goal cell. It drops as blocks move toward
        their holes, which a greedy policy needs to make progress."""
        bound = self.distance_lower_bound(state, goal)
        if bound in (0, UNREACHABLE):
            return bound
        board = state.board.with_walls(state.holes - {state.player})
        here, total = state.player, 0
        blocks = set(state.blocks)
        for hole in sorted(state.holes - goal.holes):
            best: tuple[int, int] | None = None
            for block in sorted(blocks):
                pushes = state.board.pushes(block, hole)
                if pushes >= FAR:
                    continue
                cost = max(0, board.distance(here, block) - 1) + pushes
                if best is None or cost < best[0]:
                    best = (cost, block)
            if best is None:
                return bound  # no block can be pushed there: nothing better to say
            total += best[0]
            here = hole
            blocks.discard(best[1])
        total += board.distance(here, goal.player)
        return max(bound, total)

    def goal_lower_bound(self, state: EscapeState) -> int:
        if state.dead:
            return UNREACHABLE
        return state.board.distance(state.player, state.goal)

    # ----------------------------------------------------------------- levels

    @staticmethod
    def board_of(state: EscapeState) -> Board:
        return state.board

    def random_state(self, rng: random.Random) -> EscapeState:
        """A random level where holes surround the cheese and holes get a block on a straight
        free line leading into them, so a block must be pushed to win (the search check in
        :meth:`generate` rejects the levels where this plan is blocked)."""
        board, cells = random_layout(self.rows, self.cols, rng, self.obstacles, 4, "Escape")
        goal, player, block, hole = cells
        holes = [board.step_to[4 * goal + d] for d in range(4) if board.step_to[4 * goal + d] >= 0]
        taken = {goal, *holes}
        blocks: list[int] = []
        longest = max(1, max(board.rows, board.cols) // 3)
        for h in holes:
            options = []
            for d in range(4):
                for k in range(1, longest + 1):
                    line = ray(board, h, OPPOSITE[d], k + 1)  # pusher behind the block
                    if line is not None and not taken.intersection(line):
                        options.append(line[-2])
            if options:  # a hole no block can reach stays open: the player goes round it
                cell = rng.choice(options)
                blocks.append(cell)
                taken.add(cell)
        rest = [c for c in board.free_cells() if c not in taken]
        if not blocks or not rest:
            return EscapeState(board, player, frozenset({block}), frozenset({hole}), goal)
        return EscapeState(board, rng.choice(rest), frozenset(blocks), frozenset(holes), goal)

    @classmethod
    def from_text(cls, text: str) -> EscapeState:
        rows, cols, cells, _ = parse_level(text, "AbhgWX")
        players = [(ch, c) for ch in "AWX" for c in cells.get(ch, [])]
        if len(players) != 1:
            raise InputError(
                f"an Escape level needs exactly one player (A W X), got {len(players)}"
            )
        ch, player = players[0]
        goal = player if ch == "W" else single(cells, "g", "cheese")
        holes = set(cells.get("h", []))
        if ch == "X":
            holes.add(player)
        return EscapeState(
            Board(rows, cols, cells.get("#", [])),
            player,
            frozenset(cells.get("b", [])),
            frozenset(holes),
            goal,
            ch == "X",
        )

    def render_text(self, state: EscapeState) -> str:
        marks: dict[int, str] = {h: "h" for h in state.holes}
        marks.update({b: "b" for b in state.blocks})
        if state.goal != NONE:
            marks[state.goal] = "g"
        marks[state.player] = "X" if state.dead else "W" if state.won else "A"
        return draw_text(state.board, marks)

    def cell_layers(self, state: EscapeState) -> dict[tuple[int, int], list[Colour]]:
        board = state.board
        layers = self.base_layers(board)
        for h in state.holes:
            layers[board.coords(h)].append(HOLE)
        for b in state.blocks:
            layers[board.coords(b)].append(BLOCK)
        layers[board.coords(state.goal)].append(CHEESE)
        layers[board.coords(state.player)].append(PLAYER)
        return layers
