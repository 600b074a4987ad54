"""What a picture holds, as plain data: cells (:class:`Look`), grids, raster images,
legend entries and the whole :class:`Sheet`, plus the sizes and colours every picture
shares. No matplotlib here: building a sheet is cheap, drawing it is :mod:`.draw`'s job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Colour = tuple[int, int, int]
Cell = tuple[int, int]

#: Pixels per inch of every picture (sizes below are in pixels).
DPI = 100
#: Background, ink and muted ink.
PAPER: Colour = (255, 255, 255)
INK: Colour = (25, 25, 25)
MUTED: Colour = (90, 90, 90)

MARGIN = 16
TITLE_PT, TEXT_PT, SMALL_PT = 15.0, 11.0, 10.0
TITLE_LINE, TEXT_LINE, SMALL_LINE = 26, 19, 17
#: The widest a sheet grows before panels wrap onto a new row.
MAX_WIDTH = 1400
LABELS = 24  # room for row and column names beside a grid



def rgb(colour: Colour) -> tuple[float, float, float]:
    """A 0..255 colour as matplotlib's 0..1 triple."""
    return colour[0] / 255, colour[1] / 255, colour[2] / 255


def ink_on(colour: Colour) -> Colour:
    """Dark or white text, whichever reads better on ``colour``."""
    r, g, b = colour
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else PAPER


# ----------------------------------------------------------------------------- content


@dataclass(frozen=True)
class Look:
    """How one grid cell is drawn: a fill, smaller squares on top (objects lying there,
    bottom first), an optional disc (the agent), a label in the middle, a frame that
    highlights, a small name in the top-left corner and a small line at the bottom."""

    fill: Colour
    inner: tuple[Colour, ...] = ()
    dot: Colour | None = None
    text: str = ""
    outline: Colour | None = None
    corner: str = ""
    foot: str = ""


@dataclass(frozen=True)
class Key:
    """One legend entry: a swatch of ``colour`` drawn as ``kind`` (``square``, ``dot``,
    ``frame`` or ``line``) and what it means."""

    colour: Colour
    label: str
    kind: str = "square"


@dataclass(frozen=True)
class Arrow:
    """A step drawn between two cells (centres), numbered ``number`` when given."""

    start: Cell
    end: Cell
    colour: Colour
    number: int | None = None


@dataclass(frozen=True)
class Grid:
    """A grid of cells: ``looks`` per ``(row, column)`` (missing cells are ``blank``),
    axis labels per row and column, arrows between cells, thick bars on cell borders
    (``bars``: pairs of neighbouring cells) and a caption above and a note below."""

    rows: int
    cols: int
    looks: Mapping[Cell, Look]
    caption: str = ""
    note: str = ""
    row_names: Sequence[str] | None = None
    col_names: Sequence[str] | None = None
    arrows: Sequence[Arrow] = ()
    bars: Sequence[tuple[Cell, Cell, Colour]] = ()
    blank: Colour = (250, 250, 250)


@dataclass(frozen=True)
class Image:
    """A raster picture (``width`` x ``height`` RGB bytes) shown as a panel, with optional
    rectangles ``(x0, y0, x1, y1, colour)`` drawn over it in its own pixels."""

    width: int
    height: int
    pixels: bytes
    caption: str = ""
    note: str = ""
    boxes: Sequence[tuple[int, int, int, int, Colour]] = ()


Panel = Grid | Image


@dataclass(frozen=True)
class Sheet:
    """A whole picture: title, lines under it, panels in ``columns`` columns (0: as many
    as fit), a legend and notes at the bottom. ``cell`` is the grid cells' size in pixels
    (0: chosen from the grids' sizes)."""

    title: str
    panels: Sequence[Panel]
    lines: Sequence[str] = ()
    legend: Sequence[Key] = ()
    notes: Sequence[str] = ()
    columns: int = 0
    cell: int = 0
    scale: int = 2  # raster panels are shown this many times their size
    min_width: int = 520
    #: Lines kept for the title, the text, each caption and each note even when shorter
    #: (the frames of an animation keep one layout: :func:`sheets_gif` sets them).
    reserve: tuple[int, int, int, int] = (0, 0, 0, 0)


# ----------------------------------------------------------------------------- layout


