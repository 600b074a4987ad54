"""The common shell of the bundled grid games: levels, episodes, solvability, pictures.

Why a base class: the four games differ only in their state, rules and drawing. Episode
handling (a fixed hand-made level or seeded random levels), the current-state slot of the
simulator protocol, the "is this random level solvable?" check by search, and PNG output
are the same, and keeping them in one place keeps the games short and alike.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Hashable
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from xaip.agents.agents import astar
from xaip.agents.envs._grid import Board
from xaip.agents.png import Colour
from xaip.errors import InputError
from xaip.runtime.budget import Budget

S = TypeVar("S", bound=Hashable)

FLOOR: Colour = (235, 235, 235)
WALL: Colour = (70, 70, 80)
PLAYER: Colour = (40, 150, 60)

#: How many random levels to try before giving up on a grid size.
MAX_ATTEMPTS = 200
#: Search budget of the solvability check of one random level.
CHECK_BUDGET = Budget(max_nodes=50_000)
#: Default search budget of :meth:`GridGame.solve` (optimal plans take more nodes).
SOLVE_BUDGET = Budget(max_nodes=3_000_000)


class GridGame(ABC, Generic[S]):
    """A grid game implementing the :class:`~xaip.agents.simulator.Simulator` protocol.

    Either give a hand-made ``level`` (a state or its text picture), and every ``reset``
    returns it, or give a grid size: ``reset(seed)`` then builds the random level for that
    seed — the same seed always gives the same level, and every generated level is checked
    to be solvable by search before it is returned.
    """

    name: ClassVar[str]
    ACTIONS: ClassVar[tuple[str, ...]]
    #: What the colours of :meth:`cell_layers` are, as the words a picture writes in the
    #: cells and its legend (the vocabulary's object names where there is one).
    LEGEND: ClassVar[tuple[tuple[Colour, str], ...]] = ()

    def __init__(
        self,
        rows: int = 6,
        cols: int = 6,
        *,
        seed: int = 0,
        obstacles: float = 0.2,
        level: S | str | None = None,
        solve_budget: Budget = CHECK_BUDGET,
    ) -> None:
        if not 0.0 <= obstacles < 1.0:
            raise InputError(f"obstacle ratio must be in [0, 1), got {obstacles}")
        self.obstacles = obstacles
        self.seed = seed
        self.solve_budget = solve_budget
        self.level: S | None = self.from_text(level) if isinstance(level, str) else level
        if self.level is not None:
            board = self.board_of(self.level)
            rows, cols = board.rows, board.cols
        self.rows = rows
        self.cols = cols
        self._state: S = self.level if self.level is not None else self.generate(seed)

    # ----------------------------------------------------------------- game-specific parts

    @classmethod
    @abstractmethod
    def from_text(cls, text: str) -> S:
        """Read a level drawn as text (the format of :meth:`render_text`)."""

    @abstractmethod
    def random_state(self, rng: random.Random) -> S:
        """One random level (not yet checked for solvability)."""

    @abstractmethod
    def goal_lower_bound(self, state: S) -> int:
        """An admissible estimate of the actions left to win (guides the solvability check)."""

    @staticmethod
    @abstractmethod
    def board_of(state: S) -> Board:
        """The board of a state."""

    @abstractmethod
    def cell_layers(self, state: S) -> dict[tuple[int, int], list[Colour]]:
        """Colours per cell, bottom layer first, for the PNG picture."""

    @abstractmethod
    def actions(self, state: S) -> tuple[str, ...]: ...

    @abstractmethod
    def step(self, state: S, action: str) -> S: ...

    @abstractmethod
    def is_goal(self, state: S) -> bool: ...

    @abstractmethod
    def render_text(self, state: S) -> str: ...

    # ----------------------------------------------------------------- shared behaviour

    def generate(self, seed: int) -> S:
        """The solvable random level for ``seed`` (deterministic per seed and grid size)."""
        rng = random.Random(f"{self.name}:{self.rows}x{self.cols}:{self.obstacles}:{seed}")
        for _ in range(MAX_ATTEMPTS):
            state = self.random_state(rng)
            if self.solvable(state):
                return state
        raise InputError(
            f"could not generate a solvable {self.name} level on a {self.rows}x{self.cols} "
            f"grid in {MAX_ATTEMPTS} attempts; the grid is probably too small"
        )

    def solvable(self, state: S, budget: Budget | None = None) -> bool:
        """Whether search finds a winning plan from ``state`` within the budget.

        Uses weighted A*: only existence matters here, and it finds plans much faster.
        """
        attempt = astar(
            self,
            state,
            self.is_goal,
            self._goal_heuristic,
            budget or self.solve_budget,
            weight=3.0,
        )
        return attempt.reached

    def solve(self, state: S, budget: Budget | None = None) -> tuple[str, ...] | None:
        """A shortest winning plan from ``state`` (``None`` if none is found in the budget)."""
        attempt = astar(self, state, self.is_goal, self._goal_heuristic, budget or SOLVE_BUDGET)
        return attempt.plan if attempt.reached else None

    def progress_estimate(self, state: S, goal: S) -> int:
        """How far ``goal`` looks from ``state`` to a hand-coded policy: not a bound, a
        measure that drops as the work gets done (the default is the lower bound)."""
        bound: int = self.distance_lower_bound(state, goal)  # type: ignore[attr-defined]
        return bound

    def _goal_heuristic(self, state: S, _goal: Any) -> int:
        return self.goal_lower_bound(state)

    def reset(self, seed: int | None = None) -> S:
        if self.level is not None:
            self._state = self.level
        else:
            self._state = self.generate(self.seed if seed is None else seed)
        return self._state

    def get_state(self) -> S:
        return self._state

    def set_state(self, state: S) -> None:
        self._state = state

    def successors(self, state: S) -> list[tuple[str, S]]:
        step = self.step
        return [(a, step(state, a)) for a in self.actions(state)]

    def render_png(self, state: S, path: str | Path, cell: int = 0) -> None:
        """A picture of ``state`` people read: objects named in their cells, numbered
        rows and columns, the status line and a legend (:mod:`xaip.agents.pictures`);
        ``cell`` is the cells' size in pixels (0: chosen from the grid's size)."""
        from xaip.agents.pictures import state_sheet
        from xaip.figures import sheet_png

        sheet = state_sheet(self, state, f"{self.name}: a state", cell=cell)
        Path(path).write_bytes(sheet_png(sheet))

    def base_layers(self, board: Board) -> dict[tuple[int, int], list[Colour]]:
        """Floor and walls for every cell."""
        return {
            (r, c): [WALL if r * board.cols + c in board.walls else FLOOR]
            for r in range(board.rows)
            for c in range(board.cols)
        }
