"""Executors return the same results in the same order, whichever runs them."""

from __future__ import annotations

import importlib.util

import pytest

from xaip.errors import InputError
from xaip.runtime import ProcessExecutor, SerialExecutor, get_executor

_STATE: dict[str, int] = {}


def _init(offset: int) -> None:
    _STATE["offset"] = offset


def _work(x: int) -> int:
    return x * x + _STATE.get("offset", 0)


def test_serial_and_processes_agree() -> None:
    items = list(range(40))
    with SerialExecutor(_init, (3,)) as serial:
        expected = serial.map(_work, items)
    with ProcessExecutor(2, _init, (3,)) as pool:
        assert pool.map(_work, items) == expected
    assert expected == [x * x + 3 for x in items]


def test_get_executor_names() -> None:
    assert get_executor("serial").name == "serial"
    with pytest.raises(InputError, match="unknown executor"):
        get_executor("threads")
    with pytest.raises(InputError, match="at least 1"):
        get_executor("processes", workers=0)


@pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                    reason="the ray extra is not installed")
def test_ray_smoke() -> None:
    executor = get_executor("ray", workers=2, initializer=_init, initargs=(1,))
    try:
        assert executor.map(_work, [1, 2, 3]) == [2, 5, 10]
    finally:
        executor.close()


def test_worker_counts_beyond_the_cap_are_bad_input() -> None:
    from xaip.runtime.executors import MAX_WORKERS

    with pytest.raises(InputError, match="at most"):
        get_executor("processes", workers=MAX_WORKERS + 1)
    with pytest.raises(InputError, match="at most"):
        get_executor("processes", workers=2**63 - 1)
