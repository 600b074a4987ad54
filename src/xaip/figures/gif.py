"""Animations: sheets drawn as frames of one size and layout, one palette for all of them
(the flat colours exact), written by Pillow as a looping GIF."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from xaip.errors import InputError
from xaip.figures.draw import matplotlib_lock, paint, pixels
from xaip.figures.layout import lay_out
from xaip.figures.sheets import PAPER, Sheet


def same_layout(sheets: Sequence[Sheet]) -> list[Sheet]:
    """The sheets with room reserved for their longest title, text, captions and notes,
    so that frames shown one after another keep every part in place."""
    layouts = [lay_out(sheet) for sheet in sheets]
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
    with matplotlib_lock():
        for sheet in same_layout(sheets):
            frames.append(pixels(paint(sheet)))
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


