"""English for the results of :mod:`xaip.explicable` (distances, explicable plans, designs).

Why here: results are plain data; what an unfinished or unverified answer may claim is
decided once, in these renderers ("budget exhausted" is always said; "verified" only when
the independent checker confirmed a finished answer). Grid plans (the restaurant's
``move cXY cZW``) are also drawn as PNG: cells, and the passages between them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xaip.agents.png import Colour, draw_cells, encode_png
from xaip.errors import InputError
from xaip.explicable.labels import LabelledPlan
from xaip.explicable.results import DesignResult, ExplicablePlan, PlanDistances
from xaip.planning.semantics import EMPTY_PLAN_NOTE
from xaip.render import check_line, renderer
from xaip.runtime import Status


def _steps(plan: tuple[str, ...]) -> str:
    return " ".join(f"({s})" for s in plan) or "(empty plan)"


def _number(value: float | None) -> str:
    return "infinite" if value is None else f"{value:g}"


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
    lines.append(f"Inexplicability ({result.distance} distance): "
                 f"{_number(result.inexplicability)}; explicability {result.score:.4f}.")
    if result.nearest_expected is not None:
        lines.append(f"Nearest expected plan: {_steps(result.nearest_expected)}")
    if not result.plan:
        lines.append(EMPTY_PLAN_NOTE[0].upper() + EMPTY_PLAN_NOTE[1:] + ".")
    expected = f"{result.expected_count}{'+' if result.stats.get('expected_truncated') else ''}"
    lines.append(f"{result.candidates} candidate plan(s), {expected} expected "
                 f"plan(s), method {result.method}, {result.seconds:.3f} s.")
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
        lines.append(f"  {task.name} (p={task.probability:g}): robot cost "
                     f"{_number(task.robot_cost)}, inexplicability "
                     f"{_number(task.inexplicability)}: {_steps(task.plan)}")
    lines.append(f"{result.configurations} configuration(s) evaluated"
                 f"{' with relevance pruning' if result.pruned else ''}, "
                 f"{result.seconds:.3f} s.")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


# ---------------------------------------------------------------- pictures (grid domains)

_FLOOR: Colour = (235, 235, 235)
_ROBOT: Colour = (40, 90, 220)
_EXPECTED: Colour = (240, 150, 40)
_BARRIER: Colour = (200, 30, 30)
_GAP: Colour = (255, 255, 255)
_CELL = re.compile(r"^c(\d)(\d)$")


def _grid_moves(plan: Sequence[str]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The ``move cXY cZW`` steps of a plan as cell pairs (grid domains such as the
    restaurant name their cells ``c<x><y>``)."""
    moves = []
    for step in plan:
        words = step.split()
        if len(words) == 3 and words[0] == "move":
            a, b = _CELL.match(words[1]), _CELL.match(words[2])
            if a and b:
                moves.append(((int(a[1]), int(a[2])), (int(b[1]), int(b[2]))))
    return moves


def _panel(moves: list[tuple[tuple[int, int], tuple[int, int]]], colour: Colour,
           barriers: list[tuple[tuple[int, int], tuple[int, int]]], size: int
           ) -> dict[tuple[int, int], list[Colour]]:
    """Cells of one panel: grid cell (x, y) at row 2*(size-1-y), column 2*x; a passage
    between two cells at the position between them."""
    def at(cell: tuple[int, int]) -> tuple[int, int]:
        return 2 * (size - 1 - cell[1]), 2 * cell[0]

    layers: dict[tuple[int, int], list[Colour]] = {}
    for x in range(size):
        for y in range(size):
            layers[at((x, y))] = [_FLOOR]
    for a, b in moves:
        (ra, ca), (rb, cb) = at(a), at(b)
        for pos in ((ra, ca), (rb, cb), ((ra + rb) // 2, (ca + cb) // 2)):
            layers[pos] = [_FLOOR, colour]
    for a, b in barriers:
        (ra, ca), (rb, cb) = at(a), at(b)
        layers[((ra + rb) // 2, (ca + cb) // 2)] = [_BARRIER]
    return layers


def _draw(panels: list[dict[tuple[int, int], list[Colour]]], size: int) -> bytes:
    span = 2 * size - 1
    combined: dict[tuple[int, int], list[Colour]] = {}
    for index, layers in enumerate(panels):
        for (r, c), colours in layers.items():
            combined[(r, c + index * (span + 1))] = colours
    cols = len(panels) * (span + 1) - 1
    for r in range(span):
        for index in range(1, len(panels)):
            combined[(r, index * (span + 1) - 1)] = [_GAP]
    w, h, rgb = draw_cells(span, cols, combined, background=(120, 120, 120), cell=20,
                           grid_line=None)
    return encode_png(w, h, rgb)


def _size(*plans: Sequence[tuple[tuple[int, int], tuple[int, int]]]) -> int:
    cells = [c for moves in plans for pair in moves for c in pair]
    if not cells:
        raise InputError("only grid plans (steps 'move cXY cZW') can be drawn")
    return 1 + max(max(x, y) for x, y in cells)


@renderer(ExplicablePlan, "png")
def explicable_png(result: ExplicablePlan) -> bytes:
    """The robot's plan (blue) beside the person's nearest expected plan (orange)."""
    robot = _grid_moves(result.plan)
    expected = _grid_moves(result.nearest_expected or ())
    size = _size(robot, expected)
    return _draw([_panel(robot, _ROBOT, [], size), _panel(expected, _EXPECTED, [], size)],
                 size)


@renderer(DesignResult, "png")
def design_png(result: DesignResult) -> bytes:
    """Each task's robot plan (blue) with the chosen barriers (red), side by side."""
    barriers = []
    for name in result.design:
        cells = re.findall(r"c(\d)(\d)", name)
        if len(cells) == 2:
            barriers.append(((int(cells[0][0]), int(cells[0][1])),
                             (int(cells[1][0]), int(cells[1][1]))))
    plans = [_grid_moves(task.plan) for task in result.tasks]
    size = _size(*plans)
    return _draw([_panel(moves, _ROBOT, barriers, size) for moves in plans], size)
