""""Why not?" answers as English text and as a PNG of the state where the foil fails.

Why the picture is drawn from the result's level text: a result is plain data and the
renderer gets nothing else, so the explainer keeps the failing state as level text
(``failing_picture``) and this module turns its symbols into coloured cells, marking the
cell the failing action pointed at in red, with a caption naming the explaining concept
(a 3x5 pixel font below: the PNG writer draws only cells, and a font library would be
a heavy dependency for one caption).
"""

from __future__ import annotations

from xaip.agents.png import Colour, draw_cells, encode_png
from xaip.concepts.results import WhyNot
from xaip.concepts.teach import Teaching
from xaip.errors import InputError
from xaip.planning.semantics import step_number
from xaip.render import renderer

_COLOURS: dict[str, list[Colour]] = {
    "#": [(70, 70, 70)],
    " ": [(235, 235, 235)],
    ".": [(235, 235, 235), (240, 200, 60)],
    "$": [(235, 235, 235), (150, 95, 40)],
    "*": [(240, 200, 60), (150, 95, 40)],
    "@": [(235, 235, 235), (40, 90, 220)],
    "+": [(240, 200, 60), (40, 90, 220)],
    "s": [(30, 110, 50)],
    "S": [(120, 230, 120)],
    "c": [(245, 160, 200)],
    "P": [(245, 160, 200), (40, 90, 220)],
    "B": [(245, 160, 200), (150, 95, 40)],
}
_MARK: Colour = (220, 30, 30)
_STEP = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


@renderer(WhyNot, "text")
def why_not_text(result: WhyNot) -> str:
    lines = [result.text]
    if result.candidates[1:]:
        rest = ", ".join(f"{name} ({p:.3f})" for name, p in result.candidates[1:])
        lines.append(f"  other candidates: {rest}")
    for claim in result.claims:
        if claim.concepts:
            lines.append(f"  step {step_number(claim.step)}: {claim.action} where "
                         f"{' and '.join(claim.concepts)} costs at least {claim.at_least:g}"
                         + ("" if claim.confidence is None
                            else f" (confidence {claim.confidence:.4f})"))
    how = "on fresh samples" if result.env == "montezuma" else "by exhaustive enumeration"
    checked = f"verified {how}" if result.verified else "not verified"
    lines.append(f"  {result.samples} samples, {result.seconds:.3f} s, {result.status}, "
                 f"{checked}")
    if result.verification and (not result.verified or "own classifiers" in
                                result.verification):
        lines.append(f"  ({result.verification})")
    return "\n".join(lines)


@renderer(WhyNot, "png")
def why_not_png(result: WhyNot) -> bytes:
    if not result.failing_picture:
        raise InputError("this answer has no state to draw (the foil neither fails nor "
                         "costs more)")
    if result.env == "montezuma":
        return _montezuma_png(result)
    rows = result.failing_picture.splitlines()
    width = max(len(row) for row in rows)
    layers: dict[tuple[int, int], list[Colour]] = {}
    player = None
    for r, row in enumerate(rows):
        for c, symbol in enumerate(row.ljust(width)):
            layers[(r, c)] = list(_COLOURS.get(symbol, _COLOURS[" "]))
            if symbol in "@+P":
                player = (r, c)
    direction = (result.action or "").partition("-")[2]
    if player is not None and direction in _STEP:
        dr, dc = _STEP[direction]
        mark = (player[0] + dr, player[1] + dc)
        if mark in layers:
            layers[mark] = [*layers[mark], _MARK]
    w, h, rgb = draw_cells(len(rows), width, layers, cell=24)
    w, h, rgb = caption(rgb, w, h, _label(result))
    return encode_png(w, h, rgb)


_AGENT: Colour = (200, 72, 72)  # the agent's shirt in Montezuma's palette
_HUD_ROWS = 47  # score, lives (drawn in the agent's colours) and inventory


def _montezuma_png(result: WhyNot, scale: int = 2) -> bytes:
    """The ALE screen where the foil fails, doubled, the agent boxed in red, captioned.

    Why the emulator is asked again: the result keeps the failing state (RAM and ALE
    snapshot), not its pixels, so the screen is redrawn from the snapshot."""
    from xaip.concepts.montezuma import MontezumaState, shared_simulator

    state = result.failing_state
    if not isinstance(state, MontezumaState):
        raise InputError("this Montezuma answer has no game state to draw")
    width, height, rgb = shared_simulator().frame(state)
    agent = [i // 3 for i in range(3 * _HUD_ROWS * width, len(rgb), 3)
             if tuple(rgb[i:i + 3]) == _AGENT]
    big = bytearray()
    for y in range(height):
        row = b"".join(rgb[3 * (y * width + x):3 * (y * width + x) + 3] * scale
                       for x in range(width))
        big += row * scale
    w, h = width * scale, height * scale
    if agent:
        xs = [i % width for i in agent]
        ys = [i // width for i in agent]
        left, right = (min(xs) - 3) * scale, (max(xs) + 4) * scale
        top, bottom = (min(ys) - 3) * scale, (max(ys) + 4) * scale
        red = bytes(_MARK)
        for x in range(max(0, left), min(w, right)):
            for y in (top, top + 1, bottom - 2, bottom - 1):
                if 0 <= y < h:
                    big[3 * (y * w + x):3 * (y * w + x) + 3] = red
        for y in range(max(0, top), min(h, bottom)):
            for x in (left, left + 1, right - 2, right - 1):
                if 0 <= x < w:
                    big[3 * (y * w + x):3 * (y * w + x) + 3] = red
    w, h, out = caption(bytes(big), w, h, _label(result))
    return encode_png(w, h, out)


def _label(result: WhyNot) -> list[str]:
    """The caption: where the foil fails (or costs more) and the explaining concepts."""
    if result.foil_outcome == "invalid":
        head = f"step {step_number(result.failed_step or 0)}: {result.action} fails"
        if result.incomplete:
            return [head, "vocabulary incomplete"]
        if result.concepts:
            return [head, f"needs {result.concepts[0]}"]
        return [head]
    named = [claim for claim in result.claims if claim.concepts]
    if not named:
        return [f"foil costs {result.foil_cost:g} > {result.plan_cost:g}"]
    claim = named[0]
    return [f"step {step_number(claim.step)}: {claim.action}", f"{' '.join(claim.concepts)}: "
            f"cost >= {claim.at_least:g}"]


# ------------------------------------------------------------------ a 3x5 pixel font

_FONT = {
    "a": "010101111101101", "b": "110101110101110", "c": "011100100100011",
    "d": "110101101101110", "e": "111100110100111", "f": "111100110100100",
    "g": "011100101101011", "h": "101101111101101", "i": "111010010010111",
    "j": "001001001101010", "k": "101101110101101", "l": "100100100100111",
    "m": "101111111101101", "n": "110101101101101", "o": "010101101101010",
    "p": "110101110100100", "q": "010101101110011", "r": "110101110101101",
    "s": "011100010001110", "t": "111010010010010", "u": "101101101101111",
    "v": "101101101101010", "w": "101101111111101", "x": "101101010101101",
    "y": "101101010010010", "z": "111001010100111", "0": "111101101101111",
    "1": "010110010010111", "2": "110001010100111", "3": "110001010001110",
    "4": "101101111001001", "5": "111100110001110", "6": "011100111101111",
    "7": "111001010010010", "8": "111101111101111", "9": "111101111001110",
    "-": "000000111000000", ".": "000000000000010", "(": "010100100100010",
    ")": "010001001001010", ":": "000010000010000", " ": "000000000000000",
    ">": "100010001010100", "=": "000111000111000", ",": "000000000010100",
}

GLYPH_W, GLYPH_H = 3, 5


def text_width(text: str, scale: int) -> int:
    """Pixel width of ``text`` (one blank column between glyphs)."""
    return len(text) * (GLYPH_W + 1) * scale


def draw_text(img: bytearray, width: int, x0: int, y0: int, text: str, scale: int,
              colour: tuple[int, int, int]) -> None:
    """Draw ``text`` into an RGB buffer ``width`` pixels wide (unknown characters blank)."""
    pixel = bytes(colour) * scale
    for index, char in enumerate(text.lower()):
        bits = _FONT.get(char, _FONT[" "])
        left = x0 + index * (GLYPH_W + 1) * scale
        for row in range(GLYPH_H):
            for col in range(GLYPH_W):
                if bits[row * GLYPH_W + col] != "1":
                    continue
                x = left + col * scale
                if x + scale > width:
                    continue
                for dy in range(scale):
                    start = 3 * ((y0 + row * scale + dy) * width + x)
                    if start >= 0 and start + 3 * scale <= len(img):
                        img[start:start + 3 * scale] = pixel


def caption(rgb: bytes, width: int, height: int, lines: list[str],
            scale: int = 2) -> tuple[int, int, bytes]:
    """The picture with ``lines`` of text in a white strip below it (widened to fit)."""
    pad = 4
    line_h = (GLYPH_H + 2) * scale
    new_w = max(width, max((text_width(t, scale) for t in lines), default=0) + 2 * pad)
    new_h = height + pad + line_h * len(lines) + pad
    white = bytes((255, 255, 255))
    img = bytearray(white * (new_w * new_h))
    for y in range(height):
        img[3 * y * new_w:3 * y * new_w + 3 * width] = rgb[3 * y * width:3 * (y + 1) * width]
    for number, text in enumerate(lines):
        draw_text(img, new_w, pad, height + pad + number * line_h, text, scale, (20, 20, 20))
    return new_w, new_h, bytes(img)


@renderer(Teaching, "text")
def teaching_text(teaching: Teaching) -> str:
    if not teaching.added:
        head = "No new concept was taught."
    else:
        head = f"Learned the new concept `{teaching.added[0]}`"
        if teaching.rejected:
            head += f" (after rejecting {', '.join(teaching.rejected)})"
        head += f" in {teaching.questions} questions."
    return f"{head}\n{why_not_text(teaching.final)}"
