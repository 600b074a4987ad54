"""The executors' ``completed``: every answer once, with its item's index, as it comes."""

from __future__ import annotations

import pytest

from xaip.errors import InputError
from xaip.runtime.executors import get_executor


def square(n: int) -> int:
    return n * n


@pytest.mark.parametrize("kind", ["serial", "processes"])
def test_completed_gives_every_answer_once(kind: str) -> None:
    items = list(range(23))
    with get_executor(kind, 2) as pool:  # type: ignore[attr-defined]
        got = dict(pool.completed(square, items))
    assert got == {i: i * i for i in items}


def test_closing_early_cancels_the_rest() -> None:
    pool = get_executor("processes", 2)
    try:
        answers = pool.completed(square, range(200))
        first = next(answers)
        answers.close()  # type: ignore[attr-defined]
        assert first[1] == first[0] ** 2
        assert pool.map(square, [3]) == [9]  # the pool still works
    finally:
        pool.close()


@pytest.mark.parametrize("kind", ["serial", "processes"])
def test_address_is_for_ray_only(kind: str) -> None:
    with pytest.raises(InputError, match="--address joins a Ray cluster"):
        get_executor(kind, 1, address="auto")
