"""Each request's work runs in a worker thread: a bounded number at a time, each stopped at
its time limit, no kind of request allowed to take every worker.

Why: planners, searches and parsers are CPU-bound Python; run on the event loop they would
freeze every other request (the progress polls of a running discovery included). The
:class:`WorkPool` runs each piece of work as a :class:`~xaip.web.jobs.Job` (its own thread)
under four bounds:

* **workers**: at most ``workers`` jobs run at once; ``max_waiting`` more wait (first come,
  first served), and a request beyond that is refused at once with 503 "busy" instead of
  letting a queue grow without end. A request that waited ``max_wait`` seconds without a
  worker is refused the same way, so no answer waits without bound.
* **lanes**: every job belongs to a lane (the page it serves, ``upload`` for uploads), and
  one lane holds at most ``workers - 1`` workers. A flood of one kind of request -- four
  big uploads, say -- leaves a worker for everything else, so the workbench stays
  answerable (issue 22).
* **time limit**: the work's budget reaches the library, which stops its searches there;
  the job's limit is also its reading deadline, so the PDDL readers stop an upload that
  takes too long to parse themselves; whatever else a request does outside a search
  (drawing a picture, a reader that misses its deadline) is stopped by a watchdog at the
  job's limit plus ``grace`` seconds (the job is interrupted, see :mod:`xaip.web.jobs`).
  Either way the answer is ``budget_exhausted``. A job given a budget may
  run ``work_factor`` times its seconds: the library's search may use the whole budget
  and its checker a fresh copy of it, as on the command line.
* **giving up**: a job that still has not stopped ``abandon`` seconds after its interrupt
  (stuck in a C call) is answered ``budget_exhausted`` anyway; its worker stays counted as
  busy until the thread really ends, so threads never outnumber the workers.

A job that runs out of its budget before it has any answer (the library raises
:class:`~xaip.errors.BudgetExhausted`, or the watchdog stopped it) becomes an
:class:`Unfinished` result: the same JSON the CLI prints in that case (``status``
``budget_exhausted``, ``verified`` false).

The pool lives on the application's event loop (asyncio, as uvicorn and Starlette's test
client run it): its counters change on the loop only, so they need no lock; work threads
report back with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from xaip.errors import BudgetExhausted
from xaip.runtime import Budget, Status
from xaip.web.jobs import Job, WorkInterrupted
from xaip.web.problems import WebProblem

T = TypeVar("T")

#: How often an interrupted job that has not stopped yet is interrupted again (seconds).
REPEAT = 0.25


@dataclass(frozen=True)
class Unfinished:
    """The budget ran out before there was an answer (``phase`` says where)."""

    phase: str
    message: str
    status: Status = Status.BUDGET_EXHAUSTED
    verified: bool = False
    seconds: float = 0.0
    stats: dict[str, int | float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"status": str(self.status), "verified": False, "phase": self.phase,
                "message": self.message}


def _outcome(job: Job, limit: float, phase: str) -> Any:
    """The request's answer from a settled job: its value, an :class:`Unfinished`, or
    the error the work raised (bad input passes through to the error pages)."""
    error = job.error
    if error is None:
        return job.value
    if isinstance(error, WorkInterrupted) or (job.interrupted and isinstance(error, Exception)):
        # Whatever the work raised once stopped (a library may wrap the interrupt), the
        # answer is that the time ran out.
        return Unfinished(phase, f"the request's work ran past its limit of {limit:g} s "
                                 "and was stopped (budget exhausted)")
    if isinstance(error, BudgetExhausted):
        return Unfinished(error.phase or phase, str(error))
    if isinstance(error, RecursionError):
        # Deeply nested input that slipped past the readers' limits: bad input, not a crash.
        raise WebProblem(400, "the input is nested too deeply to process") from None
    if isinstance(error, MemoryError):
        raise WebProblem(503, "the request needed more memory than the workbench has; "
                              "try a smaller model or budget", kind="busy") from None
    raise error


@dataclass(eq=False)
class _Ticket:
    """A request waiting for a worker in ``lane``; ``granted`` resolves when it has one."""

    lane: str
    granted: asyncio.Future[None]


class WorkPool:
    """Runs work off the event loop under the bounds of the module docstring."""

    def __init__(self, workers: int, max_waiting: int, seconds: float = 20.0,
                 max_wait: float = 60.0, grace: float = 1.0, abandon: float = 2.0,
                 work_factor: float = 2.0) -> None:
        self.workers = max(1, workers)
        self.capacity = self.workers + max(0, max_waiting)
        #: Workers one lane may hold at once (all of them when there is only one).
        self.lane_limit = max(1, self.workers - 1)
        self.seconds = seconds
        self.max_wait = max_wait
        self.grace = grace
        self.abandon = abandon
        self.work_factor = work_factor
        self.pending = 0  # requests admitted and not answered yet
        self.busy = 0  # workers held: jobs whose thread has not ended
        self.lanes: collections.Counter[str] = collections.Counter()
        self._waiting: collections.deque[_Ticket] = collections.deque()

    def limit_of(self, budget: Budget | None, seconds: float | None) -> float:
        """A job's time limit: ``seconds`` when given, else its budget's seconds times
        ``work_factor``, else the pool's default."""
        if seconds is not None:
            return seconds
        if budget is not None and budget.max_seconds is not None:
            return budget.max_seconds * self.work_factor
        return self.seconds

    async def run(self, function: Callable[..., T], *args: Any, budget: Budget | None = None,
                  seconds: float | None = None, lane: str = "work", phase: str = "work"
                  ) -> T | Unfinished:
        """``function(*args)`` (with ``budget=budget`` when one is given) in a worker thread.

        503 when the pool and its queue are full or no worker came free within
        ``max_wait``; :class:`Unfinished` when the work ran out of its budget or time limit
        (``seconds``, else the budget's; ``phase`` names what was stopped).
        """
        if self.pending >= self.capacity:
            raise WebProblem(503, f"the workbench is busy ({self.pending} requests in "
                                  "progress); retry in a moment", kind="busy")
        self.pending += 1
        try:
            try:
                await self._acquire(lane)
            except TimeoutError:
                raise WebProblem(503, f"the workbench is busy: no worker came free within "
                                      f"{self.max_wait:g} s; retry in a moment",
                                 kind="busy") from None
            kwargs = {} if budget is None else {"budget": budget}
            return await self._execute(function, args, kwargs, lane,
                                       self.limit_of(budget, seconds), phase)
        finally:
            self.pending -= 1

    # ------------------------------------------------------------------ workers and lanes

    def _startable(self, lane: str) -> bool:
        return self.busy < self.workers and self.lanes[lane] < self.lane_limit

    def _grant_waiting(self) -> None:
        """Give free workers to waiting requests, first come first served, skipping those
        whose lane is full (a full lane must not hold up the others)."""
        for ticket in list(self._waiting):
            if self.busy >= self.workers:
                return
            if ticket.granted.done() or not self._startable(ticket.lane):
                continue
            self._waiting.remove(ticket)
            self.busy += 1
            self.lanes[ticket.lane] += 1
            ticket.granted.set_result(None)

    def _release(self, lane: str) -> None:
        self.busy -= 1
        self.lanes[lane] -= 1
        self._grant_waiting()

    async def _acquire(self, lane: str) -> None:
        """Hold a worker in ``lane``: at once when one is free and nobody waits before us,
        else in turn; 503 after ``max_wait`` seconds."""
        ticket = _Ticket(lane, asyncio.get_running_loop().create_future())
        self._waiting.append(ticket)
        self._grant_waiting()
        if ticket.granted.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(ticket.granted), self.max_wait)
        except BaseException:
            if ticket.granted.done():  # granted just as we gave up: hand it on
                self._release(lane)
            else:
                self._waiting.remove(ticket)
                ticket.granted.cancel()
            raise

    async def _execute(self, function: Callable[..., Any], args: tuple[Any, ...],
                       kwargs: dict[str, Any], lane: str, limit: float, phase: str) -> Any:
        loop = asyncio.get_running_loop()
        ended: asyncio.Future[None] = loop.create_future()

        def settled(_: Job) -> None:  # in the work thread
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(finish)

        def finish() -> None:  # on the loop
            self._release(lane)
            if not ended.done():
                ended.set_result(None)

        job = Job(function, args, kwargs, settled, seconds=limit)
        try:
            job.start()
        except RuntimeError:  # the system refused a new thread: hand the worker back
            self._release(lane)
            raise WebProblem(503, "the workbench cannot start more work now; retry in a "
                                  "moment", kind="busy") from None
        watchdog = loop.call_later(limit + self.grace, self._stop, job, loop)
        try:
            await asyncio.wait_for(asyncio.shield(ended),
                                   limit + self.grace + self.abandon)
        except TimeoutError:
            return Unfinished(phase, f"the request's work ran past its limit of {limit:g} s "
                                     "and did not stop; its worker stays busy until it does")
        except asyncio.CancelledError:
            loop.call_soon(self._stop, job, loop)  # the client went away: free the worker
            raise
        finally:
            watchdog.cancel()
        return _outcome(job, limit, phase)

    def _stop(self, job: Job, loop: asyncio.AbstractEventLoop) -> None:
        """Interrupt ``job``, and again every :data:`REPEAT` seconds until it has stopped."""
        if job.done:
            return
        job.interrupt()
        loop.call_later(REPEAT, self._stop, job, loop)


__all__ = ["REPEAT", "Unfinished", "WorkPool"]
