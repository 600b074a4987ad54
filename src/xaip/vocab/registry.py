"""Each bundled game registered once: simulator, vocabulary, concretisation, level generator.

Why one registry: the CLI, discovery, the checks and the benchmarks all need the same four
parts of a game; before, each looked them up in a different module by name. A new game is
added with one :func:`register_game` call, and :func:`xaip.agents.check.check_simulator`
can be run over every registered game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xaip.errors import InputError
from xaip.vocab.core import Vocabulary

#: The largest grid (rows x columns) a bundled game is generated on: every cell is an
#: object of the vocabulary, and the game's tables grow with the cells.
MAX_CELLS = 1_000_000


@dataclass(frozen=True)
class GameSpec:
    """The parts of one game.

    ``make(rows, cols, seed)`` generates the random level's simulator (its ``reset()``
    returns the level); ``vocabulary()`` the person's vocabulary; ``concretize(atoms,
    like, limit)`` the concrete states with a full abstract state (``like`` supplies what
    the vocabulary cannot see); ``hidden_facing`` says whether the vocabulary is blind to
    the player's facing (waypoints then stand for every facing); ``min_grid`` is the
    smallest grid its levels fit on.
    """

    name: str
    make: Callable[[int, int, int], Any]
    vocabulary: Callable[[], Vocabulary]
    concretize: Callable[[frozenset[Any], Any, int | None], list[Any]]
    hidden_facing: bool
    description: str = ""
    min_grid: tuple[int, int] = (2, 2)


_GAMES: dict[str, GameSpec] = {}


def register_game(spec: GameSpec) -> GameSpec:
    """Add ``spec`` (idempotent per name)."""
    _GAMES[spec.name] = spec
    return spec


def game_names() -> tuple[str, ...]:
    """The registered games, in registration order."""
    return tuple(_GAMES)


def get_game(name: str) -> GameSpec:
    """The game called ``name`` (case, ``-`` and ``_`` ignored); unknown names are bad input."""
    key = name.lower().replace("-", "").replace("_", "")
    found = _GAMES.get(key)
    if found is None:
        raise InputError(f"unknown game '{name}'; known: {', '.join(_GAMES)}")
    return found


def check_grid(rows: int, cols: int) -> None:
    """Refuse grids below 2x2 or above :data:`MAX_CELLS` cells with a clear message."""
    if rows < 2 or cols < 2:
        raise InputError(f"the grid must be at least 2x2, got {rows}x{cols}")
    if rows * cols > MAX_CELLS:
        raise InputError(f"the grid {rows}x{cols} has {rows * cols} cells; the bundled games "
                         f"support at most {MAX_CELLS:,} cells")


def _register_bundled() -> None:
    from xaip.agents.envs import GAMES, make_game
    from xaip.vocab import games

    descriptions = {
        "zelda": "fetch the key past monsters to the door",
        "cookmepasta": "cook the pasta: ingredients in the pot in order",
        "escape": "push blocks into holes to reach the exit",
        "snowman": "stack the snowman's pieces in order",
    }
    for name in GAMES:
        def make(rows: int, cols: int, seed: int, _name: str = name) -> Any:
            return make_game(_name, rows, cols, seed=seed)

        def concretize(atoms: frozenset[Any], like: Any, limit: int | None,
                       _name: str = name) -> list[Any]:
            return games.concretize(_name, atoms, like, limit=limit)

        def vocabulary(_name: str = name) -> Vocabulary:
            return games.game_vocabulary(_name)

        register_game(GameSpec(name, make, vocabulary, concretize, games.hidden_facing(name),
                               descriptions.get(name, "")))


_register_bundled()

__all__ = ["MAX_CELLS", "GameSpec", "check_grid", "game_names", "get_game", "register_game"]
