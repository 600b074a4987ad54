"""Searches and plan enumeration against brute force on small random tasks.

Ground truth comes from explicit state-space computations written here: Dijkstra for the
optimal cost, a backward Dijkstra for h*, and a depth-first enumeration of every action
sequence within a cost bound (stopping at the first goal state, the documented plan
definition of :mod:`xaip.planning.search.enumerate`).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

import pytest

from tests.planning.test_heuristics import goal_distances, random_task, reachable, successors
from xaip.errors import InputError
from xaip.planning.heuristics import make_heuristic
from xaip.planning.pddl.model import Atom
from xaip.planning.search import PlanResult, all_plans, best_first, solve, top_k_plans
from xaip.planning.task import GroundAction, Task, mask_of
from xaip.runtime import Budget

INF = math.inf
SEEDS = range(150)
UNIT = (1,)
POSITIVE = (1, 1, 2, 3)

# ----------------------------------------------------------------------------- brute force


def optimal_cost(task: Task) -> int | None:
    """Forward Dijkstra over the explicit state space."""
    best = {task.init: 0}
    heap = [(0, task.init)]
    while heap:
        g, state = heapq.heappop(heap)
        if g > best[state]:
            continue
        if task.is_goal(state):
            return g
        for _, child, cost in successors(task, state):
            if g + cost < best.get(child, INF):
                best[child] = g + cost
                heapq.heappush(heap, (g + cost, child))
    return None


class ZeroCycle(Exception):
    pass


def brute_force_plans(task: Task, bound: int) -> list[tuple[int, tuple[int, ...]]]:
    """Every (cost, action sequence) with cost <= bound ending at its first goal state.

    Sequences that cannot be completed within the bound (by the exact h*) are cut off.
    Raises ZeroCycle if an explored sequence closes a cycle of zero-cost actions: then
    infinitely many plans exist.
    """
    out: list[tuple[int, tuple[int, ...]]] = []
    hstar = goal_distances(task)

    def dfs(state: int, g: int, path: tuple[int, ...], segment: frozenset[int]) -> None:
        if task.is_goal(state):
            out.append((g, path))
            return
        for index, child, cost in successors(task, state):
            if g + cost + hstar[child] > bound:
                continue
            if cost == 0:
                if child in segment:
                    raise ZeroCycle
                dfs(child, g, (*path, index), segment | {child})
            else:
                dfs(child, g + cost, (*path, index), frozenset((child,)))

    dfs(task.init, 0, (), frozenset((task.init,)))
    return sorted(out)


def execute(task: Task, plan: Sequence[GroundAction]) -> bool:
    state = task.init
    for action in plan:
        if not action.applicable(state):
            return False
        state = action.apply(state)
    return task.is_goal(state)


def indices(task: Task, plan: Sequence[GroundAction]) -> tuple[int, ...]:
    position = {id(action): i for i, action in enumerate(task.actions)}
    return tuple(position[id(action)] for action in plan)


# ----------------------------------------------------------------------------- solve


@pytest.mark.parametrize("seed", SEEDS)
def test_optimal_searches_match_dijkstra(seed: int) -> None:
    task = random_task(seed)
    expected = optimal_cost(task)
    runs = [("astar", h) for h in ("blind", "hmax", "lmcut")] + [("ucs", "blind"), ("ucs", "hmax")]
    for algorithm, heuristic in runs:
        result = solve(task, algorithm, heuristic, Budget())
        if expected is None:
            assert result.status == "unsolvable", (algorithm, heuristic)
            assert result.plan == () and result.cost is None and not result.optimal
            continue
        assert result.status == "solved", (algorithm, heuristic)
        assert result.cost == expected, (algorithm, heuristic)
        assert result.optimal
        assert execute(task, result.plan)
        assert result.cost == sum(a.cost for a in result.plan)


@pytest.mark.parametrize("seed", SEEDS)
def test_bfs_optimal_on_unit_costs(seed: int) -> None:
    task = random_task(seed, costs=UNIT)
    expected = optimal_cost(task)
    for heuristic in ("blind", "hmax"):
        result = solve(task, "bfs", heuristic, Budget())
        if expected is None:
            assert result.status == "unsolvable"
        else:
            assert (result.status, result.cost, result.optimal) == ("solved", expected, True)
            assert execute(task, result.plan)


@pytest.mark.parametrize("seed", SEEDS)
def test_satisficing_searches_find_valid_plans(seed: int) -> None:
    task = random_task(seed)
    solvable = optimal_cost(task) is not None
    bfs_optimal = len({a.cost for a in task.actions}) <= 1
    for algorithm in ("gbfs", "ehc", "bfs"):
        for heuristic in ("blind", "hadd", "hff", "lmcut"):
            result = solve(task, algorithm, heuristic, Budget())
            assert result.status == ("solved" if solvable else "unsolvable")
            if solvable:
                assert execute(task, result.plan), (algorithm, heuristic)
                # The empty plan (goal true initially) is optimal whichever search found it.
                assert result.optimal == (algorithm == "bfs" and bfs_optimal
                                          or not result.plan)


@pytest.mark.parametrize("seed", SEEDS)
def test_cost_bound_is_strict(seed: int) -> None:
    task = random_task(seed)
    best = optimal_cost(task)
    if best is None:
        return
    runs = [
        ("astar", "lmcut"),
        ("astar", "hmax"),
        ("astar", "hff"),
        ("ucs", "blind"),
        ("gbfs", "hff"),
        ("gbfs", "lmcut"),
        ("ehc", "hff"),
        ("bfs", "blind"),
        ("bfs", "hmax"),
    ]
    for algorithm, heuristic in runs:
        found = solve(task, algorithm, heuristic, Budget(), cost_bound=best + 1)
        assert found.status == "solved", (algorithm, heuristic)
        assert found.cost == best and execute(task, found.plan)
        none = solve(task, algorithm, heuristic, Budget(), cost_bound=best)
        assert none.status == "unsolvable", (algorithm, heuristic)


def _chain(length: int, trap: int = 0) -> Task:
    """f0 -> f1 -> ... -> f_length (goal); with ``trap``, an action from f0 into a dead
    region of ``trap`` states that can never reach the goal."""
    facts = [Atom(f"f{i}") for i in range(length + 1)]
    actions = [
        GroundAction(f"step{i}", (), pre=1 << i, add=1 << (i + 1), delete=1 << i)
        for i in range(length)
    ]
    if trap:
        base = len(facts)
        facts += [Atom(f"t{i}") for i in range(trap)]
        actions.append(GroundAction("fall", (), pre=1, add=1 << base, delete=1))
        actions += [
            GroundAction(
                f"t{i}", (), pre=1 << (base + i), add=1 << (base + i + 1), delete=1 << (base + i)
            )
            for i in range(trap - 1)
        ]
    return Task("chain", tuple(facts), tuple(actions), init=1, goal=1 << length)


def test_budget_exhaustion() -> None:
    task = _chain(6)
    for algorithm in ("astar", "ucs", "gbfs", "ehc", "bfs"):
        result = solve(task, algorithm, "blind", Budget(max_nodes=2))
        assert result.status == "budget_exhausted", algorithm
        assert result.plan == () and result.cost is None and not result.optimal
        assert result.expanded <= 2
        assert solve(task, algorithm, "blind", Budget(max_nodes=100)).cost == 6


def test_dead_ends_are_pruned() -> None:
    task = _chain(3, trap=20)
    blind = solve(task, "astar", "blind", Budget())
    hmax = solve(task, "astar", "hmax", Budget())
    assert blind.cost == hmax.cost == 3
    assert hmax.expanded == 3  # f0, f1, f2: the trap state gets h = inf and is never queued
    assert blind.expanded > hmax.expanded
    gbfs = solve(task, "gbfs", "hff", Budget())
    assert gbfs.expanded == 3


def test_unsolvable_tasks() -> None:
    # relaxed-unreachable goal: every heuristic proves it at the root
    facts = (Atom("a"), Atom("b"), Atom("c"))
    move = GroundAction("move", (), pre=0b001, add=0b010, delete=0b001)
    task = Task("no", facts, (move,), init=0b001, goal=0b100)
    for algorithm in ("astar", "ucs", "gbfs", "ehc", "bfs"):
        for heuristic in ("blind", "hmax", "hff", "lmcut"):
            assert solve(task, algorithm, heuristic, Budget()).status == "unsolvable"
    # relaxed-reachable but really unsolvable (needs a and b together; deletes forbid it)
    back = GroundAction("back", (), pre=0b010, add=0b001, delete=0b010)
    both = GroundAction("both", (), pre=0b011, add=0b100, delete=0)
    task = Task("no2", facts, (move, back, both), init=0b001, goal=0b100)
    assert make_heuristic("lmcut", task)(task.init) < INF
    for algorithm in ("astar", "ucs", "gbfs", "ehc", "bfs"):
        result = solve(task, algorithm, "lmcut", Budget())
        assert result.status == "unsolvable"
        assert result.expanded >= 1


def test_deterministic_and_serialisable() -> None:
    for seed in range(20):
        task = random_task(seed)
        copy = random_task(seed)
        for algorithm, heuristic in (("astar", "lmcut"), ("gbfs", "hff"), ("ehc", "hff")):
            first = solve(task, algorithm, heuristic, Budget())
            second = solve(copy, algorithm, heuristic, Budget())
            assert indices(task, first.plan) == indices(copy, second.plan)
            assert first.status == second.status
    result = solve(_chain(2), "astar", "lmcut", Budget())
    assert isinstance(result, PlanResult)
    data = result.to_dict()
    assert data["plan"] == ["(step0)", "(step1)"]
    assert data["status"] == "solved" and data["optimal"] is True and data["cost"] == 2
    with pytest.raises(AttributeError):
        result.cost = 3  # type: ignore[misc]


def test_bad_names_and_costs() -> None:
    task = _chain(2)
    with pytest.raises(InputError, match="unknown search"):
        solve(task, "dfs", "blind", Budget())
    with pytest.raises(InputError, match="unknown heuristic"):
        solve(task, "astar", "h2", Budget())
    negative = Task("neg", task.facts, (GroundAction("x", (), 1, 2, 1, cost=-1),), 1, 2)
    with pytest.raises(InputError, match="negative cost"):
        solve(negative, "astar", "blind", Budget())


def test_astar_reopens_with_inconsistent_heuristic() -> None:
    """A* must stay optimal with an admissible but inconsistent heuristic."""
    # s0 -1-> s1 -1-> s3 -5-> s4 (cost 7) and s0 -1-> s2 -3-> s3 (cost 9 overall)
    facts = tuple(Atom(f"s{i}") for i in range(5))

    def edge(name: str, a: int, b: int, cost: int) -> GroundAction:
        return GroundAction(name, (), pre=1 << a, add=1 << b, delete=1 << a, cost=cost)

    actions = (
        edge("a", 0, 1, 1),
        edge("b", 1, 3, 1),
        edge("c", 0, 2, 1),
        edge("d", 2, 3, 3),
        edge("e", 3, 4, 5),
    )
    task = Task("reopen", facts, actions, init=1, goal=1 << 4)
    # admissible (h(s1) = 6 = h*(s1)) but inconsistent (h(s3) = 0): s3 is first closed via
    # s2 with g = 4 and must be re-opened when s1 reaches it with g = 2
    values = {1: 0, 2: 6, 4: 0, 8: 0, 16: 0}
    result = best_first(task, values.__getitem__, Budget().start(), "astar", admissible=True)
    assert sum(task.actions[i].cost for i in result.plan) == 7


# ----------------------------------------------------------------------------- enumeration


def _listed(task: Task, plans: Sequence[Sequence[GroundAction]]) -> list[tuple[int, ...]]:
    return [indices(task, plan) for plan in plans]


@pytest.mark.parametrize("seed", SEEDS)
def test_all_plans_matches_brute_force(seed: int) -> None:
    task = random_task(seed, costs=POSITIVE if seed % 3 else (0, 1, 2))
    best = optimal_cost(task)
    bound = 4 if best is None else best + 2
    try:
        expected = brute_force_plans(task, bound)
    except ZeroCycle:
        with pytest.raises(InputError, match="infinitely many plans"):
            all_plans(task, bound, Budget())
        return
    result = all_plans(task, bound, Budget())
    assert result.status == "complete"
    assert list(zip(result.costs, _listed(task, result.plans), strict=True)) == expected
    assert all(execute(task, plan) for plan in result.plans)
    if len(expected) > 2:
        some = all_plans(task, bound, Budget(), max_plans=2)
        assert some.status == "truncated"
        assert _listed(task, some.plans) == [plan for _, plan in expected[:2]]


@pytest.mark.parametrize("seed", SEEDS)
def test_top_k_matches_brute_force(seed: int) -> None:
    task = random_task(seed, costs=POSITIVE if seed % 3 else (0, 1, 2))
    k = 1 + seed % 7
    best = optimal_cost(task)
    try:
        result = top_k_plans(task, k, Budget())
    except InputError as error:  # infinitely many plans of some cost among the k cheapest
        assert "infinitely many plans" in str(error)
        assert best is not None
        with pytest.raises(ZeroCycle):
            for bound in range(best, best + 100):
                brute_force_plans(task, bound)
        return
    assert result.status == "complete"
    if best is None:
        assert result.plans == ()
        return
    # all plans within a bound large enough to hold the k cheapest (or every plan: a plan
    # longer than the reachable states revisits a state, so infinitely many plans exist)
    limit = len(reachable(task)) * max(a.cost for a in task.actions) + 1
    expected: list[tuple[int, tuple[int, ...]]] = []
    try:
        for bound in range(best, limit + 1):
            expected = brute_force_plans(task, bound)
            if len(expected) >= k:
                break
    except ZeroCycle:
        # infinitely many plans exist, but not (or not before) the k-th in our order
        assert len(result.plans) == k and result.costs[0] == best
        assert list(result.costs) == sorted(result.costs)
        assert all(execute(task, plan) for plan in result.plans)
        assert (
            list(zip(result.costs, _listed(task, result.plans), strict=True))[: len(expected)]
            == expected[:k]
        )
        return
    expected = expected[:k]
    assert list(zip(result.costs, _listed(task, result.plans), strict=True)) == expected


def test_all_optimal_plans_and_empty_plan() -> None:
    # two symmetric ways to reach the goal, plus one costlier
    facts = (Atom("s"), Atom("a"), Atom("b"), Atom("g"))
    acts = (
        GroundAction("x", (), 0b0001, 0b0010, 0b0001),
        GroundAction("y", (), 0b0001, 0b0100, 0b0001),
        GroundAction("gx", (), 0b0010, 0b1000, 0b0010),
        GroundAction("gy", (), 0b0100, 0b1000, 0b0100),
        GroundAction("direct", (), 0b0001, 0b1000, 0b0001, cost=5),
    )
    task = Task("two", facts, acts, init=0b0001, goal=0b1000)
    optimal = all_plans(task, None, Budget())
    assert optimal.status == "complete" and optimal.bound == 2
    assert [[a.name for a in p] for p in optimal.plans] == [["x", "gx"], ["y", "gy"]]
    assert all_plans(task, 5, Budget()).costs == (2, 2, 5)
    assert all_plans(task, 1, Budget()).plans == ()
    assert top_k_plans(task, 10, Budget()).costs == (2, 2, 5)
    assert top_k_plans(task, 0, Budget()).plans == ()
    done = Task("done", facts, acts, init=0b1000, goal=0b1000)
    assert all_plans(done, 3, Budget()).plans == ((),)
    assert top_k_plans(done, 3, Budget()).costs == (0,)
    data = top_k_plans(task, 1, Budget()).to_dict()
    assert data["plans"] == [["(x)", "(gx)"]] and data["status"] == "complete"


def test_zero_cost_cycles_raise_only_when_relevant() -> None:
    facts = (Atom("s"), Atom("t"), Atom("g"), Atom("d"), Atom("e"))
    flip = GroundAction("flip", (), 0b00001, 0b00010, 0b00001, cost=0)
    goal = GroundAction("goal", (), 0b00010, 0b00100, 0b00010, cost=1)
    flop = GroundAction("flop", (), 0b00010, 0b00001, 0b00010, cost=0)
    task = Task("cycle", facts, (flip, goal, flop), init=0b00001, goal=0b00100)
    with pytest.raises(InputError, match="infinitely many plans"):
        all_plans(task, 1, Budget())
    with pytest.raises(InputError, match="infinitely many plans"):
        top_k_plans(task, 3, Budget())
    # the first plan in (cost, actions) order is still well defined
    assert [[a.name for a in p] for p in top_k_plans(task, 1, Budget()).plans] == [["flip", "goal"]]
    # a zero-cost cycle in a region that is relaxed-reachable but dead does not matter
    into = GroundAction("into", (), 0b00001, 0b01000, 0b00001, cost=0)
    half = GroundAction("half", (), 0b01000, 0b10000, 0b01000, cost=0)
    back = GroundAction("back", (), 0b10000, 0b01000, 0b10000, cost=0)
    join = GroundAction("join", (), 0b11000, 0b00100, 0, cost=1)
    fine = Task(
        "dead-cycle", facts, (flip, goal, into, half, back, join), init=0b00001, goal=0b00100
    )
    assert make_heuristic("lmcut", fine)(0b01000) == 1
    assert [[a.name for a in p] for p in all_plans(fine, 3, Budget()).plans] == [["flip", "goal"]]
    assert len(top_k_plans(fine, 4, Budget()).plans) == 1


def test_enumeration_budget() -> None:
    task = _chain(8)
    partial = all_plans(task, 20, Budget(max_nodes=3))
    assert partial.status == "budget_exhausted" and partial.plans == ()
    assert top_k_plans(task, 2, Budget(max_nodes=3)).status == "budget_exhausted"
    assert all_plans(task, 20, Budget()).costs == (8,)


def test_blocksworld_lmcut_matches_uniform_cost() -> None:
    """A structured task: 4 blocks, all reversals of a tower (A* LM-cut vs UCS vs h*)."""
    blocks = ["a", "b", "c", "d"]
    facts = [Atom("handempty")] + [
        Atom(p, (x,)) for p in ("clear", "ontable", "holding") for x in blocks
    ]
    facts += [Atom("on", (x, y)) for x in blocks for y in blocks if x != y]
    index = {f: i for i, f in enumerate(facts)}

    def m(*atoms: tuple[str, ...]) -> int:
        return mask_of(index[Atom(a[0], a[1:])] for a in atoms)

    actions = []
    for x in blocks:
        hold = m(("clear", x), ("ontable", x), ("handempty",))
        actions.append(GroundAction("pick-up", (x,), hold, m(("holding", x)), hold))
        actions.append(GroundAction("put-down", (x,), m(("holding", x)), hold, m(("holding", x))))
        for y in blocks:
            if x != y:
                actions.append(
                    GroundAction(
                        "stack",
                        (x, y),
                        m(("holding", x), ("clear", y)),
                        m(("on", x, y), ("clear", x), ("handempty",)),
                        m(("holding", x), ("clear", y)),
                    )
                )
                actions.append(
                    GroundAction(
                        "unstack",
                        (x, y),
                        m(("on", x, y), ("clear", x), ("handempty",)),
                        m(("holding", x), ("clear", y)),
                        m(("on", x, y), ("clear", x), ("handempty",)),
                    )
                )
    init = m(
        ("handempty",),
        ("ontable", "a"),
        ("on", "b", "a"),
        ("on", "c", "b"),
        ("on", "d", "c"),
        ("clear", "d"),
    )
    goal = m(("on", "a", "b"), ("on", "b", "c"), ("on", "c", "d"))
    task = Task("bw4", tuple(facts), tuple(actions), init=init, goal=goal)
    hstar = goal_distances(task)
    lmcut = solve(task, "astar", "lmcut", Budget())
    assert lmcut.cost == solve(task, "ucs", "blind", Budget()).cost == hstar[init] == 8
    assert execute(task, lmcut.plan) and lmcut.optimal
    h = make_heuristic("lmcut", task)
    assert all(h(s) <= d for s, d in hstar.items())
    assert solve(task, "astar", "lmcut", Budget()).plan == lmcut.plan
