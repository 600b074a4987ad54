"""Re-grounding's capabilities built as units of work for an executor's workers (issue 26,
scaling), with the same capabilities as :func:`~xaip.capabilities.split.grounded_caps`.

Why: when discovery re-learns refuted lifted capabilities grounded
(:mod:`~xaip.capabilities.split`), building their PAL tables -- every atom over all the
level's objects, each cut by the observed groundings -- ran in the main process, one
capability after another: 0.65-0.9 s of cookmepasta 8x8's 2.5-2.9 s serial part (29
grounded capabilities of 140 atoms), more on larger grids where a capability has more
atoms. Each capability is built on its own from its grounded candidate
(:func:`~xaip.capabilities.split.build_grounded`), so here each is a unit: on the workers
of the run's dispatch when there are any, else here, its CPU seconds a batch of units.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.capabilities.lifting import LiftedCandidate
from xaip.capabilities.pal import CapState
from xaip.capabilities.pool import StatePool
from xaip.capabilities.queries import QueryEngine, Refine
from xaip.capabilities.rounds import Dispatch, _report_units, dumps, send_units, unpack
from xaip.capabilities.split import Regrounding, build_grounded, ground_patterns, regrounding
from xaip.capabilities.traces import Abstractor


@dataclass
class RegroundState:
    """What every unit starts from: the capabilities to build and what they are built
    over (the vocabulary's predicates, the level's objects, the atom patterns seen)."""

    items: list[Regrounding]
    predicates: list[tuple[str, tuple[str, ...]]]
    objects: dict[str, str]
    possible: set[tuple[Any, ...]]


def _build(state: RegroundState, index: int) -> tuple[CapState, float]:
    cpu = time.process_time()
    cap = build_grounded(state.items[index], state.predicates, state.objects, state.possible)
    return cap, time.process_time() - cpu


def build_units(state: RegroundState, units: list[int], abstractor: Abstractor,
                refine: Refine | None) -> list[bytes]:
    """A worker's share: each unit's capability built, with its CPU seconds, pickled
    with :func:`~xaip.capabilities.rounds.dumps` (atoms unpickle faster)."""
    return [dumps([_build(state, index) for index in units])]


def grounded_units(engine: QueryEngine, caps: Sequence[CapState],
                   sources: Mapping[str, LiftedCandidate], objects: Mapping[str, str],
                   predicates: list[tuple[str, tuple[str, ...]]],
                   pool: StatePool) -> list[CapState]:
    """:func:`~xaip.capabilities.split.grounded_caps` of ``caps``, each grounded
    capability a unit on ``engine``'s dispatch (module docstring): the same capabilities,
    in order."""
    dispatch: Dispatch = engine.dispatch or Dispatch()
    state = RegroundState(regrounding(caps, sources, objects), predicates, dict(objects),
                          ground_patterns(pool, objects))
    units = list(range(len(state.items)))
    built: dict[int, CapState] = {}
    cpus: list[float] = []
    if dispatch.remote and len(units) > 1:
        for first, batch in send_units(dispatch, build_units, state, units):
            for offset, (cap, cpu) in enumerate(unpack(batch)):
                built[first + offset] = cap
                dispatch.unit_seconds += cpu
            _report_units(engine, "regrounding", len(built), len(units))
    else:
        for index in units:
            built[index], cpu = _build(state, index)
            cpus.append(cpu)
        dispatch.unit_seconds += sum(cpus)
        dispatch.batches.append(cpus)
    return [built[index] for index in units]


__all__ = ["RegroundState", "build_units", "grounded_units"]
