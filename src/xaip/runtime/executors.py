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

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
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

    def completed(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[tuple[int, R]]:
        ...

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

    def completed(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[tuple[int, R]]:
        """``(index, result)`` of each item as soon as it is answered (here: in order)."""
        for index, item in enumerate(items):
            yield index, fn(item)

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
        from concurrent.futures import ProcessPoolExecutor  # here: start-up (issue 26)

        self.workers = _workers(workers)
        self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_start_worker,
                                         initargs=(os.getpid(), initializer, initargs))

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        from concurrent.futures.process import BrokenProcessPool

        items = list(items)
        chunk = max(1, len(items) // (self.workers * 4))
        try:
            return list(self._pool.map(fn, items, chunksize=chunk))
        except BrokenProcessPool:
            raise WorkerLost("a worker process died before answering (killed from outside "
                             "or out of memory); run again, or without --workers") from None

    def completed(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[tuple[int, R]]:
        """``(index, result)`` of each item as soon as any worker answers it (a study keeps
        every answer at once, so a killed run loses only the calls in flight). Closing the
        iterator early cancels the calls not started yet."""
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool

        futures = {self._pool.submit(fn, item): index for index, item in enumerate(items)}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BrokenProcessPool:
            raise WorkerLost("a worker process died before answering (killed from outside "
                             "or out of memory); run again, or without --workers") from None
        finally:
            for future in futures:
                future.cancel()

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

    ``address=None`` starts a private local Ray with ``workers`` CPUs. An ``address``
    (``"auto"`` for the cluster started on this machine by ``ray start``, or
    ``"HOST:PORT"`` of a head node) joins that cluster instead: Ray refuses ``num_cpus``
    when it joins (the cluster's nodes declared their CPUs when they started), so none is
    passed, and ``workers`` defaults to the cluster's CPU count. A ``HOST:PORT`` that no
    process answers is refused at once as bad input rather than after Ray's long retries.
    ``initializer`` runs inside every task's worker once per process. Items and results
    travel through Ray's object store, so tasks need no shared file system.
    """

    name = "ray"

    def __init__(self, workers: int | None = None,
                 initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = (), address: str | None = None) -> None:
        if address is not None:
            _send_ray_token()  # before Ray reads its configuration
        try:
            import ray
        except ImportError as exc:  # pragma: no cover - depends on the extra
            raise EngineUnavailable(
                "the Ray executor needs Ray: pip install 'xaip[ray]'") from exc
        import logging  # here: start-up (issue 26)

        self._ray = ray
        self.address = address
        self._started = False
        if not ray.is_initialized():
            # Ray's own INFO and WARNING lines (token set-up, "connecting to ...") are not
            # the user's business on stderr; its errors still are.
            kwargs: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
            if address is None:
                kwargs.update(num_cpus=_workers(workers), include_dashboard=False)
            else:
                check_ray_address(address)
                kwargs["address"] = address
            try:
                ray.init(**kwargs)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = "a local Ray" if address is None else f"the Ray cluster at {address}"
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else \
                    type(exc).__name__
                raise InputError(f"cannot start or join {where}: {first}") from None
            self._started = True
        if workers is None and address is not None:
            cpus = int(ray.cluster_resources().get("CPU", 1))
            self.workers = max(1, min(cpus, MAX_WORKERS))
        else:
            self.workers = _workers(workers)
        self._initializer = initializer
        self._initargs = initargs

    def put(self, value: Any) -> Any:
        """``value`` in the cluster's object store, once: a reference tasks carry instead
        of the value (discovery's rounds share a large state this way, not inside every
        task)."""
        return self._ray.put(value)

    def nodes(self) -> int:
        """How many live nodes the cluster has (for reports and tests)."""
        return sum(1 for node in self._ray.nodes() if node.get("Alive"))

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        remote = self._ray.remote(_ray_call)
        refs = [remote.remote(fn, item, self._initializer, self._initargs) for item in items]
        return list(self._ray.get(refs))

    def completed(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[tuple[int, R]]:
        """``(index, result)`` of each item as soon as its task finishes (``ray.wait``).
        At most ``workers`` tasks are out at a time (on a cluster the user joined, that
        is how ``--workers`` limits the share taken); closing the iterator early cancels
        the tasks still out."""
        remote = self._ray.remote(_ray_call)
        queue = list(enumerate(items))
        queue.reverse()
        out: dict[Any, int] = {}
        try:
            while queue or out:
                while queue and len(out) < self.workers:
                    index, item = queue.pop()
                    out[remote.remote(fn, item, self._initializer, self._initargs)] = index
                ready, _ = self._ray.wait(list(out), num_returns=1)
                for ref in ready:
                    yield out.pop(ref), self._ray.get(ref)
        finally:
            for ref in out:
                with contextlib.suppress(Exception):  # finished meanwhile
                    self._ray.cancel(ref)

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _send_ray_token() -> None:
    """Send the Ray token of this user when joining a cluster, as ``ray start`` does.

    Why: Ray 2.60's ``ray start --head`` enables token authentication by default and
    saves the token in ``~/.ray/auth_token``, but a process joining with an address sends
    no token unless ``RAY_AUTH_MODE=token`` is set, and then retries for a minute with
    "Authentication token is missing". When ``RAY_AUTH_MODE`` is unset and a token is at
    hand (that file, ``RAY_AUTH_TOKEN`` or ``RAY_AUTH_TOKEN_PATH``), token mode is set for
    this process; a user's own ``RAY_AUTH_MODE`` is never changed.
    """
    if "RAY_AUTH_MODE" in os.environ:
        return
    from pathlib import Path

    token_file = Path.home() / ".ray" / "auth_token"
    if "RAY_AUTH_TOKEN" in os.environ or "RAY_AUTH_TOKEN_PATH" in os.environ or \
            token_file.exists():
        os.environ["RAY_AUTH_MODE"] = "token"
        if "ray" in sys.modules:  # Ray read its configuration already: read it again
            with contextlib.suppress(Exception):
                from ray._raylet import Config  # type: ignore[attr-defined,import-untyped,unused-ignore]

                Config.initialize("")


#: Seconds to wait for a TCP answer from a Ray head's ``HOST:PORT`` before refusing it.
RAY_CONNECT_SECONDS = 5.0


def check_ray_address(address: str) -> None:
    """Refuse a malformed ``HOST:PORT`` or one where nothing listens, in one line (Ray
    itself retries for a minute and then raises a long error)."""
    if address == "auto":
        return
    text = address.removeprefix("ray://")
    host, sep, port_text = text.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise InputError(f"Ray address must be 'auto' or HOST:PORT, not {address!r}")
    import socket

    try:
        with socket.create_connection((host.strip("[]"), int(port_text)),
                                      timeout=RAY_CONNECT_SECONDS):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(f"no Ray cluster answers at {address} ({reason}); start one with "
                         f"'ray start --head --port {port_text}'") from None


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
                 initargs: tuple[Any, ...] = (), address: str | None = None) -> Executor:
    """The executor called ``kind`` (``serial``, ``processes`` or ``ray``); ``address``
    (``auto`` or ``HOST:PORT``) makes the Ray executor join that existing cluster and is
    refused for the others, which run on this machine only."""
    if address is not None and kind != "ray":
        raise InputError(f"--address joins a Ray cluster: use it with --executor ray, "
                         f"not {kind}")
    if kind == "serial":
        return SerialExecutor(initializer, initargs)
    if kind == "processes":
        return ProcessExecutor(workers, initializer, initargs)
    if kind == "ray":
        return RayExecutor(workers, initializer, initargs, address=address)
    raise InputError(f"unknown executor '{kind}' (one of {', '.join(EXECUTORS)})")
