"""Text and PNG renderings of "why not?" answers."""

from __future__ import annotations

import struct

import pytest

from xaip.concepts import bundled, why_not
from xaip.errors import InputError
from xaip.figures import Grid
from xaip.render import formats, render
from xaip.render.concepts import why_not_sheet


def size(png: bytes) -> tuple[int, int]:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    return struct.unpack(">II", png[16:24])


def test_picture_of_the_failing_state_has_a_caption() -> None:
    query = bundled("sokoban-switch", "switch-2")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary)
    assert "png" in formats(result)
    png = render(result, "png")
    width, height = size(png)  # type: ignore[arg-type]
    rows = result.failing_picture.splitlines()
    # at least twice the old 24-pixel cells, the same bytes every time
    assert width >= 48 * max(map(len, rows)) and height > 48 * len(rows)
    assert png == render(result, "png")
    sheet = why_not_sheet(result)
    assert sheet.title == "Why not your plan? Where it fails"
    assert sheet.panels[0].caption == \
        f"step {result.failed_step + 1}: {result.action} fails"  # numbered from 1
    assert "`" not in sheet.lines[0] and "switch-on" in sheet.lines[0]
    assert {"wall", "box", "switch, off", f"where {result.action} acts"} <= \
        {key.label for key in sheet.legend}
    text = render(result)
    assert isinstance(text, str) and "switch-on" in text and "verified" in text


def test_cost_picture_marks_the_pink_cell() -> None:
    query = bundled("sokoban-cells")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary)
    assert "P" in result.failing_picture  # the player stands on a pink cell there
    assert size(render(result, "png"))[0] > 0  # type: ignore[arg-type]


def test_no_picture_for_a_foil_that_is_not_worse() -> None:
    query = bundled("sokoban-switch", "switch-1", "cost")
    longer = (*query.plan[:4], "noop", *query.plan[4:])
    result = why_not(query.sim, longer, query.plan, query.vocabulary)
    with pytest.raises(InputError, match="no state to draw"):
        render(result, "png")


def test_the_failing_cell_is_framed_and_objects_named() -> None:
    query = bundled("sokoban-cells")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary)
    panel = why_not_sheet(result).panels[0]
    assert isinstance(panel, Grid)
    framed = [cell for cell, look in panel.looks.items() if look.outline is not None]
    assert len(framed) == 1 and panel.looks[framed[0]].text == "box"
    assert any(look.text == "you" for look in panel.looks.values())
    assert "pink cell (a push from it costs 10)" in \
        {key.label for key in why_not_sheet(result).legend}
