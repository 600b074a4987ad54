"""State heuristics for the built-in search: blind, h_max, h_add, h_FF and LM-cut.

Why a factory: searches, explainers and the CLI select heuristics by name, and each
heuristic compiles the task once (per-fact operator lists, costs) and is then called on
many states. ``make_heuristic(name, task)`` returns a callable ``h(state) -> int | inf``;
``math.inf`` marks a relaxed-unreachable goal, i.e. a proven dead end, which searches
prune. ``ADMISSIBLE`` names the heuristics that never overestimate (safe for optimal A*
and for cost-bound pruning).
"""

from __future__ import annotations

from collections.abc import Callable

from xaip.errors import InputError
from xaip.planning.heuristics.blind import Blind
from xaip.planning.heuristics.lmcut import LMCut
from xaip.planning.heuristics.relaxation import (
    HFF,
    Exploration,
    HAdd,
    HMax,
    RelaxedTask,
    explore,
)
from xaip.planning.task import Task
from xaip.runtime.budget import BudgetClock

Heuristic = Callable[[int], float]

ADMISSIBLE = frozenset({"blind", "hmax", "lmcut"})
HEURISTICS = ("blind", "hmax", "hadd", "hff", "lmcut")


def make_heuristic(name: str, task: Task, clock: BudgetClock | None = None) -> Heuristic:
    """The heuristic called ``name`` compiled for ``task``.

    The h_FF object also offers ``relaxed_plan(state)`` and ``helpful_actions(state)``.
    With a ``clock``, an evaluation raises :class:`~xaip.errors.BudgetExhausted` once its
    deadline has passed (checked per evaluation, and per cut round in LM-cut), so a slow
    heuristic cannot carry a search far past its budget between two node charges.
    """
    if name == "blind":
        return Blind(task)
    if name == "hmax":
        return HMax(task, clock=clock)
    if name == "hadd":
        return HAdd(task, clock=clock)
    if name == "hff":
        return HFF(task, clock=clock)
    if name == "lmcut":
        return LMCut(task, clock=clock)
    raise InputError(f"unknown heuristic '{name}' (one of {', '.join(HEURISTICS)})")


__all__ = [
    "ADMISSIBLE",
    "HEURISTICS",
    "HFF",
    "Blind",
    "Exploration",
    "HAdd",
    "HMax",
    "Heuristic",
    "LMCut",
    "RelaxedTask",
    "explore",
    "make_heuristic",
]
