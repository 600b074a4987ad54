"""Pictures a person reads without the docs: titled, labelled, with a legend, as PNG or GIF.

Why one package: every picture xaip draws (capability examples, belief films, explicable
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
The modules: :mod:`.sheets` (what a picture holds, plain data), :mod:`.layout` (where
everything goes), :mod:`.draw` (matplotlib), :mod:`.gif` (animations).
"""

from xaip.figures.draw import sheet_png, sheet_rgb
from xaip.figures.gif import frames_gif, same_layout, sheets_gif
from xaip.figures.layout import MAX_HEIGHT, MAX_PIXELS, MIN_CELL, TEXT_CELL, cell_size, wrap
from xaip.figures.sheets import (
    DPI,
    INK,
    LABELS,
    MARGIN,
    MUTED,
    PAPER,
    TITLE_LINE,
    Arrow,
    Cell,
    Colour,
    Grid,
    Image,
    Key,
    Look,
    Panel,
    Sheet,
    ink_on,
    rgb,
)

__all__ = ["DPI", "INK", "LABELS", "MARGIN", "MAX_HEIGHT", "MAX_PIXELS", "MIN_CELL", "MUTED",
           "PAPER", "TEXT_CELL", "TITLE_LINE", "Arrow", "Cell", "Colour", "Grid", "Image",
           "Key", "Look", "Panel", "Sheet", "cell_size", "frames_gif", "ink_on", "rgb",
           "same_layout", "sheet_png", "sheet_rgb", "sheets_gif", "wrap"]
