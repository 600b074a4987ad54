"""Pictures a person reads without the docs: titled, labelled, with a legend, as PNG or GIF.

Why one module: every picture xaip draws (capability examples, belief films, explicable
plans, failing states, game states) is a *sheet*: a title, a few lines saying what is shown,
one or more panels (usually a grid of labelled cells) each with a caption, a legend, and
notes. Drawing them all through :func:`sheet_png` / :func:`sheets_gif` keeps one look, one
size rule and one place where matplotlib is used.

How it stays cheap and reproducible:

* matplotlib is imported only when a picture is drawn (``import xaip.cli`` never pays for
  it); pyplot is never used: each sheet is a :class:`matplotlib.figure.Figure` on its own
  Agg canvas (no display, no global figure list), drawn under one lock because matplotlib
  is not thread-safe and the workbench renders from worker threads;
* the same input gives the same bytes: fixed size in pixels and dpi, matplotlib's default
  style with our few settings (a user's ``matplotlibrc`` does not leak in), the bundled
  DejaVu Sans font, and no ``Software``/time metadata in the PNG;
* GIFs: frames drawn the same way, one palette for all of them (the flat colours exact,
  a median cut for anti-aliased edges, no dithering), written by Pillow (a matplotlib
  dependency). Measured on the 13 frames (616x794) of the corridor's deceptive path:
  0.26 s and 184 KB, against 2.0 s and 490 KB for the pure-Python LZW encoder xaip used
  before (it wrote whole frames; Pillow writes only what changed).

Sizes are in pixels (``DPI`` pixels per inch), colours ``(r, g, b)`` with 0..255 channels.
"""

from __future__ import annotations

import io
import math
import textwrap
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from xaip.errors import InputError

if TYPE_CHECKING:  # pragma: no cover - types only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

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
_LABELS = 24  # room for row and column names beside a grid

_LOCK = threading.RLock()
#: Our settings over matplotlib's defaults. ``text.parse_math`` off: names come from users'
#: files, and "$x$" in a goal's name is a name, not a formula (nor a parse error).
_RC: dict[str, Any] = {"font.family": "DejaVu Sans", "font.size": TEXT_PT, "savefig.dpi": DPI,
       "figure.dpi": DPI, "path.simplify": False, "svg.hashsalt": "xaip",
       "axes.linewidth": 0.8, "text.parse_math": False, "text.usetex": False}


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


def _chars(width_px: float, points: float) -> int:
    """How many characters of DejaVu Sans at ``points`` fit in ``width_px`` (average)."""
    return max(12, int(width_px / (0.60 * points * DPI / 72)))


def wrap(text: str, width_px: float, points: float = TEXT_PT) -> list[str]:
    """``text`` wrapped to ``width_px`` pixels (paragraphs kept)."""
    out: list[str] = []
    for paragraph in text.splitlines() or [""]:
        out.extend(textwrap.wrap(paragraph, _chars(width_px, points),
                                 break_on_hyphens=False) or [""])
    return out


def cell_size(sheet: Sheet) -> int:
    """The grid cells' size in pixels: ``sheet.cell`` or one that keeps each grid panel
    near 300-420 pixels on its long side (at least 28, at most 64 per cell). A sheet too
    big for one picture is drawn with smaller cells (:func:`_layout`)."""
    if sheet.cell:
        return sheet.cell
    grids = [p for p in sheet.panels if isinstance(p, Grid)]
    if not grids:
        return 40
    longest = max(max(g.rows, g.cols) for g in grids)
    return max(28, min(64, 380 // max(1, longest)))


#: The largest picture drawn (pixels): beyond it cells shrink, down to ``MIN_CELL``.
MAX_HEIGHT, MAX_PIXELS, MIN_CELL = 16_000, 24_000_000, 8
#: Below this cell size (pixels) cells carry no words (a legend and captions still do).
TEXT_CELL = 14


@dataclass(frozen=True)
class _Box:
    x: float
    y: float
    w: float
    h: float


@dataclass
class _Layout:
    width: int
    height: int
    title: list[str]
    lines: list[str]
    panels: list[tuple[_Box, list[str], list[str]]]  # axes box, caption lines, note lines
    legend_y: float
    legend_rows: int
    legend_cols: int
    notes: list[str]
    notes_y: float
    header: float
    cell: int


def _panel_size(panel: Panel, cell: int, scale: int) -> tuple[int, int]:
    if isinstance(panel, Grid):
        label = _LABELS if panel.row_names or panel.col_names else 0
        return panel.cols * cell + label, panel.rows * cell + label
    return panel.width * scale, panel.height * scale


def _layout(sheet: Sheet) -> _Layout:
    """Where everything goes, in pixels: with the sheet's cell size, or smaller cells
    when that picture would be taller than ``MAX_HEIGHT`` or larger than ``MAX_PIXELS``
    (a long film on a big grid); too big even with ``MIN_CELL`` is bad input."""
    cell = cell_size(sheet)
    while True:
        layout = _layout_with(sheet, cell)
        if layout.height <= MAX_HEIGHT and layout.width * layout.height <= MAX_PIXELS:
            return layout
        grids = any(isinstance(p, Grid) for p in sheet.panels)
        if not grids or cell <= MIN_CELL:
            raise InputError(f"a picture of {len(sheet.panels)} panel(s) would be "
                             f"{layout.width}x{layout.height} pixels, too big to draw (an "
                             "animation shows one step at a time)")
        cell = max(MIN_CELL, int(cell * 0.8))


def _entry_width(key: Key) -> float:
    """A legend entry's width in pixels: swatch, gap, its words (estimated)."""
    return 40 + len(key.label) * 0.60 * SMALL_PT * DPI / 72


def _legend_columns(keys: Sequence[Key], width: float) -> int:
    """The most columns (entries in rows, left to right) whose widest entries fit."""
    for columns in range(len(keys), 1, -1):
        widths = [max(_entry_width(k) for k in keys[c::columns]) for c in range(columns)]
        if sum(widths) <= width:
            return columns
    return 1


def _legend_x(keys: Sequence[Key], columns: int) -> list[float]:
    """Each legend column's left edge (pixels from the margin)."""
    widths = [max(_entry_width(k) for k in keys[c::columns]) for c in range(columns)]
    return [sum(widths[:c]) for c in range(columns)]


def _layout_with(sheet: Sheet, cell: int) -> _Layout:
    sizes = [_panel_size(p, cell, sheet.scale) for p in sheet.panels]
    pw = max((w for w, _ in sizes), default=200)
    gap = 28
    column_width = max(pw, 200)
    fits = max(1, (MAX_WIDTH - 2 * MARGIN + gap) // (column_width + gap))
    columns = sheet.columns or min(len(sheet.panels), fits) or 1
    grid_width = columns * column_width + (columns - 1) * gap
    width = max(sheet.min_width, grid_width + 2 * MARGIN)
    text_width = width - 2 * MARGIN
    title = wrap(sheet.title, text_width, TITLE_PT)
    lines = [w for line in sheet.lines for w in wrap(line, text_width)]
    title += [""] * (sheet.reserve[0] - len(title))
    lines += [""] * (sheet.reserve[1] - len(lines))
    y = MARGIN + TITLE_LINE * len(title) + TEXT_LINE * len(lines) + (8 if lines else 0)
    header = y
    captions = [wrap(p.caption, column_width, SMALL_PT) if p.caption else [] for p in
                sheet.panels]
    notes_of = [wrap(p.note, column_width, SMALL_PT) if p.note else [] for p in sheet.panels]
    boxes: list[tuple[_Box, list[str], list[str]]] = []
    left0 = MARGIN + (text_width - grid_width) / 2
    for start in range(0, len(sheet.panels), columns):
        row = range(start, min(start + columns, len(sheet.panels)))
        cap_h = max(sheet.reserve[2], *(len(captions[i]) for i in row)) * SMALL_LINE
        note_h = max(sheet.reserve[3], *(len(notes_of[i]) for i in row)) * SMALL_LINE
        body_h = max(sizes[i][1] for i in row)
        for k, i in enumerate(row):
            w, h = sizes[i]
            x = left0 + k * (column_width + gap) + (column_width - w) / 2
            box = _Box(x, y + cap_h + 4 + (body_h - h) / 2, w, h)
            boxes.append((box, captions[i], notes_of[i]))
        y += cap_h + 4 + body_h + 6 + note_h + 14
    legend_y = y
    legend_cols = 0
    legend_rows = 0
    if sheet.legend:
        legend_cols = _legend_columns(sheet.legend, text_width)
        legend_rows = math.ceil(len(sheet.legend) / legend_cols)
        y += legend_rows * 22 + 12
    notes = [w for note in sheet.notes for w in wrap(note, text_width, SMALL_PT)]
    notes_y = y
    y += len(notes) * SMALL_LINE + MARGIN
    return _Layout(width, int(math.ceil(y)), title, lines, boxes, legend_y, legend_rows,
                   legend_cols, notes, notes_y, header, cell)


# ----------------------------------------------------------------------------- drawing


@contextmanager
def _matplotlib() -> Iterator[Any]:
    """matplotlib, imported on first use, with the default style plus ours (so a user's
    ``matplotlibrc`` never changes a picture), under the one drawing lock. Its warnings
    (a glyph DejaVu Sans lacks, in a name from a user's file) are not the user's business:
    the character is drawn as a box and nothing is printed."""
    with _LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import matplotlib
        from matplotlib import style

        with style.context("default"), matplotlib.rc_context(_RC):  # type: ignore[arg-type]
            yield matplotlib


def _canvas(width: int, height: int) -> tuple[Figure, Axes]:
    """A figure of ``width`` x ``height`` pixels and one axes over all of it whose data
    coordinates are those pixels (x right, y down): every sheet is laid out in pixels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if width <= 0 or height <= 0 or width * height > 40_000_000:
        raise InputError(f"cannot draw a {width}x{height} picture")
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI, facecolor=rgb(PAPER))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.autoscale(False)
    return fig, ax


#: Points per pixel (text sizes are in points).
_PT = 72 / DPI


def _fit_points(text: str, cell: float) -> float:
    """A font size that fits ``text`` (its longest line) inside a cell of ``cell`` pixels."""
    longest = max((len(line) for line in text.splitlines()), default=1)
    lines = max(1, len(text.splitlines()))
    by_width = 0.86 * cell * _PT / (0.62 * max(2, longest))
    by_height = 0.80 * cell * _PT / (1.25 * lines)
    return max(5.0, min(11.0, by_width, by_height))


def _draw_grid(ax: Axes, grid: Grid, x0: float, y0: float, cell: float) -> None:
    """A :class:`Grid` with its top-left cell corner at pixel ``(x0, y0)``: fills, objects
    and discs as three collections (fast), labels, arrows with step numbers, bars."""
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.patches import Circle, FancyArrowPatch, Rectangle

    fills, inner, dots, frames = [], [], [], []
    fill_colours, inner_colours, dot_colours, frame_colours = [], [], [], []
    for r in range(grid.rows):
        for c in range(grid.cols):
            look = grid.looks.get((r, c), Look(grid.blank))
            x, y = x0 + c * cell, y0 + r * cell
            fills.append(Rectangle((x, y), cell, cell))
            fill_colours.append(rgb(look.fill))
            for depth, colour in enumerate(look.inner, start=1):
                inset = cell * min(0.12 * depth + 0.06, 0.40)
                inner.append(Rectangle((x + inset, y + inset), cell - 2 * inset,
                                       cell - 2 * inset))
                inner_colours.append(rgb(colour))
            if look.dot is not None:
                dots.append(Circle((x + cell / 2, y + cell / 2), 0.30 * cell))
                dot_colours.append(rgb(look.dot))
            if look.outline is not None:
                inset = 0.06 * cell
                frames.append(Rectangle((x + inset, y + inset), cell - 2 * inset,
                                        cell - 2 * inset))
                frame_colours.append(rgb(look.outline))
    ax.add_collection(PatchCollection(fills, facecolors=fill_colours,
                                      edgecolors=[rgb((185, 185, 185))], linewidths=0.8),
                      autolim=False)
    if inner:
        ax.add_collection(PatchCollection(inner, facecolors=inner_colours, edgecolors="none",
                                          zorder=2), autolim=False)
    if dots:
        ax.add_collection(PatchCollection(dots, facecolors=dot_colours,
                                          edgecolors=[rgb(PAPER)], linewidths=1.2, zorder=3),
                          autolim=False)
    if frames:
        ax.add_collection(PatchCollection(frames, facecolors="none", edgecolors=frame_colours,
                                          linewidths=max(2.0, cell / 18),
                                          zorder=4), autolim=False)
    ax.add_patch(Rectangle((x0, y0), grid.cols * cell, grid.rows * cell, facecolor="none",
                           edgecolor=rgb((140, 140, 140)), linewidth=1.0, zorder=4))
    for r in range(grid.rows if cell >= TEXT_CELL else 0):  # tiny cells carry no words
        for c in range(grid.cols):
            shown = grid.looks.get((r, c))
            if shown is None:
                continue
            look = shown
            # the text sits on the top layer and fits inside it
            if look.dot is not None:
                under, room = look.dot, 0.62 * cell
            elif look.inner:
                under = look.inner[-1]
                room = cell * (1 - 2 * min(0.12 * len(look.inner) + 0.06, 0.40))
            else:
                under, room = look.fill, cell
            if look.text:
                ax.text(x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell, look.text,
                        ha="center", va="center", fontsize=_fit_points(look.text, room),
                        color=rgb(ink_on(under)), zorder=5, linespacing=1.0)
            if look.corner or look.foot:
                small = max(5.5, min(9.0, cell / 7.5))
                ink = rgb(ink_on(look.fill))
                if look.corner:
                    tag = None if look.outline is None else {
                        "boxstyle": "round,pad=0.15", "facecolor": rgb(PAPER),
                        "edgecolor": rgb(look.outline), "linewidth": 1.0}
                    ax.text(x0 + c * cell + 3, y0 + r * cell + 3, look.corner, ha="left",
                            va="top", fontsize=small, zorder=6, bbox=tag,
                            color=ink if tag is None else rgb(INK),
                            fontweight="normal" if tag is None else "bold")
                if look.foot:
                    ax.text(x0 + (c + 0.5) * cell, y0 + (r + 1) * cell - 3, look.foot,
                            ha="center", va="bottom", fontsize=small, color=ink, zorder=5,
                            fontweight="bold")
    bars, bar_colours = [], []
    for (ra, ca), (rb, cb), colour in grid.bars:
        if ra == rb:  # neighbours in one row: a vertical bar on their shared border
            x = x0 + max(ca, cb) * cell
            bars.append([(x, y0 + (ra + 0.08) * cell), (x, y0 + (ra + 0.92) * cell)])
        else:
            y = y0 + max(ra, rb) * cell
            bars.append([(x0 + (ca + 0.08) * cell, y), (x0 + (ca + 0.92) * cell, y)])
        bar_colours.append(rgb(colour))
    if bars:
        ax.add_collection(LineCollection(bars, colors=bar_colours, zorder=6,
                                         linewidths=max(3.5, cell / 16),
                                         capstyle="butt"), autolim=False)
    for arrow in grid.arrows:
        (r0, c0), (r1, c1) = arrow.start, arrow.end
        start = (x0 + (c0 + 0.5) * cell, y0 + (r0 + 0.5) * cell)
        end = (x0 + (c1 + 0.5) * cell, y0 + (r1 + 0.5) * cell)
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>",
                                     mutation_scale=max(10, cell / 3.5),
                                     color=rgb(arrow.colour), linewidth=2.2,
                                     shrinkA=cell * 0.08 * _PT, shrinkB=cell * 0.10 * _PT,
                                     zorder=7))
        if arrow.number is not None:
            ax.text((start[0] + end[0]) / 2, (start[1] + end[1]) / 2, str(arrow.number),
                    ha="center", va="center", zorder=8, fontweight="bold",
                    fontsize=max(6.5, min(10.0, cell / 5.0)), color=rgb(PAPER),
                    bbox={"boxstyle": "circle,pad=0.18", "facecolor": rgb(arrow.colour),
                          "edgecolor": "none"})
    names = max(6.0, min(9.5, cell / 4.2))
    every = max(1, math.ceil(18 / cell))  # small cells: name every few rows and columns
    for c, name in enumerate(grid.col_names or ()):
        if c % every == 0:
            ax.text(x0 + (c + 0.5) * cell, y0 - 5, name, ha="center", va="bottom",
                    fontsize=names, color=rgb(MUTED))
    for r, name in enumerate(grid.row_names or ()):
        if r % every == 0:
            ax.text(x0 - 6, y0 + (r + 0.5) * cell, name, ha="right", va="center",
                    fontsize=names, color=rgb(MUTED))


def _draw_image(ax: Axes, image: Image, box: _Box) -> None:
    """An :class:`Image` panel scaled into ``box`` (nearest neighbour), boxes on top."""
    import numpy as np
    from matplotlib.patches import Rectangle

    pixels = np.frombuffer(image.pixels, dtype=np.uint8).reshape(image.height, image.width, 3)
    ax.imshow(pixels, interpolation="nearest", aspect="auto",
              extent=(box.x, box.x + box.w, box.y + box.h, box.y))
    sx, sy = box.w / image.width, box.h / image.height
    for x0, y0, x1, y1, colour in image.boxes:
        ax.add_patch(Rectangle((box.x + x0 * sx, box.y + y0 * sy), (x1 - x0) * sx,
                               (y1 - y0) * sy, facecolor="none", edgecolor=rgb(colour),
                               linewidth=2.5))


def _legend(ax: Axes, sheet: Sheet, layout: _Layout) -> None:
    """The legend in rows of ``legend_cols`` entries: a swatch, then its meaning."""
    from matplotlib.patches import Circle, Rectangle

    left = _legend_x(sheet.legend, layout.legend_cols)
    for k, key in enumerate(sheet.legend):
        x = MARGIN + left[k % layout.legend_cols]
        y = layout.legend_y + (k // layout.legend_cols) * 22
        colour = rgb(key.colour)
        if key.kind == "dot":
            ax.add_patch(Circle((x + 9, y + 9), 7, facecolor=colour,
                                edgecolor=rgb(MUTED), linewidth=0.8))
        elif key.kind == "frame":
            ax.add_patch(Rectangle((x + 1, y + 2), 16, 14, facecolor="white",
                                   edgecolor=colour, linewidth=2.5))
        elif key.kind == "line":
            ax.plot([x, x + 18], [y + 9, y + 9], color=colour, linewidth=4,
                    solid_capstyle="butt")
        else:
            ax.add_patch(Rectangle((x, y + 2), 18, 14, facecolor=colour,
                                   edgecolor=rgb((150, 150, 150)), linewidth=0.8))
        ax.text(x + 26, y + 9, key.label, fontsize=SMALL_PT, va="center", color=rgb(INK))


def _write(ax: Axes, x: float, y: float, text: str, points: float, **kw: Any) -> None:
    """Text with its top at pixel ``y`` (left-aligned at ``x`` unless ``ha`` says)."""
    ax.text(x, y, text, fontsize=points, va="top", color=rgb(kw.pop("colour", INK)), **kw)


def _paint(sheet: Sheet) -> Figure:
    layout = _layout(sheet)
    fig, ax = _canvas(layout.width, layout.height)
    y: float = MARGIN
    for line in layout.title:
        _write(ax, MARGIN, y, line, TITLE_PT, fontweight="bold")
        y += TITLE_LINE
    for line in layout.lines:
        _write(ax, MARGIN, y, line, TEXT_PT)
        y += TEXT_LINE
    cell = layout.cell
    for panel, (box, caption, note) in zip(sheet.panels, layout.panels, strict=True):
        if isinstance(panel, Grid):
            pad = _LABELS if panel.row_names or panel.col_names else 0
            _draw_grid(ax, panel, box.x + pad, box.y + pad, cell)
        else:
            _draw_image(ax, panel, box)
        top = box.y - 4 - SMALL_LINE * len(caption)
        for k, line in enumerate(caption):
            _write(ax, box.x + box.w / 2, top + k * SMALL_LINE, line, SMALL_PT, ha="center",
                   fontweight="bold")
        for k, line in enumerate(note):
            _write(ax, box.x + box.w / 2, box.y + box.h + 6 + k * SMALL_LINE, line, SMALL_PT,
                   ha="center", colour=MUTED)
    if sheet.legend:
        _legend(ax, sheet, layout)
    for k, line in enumerate(layout.notes):
        _write(ax, MARGIN, layout.notes_y + k * SMALL_LINE, line, SMALL_PT, colour=MUTED)
    return fig


def sheet_png(sheet: Sheet) -> bytes:
    """The sheet as PNG bytes (the same sheet always gives the same bytes)."""
    if not sheet.panels:
        raise InputError("a picture needs at least one panel")
    with _matplotlib():
        fig = _paint(sheet)
        out = io.BytesIO()
        fig.savefig(out, format="png", dpi=DPI, metadata={"Software": None})
    return out.getvalue()


def sheet_rgb(sheet: Sheet) -> tuple[int, int, bytes]:
    """The sheet as ``(width, height, rgb)`` raw pixels."""
    with _matplotlib():
        fig = _paint(sheet)
        return _pixels(fig)


def _pixels(fig: Figure) -> tuple[int, int, bytes]:
    import numpy as np

    canvas: Any = fig.canvas
    canvas.draw()
    rgba = np.asarray(canvas.buffer_rgba())
    height, width = rgba.shape[0], rgba.shape[1]
    return width, height, np.ascontiguousarray(rgba[:, :, :3]).tobytes()


def same_layout(sheets: Sequence[Sheet]) -> list[Sheet]:
    """The sheets with room reserved for their longest title, text, captions and notes,
    so that frames shown one after another keep every part in place."""
    layouts = [_layout(sheet) for sheet in sheets]
    reserve = (max(len(layout.title) for layout in layouts),
               max(len(layout.lines) for layout in layouts),
               max((len(c) for layout in layouts for _, c, _ in layout.panels), default=0),
               max((len(n) for layout in layouts for _, _, n in layout.panels), default=0))
    return [replace(sheet, reserve=reserve) for sheet in sheets]


def sheets_gif(sheets: Sequence[Sheet], delay_ms: int = 900, hold_last_ms: int = 2500
               ) -> bytes:
    """The sheets as the frames of a looping animated GIF (one shared palette; the last
    frame held ``hold_last_ms``). Frames of different sizes are padded to the largest."""
    if not sheets:
        raise InputError("an animation needs at least one frame")
    frames = []
    with _matplotlib():
        for sheet in same_layout(sheets):
            frames.append(_pixels(_paint(sheet)))
    return frames_gif(frames, delay_ms, hold_last_ms)


def frames_gif(frames: Sequence[tuple[int, int, bytes]], delay_ms: int = 900,
               hold_last_ms: int = 2500) -> bytes:
    """RGB frames ``(width, height, rgb)`` as a looping GIF through Pillow: one palette of
    at most 256 colours for every frame (:func:`_palette`: flat colours exact, no
    dithering)."""
    from PIL import Image as PILImage

    if not frames:
        raise InputError("an animation needs at least one frame")
    width = max(f[0] for f in frames)
    height = max(f[1] for f in frames)
    images = []
    for w, h, data in frames:
        image = PILImage.frombytes("RGB", (w, h), data)
        if (w, h) != (width, height):
            padded = PILImage.new("RGB", (width, height), PAPER)
            padded.paste(image, (0, 0))
            image = padded
        images.append(image)
    palette = _palette(images)
    indexed = [_indexed(im, palette) for im in images]
    durations = [delay_ms] * len(indexed)
    durations[-1] = max(delay_ms, hold_last_ms)
    out = io.BytesIO()
    indexed[0].save(out, format="GIF", save_all=True, append_images=indexed[1:],
                    duration=durations, loop=0, optimize=False, disposal=1)
    return out.getvalue()


def _palette(images: Sequence[Any]) -> Any:
    """One palette image for every frame: the most frequent exact colours (the flat
    fills, the paper, the ink), so they stay exact, and a median cut of the frames for the
    rest (anti-aliased edges). Frames are sampled at half size to find the colours."""
    import numpy as np
    from PIL import Image as PILImage

    width, height = images[0].size
    thumbs = [np.asarray(im.resize((max(1, width // 2), max(1, height // 2)),
                                   PILImage.Resampling.NEAREST)) for im in images]
    pixels = np.concatenate([t.reshape(-1, 3) for t in thumbs]).astype(np.uint32)
    codes = pixels[:, 0] << 16 | pixels[:, 1] << 8 | pixels[:, 2]
    values, counts = np.unique(codes, return_counts=True)
    order = np.lexsort((values, -counts))  # most frequent first, ties by colour
    exact = [int(v) for v in values[order][:96]]
    atlas = PILImage.fromarray(np.concatenate(thumbs).astype(np.uint8), "RGB")
    cut = atlas.quantize(colors=256 - len(exact), method=PILImage.Quantize.MEDIANCUT,
                         dither=PILImage.Dither.NONE).getpalette() or []
    colours = [(v >> 16 & 255, v >> 8 & 255, v & 255) for v in exact]
    colours += [(cut[i], cut[i + 1], cut[i + 2]) for i in range(0, 3 * (256 - len(exact)), 3)
                if len(cut) >= i + 3]
    flat = [channel for colour in colours[:256] for channel in colour]
    palette = PILImage.new("P", (1, 1))
    palette.putpalette(flat + [0] * (768 - len(flat)))
    return palette


def _indexed(image: Any, palette: Any) -> Any:
    """``image`` in ``palette``'s colours: each colour to its nearest palette entry (the
    first of equals, so the exact flat colours keep their own entry; Pillow's own mapping
    looks colours up in a coarse cube and turned white into a near-white)."""
    import numpy as np
    from PIL import Image as PILImage

    entries = np.asarray(palette.getpalette()[:768], dtype=np.int32).reshape(-1, 3)
    pixels = np.asarray(image, dtype=np.int32).reshape(-1, 3)
    codes = pixels[:, 0] << 16 | pixels[:, 1] << 8 | pixels[:, 2]
    colours, inverse = np.unique(codes, return_inverse=True)
    rgb = np.stack([colours >> 16 & 255, colours >> 8 & 255, colours & 255], axis=1)
    distance = ((rgb[:, None, :] - entries[None, :, :]) ** 2).sum(axis=2)
    nearest = distance.argmin(axis=1).astype(np.uint8)
    out = PILImage.fromarray(nearest[inverse.reshape(-1)].reshape(image.height, image.width),
                             "P")
    out.putpalette(palette.getpalette()[:768])
    return out


def look_grid(rows: int, cols: int, looks: Callable[[int, int], Look]) -> dict[Cell, Look]:
    """``{(r, c): looks(r, c)}`` for every cell."""
    return {(r, c): looks(r, c) for r in range(rows) for c in range(cols)}


__all__ = ["DPI", "Arrow", "Grid", "Image", "Key", "Look", "Sheet", "cell_size", "frames_gif",
           "ink_on", "look_grid", "rgb", "same_layout", "sheet_png", "sheet_rgb", "sheets_gif",
           "wrap"]
