"""Pictures: belief films on grids as PNG frames and an animated GIF (decoded back here by
an independent decoder), registered renderers."""

from __future__ import annotations

import struct
import zlib

from xaip.observers.deception import bundled_grids, deceptive_plan, read_grid
from xaip.observers.pictures import (
    belief_film,
    cell_of_name,
    deception_film,
    encode_gif,
    film_gif,
    frame_images,
    frame_pngs,
)
from xaip.render import formats, render


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _png_pixels(data: bytes) -> bytes:
    width, height = _png_size(data)
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = 3 * width
    return b"".join(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)] for y in range(height))


def _gif_decode(data: bytes) -> list[bytes]:
    """A small GIF decoder written from the format description: every frame's RGB bytes."""
    assert data[:6] == b"GIF89a"
    width, height, packed = struct.unpack("<HHB", data[6:11])
    size = 2 << (packed & 7)
    palette = [data[13 + 3 * i:16 + 3 * i] for i in range(size)]
    pos, frames = 13 + 3 * size, []
    while data[pos] != 0x3B:
        if data[pos] == 0x21:  # extension: skip its sub-blocks
            pos += 2
            while data[pos]:
                pos += data[pos] + 1
            pos += 1
            continue
        assert data[pos] == 0x2C
        pos += 10
        min_size = data[pos]
        pos += 1
        stream = b""
        while data[pos]:
            stream += data[pos + 1:pos + 1 + data[pos]]
            pos += data[pos] + 1
        pos += 1
        clear, end = 1 << min_size, (1 << min_size) + 1
        bitpos, out = 0, []
        table: list[list[int]] = []
        code_size, prev = min_size + 1, None
        while True:
            code = 0
            for b in range(code_size):
                byte = stream[(bitpos + b) // 8]
                code |= ((byte >> ((bitpos + b) % 8)) & 1) << b
            bitpos += code_size
            if code == clear:
                table = [[i] for i in range(clear)] + [[], []]
                code_size, prev = min_size + 1, None
                continue
            if code == end:
                break
            if prev is None:
                entry = table[code]
            else:
                entry = table[code] if code < len(table) else prev + [prev[0]]
                table.append(prev + [entry[0]])
                if len(table) == 1 << code_size and code_size < 12:
                    code_size += 1
            out += entry
            prev = entry
        assert len(out) == width * height
        frames.append(b"".join(palette[i] for i in out))
    return frames


def test_gif_round_trips_through_an_independent_decoder():
    grid = read_grid(bundled_grids()["corridor"])
    film = deception_film(deceptive_plan(grid))
    images = frame_images(film, cell=8)
    decoded = _gif_decode(encode_gif(images))
    assert len(decoded) == len(film.frames)
    assert decoded == [rgb for _, _, rgb in images]


def test_gif_encoder_handles_long_noisy_streams():
    # many colours and a long stream: code widths grow to 12 bits and the table resets
    import random

    rng = random.Random(7)
    colours = [bytes((i * 4, 255 - i * 4, (i * 37) % 256)) for i in range(64)]
    width, height = 120, 100
    rgb = b"".join(rng.choice(colours) for _ in range(width * height))
    assert _gif_decode(encode_gif([(width, height, rgb)]))[0] == rgb


def test_deception_frames_show_robot_and_plausible_goals():
    grid = read_grid(bundled_grids()["corridor"])
    result = deceptive_plan(grid)
    film = deception_film(result)
    assert [f.robot for f in film.frames] == list(result.path)
    # halfway the decoy is among the most probable goals, at the end only G
    assert "A" in film.frames[len(film.frames) // 2].plausible
    assert film.frames[-1].plausible == ("G",)
    pngs = frame_pngs(film, cell=10)
    assert len(pngs) == len(result.path)
    assert _png_size(pngs[0]) == (grid.cols * 10, grid.rows * 10)
    pixels = _png_pixels(pngs[0])
    robot_pixel = 3 * ((grid.start[0] * 10 + 5) * grid.cols * 10 + grid.start[1] * 10 + 5)
    assert pixels[robot_pixel:robot_pixel + 3] == bytes((210, 40, 40))
    assert film_gif(film)[:6] == b"GIF89a"


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
    assert _png_size(render(film, "png"))[1] == 16 * film.rows


def test_cell_names():
    assert cell_of_name("c12") == (2, 1)
    assert cell_of_name("r3c14") == (3, 14)
    assert cell_of_name("cell-2-5") == (2, 5)
    assert cell_of_name("kitchen") is None
