""""Why not?" answers as English text and as a PNG of the state where the foil fails.

Why the picture is drawn from the result's level text: a result is plain data and the
renderer gets nothing else, so the explainer keeps the failing state as level text
(``failing_picture``) and this module turns its symbols into coloured cells, marking the
cell the failing action pointed at (or pushed from) in red.
"""

from __future__ import annotations

from xaip.agents.png import Colour, draw_cells, encode_png
from xaip.concepts.results import WhyNot
from xaip.errors import InputError
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
            lines.append(f"  step {claim.step}: {claim.action} where "
                         f"{' and '.join(claim.concepts)} costs at least {claim.at_least:g}"
                         + ("" if claim.confidence is None
                            else f" (confidence {claim.confidence:.4f})"))
    checked = "verified by exhaustive enumeration" if result.verified else "not verified"
    lines.append(f"  {result.samples} samples, {result.seconds:.3f} s, {result.status}, "
                 f"{checked}")
    return "\n".join(lines)


@renderer(WhyNot, "png")
def why_not_png(result: WhyNot) -> bytes:
    if not result.failing_picture:
        raise InputError("this answer has no state to draw (the foil neither fails nor "
                         "costs more)")
    rows = result.failing_picture.splitlines()
    width = max(len(row) for row in rows)
    layers: dict[tuple[int, int], list[Colour]] = {}
    player = None
    for r, row in enumerate(rows):
        for c, symbol in enumerate(row.ljust(width)):
            layers[(r, c)] = list(_COLOURS.get(symbol, _COLOURS[" "]))
            if symbol in "@+":
                player = (r, c)
    direction = (result.action or "").partition("-")[2]
    if player is not None and direction in _STEP:
        dr, dc = _STEP[direction]
        mark = (player[0] + dr, player[1] + dc)
        if mark in layers:
            layers[mark] = [*layers[mark], _MARK]
    w, h, rgb = draw_cells(len(rows), width, layers, cell=24)
    return encode_png(w, h, rgb)
