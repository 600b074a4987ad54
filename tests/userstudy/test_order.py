"""Counterbalancing: Latin squares balanced over participants; random orders reproducible."""

from __future__ import annotations

from collections import Counter

import pytest

from xaip.userstudy.order import condition_order, williams_rows


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_every_row_is_a_permutation(n: int) -> None:
    rows = williams_rows(n)
    assert len(rows) == (n if n % 2 == 0 else 2 * n)
    assert all(sorted(row) == list(range(n)) for row in rows)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("cycles", [1, 3])
def test_latin_square_balanced_over_participants(n: int, cycles: int) -> None:
    names = [f"c{i}" for i in range(n)]
    block = n if n % 2 == 0 else 2 * n
    orders = [condition_order("latin", names, k, f"code{k}", 0)
              for k in range(block * cycles)]
    for position in range(n):  # every condition equally often at every position
        counts = Counter(order[position] for order in orders)
        assert set(counts.values()) == {len(orders) // n}
    pairs = Counter((a, b) for order in orders for a, b in zip(order, order[1:], strict=False))
    assert len(pairs) == n * (n - 1)  # every condition directly follows every other ...
    assert len(set(pairs.values())) == 1  # ... equally often (carry-over balanced)


def test_random_order_is_seeded_per_participant() -> None:
    names = ["a", "b", "c", "d"]
    first = condition_order("random", names, 0, "XYZ", 7)
    assert first == condition_order("random", names, 5, "XYZ", 7)
    assert sorted(first) == names
    seen = {tuple(condition_order("random", names, 0, f"p{i}", 7)) for i in range(60)}
    assert len(seen) > 5


def test_fixed_keeps_the_file_order() -> None:
    assert condition_order("fixed", ["b", "a"], 3, "x", 0) == ["b", "a"]
