"""English for the results of :mod:`xaip.explicable` (distances, explicable plans, designs).

Why here: results are plain data; what an unfinished or unverified answer may claim is
decided once, in these renderers ("budget exhausted" is always said; "verified" only when
the independent checker confirmed a finished answer). Grid plans (the restaurant's
``move cXY cZW``) are also drawn as PNG: named cells, each move an arrow numbered with
its step, barriers, a title, a legend (:mod:`xaip.figures`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xaip.errors import InputError
from xaip.explicable.labels import LabelledPlan
from xaip.explicable.results import DesignResult, ExplicablePlan, PlanDistances
from xaip.figures import Arrow, Colour, Grid, Key, Look, Sheet, sheet_png
from xaip.planning.semantics import EMPTY_PLAN_NOTE, step_number
from xaip.render import check_line, renderer
from xaip.runtime import Status


def _steps(plan: tuple[str, ...]) -> str:
    return " ".join(f"({s})" for s in plan) or "(empty plan)"


def _number(value: float | None) -> str:
    return "infinite" if value is None else f"{value:g}"


def _plans(number: int, kind: str) -> str:
    return f"{number} {kind} plan{'' if number == 1 else 's'}"


@renderer(PlanDistances, "text")
def distances_text(result: PlanDistances) -> str:
    w = result.weights
    return "\n".join([
        f"Plan A: {_steps(result.plan_a)}",
        f"Plan B: {_steps(result.plan_b)}",
        f"action distance     {result.action:.4f}",
        f"causal-link distance {result.causal:.4f}",
        f"state distance      {result.state:.4f}",
        f"composite distance  {result.composite:.4f} (weights action {w['action']:g}, "
        f"causal {w['causal']:g}, state {w['state']:g})",
    ])


@renderer(ExplicablePlan, "text")
def explicable_text(result: ExplicablePlan) -> str:
    if result.status == Status.BUDGET_EXHAUSTED and not result.has_plan:
        return ("Budget exhausted before any plan was scored; raise "
                "--max-nodes/--max-seconds.")
    if not result.has_plan:
        bound = "" if result.max_cost is None else f" of cost <= {result.max_cost}"
        return f"The robot has no plan{bound}."
    lines = []
    if result.status == Status.BUDGET_EXHAUSTED:
        lines.append("Budget exhausted: the best plan among those scored so far.")
    lines.append(f"Most explicable plan (robot cost {result.robot_cost}): "
                 f"{_steps(result.plan)}")
    if result.human_cost is None:
        lines.append("The person's model cannot execute it.")
    else:
        lines.append(f"It costs {result.human_cost} in the person's model.")
    lines.append(f"Inexplicability, its distance from the nearest plan the person expects "
                 f"({result.distance} distance): {_number(result.inexplicability)}; "
                 f"explicability {result.score:.4f} (1 is exactly as expected).")
    if result.nearest_expected is not None:
        lines.append(f"Nearest expected plan: {_steps(result.nearest_expected)}")
    if not result.plan:
        lines.append(EMPTY_PLAN_NOTE[0].upper() + EMPTY_PLAN_NOTE[1:] + ".")
    expected = f"{result.expected_count}{'+' if result.stats.get('expected_truncated') else ''}"
    lines.append(f"{_plans(result.candidates, 'candidate')}, {expected} expected "
                 f"plan{'' if expected == '1' else 's'}; method: {result.method}; "
                 f"{result.seconds:.3f} s.")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


@renderer(LabelledPlan, "text")
def labelled_text(result: LabelledPlan) -> str:
    if result.cost is None:
        return ("Budget exhausted before a plan was found; raise --max-nodes/--max-seconds."
                if result.status == Status.BUDGET_EXHAUSTED else "The robot has no plan.")
    lines = [f"Plan by the labelling model ({result.method}, cost {result.cost}):"]
    for step, labels in zip(result.plan, result.labels, strict=True):
        lines.append(f"  ({step})  " + (", ".join(labels) if labels else "UNLABELLED"))
    lines.append(f"Inexplicability (share of unlabelled steps): {result.inexplicability:g}; "
                 f"{result.seconds:.3f} s.")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


@renderer(DesignResult, "text")
def design_text(result: DesignResult) -> str:
    if result.objective is None:
        return ("Budget exhausted before any design was evaluated; raise "
                "--max-nodes/--max-seconds.")
    lines = []
    if result.status == Status.BUDGET_EXHAUSTED:
        lines.append("Budget exhausted: the best design among those evaluated so far.")
    chosen = ", ".join(result.design) if result.design else "no change"
    lines.append(f"Design: {chosen} (design cost {result.design_cost:g}).")
    lines.append(f"Objective {result.objective:g} against {_number(result.baseline_objective)}"
                 f" without design (horizon {result.horizon}).")
    for task in result.tasks:
        lines.append(f"  {task.name} (probability {task.probability:g}): robot cost "
                     f"{_number(task.robot_cost)}, inexplicability "
                     f"{_number(task.inexplicability)}: {_steps(task.plan)}")
    lines.append(f"{result.configurations} configuration(s) evaluated"
                 f"{' with relevance pruning' if result.pruned else ''}, "
                 f"{result.seconds:.3f} s.")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


# ---------------------------------------------------------------- pictures (grid domains)

_FLOOR: Colour = (236, 236, 236)
_ROBOT: Colour = (40, 90, 220)
_EXPECTED: Colour = (225, 120, 20)
_BARRIER: Colour = (200, 30, 30)
_CELL = re.compile(r"^c(\d)(\d)$")
_CELLS = re.compile(r"\bc(\d)(\d)\b")
_Move = tuple[tuple[int, int], tuple[int, int]]


def _grid_moves(plan: Sequence[str]) -> list[tuple[int, _Move]]:
    """The ``move cXY cZW`` steps of a plan as (step index, cell pair) (grid domains such
    as the restaurant name their cells ``c<x><y>``)."""
    moves = []
    for index, step in enumerate(plan):
        words = step.split()
        if len(words) == 3 and words[0] == "move":
            a, b = _CELL.match(words[1]), _CELL.match(words[2])
            if a and b:
                moves.append((index, ((int(a[1]), int(a[2])), (int(b[1]), int(b[2])))))
    return moves


def _size(*plans: Sequence[tuple[int, _Move]]) -> int:
    cells = [c for moves in plans for _, pair in moves for c in pair]
    if not cells:
        raise InputError("only grid plans (steps 'move cXY cZW') can be drawn")
    return 1 + max(max(x, y) for x, y in cells)


def _at(cell: tuple[int, int], size: int) -> tuple[int, int]:
    """Grid cell ``c<x><y>`` at row ``size-1-y``, column ``x`` (y grows upwards)."""
    return size - 1 - cell[1], cell[0]


def _plan_grid(plan: Sequence[str], colour: Colour, size: int, caption: str,
               barriers: Sequence[tuple[tuple[int, int], tuple[int, int]]] = ()) -> Grid:
    """One plan on the grid: every cell named, each move an arrow numbered with its step
    (from 1), the other steps written in the cell they act on, barriers as bars."""
    acts: dict[tuple[int, int], list[str]] = {}
    for index, step in enumerate(plan):
        words = step.split()
        if words and words[0] != "move":
            for word in words[1:]:
                match = _CELL.match(word)
                if match:
                    cell = (int(match[1]), int(match[2]))
                    acts.setdefault(_at(cell, size), []).append(
                        f"{step_number(index)} {words[0]}")
    looks = {}
    for x in range(size):
        for y in range(size):
            where = _at((x, y), size)
            looks[where] = Look(_FLOOR, corner=f"c{x}{y}", foot=", ".join(acts.get(where, [])))
    arrows = [Arrow(_at(a, size), _at(b, size), colour, step_number(index))
              for index, (a, b) in _grid_moves(plan)]
    bars = [(_at(a, size), _at(b, size), _BARRIER) for a, b in barriers
            if abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1]
    return Grid(size, size, looks, caption=caption, arrows=arrows, bars=bars)


def _cell(size: int) -> int:
    """Cells big enough for their names, arrows, step numbers and actions."""
    return max(56, min(110, 340 // size))


def _numbered(plan: Sequence[str]) -> str:
    return ", ".join(f"{step_number(i)} ({s})" for i, s in enumerate(plan)) or "(empty plan)"


@renderer(ExplicablePlan, "png")
def explicable_png(result: ExplicablePlan) -> bytes:
    return sheet_png(explicable_sheet(result))


@renderer(DesignResult, "png")
def design_png(result: DesignResult) -> bytes:
    return sheet_png(design_sheet(result))


def explicable_sheet(result: ExplicablePlan) -> Sheet:
    """The robot's plan (blue) beside the person's nearest expected plan (orange), each
    move an arrow numbered with its step, cells named, with a title and a legend."""
    if not result.has_plan:
        raise InputError("there is no plan to draw")
    expected = result.nearest_expected or ()
    size = _size(_grid_moves(result.plan), _grid_moves(expected))
    human = "the person's model cannot execute it" if result.human_cost is None else \
        f"it costs {result.human_cost} in the person's model"
    panels = [_plan_grid(result.plan, _ROBOT, size,
                         f"the robot's plan (cost {result.robot_cost})"),
              _plan_grid(expected, _EXPECTED, size, "the plan the person expects (nearest)"
                         if result.nearest_expected is not None else
                         "no plan the person expects")]
    unfinished = "" if result.status != Status.BUDGET_EXHAUSTED else \
        " Budget exhausted: the best plan among those scored so far."
    lines = [f"Left, the robot's most explicable plan; right, the plan the person expects "
             f"that is nearest to it ({result.distance} distance).{unfinished}",
             f"Inexplicability {_number(result.inexplicability)}, explicability "
             f"{result.score:.3f} (1 = exactly as expected); {human}."]
    notes = [f"Robot: {_numbered(result.plan)}."]
    if result.nearest_expected is not None:
        notes.append(f"Expected: {_numbered(expected)}.")
    notes.append("Cells c<x><y>: x grows to the right, y upwards; steps are numbered from 1.")
    return Sheet("Most explicable plan", panels, lines=lines, notes=notes, cell=_cell(size),
                 min_width=640,
                 legend=[Key(_ROBOT, "robot's move (number: its step)", "line"),
                         Key(_EXPECTED, "expected move (number: its step)", "line")])


def design_sheet(result: DesignResult) -> Sheet:
    """Each task's robot plan (blue, numbered) with the chosen barriers (red), side by
    side, with a title saying the design and its objective, and a legend."""
    barriers = []
    for name in result.design:
        cells = _CELLS.findall(name)
        if len(cells) == 2:
            barriers.append(((int(cells[0][0]), int(cells[0][1])),
                             (int(cells[1][0]), int(cells[1][1]))))
    plans = [_grid_moves(task.plan) for task in result.tasks]
    size = _size(*plans)
    panels = [_plan_grid(task.plan, _ROBOT, size,
                         f"{task.name} (probability {task.probability:g}): cost "
                         f"{_number(task.robot_cost)}, inexplicability "
                         f"{_number(task.inexplicability)}", barriers)
              for task in result.tasks]
    chosen = ", ".join(result.design) if result.design else "no change"
    unfinished = "" if result.status != Status.BUDGET_EXHAUSTED else \
        " Budget exhausted: the best design among those evaluated so far."
    lines = [f"Design: {chosen} (design cost {result.design_cost:g}).{unfinished}",
             f"Objective {_number(result.objective)} against "
             f"{_number(result.baseline_objective)} without design (horizon "
             f"{result.horizon}); each task's robot plan under the design."]
    notes = [f"{task.name}: {_numbered(task.plan)}." for task in result.tasks]
    notes.append("Cells c<x><y>: x grows to the right, y upwards; steps are numbered from 1.")
    legend = [Key(_ROBOT, "robot's move (number: its step)", "line")]
    if barriers:
        legend.append(Key(_BARRIER, "barrier placed by the design", "line"))
    return Sheet("Environment design for explicability", panels, lines=lines, notes=notes,
                 legend=legend, cell=_cell(size), min_width=640)
