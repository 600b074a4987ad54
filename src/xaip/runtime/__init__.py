"""Run-time services shared by every algorithm: budgets, statuses, progress, executors and
the store for resumable runs.

The names below are imported on first use (a module ``__getattr__``): a command that needs
only :class:`Status` or a :class:`Budget` does not pay for the process pool or SQLite
(start-up CPU, issue 26). ``from xaip.runtime import X`` works as before.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xaip.runtime.budget import Budget, BudgetClock
    from xaip.runtime.executors import (
        EXECUTORS,
        Executor,
        ProcessExecutor,
        RayExecutor,
        SerialExecutor,
        get_executor,
    )
    from xaip.runtime.progress import Progress, ProgressEvent, StderrProgress, report
    from xaip.runtime.status import Status
    from xaip.runtime.store import RunStore

#: Each public name and the module that defines it.
_HOMES = {
    "Budget": "budget",
    "BudgetClock": "budget",
    "EXECUTORS": "executors",
    "Executor": "executors",
    "ProcessExecutor": "executors",
    "RayExecutor": "executors",
    "SerialExecutor": "executors",
    "get_executor": "executors",
    "Progress": "progress",
    "ProgressEvent": "progress",
    "StderrProgress": "progress",
    "report": "progress",
    "Status": "status",
    "RunStore": "store",
}

__all__ = [
    "EXECUTORS",
    "Budget",
    "BudgetClock",
    "Executor",
    "ProcessExecutor",
    "Progress",
    "ProgressEvent",
    "RayExecutor",
    "RunStore",
    "SerialExecutor",
    "Status",
    "StderrProgress",
    "get_executor",
    "report",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
