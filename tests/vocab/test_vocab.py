"""Vocabularies: the paper's four tables on hand-made states, user-declared predicates, errors."""

from __future__ import annotations

import random
from typing import Any

import pytest

from xaip.agents.envs import CookMePasta, Escape, Snowman, Zelda, make_game
from xaip.agents.simulator import random_walk
from xaip.errors import InputError
from xaip.planning.pddl.model import Atom
from xaip.vocab import (
    Predicate,
    Vocabulary,
    VocabularyError,
    abstract,
    concretize,
    cookmepasta_vocabulary,
    escape_vocabulary,
    game_vocabulary,
    object_type,
    predicate,
    predicate_test,
    snowman_vocabulary,
    zelda_vocabulary,
)


def atoms(*specs: str) -> frozenset[Atom]:
    """Atoms from strings like ``"at link cell_0_0"``."""
    out = []
    for spec in specs:
        name, *args = spec.split()
        out.append(Atom(name, tuple(args)))
    return frozenset(out)


def cells(rows: int, cols: int) -> list[str]:
    return [f"cell cell_{r}_{c}" for r in range(rows) for c in range(cols)]


# --------------------------------------------------------------------------- the four tables


def test_zelda_table_1() -> None:
    game = Zelda(level=">g#\nk.d")
    vocab = zelda_vocabulary()
    s = game.get_state()
    types = ["player link", "monster ganon", "key key", "door door", *cells(2, 3)]
    assert abstract(vocab, s) == atoms(
        *types,
        "at link cell_0_0",
        "at ganon cell_0_1",
        "at key cell_1_0",
        "at door cell_1_2",
        "wall cell_0_2",
        "clear cell_1_1",
        "alive ganon",
        "next_to ganon",
        "next_to key",
    )
    defeated = game.step(s, "use")
    assert abstract(vocab, defeated, include_types=False) == atoms(
        "at link cell_0_0",
        "at key cell_1_0",
        "at door cell_1_2",
        "wall cell_0_2",
        "clear cell_1_1",
        "clear cell_0_1",
        "next_to key",
    )
    holding = game.step(game.step(defeated, "down"), "use")
    assert abstract(vocab, holding, include_types=False) == atoms(
        "at link cell_0_0",
        "at door cell_1_2",
        "wall cell_0_2",
        "clear cell_1_1",
        "clear cell_0_1",
        "clear cell_1_0",
        "has_key",
    )
    escaped = Zelda.from_text("..#\n.>d\n; has_key=1 defeated=1 escaped=1")
    found = abstract(vocab, escaped, include_types=False)
    assert Atom("escaped") in found and Atom("has_key") in found
    assert Atom("next_to", ("door",)) in found


def test_cookmepasta_table_2() -> None:
    game = CookMePasta(level="Apb\nkd.\nt.s")
    vocab = cookmepasta_vocabulary()
    s = game.get_state()
    types = ["player player", "key key", *cells(3, 3)]
    types += [f"ingredient {i}" for i in ("pasta", "water", "sauce", "tuna")]
    assert abstract(vocab, s) == atoms(
        *types,
        "at player cell_0_0",
        "at pasta cell_0_1",
        "at water cell_0_2",
        "at key cell_1_0",
        "at tuna cell_2_0",
        "at sauce cell_2_2",
        "is_door cell_1_1",
        "clear cell_1_2",
        "clear cell_2_1",
    )
    cooked = game.step(s, "right")
    assert abstract(vocab, cooked, include_types=False) == atoms(
        "at player cell_0_1",
        "at pasta cell_0_2",
        "at key cell_1_0",
        "at tuna cell_2_0",
        "at sauce cell_2_2",
        "is_door cell_1_1",
        "clear cell_0_0",
        "clear cell_1_2",
        "clear cell_2_1",
        "pasta_cooked",
    )
    keyed = game.step(game.step(cooked, "left"), "down")
    found = abstract(vocab, keyed, include_types=False)
    assert Atom("has_key") in found and Atom("at", ("player", "cell_1_0")) in found


def test_escape_table_3() -> None:
    game = Escape(level="Abh\n#.g")
    vocab = escape_vocabulary()
    s = game.get_state()
    assert abstract(vocab, s) == atoms(
        "player player",
        *cells(2, 3),
        "at player cell_0_0",
        "wall cell_1_0",
        "is_block cell_0_1",
        "is_hole cell_0_2",
        "is_goal cell_1_2",
        "clear cell_1_1",
        "clear cell_1_2",
    )
    filled = game.step(s, "right")
    assert abstract(vocab, filled, include_types=False) == atoms(
        "at player cell_0_1",
        "wall cell_1_0",
        "is_goal cell_1_2",
        "clear cell_0_0",
        "clear cell_0_2",
        "clear cell_1_1",
        "clear cell_1_2",
    )


def test_snowman_table_4() -> None:
    game = Snowman(level=">1g\n2.3\nk.d")
    vocab = snowman_vocabulary()
    s = game.get_state()
    types = ["player player", "key key", "piece bottom", "piece middle", "piece top"]
    assert abstract(vocab, s) == atoms(
        *types,
        *cells(3, 3),
        "at player cell_0_0",
        "at bottom cell_0_1",
        "at middle cell_1_0",
        "at top cell_1_2",
        "at key cell_2_0",
        "is_goal cell_0_2",
        "is_door cell_2_2",
        "clear cell_0_2",
        "clear cell_1_1",
        "clear cell_2_1",
    )
    held = game.step(s, "use")
    assert abstract(vocab, held, include_types=False) == atoms(
        "at player cell_0_0",
        "at middle cell_1_0",
        "at top cell_1_2",
        "at key cell_2_0",
        "is_goal cell_0_2",
        "is_door cell_2_2",
        "clear cell_0_1",
        "clear cell_0_2",
        "clear cell_1_1",
        "clear cell_2_1",
        "player_has bottom",
    )
    placed = game.step(game.step(held, "right"), "use")
    assert abstract(vocab, placed, include_types=False) == atoms(
        "at player cell_0_1",
        "at bottom cell_0_2",
        "at middle cell_1_0",
        "at top cell_1_2",
        "at key cell_2_0",
        "is_goal cell_0_2",
        "is_door cell_2_2",
        "clear cell_0_0",
        "clear cell_1_1",
        "clear cell_2_1",
        "placed bottom",
    )


@pytest.mark.parametrize("name", ["zelda", "cookmepasta", "escape", "snowman"])
def test_every_cell_is_wall_clear_or_occupied(name: str) -> None:
    """Independent check of wall/clear/at on random walks: a cell is exactly one of a wall,
    clear, or occupied (something is at it, or it is a hole, block or closed door)."""
    game = make_game(name, 4, 5, seed=1)
    vocab = game_vocabulary(name)
    for state in random_walk(game, game.get_state(), 40, random.Random(2)):
        found = abstract(vocab, state, include_types=False)
        by_pred: dict[str, set[tuple[str, ...]]] = {}
        for a in found:
            by_pred.setdefault(a.predicate, set()).add(a.args)
        occupied = {args[1] for args in by_pred.get("at", set())}
        for blocker in ("is_hole", "is_block", "is_door"):
            occupied |= {args[0] for args in by_pred.get(blocker, set())}
        walls = {args[0] for args in by_pred.get("wall", set())}
        clear = {args[0] for args in by_pred.get("clear", set())}
        everything = set(state.board.names)
        assert walls | clear | occupied == everything
        assert not (walls & clear) and not (clear & occupied) and not (walls & occupied)
        players = [args for args in by_pred["at"] if args[0] in ("link", "player")]
        assert len(players) == 1
        if name == "zelda":  # next_to: Link 4-adjacent to the object's cell, from the names

            def rc(cell: str) -> tuple[int, int]:
                _, r, c = cell.split("_")
                return int(r), int(c)

            (pr, pc) = rc(players[0][1])
            expected = {
                (obj,)
                for obj, where in by_pred["at"]
                if obj != "link" and abs(rc(where)[0] - pr) + abs(rc(where)[1] - pc) == 1
            }
            assert by_pred.get("next_to", set()) == expected
        objects = vocab.objects(state)
        assert found <= frozenset(vocab.ground_atoms(objects, include_types=False))


def test_game_vocabulary_lookup() -> None:
    assert game_vocabulary("Cook-Me-Pasta").name == "cookmepasta"
    with pytest.raises(InputError, match="no vocabulary"):
        game_vocabulary("pacman")
    zelda = zelda_vocabulary()
    assert [p.name for p in zelda.predicates] == [
        "at",
        "wall",
        "clear",
        "has_key",
        "escaped",
        "alive",
        "next_to",
    ]
    declared = {p.name: len(p.parameters) for p in zelda.pddl_predicates()}
    assert declared["at"] == 2 and declared["has_key"] == 0 and declared["cell"] == 1


# --------------------------------------------------------------------------- user vocabularies


@object_type()
def spot(state: Any) -> list[str]:
    """a position on the line"""
    return [f"p{i}" for i in range(3)]


@object_type(name="robot")
def robots(state: Any) -> list[str]:
    return ["r"]


@predicate("robot", "spot")
def at(state: Any) -> list[tuple[str, str]]:
    return [("r", f"p{state[0]}")]


@predicate_test("spot", "spot")
def left_of(state: Any, a: str, b: str) -> bool:
    return int(a[1:]) + 1 == int(b[1:])


@predicate()
def holding(state: Any) -> bool:
    return bool(state[1])


@predicate("spot", name="free")
def free_spots(state: Any) -> list[str]:
    return [f"p{i}" for i in range(3) if i != state[0]]


def test_user_declared_vocabulary() -> None:
    vocab = Vocabulary([at, left_of, holding, free_spots], [spot, robots], name="line")
    assert spot.description == "a position on the line"
    assert free_spots.name == "free" and left_of.style == "test"
    assert vocab.objects((1, True)) == {"p0": "spot", "p1": "spot", "p2": "spot", "r": "robot"}
    assert abstract(vocab, (1, True)) == atoms(
        "spot p0",
        "spot p1",
        "spot p2",
        "robot r",
        "at r p1",
        "left_of p0 p1",
        "left_of p1 p2",
        "holding",
        "free p0",
        "free p2",
    )
    assert Atom("holding") not in abstract(vocab, (0, False))
    assert vocab.holds((2, False), Atom("at", ("r", "p2")))
    assert not vocab.holds((2, False), Atom("at", ("r", "p1")))
    assert vocab["left_of"] is left_of and "free" in vocab and len(vocab) == 6
    assert len(vocab.ground_atoms(vocab.objects((0, False)))) == 4 + 3 + 9 + 1 + 3
    bigger = vocab.extend(Predicate("at_start", (), lambda s: s[0] == 0))
    assert Atom("at_start") in abstract(bigger, (0, False))


def test_predicate_errors_name_the_predicate_and_state() -> None:
    @predicate("spot")
    def broken(state: Any) -> list[str]:
        raise ZeroDivisionError("boom")

    expected = r"'broken' raised ZeroDivisionError: boom.*\(1, True\)"
    with pytest.raises(VocabularyError, match=expected):
        abstract(Vocabulary([broken], [spot]), (1, True))

    @predicate_test("spot")
    def flaky(state: Any, s: str) -> bool:
        if s == "p2":
            raise KeyError(s)
        return True

    with pytest.raises(VocabularyError, match=r"\(flaky p2\) raised KeyError"):
        abstract(Vocabulary([flaky], [spot]), (0, False))

    @predicate("spot", "spot")
    def wrong_arity(state: Any) -> list[tuple[str, ...]]:
        return [("p0",)]

    with pytest.raises(VocabularyError, match="1 arguments, expected 2"):
        abstract(Vocabulary([wrong_arity], [spot]), (0, False))

    @predicate("spot")
    def unknown(state: Any) -> list[str]:
        return ["p9"]

    with pytest.raises(VocabularyError, match="unknown object 'p9'"):
        abstract(Vocabulary([unknown], [spot]), (0, False))
    assert Atom("unknown", ("p9",)) in abstract(
        Vocabulary([unknown], [spot], check=False), (0, False)
    )

    @predicate("robot")
    def wrong_type(state: Any) -> list[str]:
        return ["p0"]

    with pytest.raises(VocabularyError, match="of type 'spot' where 'robot'"):
        abstract(Vocabulary([wrong_type], [spot, robots]), (0, False))

    @predicate("spot")
    def not_a_set(state: Any) -> int:
        return 3

    with pytest.raises(VocabularyError, match="not a collection"):
        abstract(Vocabulary([not_a_set], [spot]), (0, False))

    @predicate("spot")
    def bool_for_unary(state: Any) -> bool:
        return True

    with pytest.raises(VocabularyError, match="returned a bool"):
        abstract(Vocabulary([bool_for_unary], [spot]), (0, False))

    @predicate_test("spot")
    def non_bool(state: Any, s: str) -> bool:
        return 1  # type: ignore[return-value]

    with pytest.raises(VocabularyError, match="not a bool"):
        abstract(Vocabulary([non_bool], [spot]), (0, False))


def test_malformed_vocabularies() -> None:
    @object_type(name="robot")
    def also_spots(state: Any) -> list[str]:
        return ["p0"]

    with pytest.raises(VocabularyError, match="two types"):
        Vocabulary([], [spot, also_spots]).objects((0, False))
    with pytest.raises(VocabularyError, match="not a declared type"):
        Vocabulary([at], [spot])
    with pytest.raises(VocabularyError, match="twice"):
        Vocabulary([at, at], [spot, robots])
    with pytest.raises(VocabularyError, match="belongs in types"):
        Vocabulary([spot], [])
    with pytest.raises(VocabularyError, match="not a type predicate"):
        Vocabulary([], [at])
    with pytest.raises(VocabularyError, match="must be letters"):
        Predicate("bad name", (), lambda s: True)
    with pytest.raises(VocabularyError, match="no predicate"):
        Vocabulary([], [spot])["missing"]


# --------------------------------------------------------------------------- refinement


@pytest.mark.parametrize("name", ["zelda", "cookmepasta", "escape", "snowman"])
def test_concretize_inverts_abstraction(name: str) -> None:
    game = make_game(name, 4, 5, seed=2)
    vocab = game_vocabulary(name)
    for state in random_walk(game, game.get_state(), 50, random.Random(4)):
        found = abstract(vocab, state)
        states = concretize(name, found, like=state)
        assert state in states
        assert len(set(states)) == len(states)
        for other in states:
            assert abstract(vocab, other) == found
        if name in ("zelda", "snowman"):
            assert states[0] == state and len(states) == 4  # the facing is not in the vocabulary
        plain = concretize(name, found)
        assert set(plain) == set(states)


def test_concretize_rejects_impossible_abstract_states() -> None:
    game = Snowman(level=">1g\n2.3\nk.d")
    vocab = snowman_vocabulary()
    found = abstract(vocab, game.get_state())
    assert concretize("snowman", found)
    middle_first = found | {Atom("placed", ("middle",))}
    assert concretize("snowman", middle_first) == []
    two_places = found | {Atom("at", ("player", "cell_1_1"))}
    assert concretize("snowman", two_places) == []
    no_cells = frozenset(a for a in found if a.predicate != "cell")
    assert concretize("snowman", no_cells) == []
    # a consistent-looking set that misses an atom the state would have (clear cell_1_1)
    assert concretize("snowman", found - {Atom("clear", ("cell_1_1",))}) == []
    with pytest.raises(InputError):
        concretize("pacman", found)


def test_concretize_zelda_from_a_waypoint_without_ganon() -> None:
    """The paper's example query: the same state without Ganon is a concrete state."""
    game = Zelda(level=">g#\nk.d")
    vocab = zelda_vocabulary()
    s = game.get_state()
    found = abstract(vocab, s)
    without = (found - atoms("at ganon cell_0_1", "alive ganon", "next_to ganon")) | atoms(
        "clear cell_0_1"
    )
    states = concretize("zelda", without, like=s)
    assert states and states[0] == game.step(s, "use")


def test_zelda_with_several_monsters() -> None:
    game = Zelda(6, 6, seed=3, monsters=3)
    s = game.get_state()
    vocab = zelda_vocabulary()
    assert vocab.objects(s)["ganon3"] == "monster"
    found = abstract(vocab, s)
    assert {a.args[0] for a in found if a.predicate == "alive"} == {"ganon", "ganon2", "ganon3"}
    plan = game.solve(s)
    assert plan is not None and plan.count("use") >= 5  # three monsters, the key, the door
    assert concretize("zelda", found, like=s)[0] == s
