"""Counterbalancing: the order in which one participant sees the conditions.

Why these schemes: ``latin`` gives participant *k* (in the order their links were created)
row *k mod n* of a balanced Latin square (Williams' design): over any multiple of *n*
participants -- *2n* when *n* is odd -- every condition appears equally often at every
position, and for even *n* every condition follows every other equally often, so order and
carry-over effects cancel. ``random`` shuffles with a generator seeded by the study's seed
and the participant's code, so an order can be recomputed from the data; ``fixed`` keeps the
file's order (pilots).
"""

from __future__ import annotations

import random


def williams_rows(n: int) -> list[list[int]]:
    """The rows of a balanced Latin square over ``n`` conditions (``2n`` rows if ``n`` is odd).

    The first row is 0, 1, n-1, 2, n-2, ...; row r adds r to each entry (mod n). For odd n the
    mirrored rows are appended, which balances first-order carry-over.
    """
    if n < 1:
        return []
    first = [0]
    low, high = 1, n - 1
    while len(first) < n:
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    rows = [[(x + r) % n for x in first] for r in range(n)]
    if n % 2 == 1:
        rows += [list(reversed(row)) for row in rows]
    return rows


def condition_order(scheme: str, names: list[str], index: int, code: str,
                    seed: int) -> list[str]:
    """The conditions (by name) in the order participant number ``index`` sees them."""
    if scheme == "latin":
        rows = williams_rows(len(names))
        return [names[i] for i in rows[index % len(rows)]]
    if scheme == "random":
        shuffled = list(names)
        random.Random(f"{seed}:{code}").shuffle(shuffled)
        return shuffled
    return list(names)


__all__ = ["condition_order", "williams_rows"]
