"""Pictures of what an observer believes on a grid, step by step: PNG frames and a GIF.

A :class:`BeliefFilm` is plain data: for every step of a plan, the robot's cell, how many
belief states put the robot in each cell, and the candidate goals still plausible. Films
come from a deceptive path (:func:`deception_film`: the observer sees every move, goals
are weighed by the cost-difference recogniser) or from any grid-like PDDL task with an
observation model (:func:`belief_film`: beliefs tracked by
:class:`~xaip.observers.beliefs.BeliefTracker`). :func:`film_png` draws every frame on
one sheet (a grid of frames in reading order, each captioned with its step, numbered from 1,
and the goals still plausible), :func:`film_gif` one frame per step as an animation; both
through :mod:`xaip.figures` (matplotlib), with a title and a legend, so a person reads them
without the docs.

Colours (the legend says so in every picture): floor light grey, walls dark grey, belief
cells blue (darker = more belief states there, their number written in the cell), the
robot's path so far orange (each cell numbered with the step that reached it), the robot a
red disc, goal cells named, green while plausible and grey once ruled out, the true goal's
cell framed in gold.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.errors import InputError
from xaip.figures import (
    Colour,
    Grid,
    Key,
    Look,
    Sheet,
    same_layout,
    sheet_png,
    sheet_rgb,
    sheets_gif,
)
from xaip.planning.semantics import step_number
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
    """The frames of one plan on one grid, with the goals' marker cells; ``subtitle`` says
    in a sentence what the observer sees (drawn under the pictures' title)."""

    title: str
    rows: int
    cols: int
    walls: frozenset[Cell]
    goals: Mapping[str, Cell | None]
    true_goal: str
    frames: tuple[BeliefFrame, ...]
    subtitle: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "rows": self.rows, "cols": self.cols,
                "walls": sorted([list(w) for w in self.walls]),
                "goals": {k: None if v is None else list(v) for k, v in self.goals.items()},
                "true_goal": self.true_goal, "subtitle": self.subtitle,
                "frames": [f.to_dict() for f in self.frames]}


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
    return BeliefFilm(f"Deceptive path on {grid.name}", grid.rows, grid.cols, grid.walls,
                      grid.goals(), "G", tuple(frames),
                      "The observer sees every move; plausible goals are the most probable "
                      "ones (cost-difference recogniser). The robot deceives while a decoy "
                      "is plausible.")


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
    ``max_states`` reachable states); after the last step, when some belief state
    satisfies it (the goals the answer reports as still possible)."""
    from xaip.observers.beliefs import BeliefTracker
    from xaip.observers.goals import goals_in

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
        if step < len(beliefs) - 1:  # the plan goes on: goals some belief state can reach
            plausible = tuple(g.name for g in goals.goals if g.reachable and
                              reach.can_reach(belief, g.mask))
        else:  # the plan is over: the goals some belief state satisfies (as the answer's)
            plausible = goals_in(belief, goals.goals)
        frames.append(BeliefFrame(step, None if step == 0 else plan[step - 1], robot,
                                  counts, plausible))
    return BeliefFilm(f"'{model.name}' watching {task.name}", rows, cols, frozenset(),
                      markers, goals.true, tuple(frames),
                      f"What observer '{model.name}' believes after each step: it sees "
                      "only what its sensors report of each action, not the robot.")


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


def frame_grid(film: BeliefFilm, index: int) -> Grid:
    """Frame ``index`` as a labelled grid: belief cells blue with how many belief states
    put the robot there, the path so far orange with the step that reached each cell
    (``S`` the start), goal cells named, green while plausible and grey once ruled out,
    the true goal framed in gold, the robot a red disc. The caption names the step
    (numbered from 1, :func:`~xaip.planning.semantics.step_number`) and its action; the
    note lists the goals still plausible."""
    frame = film.frames[index]
    most = max(frame.belief_cells.values(), default=1)
    looks: dict[Cell, Look] = {}
    for r in range(film.rows):
        for c in range(film.cols):
            looks[(r, c)] = Look(_WALL if (r, c) in film.walls else _FLOOR)
    before: Cell | None = None
    for number, earlier in enumerate(film.frames[:index]):
        if earlier.robot is not None:  # numbered with the step that moved it there
            shown = looks[earlier.robot].text if earlier.robot == before else \
                ("S" if number == 0 else str(number))
            looks[earlier.robot] = Look(_PATH, text=shown)
        before = earlier.robot
    for cell, count in frame.belief_cells.items():
        looks[cell] = Look(_shade(count, most), text=str(count) if most > 1 else "")
    for name, marker in film.goals.items():
        if marker is None:
            continue
        look = looks.get(marker, Look(_FLOOR))
        colour = _PLAUSIBLE if name in frame.plausible else _RULED_OUT
        looks[marker] = Look(look.fill, (colour,), text=name,
                             outline=_TRUE if name == film.true_goal else None)
    if frame.robot is not None:
        look = looks.get(frame.robot, Look(_FLOOR))
        looks[frame.robot] = Look(look.fill, look.inner, _ROBOT, look.text, look.outline)
    caption = "start" if index == 0 else \
        f"step {step_number(index - 1)}: {frame.action or ''}".rstrip(": ")
    plausible = ", ".join(frame.plausible) if frame.plausible else "none"
    what = "goals still plausible" if index < len(film.frames) - 1 else \
        "plan over; goals still possible"
    return Grid(film.rows, film.cols, looks, caption=caption, note=f"{what}: {plausible}",
                row_names=[str(r) for r in range(film.rows)],
                col_names=[str(c) for c in range(film.cols)])


def film_legend(film: BeliefFilm) -> list[Key]:
    """What the colours of a frame mean."""
    keys = [Key(_ROBOT, "robot", "dot"),
            Key(_PATH, "path so far (number: the step that got there, S: start)"),
            Key(_shade(1, 1), "observer thinks the robot may be here (number: belief "
                "states)"),
            Key(_PLAUSIBLE, "goal still plausible"), Key(_RULED_OUT, "goal ruled out"),
            Key(_TRUE, f"true goal ({film.true_goal})", "frame")]
    if film.walls:
        keys.insert(0, Key(_WALL, "wall"))
    return keys


def _lines(film: BeliefFilm) -> list[str]:
    goals = ", ".join(film.goals) or "none"
    return [film.subtitle or "What the observer believes after each step.",
            f"Candidate goals: {goals}; the true goal is {film.true_goal}."]


_NOTES = ("Rows and columns are numbered from 0 as in the cell names; steps from 1.",)


def film_sheet(film: BeliefFilm) -> Sheet:
    """All frames of the film on one sheet, in reading order (left to right, then down)."""
    steps = len(film.frames) - 1
    return Sheet(f"{film.title}: {steps} step{'' if steps == 1 else 's'}",
                 [frame_grid(film, i) for i in range(len(film.frames))],
                 lines=_lines(film), legend=film_legend(film), notes=_NOTES)


def frame_sheet(film: BeliefFilm, index: int, cell: int = 0) -> Sheet:
    """Frame ``index`` alone on a sheet (a frame of the animation, or one PNG per step)."""
    size = cell or max(20, min(72, 560 // max(1, film.rows, film.cols)))
    return Sheet(f"{film.title}: {_frame_title(film, index)}",
                 [frame_grid(film, index)], lines=_lines(film), legend=film_legend(film),
                 notes=_NOTES, cell=size)


def _frame_title(film: BeliefFilm, index: int) -> str:
    total = len(film.frames) - 1
    return "start" if index == 0 else f"step {step_number(index - 1)} of {total}"


def film_png(film: BeliefFilm) -> bytes:
    """The film as one PNG: a grid of frames with step captions, a legend and a title."""
    return sheet_png(film_sheet(film))


def frame_sheets(film: BeliefFilm, cell: int = 0) -> list[Sheet]:
    """Every frame alone on its sheet, all laid out alike (one size, parts in place)."""
    return same_layout([frame_sheet(film, i, cell) for i in range(len(film.frames))])


def frame_images(film: BeliefFilm, cell: int = 0) -> list[tuple[int, int, bytes]]:
    """Every frame, alone on its sheet, as ``(width, height, rgb)`` (one size)."""
    return [sheet_rgb(sheet) for sheet in frame_sheets(film, cell)]


def frame_pngs(film: BeliefFilm, cell: int = 0) -> list[bytes]:
    """Every frame, alone on its sheet, as a PNG file's bytes (one size)."""
    return [sheet_png(sheet) for sheet in frame_sheets(film, cell)]


def film_gif(film: BeliefFilm, cell: int = 0, delay_ms: int = 900) -> bytes:
    """The film as an animated, looping GIF: one frame per step, the last one held."""
    return sheets_gif(frame_sheets(film, cell), delay_ms=delay_ms)
