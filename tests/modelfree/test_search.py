"""The message-set search against brute force on random log-odds (no learning involved).

The search takes per-step log-odds and per-message additions; the oracle here enumerates
every subset with itertools and adds them itself. Costs include 0 and ties; additions are
of both signs (a message may make a step less explicable), so the labelling is not monotone;
odd seeds add terms for pairs of messages shown together.
"""

from __future__ import annotations

import itertools
import random

import pytest

from xaip.modelfree.search import cheapest
from xaip.runtime import Budget, Status

Pairs = dict[tuple[int, int], list[float]]
PAIRS: dict[int, Pairs] = {}


def instance(seed: int) -> tuple[list[float], list[float], list[list[float]]]:
    """Random log-odds; the pair terms of the seed are kept in :data:`PAIRS`."""
    rng = random.Random(seed)
    k, n = rng.randint(0, 7), rng.randint(1, 5)
    costs = sorted(float(rng.randint(0, 4)) for _ in range(k))
    base = [rng.uniform(-3, 1) for _ in range(n)]
    deltas = [[rng.uniform(-1.5, 3) if rng.random() < 0.6 else 0.0 for _ in range(n)]
              for _ in range(k)]
    PAIRS[seed] = {(j, m): [rng.uniform(-2, 2) for _ in range(n)]
                   for j in range(k) for m in range(j + 1, k) if rng.random() < 0.3}
    return costs, base, deltas


def works(base: list[float], deltas: list[list[float]], subset: tuple[int, ...],
          pairs: Pairs | None = None) -> bool:
    pairs = pairs or {}
    chosen = sorted(subset)
    return all(b + sum(deltas[j][i] for j in chosen)
               + sum(pairs.get((j, m), [0.0] * len(base))[i]
                     for j, m in itertools.combinations(chosen, 2)) >= 0.0
               for i, b in enumerate(base))


def brute(costs: list[float], base: list[float], deltas: list[list[float]],
          pairs: Pairs | None = None) -> float | None:
    found = [sum(costs[j] for j in s) for r in range(len(costs) + 1)
             for s in itertools.combinations(range(len(costs)), r)
             if works(base, deltas, s, pairs)]
    return min(found) if found else None


@pytest.mark.parametrize("seed", range(300))
def test_exact_search_finds_the_cheapest_set(seed: int) -> None:
    costs, base, deltas = instance(seed)
    pairs = PAIRS[seed] if seed % 2 else {}
    outcome = cheapest(costs, base, deltas, 0.0, Budget().start(), pairs=pairs)
    best = brute(costs, base, deltas, pairs)
    if best is None:
        assert outcome.status == Status.NO_EXPLANATION and outcome.method == "exact"
        assert outcome.examined == 2 ** len(costs)
    else:
        assert outcome.status == Status.FOUND and outcome.chosen is not None
        assert works(base, deltas, outcome.chosen, pairs)
        assert sum(costs[j] for j in outcome.chosen) == pytest.approx(best)


@pytest.mark.parametrize("seed", range(300))
def test_greedy_is_valid_irredundant_and_its_bound_holds(seed: int) -> None:
    """Regression (seed 9): the greedy pass once dropped messages in one sweep and kept one
    that became droppable after another (with a negative log-odds term) was dropped."""
    costs, base, deltas = instance(seed)
    pairs = PAIRS[seed] if seed % 2 else {}
    best = brute(costs, base, deltas, pairs)
    outcome = cheapest(costs, base, deltas, 0.0, Budget().start(), max_subsets=2,
                       pairs=pairs)
    if outcome.method == "exact":  # found within two sets, or there were at most two
        return
    assert outcome.lower_bound is not None
    if best is not None:
        assert outcome.lower_bound <= best + 1e-9
    if outcome.status == Status.FOUND:
        assert outcome.chosen is not None and works(base, deltas, outcome.chosen, pairs)
        assert best is not None and sum(costs[j] for j in outcome.chosen) >= best - 1e-9
        for j in outcome.chosen:
            assert not works(base, deltas, tuple(x for x in outcome.chosen if x != j), pairs)


def test_sets_come_cheapest_first_with_zero_costs_and_ties() -> None:
    # only {0, 1} and {2} work; both cost 2 with costs (1, 1, 2): either is cheapest
    costs, base = [1.0, 1.0, 2.0], [-1.0]
    deltas = [[0.5], [0.5], [1.0]]
    outcome = cheapest(costs, base, deltas, 0.0, Budget().start())
    assert outcome.status == Status.FOUND
    assert sum(costs[j] for j in outcome.chosen or ()) == 2.0
    free = cheapest([0.0, 5.0], [-1.0], [[2.0], [2.0]], 0.0, Budget().start())
    assert free.chosen == (0,)


def test_a_budget_stops_the_search() -> None:
    outcome = cheapest([1.0, 1.0, 1.0], [-5.0], [[1.0], [1.0], [1.0]], 0.0,
                       Budget(max_nodes=2).start())
    assert outcome.status == Status.BUDGET_EXHAUSTED and outcome.chosen is None
