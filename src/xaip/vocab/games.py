"""The user vocabularies of the paper's four games (its Tables 1-4), over our game states.

Objects: the player (``link`` in Zelda, ``player`` elsewhere), the game's things (``ganon``,
``key``, ``door``; ``pasta``, ``water``, ``sauce``, ``tuna``; ``bottom``, ``middle``,
``top``) and one object per grid cell, ``cell_ROW_COL``. Each object has exactly one type:
``player``, ``monster``, ``key``, ``door``, ``ingredient``, ``piece`` or ``cell``. Objects
that leave the grid (a defeated monster, a held key) remain objects; only the predicates
about them change.

Reading of the tables where they leave room:

- ``clear(?loc)``: the cell has no wall, no object and no player. A closed door, a hole and
  a block also make a cell not clear (they are not empty floor); the goal cell is clear while
  nothing stands on it.
- Zelda ``next_to(?ob)``: Link is on a cell 4-adjacent to the object's cell (the monster,
  key or door; objects off the grid are next to nothing).
- Snowman ``at(?piece ?loc)`` also holds for the pieces placed on the goal cell.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from xaip.agents.envs._grid import NONE, Board
from xaip.agents.envs.cookmepasta import INGREDIENTS, PastaState
from xaip.agents.envs.escape import EscapeState
from xaip.agents.envs.snowman import PIECES, SnowmanState
from xaip.agents.envs.zelda import ZeldaState, monster_names
from xaip.errors import InputError
from xaip.planning.pddl.model import Atom
from xaip.vocab.core import ANY, Predicate, Vocabulary

Args = tuple[str, ...]


def _cell_type(description: str = "a grid cell") -> Predicate:
    return Predicate("cell", ("cell",), lambda s: s.board.names, "type", description)


def _fixed_type(name: str, objects: tuple[str, ...], description: str) -> Predicate:
    return Predicate(name, (name,), lambda _s: objects, "type", description)


def _wall() -> Predicate:
    def wall(s: Any) -> list[Args]:
        names = s.board.names
        return [(names[w],) for w in s.board.walls]

    return Predicate("wall", ("cell",), wall, "set", "there is a wall at ?loc")


def _clear(occupied: Callable[[Any], set[int]]) -> Predicate:
    def clear(s: Any) -> list[Args]:
        board = s.board
        taken = occupied(s)
        names = board.names
        return [(names[c],) for c in range(board.size) if c not in board.walls and c not in taken]

    return Predicate("clear", ("cell",), clear, "set", "?loc is empty: no object, wall or player")


def _nullary(name: str, test: Callable[[Any], bool], description: str) -> Predicate:
    return Predicate(name, (), test, "set", description)


# --------------------------------------------------------------------------- Zelda


def zelda_vocabulary() -> Vocabulary:
    """Table 1: ``at``, ``wall``, ``clear``, ``has_key``, ``escaped``, ``alive``, ``next_to``."""

    def monsters(s: ZeldaState) -> tuple[str, ...]:
        return monster_names(len(s.monsters))

    def things(s: ZeldaState) -> list[tuple[str, int]]:
        out = [("door", s.door)]
        if s.key != NONE:
            out.append(("key", s.key))
        out.extend(
            (name, cell)
            for name, cell in zip(monster_names(len(s.monsters)), s.monsters, strict=True)
            if cell != NONE
        )
        return out

    def at(s: ZeldaState) -> list[Args]:
        names = s.board.names
        out: list[Args] = [("link", names[s.player])]
        out.extend((o, names[c]) for o, c in things(s))
        return out

    def occupied(s: ZeldaState) -> set[int]:
        return {s.player, *(c for _, c in things(s))}

    def alive(s: ZeldaState) -> list[Args]:
        return [
            (name,)
            for name, cell in zip(monster_names(len(s.monsters)), s.monsters, strict=True)
            if cell != NONE
        ]

    def next_to(s: ZeldaState) -> list[Args]:
        board = s.board
        return [(o,) for o, c in things(s) if board.manhattan(s.player, c) == 1]

    return Vocabulary(
        [
            Predicate("at", (ANY, "cell"), at, "set", "object ?ob is at location ?loc"),
            _wall(),
            _clear(occupied),
            _nullary("has_key", lambda s: s.key == NONE, "Link has the key"),
            _nullary("escaped", lambda s: s.escaped, "Link has escaped (the game is over)"),
            Predicate("alive", ("monster",), alive, "set", "monster ?m is still alive"),
            Predicate(
                "next_to",
                (ANY,),
                next_to,
                "set",
                "Link is in a cell adjacent to ?ob (the monster, the door or the key)",
            ),
        ],
        [
            _fixed_type("player", ("link",), "the player, Link"),
            Predicate("monster", ("monster",), monsters, "type", "a monster (Ganon)"),
            _fixed_type("key", ("key",), "the key"),
            _fixed_type("door", ("door",), "the door"),
            _cell_type(),
        ],
        name="zelda",
    )


# --------------------------------------------------------------------------- Cook-Me-Pasta


def cookmepasta_vocabulary() -> Vocabulary:
    """Table 2: ``at``, ``wall``, ``clear``, ``has_key``, ``pasta_cooked``, ``is_door``."""

    def at(s: PastaState) -> list[Args]:
        names = s.board.names
        out: list[Args] = [("player", names[s.player])]
        out.extend((INGREDIENTS[i], names[c]) for i, c in enumerate(s.items) if c != NONE)
        if s.key != NONE:
            out.append(("key", names[s.key]))
        return out

    def occupied(s: PastaState) -> set[int]:
        taken = {s.player, *s.doors, *(c for c in s.items if c != NONE)}
        if s.key != NONE:
            taken.add(s.key)
        return taken

    def is_door(s: PastaState) -> list[Args]:
        names = s.board.names
        return [(names[d],) for d in s.doors]

    return Vocabulary(
        [
            Predicate("at", (ANY, "cell"), at, "set", "object ?ob is at location ?loc"),
            _wall(),
            _clear(occupied),
            _nullary("has_key", lambda s: s.has_key, "the player has the key"),
            _nullary("pasta_cooked", lambda s: s.stage >= 1, "the pasta is cooked"),
            Predicate("is_door", ("cell",), is_door, "set", "location ?loc has a door"),
        ],
        [
            _fixed_type("player", ("player",), "the player (the chef)"),
            _fixed_type("ingredient", INGREDIENTS, "an ingredient"),
            _fixed_type("key", ("key",), "the key"),
            _cell_type(),
        ],
        name="cookmepasta",
    )


# --------------------------------------------------------------------------- Escape


def escape_vocabulary() -> Vocabulary:
    """Table 3: ``at``, ``wall``, ``clear``, ``is_hole``, ``is_goal``, ``is_block``."""

    def at(s: EscapeState) -> list[Args]:
        return [("player", s.board.names[s.player])]

    def occupied(s: EscapeState) -> set[int]:
        return {s.player, *s.blocks, *s.holes}

    def cells_of(get: Callable[[EscapeState], Iterable[int]]) -> Callable[[EscapeState], list]:
        def fn(s: EscapeState) -> list[Args]:
            names = s.board.names
            return [(names[c],) for c in get(s)]

        return fn

    return Vocabulary(
        [
            Predicate("at", (ANY, "cell"), at, "set", "object ?ob is at location ?loc"),
            _wall(),
            _clear(occupied),
            Predicate(
                "is_hole", ("cell",), cells_of(lambda s: s.holes), "set", "location ?loc has a hole"
            ),
            Predicate(
                "is_goal",
                ("cell",),
                cells_of(lambda s: (s.goal,)),
                "set",
                "location ?loc is the goal (the cheese)",
            ),
            Predicate(
                "is_block",
                ("cell",),
                cells_of(lambda s: s.blocks),
                "set",
                "location ?loc has a movable block",
            ),
        ],
        [_fixed_type("player", ("player",), "the player"), _cell_type()],
        name="escape",
    )


# --------------------------------------------------------------------------- Snowman


def snowman_vocabulary() -> Vocabulary:
    """Table 4: ``at``, ``wall``, ``clear``, ``has_key``, ``player_has``, ``is_goal``,
    ``placed``, ``is_door``."""

    def at(s: SnowmanState) -> list[Args]:
        names = s.board.names
        out: list[Args] = [("player", names[s.player])]
        out.extend((PIECES[i], names[c]) for i, c in enumerate(s.pieces) if c != NONE)
        out.extend((PIECES[i], names[s.goal]) for i in range(s.placed))
        if s.key != NONE:
            out.append(("key", names[s.key]))
        return out

    def occupied(s: SnowmanState) -> set[int]:
        taken = {s.player, *s.doors, *(c for c in s.pieces if c != NONE)}
        if s.key != NONE:
            taken.add(s.key)
        if s.placed:
            taken.add(s.goal)
        return taken

    def player_has(s: SnowmanState) -> list[Args]:
        return [(PIECES[s.held],)] if s.held != NONE else []

    def placed(s: SnowmanState) -> list[Args]:
        return [(PIECES[i],) for i in range(s.placed)]

    def is_goal(s: SnowmanState) -> list[Args]:
        return [(s.board.names[s.goal],)]

    def is_door(s: SnowmanState) -> list[Args]:
        names = s.board.names
        return [(names[d],) for d in s.doors]

    return Vocabulary(
        [
            Predicate("at", (ANY, "cell"), at, "set", "object ?ob is at location ?loc"),
            _wall(),
            _clear(occupied),
            _nullary("has_key", lambda s: s.has_key, "the player has the key"),
            Predicate("player_has", ("piece",), player_has, "set", "the player holds piece ?o"),
            Predicate("is_goal", ("cell",), is_goal, "set", "location ?loc is the goal"),
            Predicate(
                "placed",
                ("piece",),
                placed,
                "set",
                "piece ?part is placed on the snowman at the goal",
            ),
            Predicate("is_door", ("cell",), is_door, "set", "location ?loc has a door"),
        ],
        [
            _fixed_type("player", ("player",), "the player"),
            _fixed_type("piece", PIECES, "a piece of the snowman"),
            _fixed_type("key", ("key",), "the key"),
            _cell_type(),
        ],
        name="snowman",
    )


VOCABULARIES: dict[str, Callable[[], Vocabulary]] = {
    "zelda": zelda_vocabulary,
    "cookmepasta": cookmepasta_vocabulary,
    "escape": escape_vocabulary,
    "snowman": snowman_vocabulary,
}


def game_vocabulary(game: str) -> Vocabulary:
    """The paper's vocabulary for a bundled game (``zelda``, ``cookmepasta``, ``escape``,
    ``snowman``)."""
    try:
        return VOCABULARIES[game.lower().replace("-", "")]()
    except KeyError:
        raise InputError(
            f"no vocabulary for game '{game}'; known: {', '.join(VOCABULARIES)}"
        ) from None


# --------------------------------------------------------------------------- refinement


class _Reading:
    """The parts of an abstract state every game shares: the board and where things are."""

    def __init__(self, atoms: Iterable[Atom], like: Any | None) -> None:
        self.by_pred: dict[str, list[tuple[str, ...]]] = {}
        for a in atoms:
            self.by_pred.setdefault(a.predicate, []).append(a.args)
        rows, cols, self.index = _grid_of(frozenset(self.by_pred.get("cell", ())))
        walls = frozenset(self.cell(name) for (name,) in self.by_pred.get("wall", []))
        template = like.board if like is not None else None
        if template is not None and (template.rows, template.cols, template.walls) == \
                (rows, cols, walls):
            self.board = template  # share the template's board (and its distance tables)
        else:
            self.board = _board(rows, cols, walls)
        self.at: dict[str, int] = {}
        for obj, where in self.by_pred.get("at", []):
            cell = self.cell(where)
            if self.at.setdefault(obj, cell) != cell:
                raise _Inconsistent  # one object in two places

    def cell(self, name: str) -> int:
        try:
            return self.index[name]
        except KeyError:
            raise _Inconsistent from None

    def cells(self, pred: str) -> list[int]:
        return [self.cell(name) for (name,) in self.by_pred.get(pred, [])]

    def flag(self, pred: str) -> bool:
        return () in self.by_pred.get(pred, [])

    def unary(self, pred: str) -> set[str]:
        return {args[0] for args in self.by_pred.get(pred, [])}


class _Inconsistent(Exception):
    """The abstract state describes no concrete state of the game."""


@functools.lru_cache(maxsize=64)
def _grid_of(cells: frozenset[tuple[str, ...]]) -> tuple[int, int, dict[str, int]]:
    """Rows, columns and cell numbers from the ``cell`` atoms (cached: a discovery run
    refines thousands of waypoints over the same grid). Callers must not mutate the dict."""
    coords = []
    for (name,) in cells:
        parts = name.split("_")
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            raise _Inconsistent
        coords.append((int(parts[1]), int(parts[2])))
    if not coords:
        raise _Inconsistent
    rows = max(r for r, _ in coords) + 1
    cols = max(c for _, c in coords) + 1
    if len(set(coords)) != rows * cols:
        raise _Inconsistent
    return rows, cols, {f"cell_{r}_{c}": r * cols + c for r in range(rows) for c in range(cols)}


@functools.lru_cache(maxsize=256)
def _board(rows: int, cols: int, walls: frozenset[int]) -> Board:
    return Board(rows, cols, walls)


def _facings(like: Any | None) -> list[int]:
    first = like.facing if like is not None and hasattr(like, "facing") else 1
    return [first] + [d for d in range(4) if d != first]


def _zelda_candidates(r: _Reading, like: ZeldaState | None) -> list[ZeldaState]:
    names = sorted(r.unary("monster"), key=lambda n: (len(n), n))
    if tuple(names) != monster_names(len(names)) or not names:
        raise _Inconsistent
    alive = r.unary("alive")
    monsters = tuple(r.at.get(n, NONE) if n in alive else NONE for n in names)
    if "link" not in r.at or "door" not in r.at:
        raise _Inconsistent
    player = r.at["link"]
    key = r.at.get("key", NONE)
    dead = player in monsters
    return [
        ZeldaState(r.board, player, f, monsters, key, r.at["door"], r.flag("escaped"), dead)
        for f in _facings(like)
    ]


def _pasta_candidates(r: _Reading, like: PastaState | None) -> list[PastaState]:
    if "player" not in r.at:
        raise _Inconsistent
    items = tuple(r.at.get(name, NONE) for name in INGREDIENTS)
    pasta, water, sauce, tuna = items
    cooked = r.flag("pasta_cooked")
    out = []
    # Hidden: whether the tuna is cooked, whether the meal is made, whether a mix was ruined.
    # The most plausible reading (as in play) comes first.
    for ruined in (False, True):
        for tuna_cooked in (sauce == NONE, sauce != NONE):
            stages = [2, 1] if cooked and tuna == NONE else [1] if cooked else [0]
            for stage in stages:
                out.append(
                    PastaState(
                        r.board,
                        r.at["player"],
                        (pasta, water, sauce, tuna),
                        stage,
                        tuna_cooked,
                        r.at.get("key", NONE),
                        r.flag("has_key"),
                        frozenset(r.cells("is_door")),
                        ruined,
                    )
                )
    return out


def _escape_candidates(r: _Reading, like: EscapeState | None) -> list[EscapeState]:
    goals = r.cells("is_goal")
    if "player" not in r.at or len(goals) != 1:
        raise _Inconsistent
    holes = frozenset(r.cells("is_hole"))
    player = r.at["player"]
    return [
        EscapeState(
            r.board, player, frozenset(r.cells("is_block")), holes, goals[0], player in holes
        )
    ]


def _snowman_candidates(r: _Reading, like: SnowmanState | None) -> list[SnowmanState]:
    goals = r.cells("is_goal")
    if "player" not in r.at or len(goals) != 1:
        raise _Inconsistent
    placed_names = r.unary("placed")
    placed = len(placed_names)
    if placed_names != set(PIECES[:placed]):
        raise _Inconsistent  # pieces are placed in order
    held_names = r.unary("player_has")
    if len(held_names) > 1:
        raise _Inconsistent
    held = PIECES.index(next(iter(held_names))) if held_names else NONE
    pieces = tuple(NONE if i < placed else r.at.get(p, NONE) for i, p in enumerate(PIECES))
    return [
        SnowmanState(
            r.board,
            r.at["player"],
            f,
            (pieces[0], pieces[1], pieces[2]),
            held,
            placed,
            r.at.get("key", NONE),
            r.flag("has_key"),
            frozenset(r.cells("is_door")),
            goals[0],
        )
        for f in _facings(like)
    ]


_CANDIDATES: dict[str, Callable[[_Reading, Any], list[Any]]] = {
    "zelda": _zelda_candidates,
    "cookmepasta": _pasta_candidates,
    "escape": _escape_candidates,
    "snowman": _snowman_candidates,
}


def concretize(
    game: str, atoms: Iterable[Atom], like: Any | None = None, limit: int | None = None
) -> list[Any]:
    """The concrete states of a bundled game whose abstraction is exactly ``atoms``.

    Why: capability discovery poses its questions as abstract waypoints; the agent needs
    concrete states. The abstract state fixes most of a game state; what the vocabulary does
    not say (the player's facing, whether the tuna is cooked) is enumerated, with the most
    plausible reading first (``like``'s facing first when a template state is given).
    ``atoms`` must include the type atoms. Every returned state is checked: its abstraction
    equals ``atoms``. An empty list means no state of the game has this abstraction.
    ``limit`` stops after that many states (discovery needs one per waypoint).
    """
    key = game.lower().replace("-", "")
    if key not in _CANDIDATES:
        raise InputError(f"no vocabulary for game '{game}'; known: {', '.join(_CANDIDATES)}")
    wanted = frozenset(atoms)
    try:
        candidates = _CANDIDATES[key](_Reading(wanted, like), like)
    except _Inconsistent:
        return []
    vocab = _VOCABULARY_CACHE.get(key)
    if vocab is None:
        vocab = _VOCABULARY_CACHE[key] = VOCABULARIES[key]()
        vocab.check = False  # our own predicates, checked by the tests; this is a hot path
    if key in _FACING_BLIND and candidates:
        # The candidates differ only in the player's facing, which this vocabulary does not
        # read: they all have the first one's abstraction.
        try:
            if vocab.abstract(candidates[0]) != wanted:
                return []
        except (InputError, IndexError, ValueError):
            return []
        return candidates if limit is None else candidates[:limit]
    out = []
    for state in candidates:
        try:
            if vocab.abstract(state) == wanted:
                out.append(state)
                if limit is not None and len(out) >= limit:
                    break
        except (InputError, IndexError, ValueError):
            continue
    return out


_VOCABULARY_CACHE: dict[str, Vocabulary] = {}

#: Games whose refinement candidates differ only in the facing and whose vocabulary (the
#: paper's Tables 1 and 4) has no predicate about it (tests check this on random states).
_FACING_BLIND = frozenset({"zelda", "snowman"})


def hidden_facing(game: str) -> bool:
    """Whether the game's player has a facing that its vocabulary does not describe (so
    :func:`concretize` returns one state per facing, ``like``'s first)."""
    return game.lower().replace("-", "") in _FACING_BLIND
