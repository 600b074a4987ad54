"""Pictures of grid-game states that a person reads without the docs.

Why its own module: a game state drawn as bare coloured squares (what the games' cell
layers are) says nothing to someone who has not read the game's source. Here every object
is named in its cell (the game's ``LEGEND`` words, or the vocabulary's object names when a
caller passes them), rows and columns are numbered as the vocabulary's cells
``cell_ROW_COL`` are, the game's status line is written under the title and a legend says
what each colour is. Drawn through :mod:`xaip.figures` (matplotlib, imported only when a
picture is drawn). :meth:`~xaip.agents.envs._base.GridGame.render_png` and the capability
pictures (:func:`xaip.render.capabilities.write_pictures`) use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xaip.figures import Colour, Grid, Key, Look, Sheet

Cell = tuple[int, int]

#: Walls and the floor, shared by every bundled game (``xaip.agents.envs._base``).
WALL_WORD = "wall"


def _words(game: Any) -> dict[Colour, str]:
    return {tuple(colour): word for colour, word in getattr(game, "LEGEND", ())}


def state_grid(game: Any, state: Any, *, caption: str = "", note: str = "",
               labels: Mapping[Cell, Sequence[str]] | None = None,
               outlines: Mapping[Cell, Colour] | None = None,
               corners: Mapping[Cell, str] | None = None) -> Grid:
    """``state`` of ``game`` (a :class:`~xaip.agents.envs._base.GridGame`) as a grid:
    the game's colours (the player a disc, other objects squares), each cell's objects
    named (``labels`` per cell where given, else the ``LEGEND`` word of each colour), what
    the player carries written ``+ key``, ``outlines`` framing cells and ``corners``
    naming them."""
    from xaip.agents.envs._base import PLAYER, WALL

    board = game.board_of(state)
    words = _words(game)
    layers = game.cell_layers(state)
    looks: dict[Cell, Look] = {}
    for (r, c), colours in layers.items():
        fill, rest = colours[0], [tuple(x) for x in colours[1:]]
        dot = PLAYER if PLAYER in rest else None
        inner = tuple(x for x in rest if x != PLAYER)
        # layers above the player are what it carries (the games append them last)
        carried = rest[rest.index(PLAYER) + 1:] if dot else []
        names = list((labels or {}).get((r, c), ()))
        if not names:  # no object named here: what the colours are (a door, the goal)
            names = [words[x] for x in rest[:len(rest) - len(carried)] if words.get(x)
                     and x != PLAYER] + ([words[PLAYER]] if dot and PLAYER in words else [])
        text = "\n".join([*names, *(f"+ {words[x]}" for x in carried if x in words)])
        outline = (outlines or {}).get((r, c))
        corner = (corners or {}).get((r, c), "")
        looks[(r, c)] = Look(tuple(fill), inner[-2:] if dot else inner[-3:], dot, text,
                             outline, corner=corner)
        if tuple(fill) == WALL and not text:
            looks[(r, c)] = Look(WALL, outline=outline, corner=corner)
    return Grid(board.rows, board.cols, looks, caption=caption, note=note,
                row_names=[str(r) for r in range(board.rows)],
                col_names=[str(c) for c in range(board.cols)])


def state_legend(game: Any, states: Sequence[Any]) -> list[Key]:
    """Legend entries for the colours that appear in ``states`` (wall first)."""
    from xaip.agents.envs._base import PLAYER, WALL

    seen: set[Colour] = set()
    for state in states:
        for colours in game.cell_layers(state).values():
            seen.update(tuple(x) for x in colours)
    keys = [Key(WALL, WALL_WORD)] if WALL in seen else []
    for colour, word in getattr(game, "LEGEND", ()):
        if tuple(colour) in seen:
            keys.append(Key(tuple(colour), word, "dot" if tuple(colour) == PLAYER else
                            "square"))
    return keys


def status_line(game: Any, state: Any) -> str:
    """The game's status entries (``has_key=0 escaped=0``: what a picture cannot show),
    from the ``;`` line of its text picture; empty when it has none."""
    try:
        text = game.render_text(state)
    except Exception:  # noqa: BLE001 - a picture must not fail on a status line
        return ""
    status = [line[1:].strip() for line in text.splitlines() if line.startswith(";")]
    return " ".join(status)


CELL_NOTE = "Cell cell_R_C is row R, column C (numbered from 0)."


def state_sheet(game: Any, state: Any, title: str, *, lines: Sequence[str] = (),
                caption: str = "", labels: Mapping[Cell, Sequence[str]] | None = None,
                outlines: Mapping[Cell, Colour] | None = None,
                corners: Mapping[Cell, str] | None = None, extra: Sequence[Key] = (),
                cell: int = 0) -> Sheet:
    """One state on a sheet: title, lines (the status line added), the labelled grid,
    the legend (plus ``extra`` entries) and how cells are named."""
    status = status_line(game, state)
    shown = [*lines, *([f"Status: {status}"] if status else [])]
    grid = state_grid(game, state, caption=caption, labels=labels, outlines=outlines,
                      corners=corners)
    size = cell or max(48, min(80, 480 // max(grid.rows, grid.cols)))
    return Sheet(title, [grid], lines=shown, legend=[*state_legend(game, [state]), *extra],
                 notes=[CELL_NOTE], cell=size, min_width=640)


__all__ = ["CELL_NOTE", "state_grid", "state_legend", "state_sheet", "status_line"]
