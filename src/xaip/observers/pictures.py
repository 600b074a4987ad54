"""Pictures of what an observer believes on a grid, step by step: PNG frames and a GIF.

A :class:`BeliefFilm` is plain data: for every step of a plan, the robot's cell, how many
belief states put the robot in each cell, and the candidate goals still plausible. Films
come from a deceptive path (:func:`deception_film`: the observer sees every move, goals
are weighed by the cost-difference recogniser) or from any grid-like PDDL task with an
observation model (:func:`belief_film`: beliefs tracked by
:class:`~xaip.observers.beliefs.BeliefTracker`). :func:`frame_images` draws the frames
with xaip's own PNG writer (:mod:`xaip.agents.png`) and :func:`film_gif` packs them into an
animated GIF with the small LZW encoder below — no imaging dependency.

Colours: floor light grey, walls dark grey, belief cells blue (darker = more belief
states there), the robot's path so far orange, the robot red, plausible goals green, goals
ruled out grey, the true goal's marker framed in gold.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.agents.png import Colour, draw_cells, encode_png
from xaip.errors import InputError
from xaip.planning.task import Task, bits

Cell = tuple[int, int]

_FLOOR: Colour = (236, 236, 236)
_WALL: Colour = (70, 70, 70)
_PATH: Colour = (250, 190, 120)
_ROBOT: Colour = (210, 40, 40)
_PLAUSIBLE: Colour = (40, 160, 70)
_RULED_OUT: Colour = (175, 175, 175)
_TRUE: Colour = (230, 180, 20)
_SHADES = 6  # belief intensities, so a GIF palette stays small


@dataclass(frozen=True)
class BeliefFrame:
    """One step: the action taken (``None`` at the start), the robot's cell, belief states
    per cell, and the goals still plausible."""

    step: int
    action: str | None
    robot: Cell | None
    belief_cells: Mapping[Cell, int]
    plausible: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "action": self.action,
                "robot": None if self.robot is None else list(self.robot),
                "belief_cells": [[r, c, n] for (r, c), n in sorted(self.belief_cells.items())],
                "plausible": list(self.plausible)}


@dataclass(frozen=True)
class BeliefFilm:
    """The frames of one plan on one grid, with the goals' marker cells."""

    title: str
    rows: int
    cols: int
    walls: frozenset[Cell]
    goals: Mapping[str, Cell | None]
    true_goal: str
    frames: tuple[BeliefFrame, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "rows": self.rows, "cols": self.cols,
                "walls": sorted([list(w) for w in self.walls]),
                "goals": {k: None if v is None else list(v) for k, v in self.goals.items()},
                "true_goal": self.true_goal, "frames": [f.to_dict() for f in self.frames]}


# ----------------------------------------------------------------------- building films


def deception_film(result: Any) -> BeliefFilm:
    """Frames of a :class:`~xaip.observers.deception.DeceptivePlan`: the observer sees the
    robot's cell; the plausible goals are the most probable ones at each step."""
    grid = result.grid
    if not result.path:
        raise InputError("the deceptive plan has no path to draw (budget exhausted?)")
    frames = []
    for step, cell in enumerate(result.path):
        probs = result.probabilities[step]
        top = max(probs.values())
        frames.append(BeliefFrame(step, None if step == 0 else result.plan[step - 1], cell,
                                  {cell: 1}, tuple(g for g, p in probs.items()
                                                   if p >= top - 1e-12)))
    return BeliefFilm(f"deceptive path on {grid.name}", grid.rows, grid.cols, grid.walls,
                      grid.goals(), "G", tuple(frames))


_CELL_NAMES = (re.compile(r"^c(\d)(\d)$"), re.compile(r"^r(\d+)c(\d+)$"),
               re.compile(r"^cell-?(\d+)-(\d+)$"))


def cell_of_name(name: str) -> Cell | None:
    """Grid coordinates from an object name: ``c12`` (x=1, y=2 → row 2, column 1, as the
    medkit grid names cells), ``r3c4``, ``cell-3-4``; ``None`` for other names."""
    for number, pattern in enumerate(_CELL_NAMES):
        match = pattern.match(name.lower())
        if match:
            a, b = int(match[1]), int(match[2])
            return (b, a) if number == 0 else (a, b)
    return None


def position_predicate(task: Task) -> str:
    """The predicate that places the robot on a grid: ``robot-at`` when the task has it,
    else the only predicate with grid-named last arguments (``c12``, ``r1c2``,
    ``cell-1-2``) of which exactly one fact holds initially. Why guess: users' grid domains
    say ``at``, ``pos`` or ``robot-at``, and asking every time is noise; an ambiguous or
    missing one is a one-line error naming the candidates."""
    held: dict[str, int] = {}
    for i, atom in enumerate(task.facts):
        if atom.args and cell_of_name(atom.args[-1]) is not None:
            held.setdefault(atom.predicate, 0)
            if task.init >> i & 1:
                held[atom.predicate] += 1
    if "robot-at" in held:
        return "robot-at"
    single = [p for p, n in held.items() if n == 1]
    if len(single) == 1:
        return single[0]
    if not held:
        raise InputError("not a grid task: no fact names a grid cell (cells are named like "
                         "c12, r1c2 or cell-1-2)")
    raise InputError("cannot tell which predicate places the robot "
                     f"({', '.join(sorted(held))}); name it with --position")


def robot_cells(task: Task, position: str | None = None) -> dict[int, Cell]:
    """Fact index -> cell for the facts that place the robot (``position`` or
    :func:`position_predicate`); InputError when the task is not a grid (cheap, so
    callers check before a long search)."""
    position = position or position_predicate(task)
    where: dict[int, Cell] = {}
    for i, atom in enumerate(task.facts):
        if atom.predicate == position and atom.args:
            cell = cell_of_name(atom.args[-1])
            if cell is not None:
                where[i] = cell
    if not where:
        raise InputError(f"no fact ({position} CELL) with grid-named cells (c12, r1c2, "
                         "cell-1-2): not a grid task, or name the predicate with --position")
    return where


def belief_film(task: Task, plan: Sequence[str], model: Any, goals: Any,
                position: str | None = None, max_states: int = 50_000) -> BeliefFilm:
    """Frames of ``plan`` (action names) on a grid-like task seen through ``model`` (an
    :class:`~xaip.observers.sensors.ObservationModel`); ``goals`` is a
    :class:`~xaip.observers.goals.GoalSet`. ``position`` is the predicate whose cell
    argument places the robot (default: :func:`position_predicate`). A goal is plausible
    at a step when some belief state can still reach it (exact over at most
    ``max_states`` reachable states)."""
    from xaip.observers.beliefs import BeliefTracker

    where = robot_cells(task, position)
    tracker = BeliefTracker(task, model)
    state, steps = task.init, []
    for number, name in enumerate(plan, start=1):
        action = next((task.actions[i] for i in task.action_index.get(name, ())
                       if task.actions[i].applicable(state)), None)
        if action is None:
            raise InputError(f"plan step {number} ({name}) is not applicable")
        steps.append(action)
        state = action.apply(state)
    tokens = tracker.tokens_of(steps)
    beliefs = tracker.sequence(tokens)
    cells = {c for c in where.values()}
    rows = 1 + max(r for r, _ in cells)
    cols = 1 + max(c for _, c in cells)
    markers: dict[str, Cell | None] = {}
    for goal in goals.goals:
        spots = [cell_of_name(w) for a in goal.atoms for w in a.strip("()").split()[1:]]
        markers[goal.name] = next((s for s in spots if s is not None), None)
    reach = _Reach(task, max_states)
    frames, state = [], task.init
    for step, belief in enumerate(beliefs):
        if step:
            state = steps[step - 1].apply(state)
        counts: dict[Cell, int] = {}
        for s in belief:
            for i in bits(s):
                if i in where:
                    counts[where[i]] = counts.get(where[i], 0) + 1
        robot = next((where[i] for i in bits(state) if i in where), None)
        plausible = tuple(g.name for g in goals.goals if g.reachable and
                          reach.can_reach(belief, g.mask))
        frames.append(BeliefFrame(step, None if step == 0 else plan[step - 1], robot,
                                  counts, plausible))
    return BeliefFilm(f"{model.name} watching {task.name}", rows, cols, frozenset(), markers,
                      goals.true, tuple(frames))


class _Reach:
    """Which goals are reachable from which states (forward closure, cached)."""

    def __init__(self, task: Task, limit: int) -> None:
        self.task, self.limit = task, limit
        self.cache: dict[int, frozenset[int]] = {}

    def closure(self, state: int) -> frozenset[int]:
        found = self.cache.get(state)
        if found is None:
            seen, stack = {state}, [state]
            while stack and len(seen) <= self.limit:
                s = stack.pop()
                for action in self.task.actions:
                    if action.applicable(s):
                        n = action.apply(s)
                        if n not in seen:
                            seen.add(n)
                            stack.append(n)
            found = self.cache[state] = frozenset(seen)
        return found

    def can_reach(self, belief: frozenset[int], mask: int) -> bool:
        return any(any(s & mask == mask for s in self.closure(b)) for b in belief)


# ----------------------------------------------------------------------- drawing


def _shade(count: int, most: int) -> Colour:
    level = max(1, round(_SHADES * count / max(1, most)))
    t = level / _SHADES
    return (int(210 - 150 * t), int(225 - 120 * t), 255)


def frame_layers(film: BeliefFilm, index: int) -> dict[Cell, list[Colour]]:
    """The coloured layers of frame ``index`` (bottom colour first, as
    :func:`xaip.agents.png.draw_cells` draws them)."""
    frame = film.frames[index]
    most = max(frame.belief_cells.values(), default=1)
    layers: dict[Cell, list[Colour]] = {}
    for r in range(film.rows):
        for c in range(film.cols):
            layers[(r, c)] = [_WALL if (r, c) in film.walls else _FLOOR]
    for cell, count in frame.belief_cells.items():
        layers[cell] = [_shade(count, most)]
    for earlier in film.frames[:index]:
        if earlier.robot is not None and earlier.robot not in frame.belief_cells:
            layers[earlier.robot] = [_PATH]
    for name, marker in film.goals.items():
        if marker is None:
            continue
        colour = _PLAUSIBLE if name in frame.plausible else _RULED_OUT
        base = layers[marker][0]
        layers[marker] = [_TRUE, colour] if name == film.true_goal else [base, colour]
    if frame.robot is not None:
        layers[frame.robot] = [*layers[frame.robot][:2], _ROBOT]
    return layers


def frame_images(film: BeliefFilm, cell: int = 24) -> list[tuple[int, int, bytes]]:
    """Every frame as ``(width, height, rgb)``."""
    return [draw_cells(film.rows, film.cols, frame_layers(film, i), cell=cell)
            for i in range(len(film.frames))]


def frame_pngs(film: BeliefFilm, cell: int = 24) -> list[bytes]:
    """Every frame as a PNG file's bytes."""
    return [encode_png(w, h, rgb) for w, h, rgb in frame_images(film, cell)]


def strip_png(film: BeliefFilm, cell: int = 16) -> bytes:
    """All frames side by side in one PNG (a gap column between frames)."""
    images = frame_images(film, cell)
    w, h = images[0][0], images[0][1]
    gap = cell // 2
    width = len(images) * (w + gap) - gap
    rows = bytearray()
    for y in range(h):
        for index, (_, _, rgb) in enumerate(images):
            rows += rgb[3 * w * y: 3 * w * (y + 1)]
            if index < len(images) - 1:
                rows += bytes((255, 255, 255)) * gap
    return encode_png(width, h, bytes(rows))


def _lzw(indices: bytes, min_size: int) -> bytes:
    """GIF's variable-width LZW (codes packed least significant bit first)."""
    clear, end = 1 << min_size, (1 << min_size) + 1
    out = bytearray()
    acc = nbits = 0

    def emit(code: int, size: int) -> None:
        nonlocal acc, nbits
        acc |= code << nbits
        nbits += size
        while nbits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nbits -= 8

    def fresh() -> dict[bytes, int]:
        return {bytes([i]): i for i in range(clear)}

    table, size, next_code = fresh(), min_size + 1, end + 1
    emit(clear, size)
    word = indices[:1]
    for value in indices[1:]:
        extended = word + bytes([value])
        if extended in table:
            word = extended
            continue
        emit(table[word], size)
        if next_code < 4095:
            table[extended] = next_code
            next_code += 1
            if next_code - 1 == 1 << size and size < 12:
                size += 1
        else:  # table full: start again
            emit(clear, size)
            table, size, next_code = fresh(), min_size + 1, end + 1
        word = bytes([value])
    if word:
        emit(table[word], size)
    emit(end, size)
    if nbits:
        out.append(acc & 0xFF)
    return bytes(out)


def encode_gif(frames: Sequence[tuple[int, int, bytes]], delay_cs: int = 60) -> bytes:
    """An animated, looping GIF from RGB frames of one size (at most 256 colours)."""
    if not frames:
        raise InputError("a GIF needs at least one frame")
    width, height = frames[0][0], frames[0][1]
    palette: dict[bytes, int] = {}
    for w, h, rgb in frames:
        if (w, h) != (width, height):
            raise InputError("GIF frames must all have one size")
        for i in range(0, len(rgb), 3):
            palette.setdefault(rgb[i:i + 3], len(palette))
    if len(palette) > 256:
        raise InputError(f"a GIF holds at most 256 colours, the frames use {len(palette)}")
    depth = max(1, (len(palette) - 1).bit_length())
    ordered = sorted(palette.items(), key=lambda item: item[1])
    table = b"".join(colour for colour, _ in ordered) + \
        b"\x00\x00\x00" * ((1 << depth) - len(palette))
    out = bytearray(b"GIF89a")
    out += struct.pack("<HHBBB", width, height, 0x80 | (depth - 1) << 4 | (depth - 1), 0, 0)
    out += table
    out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    min_size = max(2, depth)
    for _, _, rgb in frames:
        indices = bytes(palette[rgb[i:i + 3]] for i in range(0, len(rgb), 3))
        out += b"\x21\xf9\x04\x04" + struct.pack("<H", delay_cs) + b"\x00\x00"
        out += b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0)
        data = _lzw(indices, min_size)
        out.append(min_size)
        for start in range(0, len(data), 255):
            block = data[start:start + 255]
            out.append(len(block))
            out += block
        out.append(0)
    out.append(0x3B)
    return bytes(out)


def film_gif(film: BeliefFilm, cell: int = 24, delay_cs: int = 60) -> bytes:
    """The film as an animated GIF."""
    return encode_gif(frame_images(film, cell), delay_cs)
