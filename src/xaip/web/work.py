"""Each request's work runs in a worker thread, a bounded number at a time.

Why: planners and searches are CPU-bound Python; run on the event loop they would freeze
every other request (the progress polls of a running discovery included). :class:`WorkPool`
hands the work to a thread (``anyio.to_thread.run_sync``) with a capacity limiter of
``workers`` threads, lets at most ``max_waiting`` more wait, and refuses the rest at once
with 503 ("busy, retry") instead of letting a queue grow without end. A thread cannot be
killed, so the work itself must end: every page passes a :class:`~xaip.runtime.Budget`
down to the library, which stops there.

Work that runs out of its budget before it has any answer (the library raises
:class:`~xaip.errors.BudgetExhausted`) becomes an :class:`Unfinished` result: the same
JSON the CLI prints in that case (``status`` ``budget_exhausted``, ``verified`` false).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from xaip.errors import BudgetExhausted
from xaip.runtime import Status
from xaip.web.problems import WebProblem

T = TypeVar("T")


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


def _guarded(function: Callable[..., T], args: tuple[Any, ...]) -> T | Unfinished:
    try:
        return function(*args)
    except BudgetExhausted as error:
        return Unfinished(error.phase or "work", str(error))
    except RecursionError:
        # Deeply nested input that slipped past the readers' limits: bad input, not a crash.
        raise WebProblem(400, "the input is nested too deeply to process") from None
    except MemoryError:
        raise WebProblem(503, "the request needed more memory than the workbench has; "
                              "try a smaller model or budget", kind="busy") from None


class WorkPool:
    """Runs work off the event loop: ``workers`` at once, ``max_waiting`` queued, 503 beyond."""

    def __init__(self, workers: int, max_waiting: int) -> None:
        self.workers = max(1, workers)
        self.capacity = self.workers + max(0, max_waiting)
        self.pending = 0  # changed on the event loop only, so no lock is needed
        self._limiter: anyio.CapacityLimiter | None = None

    def _get_limiter(self) -> anyio.CapacityLimiter:
        # Created lazily: a limiter belongs to the event loop that first uses it.
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.workers)
        return self._limiter

    async def run(self, function: Callable[..., T], *args: Any) -> T | Unfinished:
        """``function(*args)`` in a worker thread; 503 when the pool and its queue are full."""
        if self.pending >= self.capacity:
            raise WebProblem(503, f"the workbench is busy ({self.pending} requests in "
                                  "progress); retry in a moment", kind="busy")
        self.pending += 1
        try:
            return await anyio.to_thread.run_sync(
                functools.partial(_guarded, function, args), limiter=self._get_limiter())
        finally:
            self.pending -= 1


__all__ = ["Unfinished", "WorkPool"]
