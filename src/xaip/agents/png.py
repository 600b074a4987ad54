"""A tiny PNG writer (RGB, 8 bits per channel) using only ``zlib`` and ``struct``.

Why our own: pictures of game states (capability cards, example transitions) are the only
images xaip draws, and they are coloured cells. Pillow would be a heavy dependency for that;
the PNG format for truecolour without interlacing is a signature, three chunks and a CRC.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from xaip.errors import InputError

Colour = tuple[int, int, int]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def encode_png(width: int, height: int, rgb: bytes) -> bytes:
    """Encode ``height`` rows of ``width`` RGB pixels (``3*width*height`` bytes) as a PNG."""
    if width <= 0 or height <= 0:
        raise InputError(f"PNG size must be positive, got {width}x{height}")
    stride = 3 * width
    if len(rgb) != stride * height:
        raise InputError(
            f"PNG data has {len(rgb)} bytes, expected {stride * height} for {width}x{height} RGB"
        )
    # Each scanline starts with filter type 0 (None).
    raw = b"".join(b"\x00" + rgb[row * stride : (row + 1) * stride] for row in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        PNG_SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw, 9))
        + _chunk(b"IEND", b"")
    )


def write_png(path: str | Path, width: int, height: int, rgb: bytes) -> None:
    """Write raw RGB bytes as a PNG file."""
    Path(path).write_bytes(encode_png(width, height, rgb))


def pixels_to_bytes(pixels: Sequence[Sequence[Sequence[int]]]) -> tuple[int, int, bytes]:
    """``(width, height, rgb)`` from rows of pixels given as ``(r, g, b)`` (0..255) triples.

    Accepts nested lists/tuples (or anything with the same shape, e.g. ``array.tolist()``).
    """
    height = len(pixels)
    if height == 0:
        raise InputError("an image needs at least one row of pixels")
    width = len(pixels[0])
    out = bytearray()
    for y, row in enumerate(pixels):
        if len(row) != width:
            raise InputError(f"pixel row {y} has {len(row)} pixels, expected {width}")
        for pixel in row:
            out.extend(int(channel) & 0xFF for channel in tuple(pixel)[:3])
    if len(out) != 3 * width * height:
        raise InputError("every pixel needs three channels (r, g, b)")
    return width, height, bytes(out)


def draw_cells(
    rows: int,
    cols: int,
    layers: Mapping[tuple[int, int], Iterable[Colour]],
    *,
    background: Colour = (235, 235, 235),
    cell: int = 16,
    grid_line: Colour | None = (200, 200, 200),
) -> tuple[int, int, bytes]:
    """Draw a grid of coloured cells: ``(width, height, rgb)``.

    ``layers[(r, c)]`` lists colours from the bottom up: the first fills the cell, each further
    colour is drawn as a smaller centred square on top, so a player standing on a goal cell
    shows both.
    """
    if rows <= 0 or cols <= 0 or cell < 4:
        raise InputError(f"cannot draw a {rows}x{cols} grid with {cell}-pixel cells")
    width, height = cols * cell, rows * cell
    img = bytearray(bytes(background) * (width * height))

    def fill(x0: int, y0: int, size: int, colour: Colour) -> None:
        line = bytes(colour) * size
        for y in range(y0, y0 + size):
            start = 3 * (y * width + x0)
            img[start : start + 3 * size] = line

    for (r, c), colours in layers.items():
        if not (0 <= r < rows and 0 <= c < cols):
            continue
        for depth, colour in enumerate(colours):
            inset = min(depth * max(2, cell // 6), cell // 2 - 1)
            fill(c * cell + inset, r * cell + inset, cell - 2 * inset, colour)
    if grid_line is not None:
        line_colour = bytes(grid_line)
        for r in range(rows):
            y = r * cell
            start = 3 * (y * width)
            img[start : start + 3 * width] = line_colour * width
        for c in range(cols):
            x = c * cell
            for y in range(height):
                start = 3 * (y * width + x)
                img[start : start + 3] = line_colour
    return width, height, bytes(img)


def write_cells_png(
    path: str | Path,
    rows: int,
    cols: int,
    layers: Mapping[tuple[int, int], Iterable[Colour]],
    *,
    cell: int = 16,
) -> None:
    """Draw a grid of coloured cells (see :func:`draw_cells`) and write it as a PNG."""
    width, height, rgb = draw_cells(rows, cols, layers, cell=cell)
    write_png(path, width, height, rgb)
