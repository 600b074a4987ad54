"""The raw-frame PNG writer (checked by decoding the file by hand), the games' pictures and
the Gymnasium adapter (fake env)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from xaip.agents import GymSimulator, GymState, SearchAgent, execute
from xaip.agents.envs import GAMES, make_game
from xaip.agents.png import encode_png, pixels_to_bytes, write_png
from xaip.errors import InputError


def read_png(data: bytes) -> tuple[int, int, bytes]:
    """Decode our truecolour, filter-0 PNGs: (width, height, raw rgb), checking every CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos = 8
    chunks: list[tuple[bytes, bytes]] = []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        chunks.append((kind, body))
        pos += 12 + length
    assert [k for k, _ in chunks][0] == b"IHDR" and chunks[-1] == (b"IEND", b"")
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, colour, interlace) == (8, 2, 0)
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    assert len(raw) == height * (1 + 3 * width)
    stride = 1 + 3 * width
    rows = []
    for y in range(height):
        line = raw[y * stride : (y + 1) * stride]
        assert line[0] == 0
        rows.append(line[1:])
    return width, height, b"".join(rows)


def test_png_round_trip_of_raw_pixels(tmp_path: Path) -> None:
    pixels = [[(x * 40, y * 60, (x + y) % 256) for x in range(5)] for y in range(3)]
    width, height, rgb = pixels_to_bytes(pixels)
    path = tmp_path / "p.png"
    write_png(path, width, height, rgb)
    assert read_png(path.read_bytes()) == (5, 3, rgb)
    assert rgb[3 * (2 * 5 + 4) : 3 * (2 * 5 + 4) + 3] == bytes((160, 120, 6))


def test_png_rejects_bad_sizes() -> None:
    with pytest.raises(InputError):
        encode_png(0, 3, b"")
    with pytest.raises(InputError):
        encode_png(2, 2, b"\x00" * 11)
    with pytest.raises(InputError):
        pixels_to_bytes([[(1, 2, 3)], [(1, 2, 3), (4, 5, 6)]])


@pytest.mark.parametrize("name", sorted(GAMES))
def test_games_render_pictures_people_read(name: str, tmp_path: Path) -> None:
    from PIL import Image

    from xaip.agents.pictures import state_grid, state_sheet

    game = make_game(name, 4, 5, seed=0)
    state = game.get_state()
    path, again = tmp_path / f"{name}.png", tmp_path / "again.png"
    game.render_png(state, path)
    game.render_png(state, again)
    assert path.read_bytes() == again.read_bytes()
    with Image.open(path) as picture:
        width, height = picture.size
        colours = picture.convert("RGB").getcolors(maxcolors=1 << 16) or []
    # at least twice the old 24-pixel cells (120x96 for this grid), several colours
    assert width >= 2 * 5 * 24 and height >= 2 * 4 * 24 and len(colours) >= 5
    # every object on the board is named in its cell, every colour in the legend
    grid = state_grid(game, state)
    words = {word.removeprefix("+ ") for look in grid.looks.values()
             for word in look.text.split("\n") if word}
    assert words and words <= {word for _, word in game.LEGEND}
    sheet = state_sheet(game, state, "t")
    assert {key.label for key in sheet.legend} >= words
    assert (grid.rows, grid.cols) == (4, 5) and grid.row_names and grid.col_names


def test_what_the_player_carries_is_written_under_its_name() -> None:
    from xaip.agents.envs.zelda import Zelda
    from xaip.agents.pictures import state_grid

    game = Zelda(level="#..d\n>.g.\n....\n; has_key=1")
    grid = state_grid(game, game.get_state())
    assert grid.looks[(1, 0)].text == "link\n+ key" and grid.looks[(1, 0)].dot is not None
    assert grid.looks[(1, 2)].text == "ganon" and grid.looks[(0, 3)].text == "door"


# --------------------------------------------------------------------------- gym adapter


class Discrete:
    def __init__(self, n: int) -> None:
        self.n = n


class Corridor:
    """A fake Gymnasium env: positions 0..5 on a line; 0 left, 1 right, 2 jump two right;
    the episode terminates at 5. State getter/setter as in many custom envs."""

    def __init__(self, render_mode: str | None = None, old_api: bool = False) -> None:
        self.action_space = Discrete(3)
        self.render_mode = render_mode
        self.old_api = old_api
        self.pos = 0
        self.steps = 0

    def reset(self, seed: int | None = None) -> tuple[int, dict[str, Any]]:
        self.pos = 0 if seed is None else seed % 3
        return self.pos, {}

    def step(self, action: int) -> tuple[Any, ...]:
        self.steps += 1
        self.pos = max(0, min(5, self.pos + (-1, 1, 2)[action]))
        done = self.pos == 5
        if self.old_api:
            return self.pos, float(done), done, {}
        return self.pos, float(done), done, False, {}

    def get_state(self) -> int:
        return self.pos

    def set_state(self, pos: int) -> None:
        self.pos = pos

    def render(self) -> Any:
        if self.render_mode == "ansi":
            return "".join("A" if i == self.pos else "." for i in range(6))
        return [[(255, 0, 0) if x == self.pos else (0, 0, 0) for x in range(6)]]


def test_gym_adapter_is_a_pure_simulator() -> None:
    env = Corridor(render_mode="ansi")
    sim = GymSimulator(env, action_names=("left", "right", "jump"))
    s0 = sim.reset(seed=1)
    assert s0 == GymState(1, False) and sim.get_state() == s0
    s1 = sim.step(s0, "jump")
    assert s1 == GymState(3, False)
    assert sim.get_state() == s0  # stepping does not move the simulator's current state
    assert sim.step(s0, "jump") == s1  # and repeated steps from a state agree
    assert sim.actions(s1) == ("left", "right", "jump")
    end = sim.step(s1, "jump")
    assert end.terminated and sim.is_goal(end) and sim.actions(end) == ()
    assert sim.step(end, "left") == end
    assert sim.render_text(s1) == "...A.."
    sim.set_state(s1)
    assert sim.get_state() == s1 and env.pos == 3
    with pytest.raises(InputError, match="unknown action"):
        sim.step(s0, "fly")


def test_gym_adapter_with_search_agent_and_defaults() -> None:
    sim = GymSimulator(Corridor())
    assert sim.action_names == ("0", "1", "2")
    start = sim.reset()
    plan = SearchAgent(sim, algorithm="bfs").reachable(start, sim.is_goal)
    assert plan is not None and len(plan) == 3  # jump, jump, right (or an equivalent)
    assert sim.is_goal(execute(sim, start, plan)[-1])


class Inner:
    """An old-gym style env (4-tuple step) with ALE-style clone/restore methods."""

    action_space = Discrete(2)

    def __init__(self) -> None:
        self.pos = 0

    def reset(self, seed: int | None = None) -> Any:
        self.pos = 0
        return 0

    def step(self, action: int) -> Any:
        self.pos = min(3, self.pos + action)
        return self.pos, 0.0, self.pos == 3, {}

    def clone_state(self) -> int:
        return self.pos

    def restore_state(self, pos: int) -> None:
        self.pos = pos

    def render(self) -> Any:
        return [[(255, 0, 0) if x == self.pos else (0, 0, 0) for x in range(4)]]


class Wrapper:
    """A wrapper without state methods: the adapter must find them on ``unwrapped``."""

    def __init__(self) -> None:
        self.unwrapped = Inner()
        self.action_space = self.unwrapped.action_space

    def reset(self, seed: int | None = None) -> Any:
        return self.unwrapped.reset(seed=seed)

    def step(self, action: int) -> Any:
        return self.unwrapped.step(action)

    def render(self) -> Any:
        return self.unwrapped.render()


def test_gym_adapter_old_api_and_unwrapped_clone_state(tmp_path: Path) -> None:
    sim = GymSimulator(Wrapper())
    s = sim.reset()
    for _ in range(3):
        s = sim.step(s, "1")
    assert s.terminated and s.snapshot == 3
    path = tmp_path / "frame.png"
    sim.render_png(s, path)
    width, height, rgb = read_png(path.read_bytes())
    assert (width, height) == (4, 1) and rgb[9:12] == bytes((255, 0, 0))


def test_gym_adapter_errors() -> None:
    class NoSetter:
        action_space = Discrete(2)

        def reset(self, seed: int | None = None) -> Any:
            return 0, {}

    with pytest.raises(InputError, match="no step"):
        GymSimulator(NoSetter())
    with pytest.raises(InputError, match="get_state= and set_state="):
        GymSimulator(Corridor(), get_state=lambda: 0)

    class ListState(Corridor):
        def get_state(self) -> Any:
            return [self.pos]

        def set_state(self, state: Any) -> None:
            self.pos = state[0]

    with pytest.raises(InputError, match="not hashable"):
        GymSimulator(ListState()).reset()
    sim = GymSimulator(ListState(), freeze=tuple, thaw=list)
    assert sim.step(sim.reset(), "1").snapshot == (1,)

    boxy = Corridor()
    boxy.action_space = object()  # type: ignore[assignment]  # a Box space: no n
    with pytest.raises(InputError, match="discrete action space"):
        GymSimulator(boxy)
    with pytest.raises(InputError, match="render images"):
        GymSimulator(Corridor(render_mode="ansi")).render_png(GymState(0), "x.png")
