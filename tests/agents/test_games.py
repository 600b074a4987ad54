"""Rules of the four games on hand-made tiny levels, plus properties every game must have."""

from __future__ import annotations

import pickle
import random
from collections import deque
from typing import Any

import pytest

from xaip.agents.envs import (
    GAMES,
    CookMePasta,
    Escape,
    GridGame,
    Snowman,
    Zelda,
    make_game,
)
from xaip.agents.envs._grid import FAR, NONE, Board
from xaip.agents.simulator import execute, random_walk
from xaip.errors import InputError


def cell(state: Any, row: int, col: int) -> int:
    return int(row * state.board.cols + col)


# --------------------------------------------------------------------------- Zelda

ZELDA = """
>g.
.#k
d..
"""


def test_zelda_use_facing_monster_kills_it() -> None:
    game = Zelda(level=ZELDA)
    s = game.get_state()
    assert s.monsters == (cell(s, 0, 1),)
    assert "use" in game.actions(s)
    s1 = game.step(s, "use")
    assert s1.monsters == (NONE,)
    assert s1.player == s.player and not s1.dead
    # Facing away from the monster, use does nothing.
    turned = game.step(s, "down")
    assert turned.facing == 1 and turned.player == s.player
    assert "use" not in game.actions(turned)
    assert game.step(turned, "use") == turned


def test_zelda_walking_into_monster_kills_link() -> None:
    game = Zelda(level=ZELDA)
    s = game.get_state()
    dead = game.step(s, "right")
    assert dead.dead and dead.player == cell(s, 0, 1)
    assert game.actions(dead) == ()
    assert all(game.step(dead, a) == dead for a in game.ACTIONS)
    assert not game.is_goal(dead)


def test_zelda_turn_then_move_and_blocking() -> None:
    game = Zelda(level=ZELDA)
    s = game.step(game.get_state(), "use")  # ganon defeated
    s = game.step(s, "right")  # now moves: facing right already
    assert s.player == cell(s, 0, 1)
    s = game.step(s, "right")
    assert s.player == cell(s, 0, 2)
    assert "right" not in game.actions(s)  # grid edge
    s = game.step(s, "down")  # turn only
    assert s.player == cell(s, 0, 2) and s.facing == 1
    assert "down" not in game.actions(s)  # the key blocks the way
    assert game.step(s, "down") == s


def test_zelda_picking_the_key_and_door_needs_key_and_victory() -> None:
    game = Zelda(level=ZELDA)
    s0 = game.get_state()
    # Link holds the key next to the door while Ganon lives.
    with_key_alive = Zelda.from_text("<g.\nd#.\n...\n; has_key=1")
    at_door = game.step(with_key_alive, "down")  # turn down toward the door
    assert at_door.facing == 1
    assert "use" not in game.actions(at_door)  # Ganon still alive: the door stays shut
    assert "down" not in game.actions(at_door)  # the door blocks movement

    s = game.step(s0, "use")  # defeat ganon
    for a in ("right", "right", "down"):
        s = game.step(s, a)
    assert "use" in game.actions(s)
    s = game.step(s, "use")
    assert s.has_key and s.key == NONE
    for a in ("down", "down", "left", "left"):
        s = game.step(s, a)
    assert s.player == cell(s, 2, 1) and s.facing == 2
    assert "use" in game.actions(s)
    won = game.step(s, "use")
    assert won.escaped and game.is_goal(won) and game.actions(won) == ()

    no_key = Zelda.from_text("...\n.#k\nd<.\n; defeated=1")
    assert "use" not in game.actions(no_key)
    assert game.step(no_key, "use") == no_key


def test_zelda_plan_is_shortest() -> None:
    game = Zelda(level=ZELDA)
    plan = game.solve(game.get_state())
    assert plan is not None
    # use, right, right, down(turn), use, down, down, left(turn), left, use
    assert len(plan) == 10
    assert game.is_goal(execute(game, game.get_state(), plan)[-1])


# --------------------------------------------------------------------------- Cook-Me-Pasta


def test_cookmepasta_water_into_pasta_cooks_it() -> None:
    game = CookMePasta(level="Abp.\n....")
    s = game.get_state()
    s1 = game.step(s, "right")
    assert s1.stage == 1 and s1.items[1] == NONE  # water used up
    assert s1.items[0] == cell(s, 0, 2)  # the pasta stays where it was
    assert s1.player == cell(s, 0, 1)
    # pushing the pasta into the water works too; the pasta ends on the water's cell
    s2 = game.step(CookMePasta.from_text("Apb.\n...."), "right")
    assert s2.stage == 1 and s2.items[0] == cell(s, 0, 2) and s2.items[1] == NONE


def test_cookmepasta_ingredients_combine_only_in_order() -> None:
    game = CookMePasta(level="A")  # any level; states come from text below
    # tuna + sauce -> cooked tuna
    s = game.step(CookMePasta.from_text("Ats."), "right")
    assert s.tuna_cooked and s.items[2] == NONE and s.items[3] == 2 and not s.ruined
    # raw pasta + tuna: wrong pair, ruined
    ruined = game.step(CookMePasta.from_text("Apt."), "right")
    assert ruined.ruined and ruined.items[0] == NONE and ruined.items[3] == NONE
    assert game.actions(ruined) == () and not game.is_goal(ruined)
    # cooked pasta + raw tuna is too early: ruined
    assert game.step(CookMePasta.from_text("APt."), "right").ruined
    # water + sauce: ruined
    assert game.step(CookMePasta.from_text("Abs."), "right").ruined
    # cooked pasta + cooked tuna: the meal
    meal = game.step(CookMePasta.from_text("APT."), "right")
    assert meal.stage == 2 and game.is_goal(meal) and meal.items[0] == 2
    assert game.actions(meal) == ()


def test_cookmepasta_pushing_is_blocked_by_walls_doors_keys_and_edges() -> None:
    game = CookMePasta(level="A")
    for level in ("Ap#", "Apd.", "Apk.", "Ap"):
        s = CookMePasta.from_text(level)
        assert "right" not in game.actions(s)
        assert game.step(s, "right") == s
    pushed = game.step(CookMePasta.from_text("Ap.."), "right")
    assert pushed.items[0] == 2 and pushed.player == 1


def test_cookmepasta_door_opens_only_with_key() -> None:
    game = CookMePasta(level="A")
    s = CookMePasta.from_text("Ad.")
    assert "right" not in game.actions(s)
    s = CookMePasta.from_text("Akd.")
    s = game.step(s, "right")
    assert s.has_key and s.key == NONE and s.player == 1
    s = game.step(s, "right")
    assert s.player == 2 and s.doors == frozenset() and s.has_key


# --------------------------------------------------------------------------- Escape


def test_escape_pushing_a_block_into_a_hole_fills_it() -> None:
    game = Escape(level="Abhg")
    s = game.get_state()
    s1 = game.step(s, "right")
    assert s1.blocks == frozenset() and s1.holes == frozenset()
    assert s1.player == 1
    s2 = game.step(game.step(s1, "right"), "right")
    assert game.is_goal(s2) and game.actions(s2) == ()
    assert len(game.solve(s) or ()) == 3


def test_escape_holes_kill_and_blocks_are_blocked() -> None:
    game = Escape(level="Ahg")
    dead = game.step(game.get_state(), "right")
    assert dead.dead and not game.is_goal(dead) and game.actions(dead) == ()
    for level in ("Abb.g", "Ab#g", "Abg", "Ab\n.g"):
        s = Escape.from_text(level)
        assert "right" not in game.actions(s)
    moved = game.step(Escape.from_text("Ab..g"), "right")
    assert moved.blocks == frozenset({2}) and moved.player == 1


# --------------------------------------------------------------------------- Snowman

SNOWMAN = """
>1.
23g
...
"""


def test_snowman_pick_and_place_in_order() -> None:
    game = Snowman(level=SNOWMAN)
    s = game.get_state()
    assert "right" not in game.actions(s)  # the bottom piece blocks the way (facing it)
    s = game.step(s, "use")
    assert s.held == 0 and s.pieces[0] == NONE
    down = game.step(s, "down")  # turns; the middle piece blocks the move
    assert down.facing == 1 and down.player == s.player
    assert "use" not in game.actions(down)  # one piece at a time
    for a in ("right", "right", "down"):
        s = game.step(s, a)
    assert s.player == cell(s, 0, 2) and s.facing == 1  # the goal cell is never entered
    s = game.step(s, "use")
    assert s.placed == 1 and s.held == NONE
    plan = game.solve(game.get_state())
    assert plan is not None
    assert game.is_goal(execute(game, game.get_state(), plan)[-1])


def test_snowman_pieces_stack_only_in_order() -> None:
    game = Snowman(level=SNOWMAN)
    # holding the middle piece next to the goal with nothing placed: cannot place it
    s = Snowman.from_text(">g.\n1.3\n; holding=middle")
    assert "use" not in game.actions(s)
    assert game.step(s, "use") == s
    # holding the bottom piece: placed
    s = Snowman.from_text(">g.\n..3\n2..\n; holding=bottom")
    s = game.step(s, "use")
    assert s.placed == 1 and s.held == NONE
    # then the top piece is still refused until the middle is placed
    top = Snowman.from_text(">g.\n2..\n; holding=top placed=1")
    assert "use" not in game.actions(top)
    middle = Snowman.from_text(">g.\n..3\n; holding=middle placed=1")
    middle = game.step(middle, "use")
    assert middle.placed == 2
    last = game.step(Snowman.from_text(">g.\n; holding=top placed=2"), "use")
    assert last.placed == 3 and game.is_goal(last) and game.actions(last) == ()


def test_snowman_holding_one_piece_at_a_time_and_dropping() -> None:
    game = Snowman(level=SNOWMAN)
    s = Snowman.from_text(">2.\n1.g\n...\n; holding=top")
    assert game.step(s, "use") == s  # facing a piece while holding one: nothing happens
    s = game.step(s, "down")  # turns down; the bottom piece below blocks the move
    assert s.player == 0 and s.facing == 1
    assert game.step(s, "use") == s
    free = Snowman.from_text("v2.\n..g\n1..\n; holding=top")
    dropped = game.step(free, "use")
    assert dropped.held == NONE and dropped.pieces[2] == 3  # the top piece now lies below
    assert game.step(dropped, "use").held == 2  # and can be picked up again


def test_snowman_goal_and_pieces_block_and_door_needs_key() -> None:
    game = Snowman(level=SNOWMAN)
    s = Snowman.from_text(">g\n12\n3.")
    assert game.step(s, "right") == s  # the goal cell is never entered
    s = Snowman.from_text(">d.\n1.g\n2.3")
    assert game.step(s, "right") == s  # a closed door without the key
    s = Snowman.from_text(">kd.\n1...\n2g3.")
    s = game.step(game.step(s, "right"), "right")
    assert s.has_key and s.player == 2 and s.doors == frozenset()


# --------------------------------------------------------------------------- all games

SIZES = {"zelda": (4, 5), "cookmepasta": (5, 5), "escape": (4, 5), "snowman": (4, 5)}


def walk_states(game: GridGame[Any], seed: int, steps: int = 40) -> list[Any]:
    return random_walk(game, game.get_state(), steps, random.Random(seed))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_step_is_pure_states_hashable_and_actions_exact(name: str) -> None:
    game = make_game(name, *SIZES[name], seed=3)
    current = game.get_state()
    for state in walk_states(game, 1):
        frozen = pickle.dumps(state)
        hash(state)
        for action in game.ACTIONS:
            nxt = game.step(state, action)
            hash(nxt)
            changed = nxt != state
            assert changed == (action in game.actions(state)), (action, game.render_text(state))
        assert pickle.loads(frozen) == state
        assert game.get_state() is current
        assert game.successors(state) == [(a, game.step(state, a)) for a in game.actions(state)]
    with pytest.raises(InputError):
        game.step(current, "jump")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_random_levels_are_deterministic_and_solvable(name: str) -> None:
    rows, cols = SIZES[name]
    for seed in range(4):
        a = make_game(name, rows, cols, seed=seed).get_state()
        b = make_game(name, rows, cols, seed=seed).get_state()
        assert a == b
        game = make_game(name, rows, cols, seed=seed)
        assert game.reset(seed) == a
        assert (a.board.rows, a.board.cols) == (rows, cols)
        plan = game.solve(a)
        assert plan is not None
        assert game.is_goal(execute(game, a, plan)[-1])
    levels = {make_game(name, rows, cols, seed=seed).get_state() for seed in range(6)}
    assert len(levels) > 1


@pytest.mark.parametrize("name", ["zelda", "cookmepasta", "snowman"])
def test_random_levels_have_about_twenty_percent_walls(name: str) -> None:
    for rows, cols in ((4, 5), (8, 8)):
        s = make_game(name, rows, cols, seed=0).get_state()
        assert len(s.board.walls) == round(0.2 * rows * cols)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_text_round_trip(name: str) -> None:
    game = make_game(name, *SIZES[name], seed=5)
    cls = type(game)
    for state in walk_states(game, 2, 60):
        assert cls.from_text(game.render_text(state)) == state


@pytest.mark.parametrize("name", sorted(GAMES))
def test_grid_too_small_is_a_clear_error(name: str) -> None:
    with pytest.raises(InputError, match="too small|at least"):
        make_game(name, 1, 2)
    with pytest.raises(InputError, match="too small"):
        make_game(name, 2, 2)


def test_unknown_game_and_bad_levels() -> None:
    with pytest.raises(InputError, match="unknown game"):
        make_game("pacman", 4, 4)
    with pytest.raises(InputError, match="unknown character"):
        Zelda.from_text(">gz\nd.k")
    with pytest.raises(InputError, match="exactly one Link"):
        Zelda.from_text("..g\nd.k")
    with pytest.raises(InputError, match="cells"):
        Escape.from_text("Abg\n..")


def true_distances(game: GridGame[Any], start: Any) -> dict[Any, int]:
    dist = {start: 0}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        for _, nxt in game.successors(s):
            if nxt not in dist:
                dist[nxt] = dist[s] + 1
                queue.append(nxt)
    return dist


@pytest.mark.parametrize("size", [(3, 4, 1), (4, 4, 3)])
@pytest.mark.parametrize("name", sorted(GAMES))
def test_distance_bounds_never_overestimate(name: str, size: tuple[int, int, int]) -> None:
    rows, cols, seed = size
    game = make_game(name, rows, cols, seed=seed)
    rng = random.Random(0)
    states = walk_states(game, 7, 10)
    for start in states[:: max(1, len(states) // 3)]:
        dist = true_distances(game, start)
        targets = rng.sample(sorted(dist, key=repr), min(300, len(dist)))
        for target in targets:
            bound = game.distance_lower_bound(start, target)  # type: ignore[attr-defined]
            assert bound <= dist[target]
        for state in targets[:50]:
            reach = true_distances(game, state)
            goal_dist = min((d for s, d in reach.items() if game.is_goal(s)), default=None)
            if goal_dist is not None:
                assert game.goal_lower_bound(state) <= goal_dist


def test_board_distances_go_around_walls() -> None:
    board = Board(3, 3, walls={1, 4})  # a wall down the middle of the top two rows
    assert board.distance(0, 2) == 6  # down, round the wall's end and back up
    assert board.manhattan(0, 2) == 2
    for a in board.free_cells():
        for b in board.free_cells():
            assert board.distance(a, b) >= board.manhattan(a, b)
            assert board.distance(a, b) == board.distance(b, a)
    sealed = Board(3, 3, walls={1, 4, 7})  # the middle column cuts the board in two
    assert sealed.distance(0, 2) == FAR
    assert sealed.distance(0, 1) == 1  # a wall cell: one more than its nearest neighbour
    assert sealed.distance(0, 7) == 3  # (0 -> 3 -> 6, then beside the wall at 7)



def test_pasta_bound_is_admissible_from_states_no_level_starts_in() -> None:
    """Discovery asks questions from states built from abstract descriptions, which can
    break the game's own invariants (water used up while the pasta is raw). The bound's
    dead-end reasoning must stay admissible from those starts too."""
    game = make_game("cookmepasta", 3, 4, seed=1)
    rng = random.Random(5)
    starts = []
    for state in walk_states(game, 2, 12)[::3]:
        items = list(state.items)
        items[rng.randrange(4)] = NONE
        starts.append(state._replace(items=tuple(items)))
        starts.append(state._replace(tuna_cooked=not state.tuna_cooked))
        starts.append(state._replace(stage=1 - min(state.stage, 1)))
        starts.append(state._replace(stage=2, tuna_cooked=False))
        # a door or the key on an ingredient's cell, as abstract descriptions allow
        cell = rng.choice([c for c in state.items if c != NONE])
        starts.append(state._replace(doors=state.doors | {cell}))
        starts.append(state._replace(key=cell, has_key=False))
    checked = 0
    for start in starts:
        dist = true_distances(game, start)
        for target in rng.sample(sorted(dist, key=repr), min(150, len(dist))):
            assert game.distance_lower_bound(start, target) <= dist[target]
            checked += 1
    assert checked > 100


def test_snowman_bound_is_admissible_from_states_no_level_starts_in() -> None:
    """As for Cook-Me-Pasta: made-up starts (a door on the key, the player on the snowman's
    cell or a door, the key already taken) must not make the bound overestimate."""
    game = make_game("snowman", 3, 4, seed=1)
    rng = random.Random(3)
    starts = []
    for state in walk_states(game, 4, 12)[::3]:
        free = [c for c in state.board.free_cells()
                if c not in state.pieces and c != state.goal and c != state.player]
        if state.key != NONE:
            starts.append(state._replace(doors=state.doors | {state.key}))
        starts.append(state._replace(player=state.goal))
        starts.append(state._replace(player=next(iter(state.doors), state.player)))
        starts.append(state._replace(key=NONE, has_key=True))
        starts.append(state._replace(key=rng.choice(free), has_key=False))
        starts.append(state._replace(doors=state.doors | {rng.choice(free)}))
    checked = 0
    for start in starts:
        dist = true_distances(game, start)
        for target in rng.sample(sorted(dist, key=repr), min(150, len(dist))):
            assert game.distance_lower_bound(start, target) <= dist[target], (start, target)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", sorted(GAMES))
def test_progress_estimates_are_defined_everywhere_and_never_below_the_bound(name: str) -> None:
    """The policy agent's measure of progress must not fail on any pair of states (made-up
    ones included) and agrees with the lower bound on what is unreachable."""
    game = make_game(name, 4, 5, seed=3)
    rng = random.Random(11)
    states = walk_states(game, 5, 60)
    if name == "snowman":
        states += [s._replace(held=i, pieces=tuple(NONE if j == i else c
                                                   for j, c in enumerate(s.pieces)))
                   for s in states[:10] for i in range(3)]
    for _ in range(300):
        start, goal = rng.choice(states), rng.choice(states)
        bound = game.distance_lower_bound(start, goal)  # type: ignore[attr-defined]
        estimate = game.progress_estimate(start, goal)  # type: ignore[attr-defined]
        assert estimate >= bound >= 0
        assert (estimate == 0) == (start == goal)


def test_policy_agents_win_zelda_and_snowman_levels() -> None:
    """With the progress estimates the bundled policy agent wins levels whose winning plan
    has dozens of actions (it is still myopic: no search beyond six actions)."""
    from xaip.capabilities.discovery import make_agent

    for name, size in (("zelda", (6, 7)), ("snowman", (6, 7))):
        game = make_game(name, *size, seed=0)
        start = game.get_state()
        plan = game.solve(start)
        assert plan is not None
        goal = execute(game, start, plan)[-1]
        attempt = make_agent(game, "policy").query(start, goal)
        assert attempt.reached and len(attempt.plan) >= len(plan)
