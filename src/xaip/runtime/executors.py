"""Executors: run many independent calls serially, on local processes, or on Ray.

Why: capability discovery poses hundreds of agent queries and concept explanations draw
hundreds of simulator samples; each is independent of the others. One tiny protocol,
``map(fn, items) -> list`` (results in input order), lets every explainer scale from one
core to a cluster without changing its code. ``fn`` and the items must be picklable for
the process and Ray executors (module-level functions, plain data).

Ray is optional (``pip install 'xaip[ray]'``); without it, asking for ``ray`` is a clear
:class:`~xaip.errors.EngineUnavailable` error, never an import-time failure.

Worker processes die with their parent. Killing the main process of ``discover --workers N``
used to leave N workers blocked on their task queue forever; every process worker now asks
the kernel for ``SIGKILL`` when its parent dies (``PR_SET_PDEATHSIG`` through ``ctypes`` on
Linux) and, everywhere, watches ``os.getppid()`` from a daemon thread and exits when it
changes (:func:`watch_parent`). A forked worker also must not inherit per-run state of the
parent's main thread, such as a run's deadline (a worker unpickling a queued query after
the parent's deadline passed raised inside the pool's loader and broke the pool): modules
that keep such state register a reset with :func:`on_worker_start`.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol, TypeVar

from xaip.errors import EngineUnavailable, InputError, XaipError

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


#: How often (seconds) a worker's watch thread checks that its parent is alive.
PARENT_POLL = 0.5
_PR_SET_PDEATHSIG = 1
_WORKER_RESETS: list[Callable[[], None]] = []


def on_worker_start(reset: Callable[[], None]) -> Callable[[], None]:
    """Register ``reset`` to run first in every process worker: it clears state a forked
    worker must not inherit from its parent (a run's deadline, say). Returns ``reset``."""
    if reset not in _WORKER_RESETS:
        _WORKER_RESETS.append(reset)
    return reset


def _kill_with_parent() -> bool:
    """Ask Linux to send this process ``SIGKILL`` when its parent dies; ``False`` where
    that is not available (then only the watch thread guards)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # pragma: no cover - an unusual libc
        return False


def watch_parent(parent: int, poll: float = PARENT_POLL) -> threading.Thread:
    """Exit this process as soon as its parent ``parent`` is gone (portable: a daemon
    thread polls ``os.getppid()``, which changes when the parent dies)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(1)

    thread = threading.Thread(target=watch, name="xaip-parent-watch", daemon=True)
    thread.start()
    return thread


def _start_worker(parent: int, initializer: Callable[..., None] | None,
                  initargs: tuple[Any, ...]) -> None:
    """The initializer of every process worker: die with the parent, forget the parent's
    per-run state, then run the caller's ``initializer``."""
    _kill_with_parent()
    if os.getppid() != parent:  # the parent died before the kernel watched it
        os._exit(1)
    watch_parent(parent)
    for reset in _WORKER_RESETS:
        reset()
    if initializer is not None:
        initializer(*initargs)


class WorkerLost(XaipError):
    """A worker process died (killed from outside, or out of memory) before answering."""


class ProcessExecutor:
    """A pool of local worker processes; ``initializer`` runs once per worker (for
    example to build one simulator per worker). Workers die with this process (see the
    module docstring)."""

    name = "processes"

    def __init__(self, workers: int | None = None,
                 initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> None:
        self.workers = _workers(workers)
        self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_start_worker,
                                         initargs=(os.getpid(), initializer, initargs))

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        items = list(items)
        chunk = max(1, len(items) // (self.workers * 4))
        try:
            return list(self._pool.map(fn, items, chunksize=chunk))
        except BrokenProcessPool:
            raise WorkerLost("a worker process died before answering (killed from outside "
                             "or out of memory); run again, or without --workers") from None

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and diagnostics)."""
        return sorted(self._pool._processes)  # noqa: SLF001 - no public accessor

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


#: The most worker processes a pool starts (a --workers of 2**63 would fork until the
#: machine stops; no machine this runs on has that many cores to use).
MAX_WORKERS = 256


def _workers(workers: int | None) -> int:
    if workers is None:
        return max(1, os.cpu_count() or 1)
    if workers < 1:
        raise InputError(f"workers must be at least 1, not {workers}")
    if workers > MAX_WORKERS:
        raise InputError(f"workers must be at most {MAX_WORKERS}, not {workers}")
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
