"""Run-time services shared by every algorithm: budgets, statuses, progress, executors and
the store for resumable runs."""

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
