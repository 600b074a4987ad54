"""Shared machinery of the grid games: boards, directions, level text, random layouts.

Why a shared ``Board``: every game state carries its board (size and walls), so a state is
self-contained — any state can be handed to ``set_state`` or searched from, including states
built from abstract descriptions whose walls differ from the current level. The board is
shared by all states of a level, hashes once (cached), and precomputes the neighbour table
that ``step`` needs, so carrying it costs one pointer per state.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Sequence

from xaip.agents.simulator import check_deadline
from xaip.errors import InputError

DIRECTIONS: tuple[str, ...] = ("up", "down", "left", "right")
DELTAS: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIRECTION_INDEX: dict[str, int] = {name: i for i, name in enumerate(DIRECTIONS)}
ARROWS = "^v<>"
OPPOSITE = (1, 0, 3, 2)  # the direction opposite each of DIRECTIONS
NONE = -1  # "no cell": the object is gone, held, or absent
FAR = 10**6  # the distance between cells that walls separate


class Board:
    """The static part of a level: size and walls, plus a precomputed neighbour table.

    ``step_to[4 * cell + d]`` is the cell reached from ``cell`` in direction ``d``, or ``-1``
    when that is outside the grid or a wall. Cells are numbered ``row * cols + col``.
    """

    __slots__ = ("rows", "cols", "walls", "step_to", "names", "_hash", "_distances",
                 "_pushes", "_walled")

    def __init__(self, rows: int, cols: int, walls: Iterable[int] = ()) -> None:
        if rows < 1 or cols < 1:
            raise InputError(f"a grid needs at least one row and one column, got {rows}x{cols}")
        self.rows = rows
        self.cols = cols
        self.walls = frozenset(walls)
        for w in self.walls:
            if not 0 <= w < rows * cols:
                raise InputError(f"wall cell {w} is outside the {rows}x{cols} grid")
        table: list[int] = []
        for cell in range(rows * cols):
            if cell % 65536 == 0:
                check_deadline()
            r, c = divmod(cell, cols)
            for dr, dc in DELTAS:
                nr, nc = r + dr, c + dc
                target = nr * cols + nc
                inside = 0 <= nr < rows and 0 <= nc < cols
                table.append(target if inside and target not in self.walls else NONE)
        self.step_to = tuple(table)
        self.names = tuple(f"cell_{r}_{c}" for r in range(rows) for c in range(cols))
        self._hash = hash((rows, cols, self.walls))
        self._distances: list[list[int]] | None = None
        self._pushes: dict[int, list[int]] = {}
        self._walled: dict[frozenset[int], Board] = {}

    @property
    def size(self) -> int:
        return self.rows * self.cols

    def cell(self, row: int, col: int) -> int:
        return row * self.cols + col

    def coords(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.cols)

    def free_cells(self) -> list[int]:
        return [c for c in range(self.size) if c not in self.walls]

    def manhattan(self, a: int, b: int) -> int:
        ar, ac = divmod(a, self.cols)
        br, bc = divmod(b, self.cols)
        return abs(ar - br) + abs(ac - bc)

    def distance(self, a: int, b: int) -> int:
        """The number of moves between two free cells around the walls (``FAR`` when walls
        separate them). For a wall cell, the distance to (or from) its nearest free
        neighbour plus one: a walk can end beside a wall, never in it.

        Why: walls never move, so this is a lower bound on any walk, and a far better one
        than Manhattan distance on a walled board: the games' distance bounds use it, which
        makes A* faster and greedy policies less often stuck behind a wall.
        """
        if a == b:
            return 0
        table = self._distances
        if table is None:
            table = self._distances = self._all_distances()
        step_to = self.step_to
        if a in self.walls:  # (only in made-up states) the first move leaves the wall
            return 1 + min((self.distance(n, b) for n in step_to[4 * a:4 * a + 4] if n >= 0),
                           default=FAR - 1)
        row = table[a]
        if b in self.walls:  # a walk can only end beside it
            return 1 + min((row[n] for n in step_to[4 * b:4 * b + 4] if n >= 0),
                           default=FAR - 1)
        return row[b]

    def _all_distances(self) -> list[list[int]]:
        size = self.rows * self.cols
        step_to = self.step_to
        table: list[list[int]] = []
        for start in range(size):
            if start % 64 == 0:
                check_deadline()
            if start in self.walls:
                table.append([])
                continue
            row = [FAR] * size
            row[start] = 0
            queue = deque([start])
            while queue:
                here = queue.popleft()
                d = row[here] + 1
                for k in range(4 * here, 4 * here + 4):
                    nxt = step_to[k]
                    if nxt >= 0 and row[nxt] == FAR:
                        row[nxt] = d
                        queue.append(nxt)
            table.append(row)
        return table

    def with_walls(self, cells: frozenset[int]) -> Board:
        """This board with ``cells`` walled up as well (cached: its distance tables are
        computed once). Games use it for cells a goal forbids entering, such as a door
        that must stay closed."""
        if not cells:
            return self
        found = self._walled.get(cells)
        if found is None:
            if len(self._walled) > 256:
                self._walled.clear()
            found = self._walled[cells] = Board(self.rows, self.cols, self.walls | cells)
        return found

    def pushes(self, a: int, b: int) -> int:
        """The fewest pushes that move an object from cell ``a`` to cell ``b`` when only
        walls are in the way (``FAR`` when no sequence of pushes can): each push needs a
        free cell ahead of the object and one behind it for the player.

        Why: a lower bound on the pushes of any object in the pushing games; ``FAR`` marks
        the dead ends of Sokoban-like play (an object against a wall never leaves it).
        """
        table = self._pushes.get(b)
        if table is None:
            table = self._pushes[b] = self._pulls_to(b)
        return table[a]

    def _pulls_to(self, target: int) -> list[int]:
        """Push distances to ``target`` from every cell (a backwards search of pulls)."""
        row = [FAR] * (self.rows * self.cols)
        if target in self.walls:
            return row
        row[target] = 0
        queue = deque([target])
        step_to = self.step_to
        while queue:
            here = queue.popleft()
            d = row[here] + 1
            for direction in range(4):
                back = OPPOSITE[direction]
                before = step_to[4 * here + back]  # where the object was before the push
                if before < 0 or row[before] != FAR:
                    continue
                if step_to[4 * before + back] < 0:  # no room for the player behind it
                    continue
                row[before] = d
                queue.append(before)
        return row

    def adjacent(self, a: int, b: int) -> bool:
        return self.manhattan(a, b) == 1

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Board):
            return NotImplemented
        return (self.rows, self.cols, self.walls) == (other.rows, other.cols, other.walls)

    def __repr__(self) -> str:
        return f"Board({self.rows}, {self.cols}, walls={sorted(self.walls)})"

    def __reduce__(self) -> tuple[type[Board], tuple[int, int, tuple[int, ...]]]:
        return (Board, (self.rows, self.cols, tuple(sorted(self.walls))))


def parse_level(text: str, legend: str) -> tuple[int, int, dict[str, list[int]], dict[str, str]]:
    """Read a level drawn in characters: ``(rows, cols, cells by character, status)``.

    ``#`` is a wall, ``.`` an empty cell; ``legend`` lists the other allowed characters.
    Lines starting with ``;`` hold ``key=value`` status entries (what the picture cannot
    show, e.g. whether the key is held). Blank lines and surrounding spaces are ignored.
    """
    grid: list[str] = []
    status: dict[str, str] = {}
    for raw in text.strip("\n").splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith(";"):
            for entry in line[1:].split():
                key, sep, value = entry.partition("=")
                if not sep:
                    raise InputError(f"status entry '{entry}' should be key=value")
                status[key] = value
            continue
        grid.append(line)
    if not grid:
        raise InputError("the level has no rows")
    cols = len(grid[0])
    cells: dict[str, list[int]] = {}
    allowed = set(legend) | {"#", "."}
    for r, line in enumerate(grid):
        if len(line) != cols:
            raise InputError(f"level row {r} has {len(line)} cells, expected {cols}")
        for c, ch in enumerate(line):
            if ch not in allowed:
                raise InputError(
                    f"unknown character '{ch}' at row {r}, column {c}; "
                    f"allowed: # . {' '.join(legend)}"
                )
            if ch != ".":
                cells.setdefault(ch, []).append(r * cols + c)
    return len(grid), cols, cells, status


def single(cells: dict[str, list[int]], ch: str, what: str, required: bool = True) -> int:
    """The one cell marked ``ch`` (``NONE`` when absent and not required)."""
    found = cells.get(ch, [])
    if len(found) > 1:
        raise InputError(f"the level has {len(found)} {what} cells ('{ch}'); expected one")
    if not found:
        if required:
            raise InputError(f"the level has no {what} ('{ch}')")
        return NONE
    return found[0]


def flag(status: dict[str, str], key: str) -> bool:
    value = status.get(key, "0").lower()
    if value not in {"0", "1", "true", "false", "yes", "no"}:
        raise InputError(f"status '{key}={value}' should be 0 or 1")
    return value in {"1", "true", "yes"}


def draw_text(board: Board, marks: dict[int, str], status: Sequence[str] = ()) -> str:
    """Rows of characters (``#`` walls, ``.`` empty, ``marks`` elsewhere) plus status lines."""
    rows = []
    for r in range(board.rows):
        line = []
        for c in range(board.cols):
            cell = r * board.cols + c
            if cell in board.walls:
                line.append("#")
            else:
                line.append(marks.get(cell, "."))
        rows.append("".join(line))
    if status:
        rows.append("; " + " ".join(status))
    return "\n".join(rows)


def connected(board: Board, cells: Iterable[int]) -> bool:
    """Whether the given free cells form one 4-connected region (walls excluded)."""
    todo = set(cells)
    if not todo:
        return True
    start = next(iter(todo))
    seen = {start}
    queue = deque([start])
    step_to = board.step_to
    while queue:
        cell = queue.popleft()
        if len(seen) % 65536 == 0:
            check_deadline()
        for d in range(4):
            nxt = step_to[4 * cell + d]
            if nxt >= 0 and nxt in todo and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return len(seen) == len(todo)


def ray(board: Board, start: int, d: int, n: int) -> list[int] | None:
    """The ``n`` cells after ``start`` in direction ``d`` (``None`` if a wall or edge cuts it)."""
    cells = []
    cell = start
    for _ in range(n):
        cell = board.step_to[4 * cell + d]
        if cell < 0:
            return None
        cells.append(cell)
    return cells



def route_bound(board: Board, start: int, stops: Sequence[tuple[int, int]], end: int) -> int:
    """A lower bound on the moves of a walk from ``start`` to ``end`` that visits, in order,
    each stop ``(cell, slack)``: the cell itself (slack 0) or a neighbour of it (slack 1).

    Why: to pick up or push something the player must first stand next to it, and this is
    what makes distance bounds of the games informative enough for A* on larger grids.
    """
    total = 0
    here, here_slack = start, 0
    for cell, slack in stops:
        total += max(0, board.distance(here, cell) - here_slack - slack)
        here, here_slack = cell, slack
    return total + max(0, board.distance(here, end) - here_slack)


def region(board: Board, start: int, blocked: set[int] | frozenset[int]) -> set[int]:
    """The free cells reachable from ``start`` without entering ``blocked`` cells."""
    seen = {start}
    queue = deque([start])
    step_to = board.step_to
    while queue:
        here = queue.popleft()
        for d in range(4):
            nxt = step_to[4 * here + d]
            if nxt >= 0 and nxt not in seen and nxt not in blocked:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def random_layout(
    rows: int,
    cols: int,
    rng: random.Random,
    wall_ratio: float,
    n_objects: int,
    what: str,
) -> tuple[Board, list[int]]:
    """A board with ``round(wall_ratio * cells)`` walls whose free cells are connected, and
    ``n_objects`` distinct free cells (in random order) for the game's objects.

    Raises ``InputError`` when the grid cannot hold the objects.
    """
    size = rows * cols
    if rows < 2 or cols < 2:
        raise InputError(f"{what} needs a grid of at least 2x2, got {rows}x{cols}")
    n_walls = round(wall_ratio * size)
    if size - n_walls < n_objects + 1:
        n_walls = max(0, size - n_objects - 1)
    if size < n_objects + 1:
        raise InputError(
            f"a {rows}x{cols} grid is too small for {what}: it needs at least "
            f"{n_objects + 1} cells ({n_objects} objects and one free cell)"
        )
    for _ in range(200):
        check_deadline()
        walls = rng.sample(range(size), n_walls)
        board = Board(rows, cols, walls)
        free = board.free_cells()
        if connected(board, free):
            return board, rng.sample(free, n_objects)
    board = Board(rows, cols, ())
    return board, rng.sample(board.free_cells(), n_objects)
