"""The paper's four grid games as simulators: Zelda, Cook-Me-Pasta, Escape and Snowman.

Our own engines following the rules of the paper's appendix A. Every game takes a grid size
and a seed (random levels with about 20% walls, checked solvable by search) or a hand-made
level drawn as text, and renders states as text and PNG.
"""

from __future__ import annotations

from typing import Any

from xaip.agents.envs._base import GridGame
from xaip.agents.envs._grid import Board
from xaip.agents.envs.cookmepasta import CookMePasta, PastaState
from xaip.agents.envs.escape import Escape, EscapeState
from xaip.agents.envs.snowman import Snowman, SnowmanState
from xaip.agents.envs.zelda import Zelda, ZeldaState
from xaip.errors import InputError

GAMES: dict[str, type[GridGame[Any]]] = {
    "zelda": Zelda,
    "cookmepasta": CookMePasta,
    "escape": Escape,
    "snowman": Snowman,
}


def make_game(name: str, rows: int, cols: int, *, seed: int = 0) -> GridGame[Any]:
    """A bundled game by name (``zelda``, ``cookmepasta``, ``escape``, ``snowman``)."""
    try:
        cls = GAMES[name.lower().replace("-", "").replace("_", "")]
    except KeyError:
        raise InputError(f"unknown game '{name}'; known: {', '.join(GAMES)}") from None
    return cls(rows, cols, seed=seed)


__all__ = [
    "GAMES",
    "Board",
    "CookMePasta",
    "Escape",
    "EscapeState",
    "GridGame",
    "PastaState",
    "Snowman",
    "SnowmanState",
    "Zelda",
    "ZeldaState",
    "make_game",
]
