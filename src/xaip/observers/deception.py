"""Deceptive path planning on grids (book §9.1.4 after Masters & Sardina 2017): reach the
real goal while an observer who sees every move keeps thinking a decoy is at least as likely,
for as long as possible.

Front door::

    grid = read_grid("domains/observers/grids/corridor.txt")       # or parse_grid(text)
    result = deceptive_plan(grid, beta=1.0, budget=Budget(max_seconds=5))
    result.path, result.ldp, result.score                          # cells, last deceptive point

The observer's goal recogniser is the cost difference (book-spec §8.4): at cell ``n``,
``costdiff(G, n) = optc(s, n) + optc(n, G) − optc(s, G)`` and
``P(G | n) ∝ exp(−β · costdiff(G, n))``. (With full observability only the start and the
current cell matter: the cost already walked is the same for every goal and cancels.)

A cell is *deceptive* when some decoy is at least as probable there as the real goal, i.e.
``costdiff(decoy, n) ≤ costdiff(real, n)`` — independent of β. The start is always
deceptive (every costdiff is 0). The *last deceptive point* (LDP) is the deceptive cell,
reachable from the start through deceptive cells only, that is nearest the real goal (ties:
cheapest to reach). The plan walks the cheapest all-deceptive path to the LDP, then the
cheapest path on to the real goal, so every prefix up to the LDP keeps a decoy at least as
probable as the truth, and no plan can stay deceptive closer to the goal.

By the triangle inequality a deceptive cell is at least ``RMP(G, g')`` from the real goal
for its decoy ``g'``, the radius of maximum probability
``(optc(g', G) + optc(s, G) − optc(s, g')) / 2``; the result reports each decoy's RMP.

Grid files (text): one row per line, ``.`` free, ``#`` wall, ``S`` start, ``G`` the real
goal, any other letter a decoy goal (named by the letter); ``;`` or ``#`` followed by a
space starts a comment line. Moves go to the four neighbours at cost 1.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from xaip.contract import CheckReport, with_check
from xaip.errors import InputError
from xaip.runtime import Budget, BudgetClock, Status
from xaip.sidefiles import read_text

Cell = tuple[int, int]
INF = math.inf


@dataclass(frozen=True)
class Grid:
    """A 4-connected grid with a start, the real goal and named decoys."""

    name: str
    rows: int
    cols: int
    walls: frozenset[Cell]
    start: Cell
    real: Cell
    decoys: Mapping[str, Cell]

    def free(self, cell: Cell) -> bool:
        r, c = cell
        return 0 <= r < self.rows and 0 <= c < self.cols and cell not in self.walls

    def neighbours(self, cell: Cell) -> list[Cell]:
        r, c = cell
        return [n for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if self.free(n)]

    def goals(self) -> dict[str, Cell]:
        """Every candidate goal by name, the real one as ``G``."""
        return {"G": self.real, **self.decoys}

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rows": self.rows, "cols": self.cols,
                "walls": sorted([list(w) for w in self.walls]), "start": list(self.start),
                "real": list(self.real),
                "decoys": {k: list(v) for k, v in self.decoys.items()}}


def parse_grid(text: str, name: str = "<grid>") -> Grid:
    """A :class:`Grid` from the text format (module docstring)."""
    lines = [line.rstrip() for line in text.splitlines()]
    rows = [line for line in lines if line and not line.startswith(("; ", "# ", ";"))]
    if not rows:
        raise InputError(f"{name}: the grid has no rows")
    width = max(len(r) for r in rows)
    walls, decoys = set(), {}
    start = real = None
    for r, row in enumerate(rows):
        for c, ch in enumerate(row.ljust(width, "#")):
            if ch == "#":
                walls.add((r, c))
            elif ch == "S":
                if start is not None:
                    raise InputError(f"{name}: row {r + 1}: a second start S")
                start = (r, c)
            elif ch == "G":
                if real is not None:
                    raise InputError(f"{name}: row {r + 1}: a second real goal G")
                real = (r, c)
            elif ch.isalpha():
                if ch in decoys:
                    raise InputError(f"{name}: row {r + 1}: decoy {ch} appears twice")
                decoys[ch] = (r, c)
            elif ch != ".":
                raise InputError(f"{name}: row {r + 1}, column {c + 1}: unknown cell {ch!r} "
                                 "(. free, # wall, S start, G real goal, letters decoys)")
    if start is None or real is None:
        raise InputError(f"{name}: a grid needs a start S and a real goal G")
    if not decoys:
        raise InputError(f"{name}: a grid needs at least one decoy goal (a letter)")
    return Grid(name, len(rows), width, frozenset(walls), start, real, dict(sorted(decoys.items())))


def read_grid(path: str | Path) -> Grid:
    """Read a grid file; unreadable files and bad cells are one-line InputErrors."""
    text = read_text(path, "grid")  # limits, devices, FIFOs, UTF-8 errors at line:column
    return parse_grid(text, Path(path).stem)


def bundled_grids() -> dict[str, Path]:
    """The grid files shipped in ``xaip/domains/observers/grids``, by name."""
    folder = Path(__file__).resolve().parent.parent / "domains" / "observers" / "grids"
    return {p.stem: p for p in sorted(folder.glob("*.txt"))}


def distances(grid: Grid, source: Cell, clock: BudgetClock | None = None) -> dict[Cell, float]:
    """Breadth-first move counts from ``source`` (unreachable cells are absent); one budget
    node per cell. Raises :class:`_OutOfBudget` when the clock runs out."""
    dist = {source: 0.0}
    queue = deque([source])
    while queue:
        cell = queue.popleft()
        if clock is not None and not clock.charge(1):
            raise _OutOfBudget
        for n in grid.neighbours(cell):
            if n not in dist:
                dist[n] = dist[cell] + 1
                queue.append(n)
    return dist


class _OutOfBudget(Exception):
    pass


@dataclass(frozen=True)
class DeceptivePlan:
    """A deceptive path: cells, the last deceptive point and the recogniser along it.

    ``probabilities[i]`` maps each goal (``G`` the real one) to P(goal | path[i]);
    ``deceptive[i]`` says whether a decoy is at least as probable as ``G`` there; ``score``
    is the fraction of the path's cells (after the start) that are deceptive.
    """

    grid: Grid
    path: tuple[Cell, ...]
    plan: tuple[str, ...]
    cost: int | None
    ldp: Cell | None
    ldp_index: int | None
    rmp: Mapping[str, float]
    probabilities: tuple[Mapping[str, float], ...]
    deceptive: tuple[bool, ...]
    score: float | None
    beta: float
    status: Status
    seconds: float
    stats: Mapping[str, int | float]
    verified: bool = False
    check: CheckReport | None = None

    @property
    def observations(self) -> tuple[str, ...]:
        """What the (fully observing) observer sees: every cell entered."""
        return tuple(_cell_name(c) for c in self.path[1:])

    def to_dict(self) -> dict[str, Any]:
        return {
            "grid": self.grid.to_dict(), "plan": list(self.plan), "cost": self.cost,
            "path": [list(c) for c in self.path],
            "observations": list(self.observations),
            "ldp": None if self.ldp is None else list(self.ldp), "ldp_index": self.ldp_index,
            "rmp": dict(self.rmp), "probabilities": [dict(p) for p in self.probabilities],
            "deceptive": list(self.deceptive), "score": self.score, "beta": self.beta,
            "goals_in_final_belief": {"observer": [
                g for g, p in self.probabilities[-1].items()
                if p >= max(self.probabilities[-1].values()) - 1e-12]}
            if self.probabilities else {"observer": []},
            "status": str(self.status), "verified": self.verified,
            "seconds": round(self.seconds, 6),
            "stats": dict(self.stats),
            "check": None if self.check is None else self.check.to_dict(),
        }


def _cell_name(cell: Cell) -> str:
    return f"r{cell[0]}c{cell[1]}"


def _moves(path: Sequence[Cell]) -> tuple[str, ...]:
    return tuple(f"move {_cell_name(a)} {_cell_name(b)}" for a, b in pairwise(path))


def recogniser(grid: Grid, from_start: Mapping[Cell, float],
               to_goal: Mapping[str, Mapping[Cell, float]], cell: Cell, beta: float
               ) -> dict[str, float]:
    """P(goal | cell) for every goal by the cost-difference recogniser."""
    diffs = {}
    for name, dist in to_goal.items():
        here, total = dist.get(cell, INF), dist.get(grid.start, INF)
        diffs[name] = INF if here == INF or total == INF else \
            from_start[cell] + here - total
    finite = [d for d in diffs.values() if d != INF]
    low = min(finite) if finite else 0.0
    weights = {k: 0.0 if d == INF else math.exp(-beta * (d - low)) for k, d in diffs.items()}
    total_w = sum(weights.values()) or 1.0
    return {k: w / total_w for k, w in weights.items()}


def is_deceptive(grid: Grid, to_goal: Mapping[str, Mapping[Cell, float]], cell: Cell) -> bool:
    """Some decoy at least as probable as the real goal at ``cell`` (β-free test)."""
    real = to_goal["G"]
    real_diff = real.get(cell, INF) - real[grid.start]
    for name in grid.decoys:
        dist = to_goal[name]
        if dist.get(cell, INF) == INF or dist.get(grid.start, INF) == INF:
            continue
        if dist[cell] - dist[grid.start] <= real_diff:
            return True
    return False


def deceptive_plan(grid: Grid, beta: float = 1.0, budget: Budget | None = None
                   ) -> DeceptivePlan:
    """The deceptive path to the real goal through its last deceptive point (module
    docstring); checked by :func:`check_deceptive` before it is returned."""
    started = time.perf_counter()
    if beta <= 0:
        raise InputError(f"beta must be positive, got {beta}")
    clock = (budget or Budget(max_seconds=60)).start()
    stats: dict[str, int | float] = {"cells": grid.rows * grid.cols - len(grid.walls)}
    try:
        from_start = distances(grid, grid.start, clock)
        if grid.real not in from_start:
            raise InputError(f"{grid.name}: the real goal G cannot be reached from S")
        to_goal = {name: distances(grid, cell, clock) for name, cell in grid.goals().items()}
        if not any(grid.start in to_goal[name] for name in grid.decoys):
            raise InputError(f"{grid.name}: no decoy goal can be reached from S")
        rmp = {}
        real = to_goal["G"]
        for name, cell in grid.decoys.items():
            if cell in real and grid.start in to_goal[name]:
                rmp[name] = (real[cell] + real[grid.start] - to_goal[name][grid.start]) / 2
        # the deceptive region reachable from the start, cheapest first
        reach = {grid.start: 0.0}
        parent: dict[Cell, Cell | None] = {grid.start: None}
        queue = deque([grid.start])
        while queue:
            cell = queue.popleft()
            if not clock.charge(1):
                raise _OutOfBudget
            for n in grid.neighbours(cell):
                if n not in reach and is_deceptive(grid, to_goal, n):
                    reach[n] = reach[cell] + 1
                    parent[n] = cell
                    queue.append(n)
        ldp = min(reach, key=lambda c: (real.get(c, INF), reach[c], c))
        first: list[Cell] = []
        node: Cell | None = ldp
        while node is not None:
            first.append(node)
            node = parent[node]
        first.reverse()
        rest = [ldp]
        while rest[-1] != grid.real:  # descend the real goal's distances
            here = rest[-1]
            rest.append(min(n for n in grid.neighbours(here)
                             if real.get(n, INF) == real[here] - 1))
        path = tuple(first + rest[1:])
    except _OutOfBudget:
        return DeceptivePlan(grid, (), (), None, None, None, {}, (), (), None, beta,
                             Status.BUDGET_EXHAUSTED, time.perf_counter() - started,
                             {**stats, "nodes": clock.nodes})
    probabilities = tuple(recogniser(grid, from_start, to_goal, c, beta) for c in path)
    deceptive = tuple(is_deceptive(grid, to_goal, c) for c in path)
    steps = len(path) - 1
    score = sum(deceptive[1:]) / steps if steps else 0.0
    result = DeceptivePlan(
        grid, path, _moves(path), steps, ldp, len(first) - 1, rmp, probabilities, deceptive,
        score, beta, Status.FOUND, time.perf_counter() - started,
        {**stats, "nodes": clock.nodes, "deceptive_cells": len(reach),
         "optimal_cost": real[grid.start]})
    report = check_deceptive(grid, result)
    return with_check(dataclasses.replace(result, check=report), report)


def _bfs(grid: Grid, source: Cell) -> dict[Cell, int]:
    """The checker's own move counts (a separate BFS from :func:`distances`)."""
    out = {source: 0}
    frontier = [source]
    while frontier:
        nxt = []
        for r, c in frontier:
            for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if n not in out and 0 <= n[0] < grid.rows and 0 <= n[1] < grid.cols \
                        and n not in grid.walls:
                    out[n] = out[(r, c)] + 1
                    nxt.append(n)
        frontier = nxt
    return out


def check_deceptive(grid: Grid, result: DeceptivePlan) -> CheckReport:
    """Independent check of a deceptive path.

    Shares with the planner only the :class:`Grid`. Recomputes every goal's distances with
    its own BFS, walks the path (adjacent free cells from S to G), re-tests every prefix up
    to the LDP for a decoy at least as probable as G, re-derives the LDP's optimality (no
    cell reachable from S through deceptive cells is nearer G), that the path reaches the LDP
    in the fewest moves through deceptive cells, and the cost after the LDP (optimal to G).
    """
    if not result.status.finished or not result.path:
        return CheckReport(None, "no path to check")
    path = result.path
    if path[0] != grid.start or path[-1] != grid.real:
        return CheckReport(False, "the path does not run from the start S to the real goal G")
    for a, b in pairwise(path):
        if b in grid.walls or abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
            return CheckReport(False, f"{_cell_name(a)} -> {_cell_name(b)} is not a move")
    dist = {name: _bfs(grid, cell) for name, cell in grid.goals().items()}

    def deceptive(cell: Cell) -> bool:
        real = dist["G"][cell] - dist["G"][grid.start]
        return any(cell in dist[d] and grid.start in dist[d]
                   and dist[d][cell] - dist[d][grid.start] <= real for d in grid.decoys)

    if result.ldp_index is None or path[result.ldp_index] != result.ldp:
        return CheckReport(False, "the last deceptive point is not on the path")
    for i in range(result.ldp_index + 1):
        if not deceptive(path[i]):
            return CheckReport(False, f"after {i} moves ({_cell_name(path[i])}), before the last "
                                      "deceptive point, the real goal is the most probable")
    # breadth first through deceptive cells only: which are reachable, and in how few moves
    steps, frontier = {grid.start: 0}, [grid.start]
    while frontier:
        following = []
        for r, c in frontier:
            for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if n not in steps and n in dist["G"] and deceptive(n):
                    steps[n] = steps[(r, c)] + 1
                    following.append(n)
        frontier = following
    seen = set(steps)
    nearest = min(dist["G"][c] for c in seen)
    if dist["G"][result.ldp] != nearest:
        return CheckReport(False, f"a deceptive cell {nearest} moves from G is reachable; the "
                                  f"last deceptive point is {dist['G'][result.ldp]} away")
    if result.ldp_index != steps.get(result.ldp):
        return CheckReport(False, f"the path reaches the last deceptive point in "
                                  f"{result.ldp_index} moves; "
                                  f"{steps.get(result.ldp)} deceptive moves suffice")
    if len(path) - 1 - result.ldp_index != dist["G"][result.ldp]:
        return CheckReport(False, "the path after the last deceptive point is not a shortest "
                                  "path to G")
    return CheckReport(True, f"deceptive for the first {result.ldp_index} moves; the last "
                             f"deceptive point is {dist['G'][result.ldp]} moves from G (as near as "
                             "any deceptive cell reachable from S)")
