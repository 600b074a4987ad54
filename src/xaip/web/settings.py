"""The workbench's limits, in one place so the docs, the command and the tests name them.

Why limits at all: the workbench runs planners, searches and simulators on whatever a
browser sends. Each request's work is bounded by a :class:`~xaip.runtime.Budget` (seconds
and nodes), uploads by size and count, and the number of requests working at once by a
small pool (more are refused with 503 instead of queuing without end). The defaults suit
one person on a laptop; ``xaip serve`` exposes the ones worth changing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from xaip.runtime import Budget


def _default_runs() -> Path:
    """Where discovery runs keep their stores unless ``--runs`` says otherwise."""
    import os
    import tempfile

    return Path(tempfile.gettempdir()) / f"xaip-workbench-{os.getuid()}"


@dataclass(frozen=True)
class Settings:
    """Bounds on what one request may cost (see the module docstring)."""

    #: Largest request body accepted (all uploaded files together), in bytes.
    max_body_bytes: int = 1_000_000
    #: Largest single uploaded file, in bytes.
    max_file_bytes: int = 256_000
    #: Uploaded models kept in memory (least recently used are dropped first).
    max_models: int = 32
    #: Seconds and search nodes for one request's work (a request may ask for less).
    max_seconds: float = 20.0
    max_nodes: int = 2_000_000
    #: Requests doing work at once; ``max_waiting`` more may wait, others get 503. One
    #: kind of request (one page, or uploads) holds at most ``workers - 1`` of them.
    workers: int = 4
    max_waiting: int = 64
    #: A request that waited this long for a worker is refused (503 "busy").
    max_wait_seconds: float = 60.0
    #: Whatever a request's work still does at its limit plus ``grace_seconds`` is stopped
    #: and answered "budget exhausted". The limit of work with a budget is ``work_factor``
    #: times the budget's seconds (the search's budget, then a fresh one for its checker,
    #: as on the command line); an upload's parsing gets the budget's seconds once.
    grace_seconds: float = 1.0
    work_factor: float = 2.0
    #: Discovery runs: at most this many at once, each within ``discovery_seconds``.
    max_discoveries: int = 1
    discovery_seconds: float = 120.0
    #: Directory of the discovery runs' stores (created when needed).
    runs_dir: Path = field(default_factory=_default_runs)

    def budget(self, seconds: float | None = None, nodes: int | None = None) -> Budget:
        """The budget of one request: what it asks for, never more than the server allows."""
        wanted_seconds = self.max_seconds if seconds is None else min(seconds, self.max_seconds)
        wanted_nodes = self.max_nodes if nodes is None else min(nodes, self.max_nodes)
        return Budget(max_nodes=max(1, wanted_nodes), max_seconds=max(0.001, wanted_seconds))


__all__ = ["Settings"]
