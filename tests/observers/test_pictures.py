"""Pictures: belief films on grids as a PNG grid of captioned frames and an animated GIF
(decoded back by Pillow), registered renderers."""

from __future__ import annotations

import io
import struct

from PIL import Image as PILImage

from xaip.figures import cell_size
from xaip.observers.deception import bundled_grids, deceptive_plan, read_grid
from xaip.observers.pictures import (
    belief_film,
    cell_of_name,
    deception_film,
    film_gif,
    film_sheet,
    frame_grid,
    frame_images,
    frame_pngs,
)
from xaip.render import formats, render


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _gif_frames(data: bytes) -> list[bytes]:
    """Every frame of a GIF as RGB bytes (decoded by Pillow)."""
    image = PILImage.open(io.BytesIO(data))
    frames = []
    for k in range(image.n_frames):
        image.seek(k)
        frames.append(image.convert("RGB").tobytes())
    return frames


def test_gif_has_one_frame_per_step_each_the_frame_picture() -> None:
    grid = read_grid(bundled_grids()["tiny"])
    film = deception_film(deceptive_plan(grid))
    data = film_gif(film)
    assert data[:6] == b"GIF89a" and data == film_gif(film)
    decoded = _gif_frames(data)
    images = frame_images(film)
    assert len(decoded) == len(film.frames) == len(images)
    # the palette keeps the flat colours: the robot's red is in every frame
    assert all(bytes((210, 40, 40)) * 4 in frame for frame in decoded)
    assert PILImage.open(io.BytesIO(data)).size == images[0][:2]


def test_frames_are_captioned_with_steps_from_one_and_plausible_goals() -> None:
    grid = read_grid(bundled_grids()["corridor"])
    result = deceptive_plan(grid)
    film = deception_film(result)
    sheet = film_sheet(film)
    captions = [panel.caption for panel in sheet.panels]
    assert captions[0] == "start"
    assert captions[1] == f"step 1: {result.plan[0]}"
    assert captions[-1] == f"step {len(result.plan)}: {result.plan[-1]}"
    assert all(panel.note.endswith(", ".join(frame.plausible))
               for panel, frame in zip(sheet.panels, film.frames, strict=True))
    assert "Deceptive path on corridor" in sheet.title
    labels = {key.label for key in sheet.legend}
    assert {"robot", "goal ruled out", "true goal (G)"} <= labels
    # goal cells are named, the path numbered with the steps that reached each cell
    last = frame_grid(film, len(film.frames) - 1)
    assert last.looks[grid.goals()["A"]].text == "A"
    assert last.looks[result.path[1]].text == "1" and last.looks[grid.start].text == "S"


def test_deception_frames_show_robot_and_plausible_goals():
    grid = read_grid(bundled_grids()["corridor"])
    result = deceptive_plan(grid)
    film = deception_film(result)
    assert [f.robot for f in film.frames] == list(result.path)
    # halfway the decoy is among the most probable goals, at the end only G
    assert "A" in film.frames[len(film.frames) // 2].plausible
    assert film.frames[-1].plausible == ("G",)
    assert frame_grid(film, 0).looks[grid.start].dot == (210, 40, 40)
    pngs = frame_pngs(film)
    assert len(pngs) == len(result.path) and pngs == frame_pngs(film)
    # at least twice the old 16-pixel cells and 2680x96 strip's height; a grid of frames
    assert cell_size(film_sheet(film)) >= 32
    width, height = _png_size(render(film, "png"))
    assert height >= 2 * 16 * grid.rows and width <= 1400
    assert render(film, "png") == render(film, "png")


def test_renderers_are_registered():
    result = deceptive_plan(read_grid(bundled_grids()["tiny"]))
    assert {"text", "png", "json"} <= set(formats(result))
    assert "Last deceptive point" in render(result, "text")
    assert render(result, "png")[:8] == b"\x89PNG\r\n\x1a\n"
    assert "gif" in formats(result) and render(result, "gif") == film_gif(deception_film(result))
    film = deception_film(result)
    assert {"text", "png", "gif"} <= set(formats(film))
    assert render(film, "gif") == film_gif(film)


def test_belief_film_on_the_medkit_grid_counts_belief_states():
    from xaip.observers import load_goals, load_observation_model
    from xaip.observers.problem import example_dir
    from xaip.planning import ground, read_domain, read_problem

    here = example_dir("medkit")
    domain = read_domain(here / "domain.pddl")
    task = ground(domain, read_problem(here / "problem.pddl"))
    model = load_observation_model(here / "observer.json", task, domain)
    goals = load_goals(here / "goals.json", task)
    plan = ["move c00 c01", "move c01 c11", "pickup m1 c11", "move c11 c12",
            "move c12 c13", "treat m1 c13"]
    film = belief_film(task, plan, model, goals)
    assert len(film.frames) == len(plan) + 1
    assert film.frames[0].belief_cells == {(0, 0): 1}
    # after one unlocated move the robot may be in either neighbour of (0,0)
    assert set(film.frames[1].belief_cells) == {(1, 0), (0, 1)}
    assert film.frames[-1].robot == (3, 1)
    assert film.frames[-1].plausible == ("treated",)
    assert "belief state" in render(film, "text")
    sheet = film_sheet(film)
    assert len(sheet.panels) == len(plan) + 1
    assert sheet.panels[3].caption == "step 3: pickup m1 c11"
    assert sheet.panels[-1].note == "plan over; goals still possible: treated"
    assert _png_size(render(film, "png"))[1] >= 2 * 16 * film.rows


def test_cell_names():
    assert cell_of_name("c12") == (2, 1)
    assert cell_of_name("r3c14") == (3, 14)
    assert cell_of_name("cell-2-5") == (2, 5)
    assert cell_of_name("kitchen") is None


def test_path_cells_carry_the_step_that_moved_the_robot_there() -> None:
    from xaip.observers.pictures import BeliefFilm, BeliefFrame

    cells = [(0, 0), (0, 1), (0, 1), (1, 1)]  # step 2 acts in place (a pickup)
    frames = tuple(BeliefFrame(i, None if i == 0 else f"a{i}", cell, {cell: 1}, ())
                   for i, cell in enumerate(cells))
    film = BeliefFilm("t", 2, 2, frozenset(), {}, "g", frames)
    last = frame_grid(film, 3)
    assert last.looks[(0, 0)].text == "S" and last.looks[(0, 1)].text == "1"
