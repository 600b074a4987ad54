"""Executors: run many independent calls serially, on local processes, or on Ray.

Why: capability discovery poses hundreds of agent queries and concept explanations draw
hundreds of simulator samples; each is independent of the others. One tiny protocol,
``map(fn, items) -> list`` (results in input order), lets every explainer scale from one
core to a cluster without changing its code. ``fn`` and the items must be picklable for
the process and Ray executors (module-level functions, plain data).

Ray is optional (``pip install 'xaip[ray]'``); without it, asking for ``ray`` is a clear
:class:`~xaip.errors.EngineUnavailable` error, never an import-time failure.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Protocol, TypeVar

from xaip.errors import EngineUnavailable, InputError

T = TypeVar("T")
R = TypeVar("R")

EXECUTORS = ("serial", "processes", "ray")


class Executor(Protocol):
    """Runs ``fn`` on every item; results come back in the items' order."""

    name: str
    workers: int

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]: ...

    def close(self) -> None: ...


class SerialExecutor:
    """In this process, one call after another: the default, and the reference."""

    name = "serial"
    workers = 1

    def __init__(self, initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> None:
        if initializer is not None:
            initializer(*initargs)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        return [fn(item) for item in items]

    def close(self) -> None:
        return None

    def __enter__(self) -> SerialExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ProcessExecutor:
    """A pool of local worker processes; ``initializer`` runs once per worker (for
    example to build one simulator per worker)."""

    name = "processes"

    def __init__(self, workers: int | None = None,
                 initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> None:
        self.workers = _workers(workers)
        self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=initializer,
                                         initargs=initargs)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        items = list(items)
        chunk = max(1, len(items) // (self.workers * 4))
        return list(self._pool.map(fn, items, chunksize=chunk))

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> ProcessExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RayExecutor:
    """Ray tasks on a local or existing Ray cluster (the optional ``xaip[ray]`` extra).

    ``address=None`` starts a local Ray with ``workers`` CPUs; pass an address to join a
    running cluster. ``initializer`` runs inside every task's worker once per process.
    """

    name = "ray"

    def __init__(self, workers: int | None = None,
                 initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = (), address: str | None = None) -> None:
        try:
            import ray
        except ImportError as exc:  # pragma: no cover - depends on the extra
            raise EngineUnavailable(
                "the Ray executor needs Ray: pip install 'xaip[ray]'") from exc
        self._ray = ray
        self.workers = _workers(workers)
        self._started = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address is None:
                kwargs["num_cpus"] = self.workers
            else:
                kwargs["address"] = address
            ray.init(**kwargs)
            self._started = True
        self._initializer = initializer
        self._initargs = initargs

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        remote = self._ray.remote(_ray_call)
        refs = [remote.remote(fn, item, self._initializer, self._initargs) for item in items]
        return list(self._ray.get(refs))

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_INITIALISED: set[tuple[Any, ...]] = set()


def _ray_call(fn: Callable[[Any], Any], item: Any,
              initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> Any:
    if initializer is not None:
        key = (initializer, initargs)
        if key not in _INITIALISED:
            initializer(*initargs)
            _INITIALISED.add(key)
    return fn(item)


def _workers(workers: int | None) -> int:
    if workers is None:
        return max(1, os.cpu_count() or 1)
    if workers < 1:
        raise InputError(f"workers must be at least 1, not {workers}")
    return workers


def get_executor(kind: str = "serial", workers: int | None = None,
                 initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> Executor:
    """The executor called ``kind`` (``serial``, ``processes`` or ``ray``)."""
    if kind == "serial":
        return SerialExecutor(initializer, initargs)
    if kind == "processes":
        return ProcessExecutor(workers, initializer, initargs)
    if kind == "ray":
        return RayExecutor(workers, initializer, initargs)
    raise InputError(f"unknown executor '{kind}' (one of {', '.join(EXECUTORS)})")
