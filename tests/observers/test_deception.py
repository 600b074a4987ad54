"""Deceptive path planning on grids: brute force over every simple path on small grids,
the probabilities along the path, the RMP bound, budgets and bad input."""

from __future__ import annotations

import math
import random

import pytest

from xaip.errors import InputError
from xaip.observers.deception import (
    bundled_grids,
    deceptive_plan,
    parse_grid,
    read_grid,
)
from xaip.runtime import Budget, Status


def _dist(grid, source):
    out, frontier = {source: 0}, [source]
    while frontier:
        nxt = []
        for r, c in frontier:
            for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if n not in out and grid.free(n):
                    out[n] = out[(r, c)] + 1
                    nxt.append(n)
        frontier = nxt
    return out


def _probabilities(grid, cell, beta):
    start = _dist(grid, grid.start)
    weights = {}
    for name, goal in grid.goals().items():
        d = _dist(grid, goal)
        if cell in d and grid.start in d:
            weights[name] = math.exp(-beta * (start[cell] + d[cell] - d[grid.start]))
        else:
            weights[name] = 0.0
    total = sum(weights.values())
    return {k: w / total for k, w in weights.items()}


def _oracle(grid):
    """Over every simple path from S to G: the nearest-to-G cell any path reaches while
    every cell so far keeps a decoy at least as probable as G (beta = 1)."""
    to_g = _dist(grid, grid.real)
    best = math.inf

    def deceptive(cell):
        p = _probabilities(grid, cell, 1.0)
        return any(p[d] >= p["G"] - 1e-12 for d in grid.decoys)

    memo = {}

    def is_dec(cell):
        if cell not in memo:
            memo[cell] = deceptive(cell)
        return memo[cell]

    stack = [(grid.start, frozenset({grid.start}))]
    while stack:
        cell, seen = stack.pop()
        if not is_dec(cell):
            continue
        best = min(best, to_g[cell])
        for n in grid.neighbours(cell):
            if n not in seen:
                stack.append((n, seen | {n}))
    return best


def _random_grid(seed):
    rng = random.Random(seed)
    rows, cols = 3, 4
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    chosen = rng.sample(cells, 3 + rng.randrange(2))
    walls = {c for c in cells if c not in chosen and rng.random() < 0.2}
    text = []
    for r in range(rows):
        row = ""
        for c in range(cols):
            cell = (r, c)
            if cell == chosen[0]:
                row += "S"
            elif cell == chosen[1]:
                row += "G"
            elif cell in chosen[2:]:
                row += "AB"[chosen.index(cell) - 2]
            else:
                row += "#" if cell in walls else "."
        text.append(row)
    return parse_grid("\n".join(text), f"random-{seed}")


@pytest.mark.parametrize("seed", range(25))
def test_ldp_matches_brute_force_on_random_grids(seed):
    grid = _random_grid(seed)
    if grid.real not in _dist(grid, grid.start):
        with pytest.raises(InputError, match="cannot be reached"):
            deceptive_plan(grid)
        return
    start = _dist(grid, grid.start)
    if not any(cell in start for cell in grid.decoys.values()):
        with pytest.raises(InputError, match="no decoy"):
            deceptive_plan(grid)
        return
    result = deceptive_plan(grid)
    assert result.status == Status.FOUND and result.verified
    to_g = _dist(grid, grid.real)
    assert to_g[result.ldp] == _oracle(grid)
    # every prefix up to the LDP keeps a decoy at least as probable as the real goal
    for i in range(result.ldp_index + 1):
        p = _probabilities(grid, result.path[i], result.beta)
        assert any(p[d] >= p["G"] - 1e-12 for d in grid.decoys)
        assert result.probabilities[i] == pytest.approx(p)
    # after the LDP the path is a shortest path to G
    assert len(result.path) - 1 - result.ldp_index == to_g[result.ldp]


@pytest.mark.parametrize("name", sorted(bundled_grids()))
def test_bundled_grids_respect_the_rmp_bound(name):
    grid = read_grid(bundled_grids()[name])
    result = deceptive_plan(grid, beta=2.0)
    assert result.verified
    to_g = _dist(grid, grid.real)
    # a deceptive cell lies at least the smallest radius of maximum probability from G
    assert to_g[result.ldp] >= min(result.rmp.values()) - 1e-9
    assert result.path[0] == grid.start and result.path[-1] == grid.real


def test_corridor_heads_for_the_decoy_first():
    grid = read_grid(bundled_grids()["corridor"])
    result = deceptive_plan(grid)
    assert result.score > 0.5
    middle = result.probabilities[len(result.path) // 2]
    assert middle["A"] >= middle["G"]
    assert result.probabilities[-1]["G"] == max(result.probabilities[-1].values())


def test_checker_rejects_a_truthful_path():
    import dataclasses

    from xaip.observers.deception import check_deceptive

    grid = read_grid(bundled_grids()["corridor"])
    result = deceptive_plan(grid)
    # the straight path up then right is truthful almost at once: claim its end is the LDP
    straight = tuple([(r, 0) for r in range(3, -1, -1)] + [(0, c) for c in range(1, 10)])
    fake = dataclasses.replace(result, path=straight, ldp=straight[-4], ldp_index=len(straight) - 4)
    assert check_deceptive(grid, fake).ok is False


def test_one_node_budget_is_unfinished():
    result = deceptive_plan(read_grid(bundled_grids()["tiny"]), budget=Budget(max_nodes=1))
    assert result.status == Status.BUDGET_EXHAUSTED and not result.verified


@pytest.mark.parametrize("text, message", [
    ("S..\n..G", "decoy"),
    ("S.A\n...", "real goal"),
    ("S.A\n.?G", "unknown cell"),
    ("S#A\n##G", "cannot be reached"),
])
def test_bad_grids(text, message):
    with pytest.raises(InputError, match=message):
        deceptive_plan(parse_grid(text))


def test_a_detour_before_the_last_deceptive_point_is_refuted() -> None:
    """The plan claims the cheapest all-deceptive walk to the LDP; the checker re-derives
    the fewest deceptive moves to it (a back-and-forth step before the LDP is refuted)."""
    import dataclasses

    from xaip.observers.deception import check_deceptive

    grid = read_grid(bundled_grids()["corridor"])
    result = deceptive_plan(grid)
    assert result.verified and result.ldp_index is not None and result.ldp_index >= 1
    path = result.path
    detour = (path[0], path[1], path[0], *path[1:])
    claim = dataclasses.replace(result, path=detour, ldp_index=result.ldp_index + 2,
                                cost=result.cost + 2)
    report = check_deceptive(grid, claim)
    assert report.ok is False and "deceptive moves suffice" in report.details
