"""xaip.figures: sheets with titles, labelled cells, legends and notes, as PNG and GIF.

What a person needs is checked without OCR: the text artists matplotlib draws (every title,
caption, cell label and legend entry is one), ink in the bands where text must be, exact
colours at cell centres, the same bytes twice, and that ``import xaip.cli`` never pays for
matplotlib."""

from __future__ import annotations

import io
import subprocess
import sys
import threading

import pytest
from PIL import Image as PILImage

from xaip.errors import InputError
from xaip.figures import (
    MARGIN,
    TITLE_LINE,
    Arrow,
    Grid,
    Key,
    Look,
    Sheet,
    frames_gif,
    sheet_png,
    sheet_rgb,
    sheets_gif,
)

FLOOR = (236, 236, 236)
WALL = (70, 70, 80)
ROBOT = (210, 40, 40)


def decode(data: bytes) -> PILImage.Image:
    image = PILImage.open(io.BytesIO(data))
    image.load()
    return image


def ink(image: PILImage.Image, top: int, bottom: int) -> int:
    """Dark pixels (text) in the rows ``top``..``bottom`` across the whole width."""
    import numpy as np

    grey = np.asarray(image.convert("L"))
    return int((grey[top:bottom] < 110).sum())


def sample(title: str = "A labelled grid", **kw: object) -> Sheet:
    looks = {(r, c): Look(FLOOR) for r in range(3) for c in range(4)}
    looks[(1, 1)] = Look(WALL)
    looks[(2, 3)] = Look(FLOOR, dot=ROBOT, text="robot")
    looks[(0, 3)] = Look(FLOOR, ((40, 160, 70),), text="goal", outline=(230, 180, 20),
                         corner="c30")
    grid = Grid(3, 4, looks, caption="step 1: move r0c0 r0c1", note="plausible: goal",
                row_names=["0", "1", "2"], col_names=["0", "1", "2", "3"],
                arrows=[Arrow((0, 0), (0, 1), (40, 90, 220), 1)],
                bars=[((2, 0), (2, 1), (200, 30, 30))])
    values: dict[str, object] = {"lines": ["What the picture shows, in a sentence."],
                                 "legend": [Key(WALL, "wall"), Key(ROBOT, "robot", "dot")],
                                 "notes": ["Steps are numbered from 1."], "cell": 50}
    values.update(kw)
    return Sheet(title, [grid], **values)  # type: ignore[arg-type]


def texts(sheet: Sheet) -> list[str]:
    """Every string matplotlib draws for ``sheet`` (its text artists)."""
    from matplotlib.text import Text

    from xaip.figures.draw import matplotlib_lock, paint

    with matplotlib_lock():
        figure = paint(sheet)
        return [t.get_text() for t in figure.findobj(Text) if t.get_text()]


def test_every_word_of_the_sheet_is_drawn_as_text() -> None:
    drawn = texts(sample())
    for word in ("A labelled grid", "What the picture shows, in a sentence.",
                 "step 1: move r0c0 r0c1", "plausible: goal", "robot", "goal", "c30", "wall",
                 "1", "3", "Steps are numbered from 1."):
        assert word in drawn, word


def test_png_is_deterministic_and_carries_no_time_or_software_stamp() -> None:
    first, second = sheet_png(sample()), sheet_png(sample())
    assert first == second
    image = decode(first)
    assert image.format == "PNG" and image.mode in ("RGB", "RGBA")
    assert not {"Software", "Creation Time", "date:create"} & set(image.info)
    assert b"tIME" not in first


def test_a_users_matplotlib_settings_do_not_change_the_picture() -> None:
    import matplotlib

    before = sheet_png(sample())
    saved = matplotlib.rcParams.copy()
    try:
        matplotlib.rcParams.update({"font.size": 30, "figure.facecolor": "black",
                                    "text.color": "red", "lines.linewidth": 9})
        assert sheet_png(sample()) == before
    finally:
        matplotlib.rcParams.update(saved)


def test_title_band_has_ink_only_when_there_is_a_title() -> None:
    band = (MARGIN, MARGIN + TITLE_LINE - 4)
    titled = decode(sheet_png(sample("Capability c1: before")))
    untitled = decode(sheet_png(sample("", lines=[])))
    assert ink(titled, *band) > 150
    assert ink(untitled, *band) < ink(titled, *band) // 10


def test_cells_have_their_colours_and_the_grid_its_size() -> None:
    from xaip.figures import LABELS
    from xaip.figures.layout import lay_out

    sheet = sample()
    layout = lay_out(sheet)
    width, height, rgb = sheet_rgb(sheet)
    assert (width, height) == (layout.width, layout.height)
    box = layout.panels[0][0]
    x0, y0 = box.x + LABELS, box.y + LABELS

    def centre(r: int, c: int, dx: float = 0.5, dy: float = 0.5) -> tuple[int, ...]:
        x, y = int(x0 + (c + dx) * 50), int(y0 + (r + dy) * 50)
        return tuple(rgb[3 * (y * width + x):3 * (y * width + x) + 3])

    assert centre(1, 1) == WALL
    assert centre(2, 0, 0.2, 0.2) == FLOOR
    assert centre(2, 3, 0.5, 0.35) == ROBOT  # the disc, above its label
    assert box.w == 4 * 50 + LABELS and box.h == 3 * 50 + LABELS


def test_panels_wrap_into_rows_in_reading_order() -> None:
    from xaip.figures.layout import lay_out

    one = sample().panels[0]
    sheet = Sheet("many", [one] * 7)
    boxes = [box for box, _, _ in lay_out(sheet).panels]
    assert boxes[0].y == boxes[1].y and boxes[0].x < boxes[1].x  # left to right ...
    assert boxes[-1].y > boxes[0].y  # ... then down
    assert lay_out(sheet).width <= 1400


def test_gif_frames_share_one_palette_loop_and_hold_the_last() -> None:
    sheets = [sample(f"frame {k}") for k in range(3)]
    data = sheets_gif(sheets, delay_ms=500, hold_last_ms=2000)
    assert data == sheets_gif(sheets, delay_ms=500, hold_last_ms=2000)
    image = decode(data)
    assert image.format == "GIF" and image.n_frames == 3 and image.info["loop"] == 0
    durations = []
    frames = []
    for k in range(3):
        image.seek(k)
        durations.append(image.info["duration"])
        frames.append(image.convert("RGB").tobytes())
    assert durations == [500, 500, 2000] and len(set(frames)) == 3
    width, height, rgb = sheet_rgb(sheets[0])
    assert image.size == (width, height)
    # flat colours survive the palette exactly
    import numpy as np

    first = np.asarray(PILImage.open(io.BytesIO(data)).convert("RGB"))
    assert int((first == ROBOT).all(axis=2).sum()) > 100
    assert tuple(first[0, 0]) == (255, 255, 255)  # the paper stays white
    drawn = np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)
    assert (first == drawn).all(axis=2).mean() > 0.97  # only anti-aliased edges move


def test_frames_of_different_sizes_are_padded() -> None:
    small = (4, 3, bytes((255, 0, 0)) * 12)
    large = (6, 5, bytes((0, 0, 255)) * 30)
    image = decode(frames_gif([small, large]))
    assert image.size == (6, 5) and image.n_frames == 2


def test_bad_sheets_are_input_errors() -> None:
    with pytest.raises(InputError):
        sheet_png(Sheet("nothing", []))
    with pytest.raises(InputError):
        sheets_gif([])
    huge = Grid(3000, 3000, {})
    with pytest.raises(InputError, match="too big to draw"):
        sheet_png(Sheet("huge", [huge]))


def test_a_long_film_on_a_big_grid_shrinks_its_cells_and_drops_cell_words() -> None:
    from xaip.figures import MAX_HEIGHT, TEXT_CELL
    from xaip.figures.layout import lay_out

    looks = {(r, c): Look(FLOOR, text="x") for r in range(30) for c in range(40)}
    sheet = Sheet("long", [Grid(30, 40, looks, caption="step")] * 40)
    layout = lay_out(sheet)
    assert layout.height <= MAX_HEIGHT and layout.cell < 28
    assert layout.cell < TEXT_CELL and "x" not in texts(sheet)


def test_threads_draw_the_same_bytes() -> None:
    expected = sheet_png(sample())
    seen: list[bytes] = []
    start = threading.Barrier(6)

    def draw() -> None:
        start.wait()
        seen.append(sheet_png(sample()))

    threads = [threading.Thread(target=draw) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [expected] * 6


def test_the_cli_and_the_renderers_import_no_matplotlib() -> None:
    script = ("import sys, xaip.cli, xaip.render.observers, xaip.render.explicable, "
              "xaip.render.concepts, xaip.render.capabilities, xaip.agents.envs, "
              "xaip.observers.pictures\n"
              "assert 'matplotlib' not in sys.modules and 'PIL' not in sys.modules")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-600:]


def test_names_from_users_files_are_drawn_literally_and_quietly(recwarn) -> None:
    from xaip.observers.pictures import BeliefFilm, BeliefFrame, film_png

    odd = ["$\\frac{1}{$", "$x$", "🤖 ü 中", "%s {0} \\n"]
    looks = {(0, c): Look(FLOOR, text=name) for c, name in enumerate(odd)}
    sheet = Sheet(f"goal {odd[1]}", [Grid(1, 4, looks, caption=odd[0])],
                  legend=[Key(WALL, odd[2])])
    drawn = texts(sheet)
    assert all(name in drawn for name in odd)
    assert sheet_png(sheet)[:8] == b"\x89PNG\r\n\x1a\n"
    frame = BeliefFrame(0, None, (0, 0), {(0, 0): 1}, ("$x$",))
    film = BeliefFilm("$x$ watching", 2, 2, frozenset(), {"$x$": (1, 1)}, "$x$", (frame,))
    assert film_png(film)[:4] == b"\x89PNG"
    assert not [w for w in recwarn.list if "matplotlib" in str(w.filename)]
