"""Every picture option of the command line still writes a picture a person reads (issue 23):
``explicable --png``, ``design --png``, ``why-not --picture``, ``observe --picture`` and
``--animation``, ``discover --pictures``. Each file is checked for its size (at least twice
the old pictures: 220x100 plans, 200x156 failing states, a 96-pixel-high film strip,
120x96 capability examples), for ink in its title band, and for the same bytes on a second
run."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from xaip.cli import main
from xaip.errors import EXIT_OK
from xaip.explicable.design import restaurant_spec
from xaip.figures import MARGIN, TITLE_LINE

D = restaurant_spec().parent
EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples" / "observers"


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> int:
    code = main([str(a) for a in argv])
    capsys.readouterr()
    return code


def picture(path: Path) -> Image.Image:
    image = Image.open(io.BytesIO(path.read_bytes()))
    image.load()
    return image


def titled(image: Image.Image) -> bool:
    """Dark pixels (the title's letters) in the title band."""
    import numpy as np

    grey = np.asarray(image.convert("L"))[MARGIN:MARGIN + TITLE_LINE - 4]
    return int((grey < 110).sum()) > 150


def twice(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str,
          *argv: object) -> Image.Image:
    """Run the command twice into two files: same bytes; the picture read back."""
    first, second = tmp_path / f"a-{name}", tmp_path / f"b-{name}"
    for target in (first, second):
        assert run(capsys, *[target if a is None else a for a in argv]) == EXIT_OK
    assert first.read_bytes() == second.read_bytes()
    return picture(first)


def test_explicable_and_design_png(capsys, tmp_path) -> None:
    image = twice(capsys, tmp_path, "plan.png", "explicable", D / "domain.pddl",
                  D / "domain.pddl", D / "b2.pddl", "--human-problem", D / "b2-human.pddl",
                  "--png", None)
    assert image.format == "PNG" and image.width >= 440 and image.height >= 200
    assert titled(image)
    image = twice(capsys, tmp_path, "design.png", "design", "--setting", "c", "--png", None)
    assert image.width >= 440 and image.height >= 200 and titled(image)


def test_why_not_picture(capsys, tmp_path) -> None:
    image = twice(capsys, tmp_path, "fail.png", "why-not", "sokoban-switch", "--picture", None)
    assert image.width >= 400 and image.height >= 312 and titled(image)


def test_observe_picture_and_animation(capsys, tmp_path) -> None:
    base = ["observe", EXAMPLES / "domain.pddl", EXAMPLES / "problem.pddl", "--observations",
            EXAMPLES / "tower.json", "--goals", EXAMPLES / "goals.json", "--mode",
            "legible-goal", "--j", "2", "--heuristic", "blind"]
    image = twice(capsys, tmp_path, "film.png", *base, "--picture", None)
    assert image.height >= 2 * 96 and titled(image)
    image = twice(capsys, tmp_path, "film.gif", *base, "--animation", None)
    assert image.format == "GIF" and image.n_frames == 4  # start and three steps
    assert titled(image.convert("RGB"))


def test_observe_deceptive_pictures(capsys, tmp_path) -> None:
    from xaip.observers.deception import bundled_grids

    grid = bundled_grids()["tiny"]
    image = twice(capsys, tmp_path, "d.png", "observe", "--mode", "deceptive", "--grid", grid,
                  "--picture", None)
    assert titled(image)
    image = twice(capsys, tmp_path, "d.gif", "observe", "--mode", "deceptive", "--grid", grid,
                  "--animation", None)
    assert image.format == "GIF" and image.n_frames >= 2


def test_discover_pictures(capsys, tmp_path) -> None:
    folder = tmp_path / "pics"
    code = run(capsys, "discover", "zelda", "--grid", "3x4", "--seed", "1", "--pictures",
               folder, "--quiet")
    assert code == EXIT_OK
    files = sorted(folder.glob("*.png"))
    assert files and {f.name.rsplit("-", 1)[1] for f in files} == {"before.png", "after.png"}
    for path in files:
        image = picture(path)
        assert image.width >= 240 and image.height >= 192 and titled(image)
