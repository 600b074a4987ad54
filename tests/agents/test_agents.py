"""Search and policy agents: optimal plans (checked against plain BFS), failures with reasons."""

from __future__ import annotations

import random
from typing import Any

import pytest

from xaip.agents import (
    AgentTask,
    AnyOf,
    PolicyAgent,
    SearchAgent,
    astar,
    bfs,
    execute,
    greedy_policy,
    random_walk,
    representative,
)
from xaip.agents.envs import GAMES, Snowman, Zelda, make_game
from xaip.agents.envs._grid import NONE
from xaip.errors import InputError
from xaip.runtime.budget import Budget

SIZES = {"zelda": (4, 5), "cookmepasta": (5, 5), "escape": (4, 5), "snowman": (4, 5)}


def query_pairs(game: Any, seed: int, count: int) -> list[tuple[Any, Any]]:
    """Random (start, goal) pairs with the goal a random walk away from the start."""
    rng = random.Random(seed)
    states = random_walk(game, game.get_state(), 30, rng)
    pairs = []
    for _ in range(count):
        start = rng.choice(states)
        goal = random_walk(game, start, rng.randint(0, 12), rng)[-1]
        pairs.append((start, goal))
    return pairs


@pytest.mark.parametrize("name", sorted(GAMES))
def test_search_agent_finds_optimal_plans(name: str) -> None:
    game = make_game(name, *SIZES[name], seed=2)
    agent = SearchAgent(game)
    assert agent.heuristic is not None  # the games' admissible bounds are used
    for start, goal in query_pairs(game, 1, 25):
        reference = bfs(game, start, goal)
        assert reference.reached
        plan = agent.reachable(start, goal)
        assert plan is not None
        assert len(plan) == len(reference.plan)
        assert execute(game, start, plan)[-1] == goal
        attempt = agent.query(start, goal)
        assert attempt.states[0] == start and attempt.states[-1] == goal
        assert list(attempt.states) == execute(game, start, attempt.plan)


def test_astar_without_heuristic_and_bfs_agent_agree() -> None:
    game = make_game("escape", 4, 5, seed=4)
    bfs_agent = SearchAgent(game, algorithm="bfs")
    for start, goal in query_pairs(game, 3, 15):
        blind = astar(game, start, goal)
        assert blind.reached
        assert len(blind.plan) == len(bfs_agent.reachable(start, goal) or ())


def test_goal_as_a_test_and_run() -> None:
    game = Zelda(level=">g.\n.#k\nd..")
    agent = SearchAgent(game)
    start = game.get_state()
    attempt = agent.run(AgentTask(start, game.is_goal, name="win"))
    assert attempt.reached and len(attempt.plan) == 10
    assert game.is_goal(attempt.states[-1])
    assert attempt.to_dict()["length"] == 10
    assert agent.reachable(start, start) == ()


def test_unreachable_and_budget_are_reported() -> None:
    game = Zelda(level=">g.\n.#k\nd..")
    start = game.get_state()
    agent = SearchAgent(game)
    # Once Link holds the key it never lies on the board again.
    has_key = start._replace(key=-1)
    attempt = agent.query(has_key, start)
    assert attempt.status == "unreachable" and attempt.plan == () and attempt.reason
    assert agent.reachable(has_key, start) is None
    assert SearchAgent(game, algorithm="bfs").query(has_key, start).status == "unreachable"
    tiny = agent.query(start, game.is_goal, Budget(max_nodes=3))
    assert tiny.status == "budget" and "3 nodes" in tiny.reason
    with pytest.raises(InputError):
        SearchAgent(game, algorithm="dfs")  # type: ignore[arg-type]


def _blind(_state: Any, _goal: Any) -> int:
    return 0


def test_search_memory_gives_the_answers_of_a_fresh_search() -> None:
    """The remembered reachable sets only ever answer "unreachable", and only when a fresh
    search (no memory) says the same."""
    remembered = 0
    for name in sorted(GAMES):
        game = make_game(name, 3, 4, seed=5)
        rng = random.Random(7)
        states = random_walk(game, game.get_state(), 40, rng)
        budget = Budget(max_nodes=300_000)
        fresh = SearchAgent(game, memory=0, budget=budget, heuristic=_blind)
        remembering = SearchAgent(game, budget=budget, heuristic=_blind)
        bounded = SearchAgent(game, budget=budget)  # prunes what the game's bound rules out
        for _ in range(30):
            start, goal = rng.choice(states), rng.choice(states)
            truth = fresh.query(start, goal)
            answer = remembering.query(start, goal)
            assert answer.status == truth.status
            assert len(answer.plan) == len(truth.plan)
            pruned = bounded.query(start, goal)
            assert pruned.status == truth.status
            assert len(pruned.plan) == len(truth.plan)
            if "earlier search" in answer.reason:
                remembered += 1
                assert answer.nodes == 0
        assert not fresh._exhausted  # memory=0 keeps nothing
        assert remembering._remembered <= remembering.memory
    assert remembered > 0  # the memory answered some questions without searching


def test_search_memory_answers_from_a_state_inside_an_earlier_search() -> None:
    game = Zelda(level=">g.\n.#k\nd..")
    start = game.get_state()
    agent = SearchAgent(game, heuristic=_blind)  # no bound: only the memory saves work
    has_key = start._replace(key=-1)
    first = agent.query(has_key, start)
    assert first.status == "unreachable" and first.nodes > 0
    # one step on: still inside what the first search reached, so no new search
    later = game.step(has_key, game.actions(has_key)[0])
    again = agent.query(later, start)
    assert again.status == "unreachable" and again.nodes == 0
    # goal tests are checked against the remembered states too
    assert agent.query(later, lambda s: s == start).nodes == 0
    assert agent.query(later, game.is_goal).reached
    agent.forget()
    assert agent.query(later, start).nodes > 0
    # with the game's bound the question needs no search at all (the key never returns)
    ruled_out = SearchAgent(game).query(has_key, start)
    assert ruled_out.status == "unreachable" and ruled_out.nodes == 0
    assert "bound" in ruled_out.reason
    with pytest.raises(InputError):
        SearchAgent(game, memory=-1)
    # a memory too small for a reachable set keeps nothing
    small = SearchAgent(game, memory=2, heuristic=_blind)
    small.query(has_key, start)
    assert small.query(later, start).nodes > 0


def test_policy_agent_follows_greedy_policy_and_fails_on_detours() -> None:
    zelda = Zelda(level=">....\n.###.\n..g..\n.k..d")
    start = zelda.get_state()
    ahead = start._replace(player=4)
    attempt = PolicyAgent(zelda, greedy_policy(zelda)).query(start, ahead)
    assert attempt.reached and attempt.plan == ("right",) * 4

    escape = make_game("escape", 3, 3, seed=0)
    greedy = PolicyAgent(escape, greedy_policy(escape))
    # walls never fool it: its distances go around them
    walled = escape.from_text("A.#..\n..#..\n.....\n....g")
    behind = walled._replace(player=3)  # (0, 3): just behind the wall
    around = greedy.query(walled, behind)
    assert around.reached and len(around.plan) == 7
    # a block does: the policy walks straight at (0, 4), pushes the block along and
    # gets stuck, where a search goes round the block
    level = escape.from_text("A.b..\n.....\n....g")
    target = level._replace(player=4)
    failed = greedy.query(level, target)
    assert failed.status == "stuck" and failed.reason
    assert failed.states[0] == level and failed.states[-1] != target
    plan = SearchAgent(escape).reachable(level, target)
    assert plan is not None and len(plan) == 6
    # the same policy reaches targets in plain sight
    assert greedy.query(level, level._replace(player=10)).reached  # (2, 0)


def test_policy_agent_failure_modes() -> None:
    game = Zelda(level=">g.\n.#k\nd..")
    start = game.get_state()
    goal = start._replace(player=5)
    assert PolicyAgent(game, lambda s, g: None).query(start, goal).status == "stuck"
    # "up" turns Link up once; then "up" walks into the grid edge, which is not applicable
    bad = PolicyAgent(game, lambda s, g: "up").query(start, goal)
    assert bad.status == "stuck" and "not applicable" in bad.reason and bad.plan == ("up",)

    def spin(state: Any, _goal: Any) -> str:
        return "down" if state.facing != 1 else "up"

    looped = PolicyAgent(game, spin).query(start, goal)
    assert looped.status == "loop" and looped.plan == ("down", "up", "down")
    capped = PolicyAgent(game, spin, budget=Budget(max_nodes=1)).query(start, goal)
    assert capped.status == "budget"
    # goals given as tests have no distance: the greedy policy gives up at once
    assert PolicyAgent(game, greedy_policy(game)).query(start, game.is_goal).status == "stuck"
    with pytest.raises(InputError):
        greedy_policy(game, lookahead=0)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_greedy_policy_plans_are_valid_and_never_shorter_than_optimal(name: str) -> None:
    game = make_game(name, *SIZES[name], seed=6)
    agent = PolicyAgent(game, greedy_policy(game))
    reached = 0
    for start, goal in query_pairs(game, 5, 20):
        attempt = agent.query(start, goal)
        assert list(attempt.states) == execute(game, start, attempt.plan)
        if attempt.reached:
            reached += 1
            assert len(attempt.plan) >= len(bfs(game, start, goal).plan)
    assert reached > 0


def test_random_walk_is_deterministic() -> None:
    game = make_game("snowman", 4, 5, seed=1)
    a = random_walk(game, game.get_state(), 25, 7)
    b = random_walk(game, game.get_state(), 25, random.Random(7))
    assert a == b and len(a) == 26


def test_any_of_goal_is_met_by_the_nearest_member() -> None:
    """Putting the top piece down on the left and ending up facing right is impossible
    here (turning right walks on), but the same place facing left is three actions away:
    an AnyOf goal over the facings is reached, at the member the search found."""
    game = Snowman(level="1.>..\n2#..g\nk.d..\n; holding=top placed=0 has_key=0")
    start = game.get_state()
    down = start._replace(pieces=(0, 5, 1), held=NONE)
    agent = SearchAgent(game)
    assert agent.query(start, down).status == "unreachable"
    variants = AnyOf(tuple(down._replace(facing=f) for f in (3, 0, 1, 2)))
    attempt = agent.query(start, variants)
    assert attempt.reached and attempt.plan == ("right", "left", "use")
    assert attempt.states[-1] in variants and attempt.states[-1].facing == 2
    assert representative(variants) == down
    heuristic = agent.heuristic
    assert heuristic is not None
    assert heuristic(start, variants) == min(heuristic(start, v) for v in variants.states)
    # breadth-first search and the memory understand AnyOf goals too
    assert SearchAgent(game, algorithm="bfs").query(start, variants).reached
    blind = SearchAgent(game, heuristic=_blind)
    assert blind.query(start, down).status == "unreachable"
    assert blind.query(start, variants).reached  # the remembered set holds a member
    with pytest.raises(InputError):
        AnyOf(())


def test_greedy_policy_escapes_shallow_minima_and_commits_per_query() -> None:
    zelda = Zelda(level=".k.#d\n....^\ng..##\n#....\n; has_key=0 escaped=0")
    start = zelda.get_state()
    target = start._replace(player=8, facing=3)  # one cell left, but facing right
    assert not PolicyAgent(zelda, greedy_policy(zelda)).query(start, target).reached
    agent = PolicyAgent(zelda, greedy_policy(zelda, escape=6))
    attempt = agent.query(start, target)
    assert attempt.reached and len(attempt.plan) == 4
    assert execute(zelda, start, attempt.plan)[-1] == target
    # the same question gets the same answer: commitments do not leak between queries
    assert agent.query(start, start._replace(player=8, facing=2)).reached
    assert agent.query(start, target).plan == attempt.plan
    with pytest.raises(InputError):
        greedy_policy(zelda, lookahead=0)
