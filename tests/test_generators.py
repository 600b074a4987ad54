"""Tests of the benchmark generators and the bundled example files.

The oracle is brute force: every generated problem is read with our PDDL reader, grounded,
and searched exhaustively by a breadth-first search written here, so "solvable" and
"optimal length" never come from the code under test. Fast Downward (when installed)
cross-checks the optimal costs.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path

import pytest

from xaip.demo import example_paths
from xaip.domains import (
    BLOCKSWORLD_DOMAIN,
    GRIPPER_DOMAIN,
    LOGISTICS_DOMAIN,
    blocksworld,
    gripper,
    gripper_optimal_length,
    logistics,
    random_towers,
)
from xaip.domains.generators import _lah
from xaip.planning.engines.fast_downward import fd_available, fd_solve
from xaip.planning.grounding import ground
from xaip.planning.pddl import check_problem, parse_domain, parse_problem
from xaip.planning.task import Task

BUNDLED = Path(__file__).resolve().parents[1] / "src" / "xaip" / "domains" / "blocksworld"


def bfs_length(task: Task, limit: int = 200_000) -> int | None:
    """Length of a shortest plan by exhaustive BFS; ``None`` when the goal is unreachable."""
    if task.is_goal(task.init):
        return 0
    depth = {task.init: 0}
    queue = deque([task.init])
    while queue:
        state = queue.popleft()
        for action in task.applicable(state):
            nxt = action.apply(state)
            if nxt in depth:
                continue
            depth[nxt] = depth[state] + 1
            if task.is_goal(nxt):
                return depth[nxt]
            assert len(depth) < limit, "state space larger than a test should explore"
            queue.append(nxt)
    return None


def grounded(domain_text: str, problem_text: str) -> Task:
    domain = parse_domain(domain_text)
    problem = parse_problem(problem_text)
    check_problem(domain, problem)
    return ground(domain, problem)


def atoms(text: str, section: str) -> list[tuple[str, ...]]:
    """The atoms of the ``(:init`` or ``(:goal`` section of a generated problem."""
    start = text.index(f"(:{section}")
    end = text.index("(:goal") if section == "init" else len(text)
    return [tuple(m.split()) for m in re.findall(r"\(([a-z][^()]*)\)", text[start:end])]


# --------------------------------------------------------------------------- determinism


@pytest.mark.parametrize(
    "make",
    [
        lambda seed: blocksworld(6, seed),
        lambda seed: logistics(3, 4, seed),
        lambda seed: logistics(2, 3, seed, locations_per_city=3, n_trucks=3, n_airplanes=2),
    ],
)
def test_same_seed_same_text_and_seeds_differ(make: Callable[[int], tuple[str, str]]) -> None:
    texts = [make(seed) for seed in range(8)]
    assert texts == [make(seed) for seed in range(8)]
    assert len({problem for _, problem in texts}) > 1


def test_gripper_is_a_function_of_its_size() -> None:
    assert gripper(5) == gripper(5)
    assert gripper(5)[0] == GRIPPER_DOMAIN
    assert len(atoms(gripper(5)[1], "goal")) == 5


def test_arguments_are_checked() -> None:
    with pytest.raises(ValueError):
        blocksworld(0)
    with pytest.raises(TypeError):
        blocksworld(3.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        gripper(0)
    with pytest.raises(ValueError, match="truck"):
        logistics(3, 2, n_trucks=2)
    with pytest.raises(ValueError, match="airplane"):
        logistics(2, 2, n_airplanes=0)
    # Without non-airport places trucks are not needed; with one city no airplane is.
    logistics(3, 2, locations_per_city=1, n_trucks=0)
    logistics(1, 2, n_airplanes=0)


# --------------------------------------------------------------------------- blocksworld states


def all_states(blocks: list[str]) -> set[frozenset[tuple[str, ...]]]:
    """Every blocksworld state of ``blocks`` by brute force: set partitions x tower orders."""
    states: set[frozenset[tuple[str, ...]]] = set()
    for labels in itertools.product(range(len(blocks)), repeat=len(blocks)):
        groups: dict[int, list[str]] = {}
        for block, label in zip(blocks, labels, strict=True):
            groups.setdefault(label, []).append(block)
        for orders in itertools.product(*(itertools.permutations(g) for g in groups.values())):
            states.add(frozenset(orders))
    return states


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_lah_numbers_count_the_states(n: int) -> None:
    blocks = [f"b{i}" for i in range(n)]
    assert sum(_lah(n, k) for k in range(1, n + 1)) == len(all_states(blocks))


def test_random_towers_is_uniform_over_all_states() -> None:
    blocks = ["a", "b", "c"]
    states = all_states(blocks)  # 13 states
    rng = random.Random(7)
    draws = 13_000
    counts = Counter(frozenset(map(tuple, random_towers(blocks, rng))) for _ in range(draws))
    assert set(counts) == states
    expected = draws / len(states)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 40  # 12 degrees of freedom: p < 1e-4 for a uniform sampler


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [1, 2, 4, 7])
def test_blocksworld_states_are_consistent(n: int, seed: int) -> None:
    domain, problem = blocksworld(n, seed)
    assert domain == BLOCKSWORLD_DOMAIN
    blocks = {f"b{i}" for i in range(1, n + 1)}
    init = atoms(problem, "init")
    assert ("handempty",) in init
    below = {a[1]: a[2] for a in init if a[0] == "on"}
    on_table = {a[1] for a in init if a[0] == "ontable"}
    clear = {a[1] for a in init if a[0] == "clear"}
    assert set(below) | on_table == blocks and not set(below) & on_table
    assert clear == blocks - set(below.values())
    assert len(set(below.values())) == len(below)  # at most one block on each block
    goal = atoms(problem, "goal")
    goal_below = {a[1]: a[2] for a in goal if a[0] == "on"}
    goal_table = {a[1] for a in goal if a[0] == "ontable"}
    assert set(goal_below) | goal_table == blocks
    if n > 1:
        assert (goal_below, goal_table) != (below, on_table)


# --------------------------------------------------------------------------- solvability


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_blocksworld_reachable(n: int, seed: int) -> None:
    task = grounded(*blocksworld(n, seed))
    length = bfs_length(task)
    assert length is not None
    assert (length == 0) == (n == 1)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_gripper_optimal_length_matches_bfs(n: int) -> None:
    assert bfs_length(grounded(*gripper(n))) == gripper_optimal_length(n)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_cities": 1, "n_packages": 2},
        {"n_cities": 2, "n_packages": 2},
        {"n_cities": 2, "n_packages": 1, "locations_per_city": 3},
        {"n_cities": 3, "n_packages": 2, "locations_per_city": 1, "n_trucks": 0, "n_airplanes": 2},
        {"n_cities": 2, "n_packages": 2, "n_trucks": 3},
    ],
)
@pytest.mark.parametrize("seed", range(3))
def test_logistics_reachable(kwargs: dict[str, int], seed: int) -> None:
    domain, problem = logistics(seed=seed, **kwargs)
    assert domain == LOGISTICS_DOMAIN
    init, goal = atoms(problem, "init"), atoms(problem, "goal")
    assert all(g not in init for g in goal)  # every package has to move
    assert bfs_length(grounded(domain, problem)) is not None


@pytest.mark.skipif(not fd_available(), reason="Fast Downward is not installed")
@pytest.mark.parametrize(
    "texts",
    [blocksworld(4, 3), blocksworld(5, 1), gripper(3), logistics(2, 2, seed=1)],
    ids=["bw-4", "bw-5", "gripper-3", "logistics-2-2"],
)
def test_fast_downward_agrees_on_optimal_cost(texts: tuple[str, str]) -> None:
    result = fd_solve(*texts, search="astar(lmcut())")
    assert result.status == "solved"
    assert result.cost == bfs_length(grounded(*texts))


# --------------------------------------------------------------------------- bundled example


def test_bundled_example_files() -> None:
    domain_path, problem_path = example_paths()
    assert domain_path == BUNDLED / "domain.pddl"
    assert problem_path.parent == BUNDLED
    header = "; xaip bundled example, MIT\n"
    domain_text, problem_text = domain_path.read_text(), problem_path.read_text()
    assert domain_text == header + BLOCKSWORLD_DOMAIN
    # The problem is generator output, so regenerating it must give the same file.
    assert problem_text == header + blocksworld(5, 6)[1]
    task = grounded(domain_text, problem_text)
    assert bfs_length(task) == 10
