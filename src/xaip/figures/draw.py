"""Drawing a :class:`~xaip.figures.sheets.Sheet` with matplotlib (imported here only when
a picture is drawn): one axes over the whole figure in pixel coordinates, cells as patch
collections, text, legend; PNG bytes or raw RGB frames."""

from __future__ import annotations

import io
import math
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from xaip.errors import InputError
from xaip.figures.layout import TEXT_CELL, Box, Layout, lay_out, legend_x
from xaip.figures.sheets import (
    DPI,
    INK,
    LABELS,
    MARGIN,
    MUTED,
    PAPER,
    SMALL_LINE,
    SMALL_PT,
    TEXT_LINE,
    TEXT_PT,
    TITLE_LINE,
    TITLE_PT,
    Grid,
    Image,
    Look,
    Sheet,
    ink_on,
    rgb,
)

if TYPE_CHECKING:  # pragma: no cover - types only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_LOCK = threading.RLock()
#: Our settings over matplotlib's defaults. ``text.parse_math`` off: names come from users'
#: files, and "$x$" in a goal's name is a name, not a formula (nor a parse error).
_RC: dict[str, Any] = {"font.family": "DejaVu Sans", "font.size": TEXT_PT, "savefig.dpi": DPI,
       "figure.dpi": DPI, "path.simplify": False, "svg.hashsalt": "xaip",
       "axes.linewidth": 0.8, "text.parse_math": False, "text.usetex": False}

@contextmanager
def matplotlib_lock() -> Iterator[Any]:
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


def _draw_image(ax: Axes, image: Image, box: Box) -> None:
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


def _legend(ax: Axes, sheet: Sheet, layout: Layout) -> None:
    """The legend in rows of ``legend_cols`` entries: a swatch, then its meaning."""
    from matplotlib.patches import Circle, Rectangle

    left = legend_x(sheet.legend, layout.legend_cols)
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


def paint(sheet: Sheet) -> Figure:
    layout = lay_out(sheet)
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
            pad = LABELS if panel.row_names or panel.col_names else 0
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
    with matplotlib_lock():
        fig = paint(sheet)
        out = io.BytesIO()
        fig.savefig(out, format="png", dpi=DPI, metadata={"Software": None})
    return out.getvalue()


def sheet_rgb(sheet: Sheet) -> tuple[int, int, bytes]:
    """The sheet as ``(width, height, rgb)`` raw pixels."""
    with matplotlib_lock():
        fig = paint(sheet)
        return pixels(fig)


def pixels(fig: Figure) -> tuple[int, int, bytes]:
    import numpy as np

    canvas: Any = fig.canvas
    canvas.draw()
    rgba = np.asarray(canvas.buffer_rgba())
    height, width = rgba.shape[0], rgba.shape[1]
    return width, height, np.ascontiguousarray(rgba[:, :, :3]).tobytes()


