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

Heuristic = Callable[[int], float]

ADMISSIBLE = frozenset({"blind", "hmax", "lmcut"})
HEURISTICS = ("blind", "hmax", "hadd", "hff", "lmcut")


def make_heuristic(name: str, task: Task) -> Heuristic:
    """The heuristic called ``name`` compiled for ``task``.

    The h_FF object also offers ``relaxed_plan(state)`` and ``helpful_actions(state)``.
    """
    if name == "blind":
        return Blind(task)
    if name == "hmax":
        return HMax(task)
    if name == "hadd":
        return HAdd(task)
    if name == "hff":
        return HFF(task)
    if name == "lmcut":
        return LMCut(task)
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
