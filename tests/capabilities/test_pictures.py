"""Capability pictures (issue 23): the example's parameter cells found from the vocabulary,
framed and named; the card as the picture's text; simulators without a grid drawn by their
own ``render_png`` under the same title."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from xaip.capabilities.discovery import discover_game
from xaip.errors import InputError
from xaip.figures import Grid, Image
from xaip.render.capabilities import capability_sheet, example_binding, write_pictures
from xaip.vocab.registry import get_game

from .conftest import Lamp, LampWorld


@pytest.fixture(scope="module")
def zelda() -> tuple[Any, Any, Any]:
    result, simulator = discover_game("zelda", 3, 4, seed=1)
    return result, simulator, get_game("zelda").vocabulary()


def test_the_binding_satisfies_the_card_in_the_example(zelda) -> None:
    result, _, vocabulary = zelda
    lifted = [c for c in result.model.capabilities if c.parameters and c.example]
    assert lifted
    for cap in lifted:
        binding = example_binding(cap, vocabulary)
        assert set(binding) == {name for name, _ in cap.parameters}, cap.name
        before, after = cap.example
        for state, literals in ((before, cap.preconditions), (after, cap.effects)):
            holds = {(a.predicate, a.args) for a in vocabulary.abstract(state)}
            for lit in literals:
                atom = (lit.atom.predicate, tuple(binding.get(t, t) for t in lit.atom.args))
                assert (atom in holds) == lit.positive, (cap.name, str(lit))


def test_the_parameters_cells_are_framed_and_named(zelda) -> None:
    result, simulator, vocabulary = zelda
    cap = next(c for c in result.model.capabilities if len(c.parameters) == 2 and c.example)
    binding = example_binding(cap, vocabulary)
    for which in ("before", "after"):
        sheet = capability_sheet(simulator, cap, which, vocabulary)
        assert sheet.title.startswith(f"Capability {cap.name}: {which}")
        assert sheet.lines[0] == cap.text
        assert any(line.startswith("In this example cell1 = ") for line in sheet.lines)
        grid = sheet.panels[0]
        assert isinstance(grid, Grid)
        corners = {look.corner: cell for cell, look in grid.looks.items() if look.corner}
        assert set(corners) == {"cell1", "cell2"}
        for name, cell in corners.items():
            assert binding[f"?{name}"] == f"cell_{cell[0]}_{cell[1]}"
            assert grid.looks[cell].outline is not None
        named = "\n".join(look.text for look in grid.looks.values())
        assert "link" in named
        assert "a cell the capability's parameters name" in {k.label for k in sheet.legend}


def test_write_pictures_writes_before_and_after(zelda, tmp_path: Path) -> None:
    result, simulator, vocabulary = zelda
    written = write_pictures(simulator, result.model, tmp_path / "pics", vocabulary)
    with_example = [c for c in result.model.capabilities if c.example is not None]
    assert len(written) == 2 * len(with_example)
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in written)


class Painted(LampWorld):
    """The lamp world with its own picture: one pixel per cell, the robot red."""

    def render_png(self, s: Lamp, path: Any) -> None:
        from xaip.agents.png import write_png

        pixels = b"".join(bytes((255, 0, 0)) if c == s.robot else bytes((9, 9, 9))
                          for c in range(3))
        write_png(path, 3, 1, pixels)


def _lamp_capability(world: LampWorld) -> Any:
    from xaip.capabilities.model import Capability

    start = world.reset()
    return Capability("go-left", (), (), (), text="The robot can go left.",
                      example=(start, world.step(start, "left")))


def test_simulators_without_a_grid_draw_their_own_picture() -> None:
    world = Painted()
    sheet = capability_sheet(world, _lamp_capability(world), "after")
    panel = sheet.panels[0]
    assert isinstance(panel, Image) and (panel.width, panel.height) == (3, 1)
    assert panel.pixels[3:6] == bytes((255, 0, 0))  # the robot moved to cell 1
    assert sheet.title.startswith("Capability go-left: after")
    assert sheet.lines == ["The robot can go left."]


def test_a_simulator_that_cannot_draw_is_told_in_one_line() -> None:
    world = LampWorld()
    with pytest.raises(InputError, match="cannot draw its states"):
        capability_sheet(world, _lamp_capability(world), "before")
