"""One shape for progress reports from long work.

Why: discovery, explanation search, policy analysis and sampling can run for minutes; the
CLI prints a line, the workbench streams events, tests count them. Every long-running
function takes ``progress: Progress | None`` and calls it with a :class:`ProgressEvent`;
it never prints.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO


@dataclass(frozen=True)
class ProgressEvent:
    """``done`` units of ``phase`` finished (of ``total`` when known)."""

    phase: str
    done: int
    total: int | None = None
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"phase": self.phase, "done": self.done, "total": self.total,
                "message": self.message}


Progress = Callable[[ProgressEvent], None]


def report(progress: Progress | None, phase: str, done: int, total: int | None = None,
           message: str = "") -> None:
    """Send one event if anyone listens (the common call site)."""
    if progress is not None:
        progress(ProgressEvent(phase, done, total, message))


class StderrProgress:
    """A progress callback for terminals: one line per event, at most every ``every`` s."""

    def __init__(self, stream: TextIO | None = None, every: float = 0.5) -> None:
        self.stream = stream or sys.stderr
        self.every = every
        self._last = 0.0

    def __call__(self, event: ProgressEvent) -> None:
        now = time.monotonic()
        if now - self._last < self.every and event.total != event.done:
            return
        self._last = now
        of = f"/{event.total}" if event.total is not None else ""
        text = f"[{event.phase}] {event.done}{of}"
        if event.message:
            text += f" {event.message}"
        with contextlib.suppress(OSError, ValueError):  # a closed terminal must not stop work
            print(text, file=self.stream, flush=True)
