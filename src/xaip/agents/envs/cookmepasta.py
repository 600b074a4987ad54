"""Cook-Me-Pasta: push the ingredients together in the right order to make tuna pasta.

Rules (the paper's appendix A.2; GVGAI's game as described publicly by Griddly):

- The player moves one cell in any of four directions (no orientation). Walls, the grid edge
  and closed doors stop it; walking onto the key picks it up; walking into a closed door
  while holding the key opens it (the door is gone, the player keeps the key).
- Walking into an ingredient pushes it one cell further, if that cell is inside the grid and
  holds no wall, closed door or key. If it holds another ingredient the two combine:

  * raw pasta + boiling water -> cooked pasta (the water is used up),
  * tuna + sauce -> cooked tuna (the sauce is used up),
  * cooked pasta + cooked tuna -> the finished meal (the game is won and over);
  * any other pair is ruined: both are lost and the game is lost and over.

  The surviving ingredient (pasta, or tuna) ends on the cell pushed into.

Levels as text (``render_text`` writes the same format)::

    A.p.#
    ..b..
    #t..s
    .k.d.
    ; has_key=0

``A`` player, ``p``/``P`` raw/cooked pasta, ``M`` the meal, ``b`` boiling water, ``s`` sauce,
``t``/``T`` raw/cooked tuna, ``k`` key, ``d`` closed door; the ``;`` line holds ``has_key=1``,
``ruined=1`` and, for ingredients lost in a ruined mix, ``pasta_cooked=1``/``tuna_cooked=1``.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from xaip.agents.envs._base import PLAYER, GridGame
from xaip.agents.envs._grid import (
    DIRECTION_INDEX,
    DIRECTIONS,
    FAR,
    NONE,
    OPPOSITE,
    Board,
    connected,
    draw_text,
    flag,
    parse_level,
    random_layout,
    ray,
    region,
    single,
)
from xaip.agents.png import Colour
from xaip.agents.simulator import UNREACHABLE
from xaip.errors import InputError

PASTA, WATER, SAUCE, TUNA = 0, 1, 2, 3
INGREDIENTS: tuple[str, ...] = ("pasta", "water", "sauce", "tuna")

COLOURS: tuple[Colour, ...] = ((240, 220, 150), (80, 140, 230), (200, 40, 40), (150, 150, 170))
COOKED_PASTA: Colour = (230, 170, 60)
MEAL: Colour = (180, 90, 20)
KEY: Colour = (230, 190, 30)
DOOR: Colour = (120, 70, 30)


class PastaState(NamedTuple):
    """A Cook-Me-Pasta state. ``items[i]`` is the cell of ingredient ``INGREDIENTS[i]`` or
    ``NONE`` once it is used up; ``stage`` is 0 (raw pasta), 1 (cooked) or 2 (the meal)."""

    board: Board
    player: int
    items: tuple[int, int, int, int]
    stage: int
    tuna_cooked: bool
    key: int
    has_key: bool
    doors: frozenset[int]
    ruined: bool = False

    @property
    def over(self) -> bool:
        return self.ruined or self.stage == 2


def _combine(
    items: tuple[int, ...], stage: int, tuna_cooked: bool, pushed: int, hit: int, target: int
) -> tuple[tuple[int, int, int, int], int, bool, bool]:
    """The result of pushing ingredient ``pushed`` into ingredient ``hit`` on ``target``:
    ``(items, stage, tuna_cooked, ruined)``."""
    pair = {pushed, hit}
    new = list(items)
    if pair == {PASTA, WATER} and stage == 0:
        new[PASTA], new[WATER] = target, NONE
        return (new[0], new[1], new[2], new[3]), 1, tuna_cooked, False
    if pair == {TUNA, SAUCE} and not tuna_cooked:
        new[TUNA], new[SAUCE] = target, NONE
        return (new[0], new[1], new[2], new[3]), stage, True, False
    if pair == {PASTA, TUNA} and stage == 1 and tuna_cooked:
        new[PASTA], new[TUNA] = target, NONE
        return (new[0], new[1], new[2], new[3]), 2, tuna_cooked, False
    new[pushed] = new[hit] = NONE
    return (new[0], new[1], new[2], new[3]), stage, tuna_cooked, True


def _invariants(state: PastaState) -> tuple[bool, bool, bool, bool, bool]:
    """What every step that does not ruin the dish keeps true: the pasta is on the board,
    the water is used up exactly when the pasta is cooked, the sauce exactly when the tuna
    is, the tuna exactly when the meal is made, and a meal has cooked tuna in it. A goal
    that breaks one that the start keeps can only be reached through a ruined (and
    therefore final) state: never."""
    pasta, water, sauce, tuna = state.items
    return (
        pasta != NONE,
        (water == NONE) == (state.stage >= 1),
        (sauce == NONE) == state.tuna_cooked,
        (tuna == NONE) == (state.stage == 2),
        state.stage < 2 or state.tuna_cooked,
    )


class CookMePasta(GridGame[PastaState]):
    """The Cook-Me-Pasta game of the paper as a simulator (see the module docstring)."""

    name = "cookmepasta"
    ACTIONS = DIRECTIONS
    LEGEND = ((PLAYER, "player"), *zip(COLOURS, INGREDIENTS, strict=True),
              (COOKED_PASTA, "pasta, cooked"), (MEAL, "meal"), (KEY, "key"), (DOOR, "door"))

    # ----------------------------------------------------------------- rules

    def actions(self, state: PastaState) -> tuple[str, ...]:
        return tuple(action for action, _ in self.successors(state))

    def successors(self, state: PastaState) -> list[tuple[str, PastaState]]:
        if state.ruined or state.stage == 2:
            return []
        out = []
        for d in range(4):
            nxt = self._move(state, d)
            if nxt is not state:
                out.append((DIRECTIONS[d], nxt))
        return out

    def step(self, state: PastaState, action: str) -> PastaState:
        d = DIRECTION_INDEX.get(action)
        if d is None:
            raise InputError(
                f"unknown Cook-Me-Pasta action '{action}'; actions: {', '.join(DIRECTIONS)}"
            )
        if state.ruined or state.stage == 2:
            return state
        return self._move(state, d)

    @staticmethod
    def _move(state: PastaState, d: int) -> PastaState:
        board, player, items, stage, tuna_cooked, key, has_key, doors, _ = state
        step_to = board.step_to
        target = step_to[4 * player + d]
        if target < 0:
            return state
        if target in items:
            pushed = items.index(target)
            beyond = step_to[4 * target + d]
            if beyond < 0 or beyond in doors or beyond == key:
                return state
            if beyond in items:
                new_items, new_stage, new_tuna, ruined = _combine(
                    items, stage, tuna_cooked, pushed, items.index(beyond), beyond
                )
                return PastaState(
                    board, target, new_items, new_stage, new_tuna, key, has_key, doors, ruined
                )
            moved = list(items)
            moved[pushed] = beyond
            return PastaState(
                board,
                target,
                (moved[0], moved[1], moved[2], moved[3]),
                stage,
                tuna_cooked,
                key,
                has_key,
                doors,
                False,
            )
        if target in doors:
            if not has_key:
                return state
            return PastaState(
                board, target, items, stage, tuna_cooked, key, has_key, doors - {target}, False
            )
        if target == key:
            return PastaState(board, target, items, stage, tuna_cooked, NONE, True, doors, False)
        return PastaState(board, target, items, stage, tuna_cooked, key, has_key, doors, False)

    def is_goal(self, state: PastaState) -> bool:
        return state.stage == 2

    def distance_lower_bound(self, state: PastaState, goal: PastaState) -> int:
        """Every action moves the player one cell and at most one ingredient one cell, and
        each combination uses up one ingredient; ``UNREACHABLE`` for impossible goals."""
        if state == goal:
            return 0
        if (
            state.over
            or state.board != goal.board
            or not goal.doors <= state.doors
            or goal.stage < state.stage
            or (state.tuna_cooked and not goal.tuna_cooked)
            or (state.has_key and not goal.has_key)
            or (goal.key != NONE and goal.key != state.key)
        ):
            return UNREACHABLE
        if goal.player != state.player and goal.player in state.board.walls:
            return UNREACHABLE  # (a made-up goal) nobody walks into a wall
        if goal.stage == 2 and state.stage < 2 and not state.board.adjacent(
            goal.player, goal.items[PASTA]
        ):
            return UNREACHABLE  # the game ends with the push that makes the meal, beside it
        if not goal.ruined and any(
            held and not _invariants(goal)[k] for k, held in enumerate(_invariants(state))
        ):
            return UNREACHABLE
        # Doors that must stay closed and a key that must stay put are walls on the way:
        # walking in would open the door or take the key for good, and nothing is pushed
        # onto them. (Where a description put an ingredient or the player on such a cell,
        # the player can get there by pushing: those cells stay open.)
        closed = goal.doors if goal.key == NONE else goal.doors | {goal.key}
        forbidden = closed - {state.player, *state.items} if closed else closed
        board = state.board.with_walls(forbidden)
        pushes = 0
        used_up = 0
        for here, there in zip(state.items, goal.items, strict=True):
            if here == NONE:
                if there != NONE:
                    return UNREACHABLE
            elif there == NONE:
                used_up += 1
            elif here != there:
                if there in closed:
                    return UNREACHABLE  # no ingredient is ever pushed onto a door or the key
                # (an ingredient the level placed on such a cell may still be pushed off it)
                needed = (board if here not in forbidden else state.board).pushes(here, there)
                if needed >= FAR:
                    return UNREACHABLE  # walls alone keep the ingredient from getting there
                pushes += needed
        # (at least one action: the states differ)
        return max(1, board.distance(state.player, goal.player), pushes, used_up)

    def progress_estimate(self, state: PastaState, goal: PastaState) -> int:
        """For goals further along the recipe: the combinations still to make, in the
        recipe's order (pasta into the water, tuna into the sauce, pasta and tuna
        together), each the cheaper of pushing one ingredient into the other — the walk to
        it plus the pushes the walls allow — then the walk to the goal cell. Otherwise the
        lower bound. It drops as ingredients move toward each other, which a greedy policy
        needs to make progress."""
        bound = self.distance_lower_bound(state, goal)
        if bound in (0, UNREACHABLE):
            return bound
        steps: list[tuple[int, int]] = []
        if goal.stage >= 1 and state.stage == 0:
            steps.append((PASTA, WATER))
        if goal.tuna_cooked and not state.tuna_cooked:
            steps.append((TUNA, SAUCE))
        if goal.stage == 2 and state.stage < 2:
            steps.append((PASTA, TUNA))
        if not steps:
            return bound
        walls = state.board.with_walls(state.doors - {state.player} if not state.has_key
                                       else frozenset())
        where = list(state.items)
        here, total = state.player, 0
        for keep, other in steps:
            a, b = where[keep], where[other]
            if a == NONE or b == NONE:
                return bound
            push_keep = max(0, walls.distance(here, a) - 1) + state.board.pushes(a, b)
            push_other = max(0, walls.distance(here, b) - 1) + state.board.pushes(b, a)
            cost = min(push_keep, push_other)
            if cost >= FAR:
                return bound  # the walls alone keep them apart: nothing better to say
            total += cost
            # the surviving ingredient ends where it was pushed, or stays put
            where[keep], where[other] = (b if push_keep <= push_other else a), NONE
            here = where[keep]
        total += walls.distance(here, goal.player)
        return max(bound, total)

    def goal_lower_bound(self, state: PastaState) -> int:
        if state.stage == 2:
            return 0
        if state.ruined:
            return UNREACHABLE
        board, items = state.board, state.items
        pushes = 1
        movers: list[int] = []
        if state.stage == 0:
            pushes += board.distance(items[PASTA], items[WATER])
            movers += (items[PASTA], items[WATER])
        if not state.tuna_cooked:
            pushes += board.distance(items[TUNA], items[SAUCE])
            movers += (items[TUNA], items[SAUCE])
        if not movers:
            movers = [items[PASTA], items[TUNA]]
        # Before its first push the player must walk next to an ingredient to be pushed.
        walk = min(board.distance(state.player, cell) for cell in movers) - 1
        return pushes + walk

    # ----------------------------------------------------------------- levels

    @staticmethod
    def board_of(state: PastaState) -> Board:
        return state.board

    def random_state(self, rng: random.Random) -> PastaState:
        """A random level laid out around a plan, so that it is usually solvable.

        Why not uniform placement: like Sokoban, Cook-Me-Pasta has dead ends (an ingredient
        pushed against a wall cannot come back), and uniformly placed ingredients give a
        solvable level less than one time in ten. Instead each ingredient is put at the end
        of a straight free line leading to its partner: water on a cell, the pasta a few
        cells behind it; the sauce on a cell, the tuna behind it; and the two meeting cells
        in line, so the cooked pasta can be pushed into the cooked tuna. The search check
        in :meth:`generate` still rejects the levels where the lines get in each other's way.
        """
        board, cells = random_layout(self.rows, self.cols, rng, self.obstacles, 7, "Cook-Me-Pasta")
        player, pasta, water, sauce, tuna, key, door = cells
        planned = _planned_ingredients(board, rng)
        if planned is not None:
            pasta, water, sauce, tuna = planned
            taken = set(planned)
            rest = [c for c in board.free_cells() if c not in taken]
            if len(rest) >= 3:
                player, key, door = rng.sample(rest, 3)
        door = choke_point(board, rng, {player, pasta, water, sauce, tuna, key}) or door
        key = key_on_players_side(board, rng, player, door, key, {pasta, water, sauce, tuna})
        return PastaState(
            board, player, (pasta, water, sauce, tuna), 0, False, key, False, frozenset({door})
        )

    @classmethod
    def from_text(cls, text: str) -> PastaState:
        rows, cols, cells, status = parse_level(text, "ApPMbstTkd")
        player = single(cells, "A", "player")
        raw = single(cells, "p", "raw pasta", required=False)
        cooked = single(cells, "P", "cooked pasta", required=False)
        meal = single(cells, "M", "meal", required=False)
        found = [c for c in (raw, cooked, meal) if c != NONE]
        if len(found) > 1:
            raise InputError("the level shows the pasta more than once (p, P, M)")
        pasta = found[0] if found else NONE
        stage = 2 if meal != NONE else 1 if cooked != NONE or flag(status, "pasta_cooked") else 0
        tuna_raw = single(cells, "t", "tuna", required=False)
        tuna_done = single(cells, "T", "cooked tuna", required=False)
        if tuna_raw != NONE and tuna_done != NONE:
            raise InputError("the level shows the tuna twice (t and T)")
        tuna = tuna_raw if tuna_raw != NONE else tuna_done
        tuna_cooked = (
            tuna_done != NONE or (stage == 2 and tuna == NONE) or flag(status, "tuna_cooked")
        )
        items = (
            pasta,
            single(cells, "b", "boiling water", required=False),
            single(cells, "s", "sauce", required=False),
            tuna,
        )
        return PastaState(
            Board(rows, cols, cells.get("#", [])),
            player,
            items,
            stage,
            tuna_cooked,
            single(cells, "k", "key", required=False),
            flag(status, "has_key"),
            frozenset(cells.get("d", [])),
            flag(status, "ruined"),
        )

    def render_text(self, state: PastaState) -> str:
        pasta, water, sauce, tuna = state.items
        marks: dict[int, str] = {d: "d" for d in state.doors}
        if state.key != NONE:
            marks[state.key] = "k"
        for cell, ch in (
            (pasta, "pPM"[state.stage]),
            (water, "b"),
            (sauce, "s"),
            (tuna, "T" if state.tuna_cooked else "t"),
        ):
            if cell != NONE:
                marks[cell] = ch
        marks[state.player] = "A"
        status = [f"has_key={int(state.has_key)}"]
        if pasta == NONE and state.stage:
            status.append("pasta_cooked=1")
        if tuna == NONE and state.tuna_cooked and state.stage < 2:
            status.append("tuna_cooked=1")
        if state.ruined:
            status.append("ruined=1")
        return draw_text(state.board, marks, status)

    def cell_layers(self, state: PastaState) -> dict[tuple[int, int], list[Colour]]:
        board = state.board
        layers = self.base_layers(board)
        for d in state.doors:
            layers[board.coords(d)].append(DOOR)
        if state.key != NONE:
            layers[board.coords(state.key)].append(KEY)
        for i, cell in enumerate(state.items):
            if cell == NONE:
                continue
            colour = COLOURS[i]
            if i == PASTA and state.stage:
                colour = MEAL if state.stage == 2 else COOKED_PASTA
            layers[board.coords(cell)].append(colour)
        layers[board.coords(state.player)].append(PLAYER)
        if state.has_key:
            layers[board.coords(state.player)].append(KEY)
        return layers


def _planned_ingredients(board: Board, rng: random.Random) -> tuple[int, int, int, int] | None:
    """Cells ``(pasta, water, sauce, tuna)`` on straight free lines (see ``random_state``)."""
    free = board.free_cells()
    longest = max(1, max(board.rows, board.cols) // 3)
    for _ in range(50):
        meal = rng.choice(free)  # where the water sits; the pasta is cooked here
        f = rng.randrange(4)
        j = rng.randint(1, longest)
        line = ray(board, meal, f, j)
        behind = ray(board, meal, OPPOSITE[f], 1)
        if line is None or behind is None:
            continue
        sauce = line[-1]  # the tuna is cooked here; the pasta is pushed into it along f
        d, e = rng.randrange(4), rng.randrange(4)
        k, m = rng.randint(1, longest), rng.randint(1, longest)
        pasta_line = ray(board, meal, OPPOSITE[d], k + 1)
        tuna_line = ray(board, sauce, OPPOSITE[e], m + 1)
        if pasta_line is None or tuna_line is None:
            continue
        pasta, tuna = pasta_line[-2], tuna_line[-2]
        cells = (pasta, meal, sauce, tuna)
        if len(set(cells)) == 4:
            return cells
    return None


def key_on_players_side(
    board: Board, rng: random.Random, player: int, door: int, key: int, taken: set[int]
) -> int:
    """``key`` if the player can walk to it without the door, else such a cell (when any).

    Why: a key locked behind its own door makes the level unsolvable; moving it saves a
    costly failed search in the solvability check.
    """
    side = region(board, player, {door})
    if key in side:
        return key
    options = sorted(side - taken - {player, door})
    return rng.choice(options) if options else key


def choke_point(board: Board, rng: random.Random, avoid: set[int]) -> int | None:
    """A random free cell whose blocking splits the free cells in two (``None`` if none).

    Why: a door is only interesting where it locks something away, as in the paper's
    levels where ingredients sit in a locked room.
    """
    free = board.free_cells()
    candidates = [
        c for c in free if c not in avoid and not connected(board, [f for f in free if f != c])
    ]
    return rng.choice(candidates) if candidates else None
