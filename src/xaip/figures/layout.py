"""Where every part of a :class:`~xaip.figures.sheets.Sheet` goes, in pixels: title and
text lines wrapped to the width, panels in rows (reading order), captions, notes, legend
columns; cells shrink when a sheet would be too big for one picture."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from xaip.errors import InputError
from xaip.figures.sheets import (
    DPI,
    LABELS,
    MARGIN,
    MAX_WIDTH,
    SMALL_LINE,
    SMALL_PT,
    TEXT_LINE,
    TEXT_PT,
    TITLE_LINE,
    TITLE_PT,
    Grid,
    Key,
    Panel,
    Sheet,
)


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
    big for one picture is drawn with smaller cells (:func:`lay_out`)."""
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
class Box:
    x: float
    y: float
    w: float
    h: float


@dataclass
class Layout:
    width: int
    height: int
    title: list[str]
    lines: list[str]
    panels: list[tuple[Box, list[str], list[str]]]  # axes box, caption lines, note lines
    legend_y: float
    legend_rows: int
    legend_cols: int
    notes: list[str]
    notes_y: float
    header: float
    cell: int


def _panel_size(panel: Panel, cell: int, scale: int) -> tuple[int, int]:
    if isinstance(panel, Grid):
        label = LABELS if panel.row_names or panel.col_names else 0
        return panel.cols * cell + label, panel.rows * cell + label
    return panel.width * scale, panel.height * scale


def lay_out(sheet: Sheet) -> Layout:
    """Where everything goes, in pixels: with the sheet's cell size, or smaller cells
    when that picture would be taller than ``MAX_HEIGHT`` or larger than ``MAX_PIXELS``
    (a long film on a big grid); too big even with ``MIN_CELL`` is bad input."""
    cell = cell_size(sheet)
    while True:
        layout = _lay_out_with(sheet, cell)
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


def legend_x(keys: Sequence[Key], columns: int) -> list[float]:
    """Each legend column's left edge (pixels from the margin)."""
    widths = [max(_entry_width(k) for k in keys[c::columns]) for c in range(columns)]
    return [sum(widths[:c]) for c in range(columns)]


def _lay_out_with(sheet: Sheet, cell: int) -> Layout:
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
    boxes: list[tuple[Box, list[str], list[str]]] = []
    left0 = MARGIN + (text_width - grid_width) / 2
    for start in range(0, len(sheet.panels), columns):
        row = range(start, min(start + columns, len(sheet.panels)))
        cap_h = max(sheet.reserve[2], *(len(captions[i]) for i in row)) * SMALL_LINE
        note_h = max(sheet.reserve[3], *(len(notes_of[i]) for i in row)) * SMALL_LINE
        body_h = max(sizes[i][1] for i in row)
        for k, i in enumerate(row):
            w, h = sizes[i]
            x = left0 + k * (column_width + gap) + (column_width - w) / 2
            box = Box(x, y + cap_h + 4 + (body_h - h) / 2, w, h)
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
    return Layout(width, int(math.ceil(y)), title, lines, boxes, legend_y, legend_rows,
                   legend_cols, notes, notes_y, header, cell)


# ----------------------------------------------------------------------------- drawing


