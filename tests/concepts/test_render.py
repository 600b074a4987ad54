"""Text and PNG renderings of "why not?" answers."""

from __future__ import annotations

import struct

import pytest

from xaip.concepts import bundled, why_not
from xaip.errors import InputError
from xaip.render import formats, render
from xaip.render.concepts import caption, text_width


def size(png: bytes) -> tuple[int, int]:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    return struct.unpack(">II", png[16:24])


def test_picture_of_the_failing_state_has_a_caption() -> None:
    query = bundled("sokoban-switch", "switch-2")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary)
    assert "png" in formats(result)
    width, height = size(render(result, "png"))  # type: ignore[arg-type]
    rows = result.failing_picture.splitlines()
    assert width >= 24 * max(map(len, rows)) and height > 24 * len(rows)
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


def test_caption_widens_the_picture() -> None:
    w, h, rgb = caption(bytes(3 * 4 * 4), 4, 4, ["needs switch-on"])
    assert w == text_width("needs switch-on", 2) + 8 and h > 4 and len(rgb) == 3 * w * h
