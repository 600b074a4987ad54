"""One request's work in its own thread, which a watchdog can stop.

Why: the library stops its searches at their :class:`~xaip.runtime.Budget`, but a request
does more than search -- it parses uploads (a reader that is slow on some input holds its
thread for as long as it takes), draws pictures, writes a corrected domain, walks a
policy. None of that checks a budget, and a Python thread cannot be killed, so a slow
upload used to hold a worker for minutes (issue 22: four 150 kB uploads blocked every
worker for ~100 s). A :class:`Job` runs the work in a thread of its own; when the work
runs past its time limit, :meth:`Job.interrupt` raises :class:`WorkInterrupted` inside
that thread (CPython's ``PyThreadState_SetAsyncExc``, the one way to stop another
thread's Python code). The exception unwinds the work like any error -- ``finally``
blocks and ``with`` statements release what they hold -- and the request is answered
"budget exhausted".

What it cannot stop: a long call into C that never returns to Python code (the compiled
core's searches take their own budgets; Graphviz runs with a timeout). The pool gives up
waiting on such a job after a further margin (the request is answered; the thread's worker
stays counted as busy until the thread really ends), see :mod:`xaip.web.work`.

Interrupts are not sent while the thread is importing a module (a half-executed module
would stay broken for every later request) or running a finaliser or a weak-reference or
garbage-collector callback (the interpreter would swallow the interrupt there): the
watchdog tries again shortly, and again every quarter second until the work has stopped,
so an interrupt that a callback swallowed anyway is sent again.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

from xaip.errors import BudgetExhausted
from xaip.runtime.budget import reading_deadline

WAITING, RUNNING, DONE = "waiting", "running", "done"


class WorkInterrupted(BudgetExhausted):
    """Raised inside a work thread: its request ran past its time limit.

    A :class:`~xaip.errors.BudgetExhausted`, so library code that turns an exhausted
    budget into a ``budget_exhausted`` answer does the same with this one. Constructed
    without arguments (the interpreter instantiates an asynchronous exception itself).
    """

    def __init__(self, message: str = "stopped at the request's time limit",
                 phase: str = "work") -> None:
        super().__init__(message, phase)


def _set_async_exception(thread_id: int, error: type[BaseException] | None) -> int:
    """Raise ``error`` in thread ``thread_id`` at its next Python instruction (``None``
    clears one not raised yet); the number of threads affected (0 when it has ended)."""
    set_async = ctypes.pythonapi.PyThreadState_SetAsyncExc
    target = ctypes.c_ulong(thread_id)
    if error is None:
        return int(set_async(target, None))  # None passes NULL: clear the pending one
    return int(set_async(target, ctypes.py_object(error)))


def _delicate(thread_id: int) -> bool:
    """Whether thread ``thread_id`` is where an interrupt must not land: importing a
    module, or in a finaliser, weak-reference or garbage-collector callback (there the
    interpreter would swallow the interrupt and leave the callback's work half done)."""
    frame = sys._current_frames().get(thread_id)
    callbacks = {getattr(callback, "__code__", None) for callback in gc.callbacks}
    while frame is not None:
        code = frame.f_code
        if (code.co_filename.startswith("<frozen importlib") or code.co_name == "__del__"
                or code.co_filename == weakref.__file__ or code in callbacks):
            return True
        frame = frame.f_back
    return False


class Job:
    """``function(*args, **kwargs)`` in a thread of its own, interruptible.

    ``seconds`` is also the work's reading deadline (:func:`xaip.runtime.budget.
    reading_deadline`, which a new thread does not inherit): the PDDL readers check it as
    they go and stop with ``budget_exhausted`` (phase ``reading``) before the watchdog has
    to.

    ``on_end`` is called (in the work thread) once the thread has settled: the work has
    returned or raised, and no interrupt is pending or can still arrive. ``value`` and
    ``error`` then hold the outcome; ``interrupted`` says whether the watchdog fired.
    """

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any], on_end: Callable[[Job], None],
                 seconds: float | None = None) -> None:
        self.function = function
        self.seconds = seconds
        self.args = args
        self.kwargs = kwargs
        self.on_end = on_end
        self.value: Any = None
        self.error: BaseException | None = None
        self.interrupted = False
        self._state = WAITING
        self._thread_id: int | None = None
        self._lock = threading.Lock()

    @property
    def done(self) -> bool:
        return self._state == DONE

    def start(self) -> None:
        threading.Thread(target=self._main, name="xaip-work", daemon=True).start()

    def interrupt(self) -> bool:
        """Raise :class:`WorkInterrupted` in the running work; ``False`` when there is
        nothing to interrupt now (not started, done, or at a delicate point: try again
        later)."""
        with self._lock:
            if self._state != RUNNING or self._thread_id is None:
                return False
            if _delicate(self._thread_id):
                return False
            self.interrupted = True
            return _set_async_exception(self._thread_id, WorkInterrupted) > 0

    # ------------------------------------------------------------------ the work thread

    def _begin(self) -> None:
        with self._lock:
            self._thread_id = threading.get_ident()
            self._state = RUNNING

    def _run(self) -> tuple[Any, BaseException | None]:
        try:
            self._begin()
            with reading_deadline(self.seconds):
                return self.function(*self.args, **self.kwargs), None
        except BaseException as error:  # noqa: BLE001 -- handed to the waiting request
            return None, error

    def _settle(self) -> None:
        """Mark the job done and clear an interrupt sent but not raised yet; after this no
        interrupt can reach the thread (``interrupt`` checks the state under the lock)."""
        with self._lock:
            self._state = DONE
            if self.interrupted and self._thread_id is not None:
                _set_async_exception(self._thread_id, None)

    def _main(self) -> None:
        try:
            value, error = self._run()
        except WorkInterrupted as late:  # raised on the way out of _run
            value, error = None, late
        while True:  # an interrupt may still be raised until _settle has run
            try:
                self._settle()
                break
            except WorkInterrupted:
                continue
        self.value, self.error = value, error
        self.on_end(self)


__all__ = ["Job", "WorkInterrupted"]
