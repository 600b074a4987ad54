"""How a discovery pass is cut into units, and units dealt into tasks, by estimated cost.

Why: a query pass's units are not alike. On cookmepasta 8x8 most of a unit's CPU is the
agent's answers, and a query the agent cannot reach costs an exhaustive search (0.1-0.6 s
there, against about 1 ms to generate a query that finds no start state), so a pass cut
into equal *numbers* of tuples had one unit of 1.2 s in a pass of 5 s: 16 workers could
not make that pass more than 4x faster. Cutting by count also left passes of 64 or more
capabilities (the re-grounded ones) one unit per capability (issue 26).

Here a pass is cut by estimated cost (:func:`plan_pass`): a live tuple (one the unit will
try) costs ``1 + QUERY_COST * rate``, ``rate`` being the queries its capability posed per
tuple it tried in its last pass (:class:`History`; ``DEFAULT_RATE`` before its first),
and every capability is cut into contiguous parts of about ``total / UNITS_PER_PASS``
cost each -- however many capabilities the pass has, so a pass of 87 capabilities is cut
as finely as one of six. The estimate uses counts only (tuples tried, queries posed),
never timings: CPU seconds differ from run to run and between machines, and the cut
decides what each unit sees, hence the model. It never depends on the number of workers,
so a serial run and a run on N workers run the same units and learn the same model.

Where the units run is free: :func:`deal` packs them into tasks, heaviest first, each
unit going to the task with the least estimated cost so far (longest-processing-time
first), so one task does not collect several expensive units while others run dry.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from xaip.capabilities.pal import CapState
from xaip.planning.pddl.model import Atom

#: A pass is cut into about this many units of equal estimated cost (fewer when its
#: capabilities have fewer tuples to try): enough that 16 or 32 workers share a pass whose
#: costs a count-based estimate cannot foresee (which query the agent cannot reach).
UNITS_PER_PASS = 256
#: Nor into units of fewer tuples that will be tried than this (a unit's fixed cost:
#: copying its capability and the pool, a fresh engine; about 3 ms on cookmepasta 8x8).
MIN_TUPLES = 2
#: What a posed query costs, in tuples whose query generation finds nothing (cookmepasta
#: 8x8: about 0.1 s per query answered against about 1 ms per such tuple).
QUERY_COST = 100
#: Queries per tried tuple assumed for a capability without a pass behind it.
DEFAULT_RATE = 0.1

#: One unit of a pass: the capability's position, the part, and its tuples (``None``:
#: every open tuple of the capability, the unit of a capability that is not cut).
Unit = tuple[int, int, list[tuple[str, Atom]] | None]


@dataclass
class History:
    """Per capability name, the tuples its units tried and the queries they posed in its
    last pass (counts, so the same in every run of a seed)."""

    counts: dict[str, tuple[int, int]] = field(default_factory=dict)

    def tuple_cost(self, name: str) -> float:
        """The estimated cost of one live tuple of capability ``name``."""
        tried, posed = self.counts.get(name, (0, 0))
        rate = posed / tried if tried else DEFAULT_RATE
        return 1.0 + QUERY_COST * rate

    def record(self, name: str, tried: int, posed: int) -> None:
        self.counts[name] = (tried, posed)


def skipped(cap: CapState, key: tuple[str, Atom], max_tries: int, pool: int = 0) -> bool:
    """Whether :meth:`~xaip.capabilities.queries.QueryEngine.complete_capability` would
    pass over ``key`` at once, the state pool holding ``pool`` states: tried the most
    times, or left unobservable when the pool was more than half as large (it is retried
    once the pool has doubled; the pool may grow inside the unit, which the estimate does
    not foresee)."""
    marked = cap.unobservable.get(key)
    if marked is not None and pool < 2 * marked:
        return True
    return cap.tried.get(key, 0) >= max_tries


def plan_pass(caps: Sequence[CapState], todo: Sequence[int], max_tries: int = 3,
              history: History | None = None, units: int = UNITS_PER_PASS,
              smallest: int = MIN_TUPLES, pool: int = 0) \
        -> tuple[list[Unit], list[float], list[int]]:
    """The units of a pass over those of the capabilities ``todo`` with open tuples
    (module docstring), with each unit's estimated cost and its number of live tuples
    (tuples it will try). A capability is cut into
    contiguous parts of its open tuples, each with about as many live tuples, as many
    parts as its estimated cost holds ``total / units`` (at least one; none with fewer
    than ``smallest`` live tuples). Tuples a unit would skip at once are spread like the
    rest but weigh nothing (``pool``: the state pool's size when the pass starts)."""
    known = history or History()
    plans = []
    for index in todo:
        cap = caps[index]
        tuples = cap.open_tuples()
        if not tuples:
            continue  # nothing to complete: no unit
        live = [not skipped(cap, key, max_tries, pool) for key in tuples]
        plans.append((index, tuples, live, known.tuple_cost(cap.name)))
    total = sum(sum(live) * each for _, _, live, each in plans)
    target = total / units if total > 0 else 0.0
    out: list[Unit] = []
    costs: list[float] = []
    lives: list[int] = []
    for index, tuples, live, each in plans:
        count_live = sum(live)
        wanted = math.ceil(count_live * each / target - 1e-9) if target > 0 else 1
        count = min(max(1, wanted), max(1, count_live // smallest))
        if count <= 1:
            out.append((index, 0, None))
            costs.append(count_live * each)
            lives.append(count_live)
            continue
        for j, (a, b) in enumerate(cut(live, count)):
            out.append((index, j, tuples[a:b]))
            costs.append(sum(live[a:b]) * each)
            lives.append(sum(live[a:b]))
    return out, costs, lives


def cut(live: list[bool], count: int) -> list[tuple[int, int]]:
    """``count`` contiguous ranges covering ``live``, each with about as many true
    entries (every range has at least one)."""
    total = sum(live)
    bounds: list[tuple[int, int]] = []
    start, seen, j = 0, 0, 1
    for position, flag in enumerate(live):
        seen += flag
        if j < count and flag and seen >= total * j / count:
            bounds.append((start, position + 1))
            start, j = position + 1, j + 1
    bounds.append((start, len(live)))
    return [b for b in bounds if b[0] < b[1]]


def deal(costs: Sequence[float], tasks: int) -> list[list[int]]:
    """The positions of units with estimated ``costs`` packed into at most ``tasks``
    tasks: heaviest unit first, each to the task with the least cost so far; the tasks
    come heaviest first (an executor starts them in that order), each task's positions
    ascending; of tasks with equal cost, a unit goes to the one with fewer units. Every
    position appears once."""
    count = max(1, min(tasks, len(costs)))
    loads = [0.0] * count
    members: list[list[int]] = [[] for _ in range(count)]
    for position in sorted(range(len(costs)), key=lambda k: (-costs[k], k)):
        lightest = min(range(count), key=lambda t: (loads[t], len(members[t]), t))
        loads[lightest] += costs[position]
        members[lightest].append(position)
    order = sorted(range(count), key=lambda t: (-loads[t], t))
    return [sorted(members[t]) for t in order if members[t]]


__all__ = ["DEFAULT_RATE", "MIN_TUPLES", "QUERY_COST", "UNITS_PER_PASS", "History", "Unit",
           "cut", "deal", "plan_pass", "skipped"]
