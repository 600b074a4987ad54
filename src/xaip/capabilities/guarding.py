"""The game-over guard and the listing's abstraction as units of work for an executor's
workers (issue 26, scaling), with the same result as one call in this process.

Why: after the query passes, discovery lists what the simulator reaches
(:mod:`~xaip.capabilities.region`) and guards every capability against the closed states
(:mod:`~xaip.capabilities.gameover`). On cookmepasta 8x8 the listing was a fifth of a
serial run, nearly all of it abstracting the listed states one by one in the main
process, and the guard a quarter, one unit per capability, of which one took half of the
guard's time. Here:

- *the listing's abstraction* (:func:`abstract_states`): the listed states in chunks of
  ``ABSTRACT_CHUNK``, each chunk a unit; a worker sends back each distinct abstraction
  of its chunk once, with an index per state;
- *the guard* (:func:`guard_all`) in two rounds: first every capability's offending cases
  (a state and a binding where its precondition holds and its prediction cannot come
  true) in every chunk of closed states (about ``GUARD_UNITS`` units in all), one unit
  per capability and chunk; then one unit per capability excluding its cases
  (:func:`~xaip.capabilities.gameover.exclude`, given the cases). The cases of a
  capability are its chunks' cases in state order, exactly the list one scan of all the
  states finds (:func:`~xaip.capabilities.gameover._offending` keeps the states' order,
  and narrowing to the states holding a required atom only skips states where matching
  fails), so the capabilities and the count are those of
  :func:`~xaip.capabilities.gameover.guard` called on each.
"""

from __future__ import annotations

import pickle
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xaip.agents.simulator import check_deadline, deadline
from xaip.capabilities.answers import wall_deadline
from xaip.capabilities.compact import AtomTable, BitKeys
from xaip.capabilities.gameover import (
    ALL_BINDINGS,
    GUARD_WHERE,
    Case,
    exclude,
    offending_at,
)
from xaip.capabilities.matching import Matcher
from xaip.capabilities.pal import CapState
from xaip.capabilities.pool import CaseState, StatePool
from xaip.capabilities.queries import EngineConfig, QueryEngine, Refine
from xaip.capabilities.region import Closed, abstract_bits, abstract_here
from xaip.capabilities.rounds import (
    Dispatch,
    Shared,
    _report_units,
    dumps,
    new_token,
    run_units,
    send_units,
    share,
)
from xaip.capabilities.screen import Screen
from xaip.capabilities.traces import Abstractor, AbstractState
from xaip.runtime.budget import Budget, BudgetClock

if TYPE_CHECKING:
    from collections.abc import Callable

#: Listed states abstracted per unit: 20,000 states make 79 units, enough for 32 workers.
ABSTRACT_CHUNK = 256
#: The guard's first round has about this many units: each capability's scan is cut
#: into chunks of closed states (six lifted capabilities: 171 chunks each). Why: on
#: Cook-Me-Pasta 8x8 the whole listing has 367,860 closed states and the scan 173 s of
#: CPU; cut into 64 units, one of them took 11.6 s, so 16 workers could not make the
#: round more than 15x faster and it held the run to 5.8x (issue 26).
GUARD_UNITS = 1024
#: Nor chunks of fewer closed states than this.
MIN_GUARD_STATES = 8

#: A case by entry of the guard's view: the entry and the binding.
EntryCase = tuple[int, dict[str, str]]


def _run_deadline(engine: QueryEngine) -> float | None:
    """The run's wall-clock deadline (its asker's clock; ``None``: none)."""
    asker = engine.asker
    return None if asker is None else wall_deadline(asker.clock)


def _clock(at: float | None) -> BudgetClock | None:
    """A clock whose deadline is the wall-clock time ``at`` (``None``: no deadline)."""
    if at is None:
        return None
    return Budget(max_seconds=max(0.0, at - time.time())).start()


# --------------------------------------------------------------------------- the listing


def abstract_states(engine: QueryEngine, states: list[Any],
                    table: AtomTable | None = None) -> Any:
    """The abstractions of ``states`` in order (what
    :func:`~xaip.capabilities.region.explore` needs: with ``table``, as its bits, else as
    atoms), computed on the workers of ``engine``'s dispatch in chunks when there are
    any, else here chunk by chunk (the chunks' seconds are a batch of units). The
    objects the workers met join the abstractor's, as abstracting here would add them."""
    dispatch: Dispatch = engine.dispatch or Dispatch()
    abstractor = engine.abstractor
    starts = list(range(0, len(states), ABSTRACT_CHUNK))
    if not dispatch.remote:
        out: list[Any] = []
        times: list[float] = []
        cpus: list[float] = []
        for a in starts:
            began, cpu = time.perf_counter(), time.process_time()
            chunk = states[a:a + ABSTRACT_CHUNK]
            out += abstract_here(abstractor, chunk) if table is None else \
                abstract_bits(abstractor, chunk, table)
            times.append(time.perf_counter() - began)
            cpus.append(time.process_time() - cpu)
        dispatch.unit_seconds += sum(times)
        dispatch.batches.append(cpus)
        return out
    assert dispatch.executor is not None and dispatch.context is not None
    at = _run_deadline(engine)
    # each task carries its own chunks only (the whole listing to every task would be
    # most of the listing's cost again), and the table's numbering so far
    prefix = None if table is None else list(table.keys)
    per_task = max(1, -(-len(starts) // (4 * dispatch.executor.workers)))
    groups = [starts[i:i + per_task] for i in range(0, len(starts), per_task)]
    tasks = [(abstract_units, dispatch.context,
              Shared(new_token(), dumps(states[group[0]:group[-1] + ABSTRACT_CHUNK])),
              [at, prefix]) for group in groups]
    done: dict[int, tuple[Any, Any]] = {}
    for position, (blob, seconds) in _completed(dispatch, tasks):
        check_deadline()
        objects, first, second = pickle.loads(blob)
        for name, kind in objects:
            abstractor.objects.setdefault(name, kind)
        done[position] = first, second
        dispatch.unit_seconds += seconds
        _report_units(engine, "listing", len(done), len(tasks))
    if table is None or prefix is None:
        return [distinct[i] for position in range(len(tasks))
                for distinct, ids in [done[position]] for i in ids]
    numbered: list[int] = []
    for position in range(len(tasks)):
        new, bits = done[position]
        numbered += _renumbered(table, len(prefix), new, bits)
    return numbered


def _renumbered(table: AtomTable, known: int, new: list[Any], bits: list[int]) -> list[int]:
    """A worker's ``bits``, numbered from ``table``'s first ``known`` keys and then its
    own ``new`` ones (in the order it met them), as bits of ``table``: new keys are
    numbered here in that order, as abstracting the chunk here would number them, so
    the listing's numbering is the serial run's."""
    if not new:
        return bits
    places = [table.bit(key).bit_length() - 1 for key in new]
    mask = (1 << known) - 1
    out = []
    for value in bits:
        high = value >> known
        if not high:
            out.append(value)
            continue
        value &= mask
        while high:
            low = high & -high
            value |= 1 << places[low.bit_length() - 1]
            high ^= low
        out.append(value)
    return out


def _completed(dispatch: Dispatch, tasks: list[Any]) -> Any:
    assert dispatch.executor is not None
    for position, batch in dispatch.executor.completed(run_units, tasks):
        yield position, batch[0]


def abstract_units(states: list[Any], units: list[Any], abstractor: Abstractor,
                   refine: Refine | None) -> list[tuple[bytes, float]]:
    """A worker's task of the listing (``units``: the run's deadline and the main
    process's numbering of atoms, or ``None``): the abstractions of ``states`` as bits
    numbered from that numbering on, with the keys this task numbered past it (the main
    process renumbers those: :func:`_renumbered`); without a numbering, as the distinct
    abstractions (atoms) and an index per state. Why bits: sent back as atoms, the main
    process unpickled and encoded every listed state's atoms, 37 s of its CPU on
    Cook-Me-Pasta 8x8 (367,860 states), most of the serial part of a run on workers. The
    objects the abstractor knows come back too (pickled here with
    :func:`~xaip.capabilities.rounds.dumps`)."""
    began = time.perf_counter()
    at, prefix = units
    with deadline(_clock(at)):
        if prefix is None:
            fluents = abstract_here(abstractor, states)
            distinct: dict[AbstractState, int] = {}
            ids = [distinct.setdefault(f, len(distinct)) for f in fluents]
            payload: tuple[list[Any], list[int]] = (list(distinct), ids)
        else:
            table = AtomTable()
            for key in prefix:
                table.bit(key)
            bits = abstract_bits(abstractor, states, table)
            payload = (table.keys[len(prefix):], bits)
    blob = dumps((sorted(abstractor.objects.items()), *payload))
    return [(blob, time.perf_counter() - began)]


# --------------------------------------------------------------------------- the guard


@dataclass
class GuardState:
    """What every guard unit starts from: the capabilities, the closed states
    (:func:`~xaip.capabilities.gameover.probe_game_over`'s view, as it is), the
    matcher's settings, the chunks of states and the run's wall-clock deadline."""

    caps: list[CapState]
    states: Closed
    objects: dict[str, str]
    max_bindings: int
    config: EngineConfig = field(default_factory=EngineConfig)
    chunks: list[tuple[int, int]] = field(default_factory=list)
    deadline: float | None = None


class _Scan:
    """One process's view of a :class:`GuardState`: the matcher over every binding, a
    screen per capability (:class:`~xaip.capabilities.screen.Screen`, built once) and the
    refinement test."""

    def __init__(self, state: GuardState, abstractor: Abstractor,
                 describes: Callable[[AbstractState, Any], bool]) -> None:
        self.state = state
        self.every = Matcher(state.objects, max(state.max_bindings, ALL_BINDINGS))
        self.describes = describes
        self.screens: dict[int, Screen] = {}

    def cases(self, index: int, chunk: int) -> list[EntryCase]:
        """The offending cases of capability ``index`` in chunk ``chunk``, by entry."""
        cap = self.state.caps[index]
        view = self.state.states
        screen = self.screens.get(index)
        if screen is None:
            screen = self.screens[index] = Screen(cap, view, self.every)
        a, b = self.state.chunks[chunk]
        return offending_at(cap, view, range(a, b), self.every, self.describes, screen)


#: Per worker process: the scan of the last guard state (by identity).
_SCAN: list[Any] = [None, None]


def _worker_scan(state: GuardState, abstractor: Abstractor, refine: Refine | None) -> _Scan:
    if _SCAN[0] is not state:
        abstractor.objects.update(state.objects)
        engine = QueryEngine(None, abstractor, refine, state.caps,  # type: ignore[arg-type]
                             StatePool(abstractor), state.config)
        _SCAN[:] = [state, _Scan(state, abstractor,
                                 lambda target, like: engine.refine(target, like) is not None)]
    scan: _Scan = _SCAN[1]
    return scan


def case_units(state: GuardState, units: list[tuple[int, int]], abstractor: Abstractor,
               refine: Refine | None) -> list[tuple[list[EntryCase], float]]:
    """A worker's share of the guard's first round: the cases of each (capability,
    chunk) unit, with its seconds."""
    scan = _worker_scan(state, abstractor, refine)
    out = []
    with deadline(_clock(state.deadline)):
        for index, chunk in units:
            began = time.perf_counter()
            out.append((scan.cases(index, chunk), time.perf_counter() - began))
    return out


def exclude_units(state: GuardState, units: list[tuple[int, list[EntryCase]]],
                  abstractor: Abstractor, refine: Refine | None) \
        -> list[tuple[list[CapState], int, float]]:
    """A worker's share of the guard's second round: each capability's exclusion of its
    cases, given by entry of the guard's view (the capability, or its parts where it was
    split, whether it was marked, and the unit's CPU seconds). The cases' states are made
    here, from the view the first round's units already unpickled (the same state, sent
    with the same token): made in the main process and pickled, they were a third of
    its serial part on Cook-Me-Pasta 8x8 (759,641 cases, 7.4 s)."""
    out = []
    with deadline(_clock(state.deadline)):
        for index, cases in units:
            out.append(_exclude_one(state.caps[index], state.states, cases))
    return out


def _exclude_one(cap: CapState, view: Closed, cases: list[EntryCase]) \
        -> tuple[list[CapState], int, float]:
    began = time.perf_counter()
    exclude_cases = _case_states(view, cases)
    parts, marked = exclude([cap], lambda _: exclude_cases, GUARD_WHERE)
    return parts, marked, time.perf_counter() - began


def _case_states(view: Closed, cases: list[EntryCase]) -> list[Case]:
    """The cases with their entries' states as the exclusion reads them (one
    :class:`~xaip.capabilities.pool.CaseState` per entry, shared by its cases: they come
    in entry order, so one entry's cases are neighbours)."""
    out: list[Case] = []
    last, state = -1, None
    nodes, bits, table = view.nodes, view.bits, view.table
    for k, binding in cases:
        if k != last or state is None:
            last, state = k, CaseState(nodes[k], BitKeys(bits[k], table))
        out.append((state, binding))
    return out


def guard_all(engine: QueryEngine, game_over: Closed | list[Any]) -> tuple[list[CapState], int]:
    """:func:`~xaip.capabilities.gameover.guard` of each of ``engine``'s capabilities in
    units (module docstring): the same capabilities, in order, and the same count."""
    dispatch: Dispatch = engine.dispatch or Dispatch()
    caps = engine.caps
    if not game_over or not isinstance(game_over, Closed):
        return caps, 0
    size = max(MIN_GUARD_STATES, -(-len(game_over) // max(1, -(-GUARD_UNITS // len(caps)))))
    chunks = [(a, min(a + size, len(game_over))) for a in range(0, len(game_over), size)]
    at = _run_deadline(engine)
    state = GuardState(caps, game_over, dict(engine.matcher.object_type),
                       engine.matcher.max_bindings, engine.config, chunks, at)
    units = [(i, c) for i in range(len(caps)) for c in range(len(chunks))]
    found: dict[tuple[int, int], list[EntryCase]] = {}
    if dispatch.remote:
        # both rounds' tasks carry the same state: a worker unpickles it once
        with share(dispatch, dumps(state)) as shared:
            for first, batch in send_units(dispatch, case_units, state, units, shared):
                for offset, (cases, seconds) in enumerate(batch):
                    found[units[first + offset]] = cases
                    dispatch.unit_seconds += seconds
                _report_units(engine, "guard", len(found), len(units))
            return _exclude_all(engine, dispatch, state, _by_capability(found, state),
                                shared)
    scan = _Scan(state, engine.abstractor,
                 lambda target, like: engine.refine(target, like) is not None)
    times, cpus = [], []
    for unit in units:
        began, cpu = time.perf_counter(), time.process_time()
        found[unit] = scan.cases(*unit)
        times.append(time.perf_counter() - began)
        cpus.append(time.process_time() - cpu)
    dispatch.unit_seconds += sum(times)
    dispatch.batches.append(cpus)
    return _exclude_all(engine, dispatch, state, _by_capability(found, state), None)


def _by_capability(found: dict[tuple[int, int], list[EntryCase]], state: GuardState) \
        -> list[list[EntryCase]]:
    """Each capability's cases, its chunks' in state order."""
    return [[case for c in range(len(state.chunks)) for case in found[i, c]]
            for i in range(len(state.caps))]


def _exclude_all(engine: QueryEngine, dispatch: Dispatch, state: GuardState,
                 cases: list[list[EntryCase]], shared: Shared | None) \
        -> tuple[list[CapState], int]:
    """The guard's second round: each capability excludes its cases (capabilities
    without any are kept as they are, here). On workers, the tasks carry the first
    round's state again (``shared``: a worker that ran a unit of the first round does not
    unpickle it again) and each unit its cases by entry."""
    caps = state.caps
    todo = [i for i in range(len(caps)) if cases[i]]
    results: dict[int, tuple[list[CapState], int, float]] = {}
    if dispatch.remote and todo and shared is not None:
        units = [(i, cases[i]) for i in todo]
        for first, batch in send_units(dispatch, exclude_units, state, units, shared):
            for offset, result in enumerate(batch):
                results[todo[first + offset]] = result
                dispatch.unit_seconds += result[2]
            _report_units(engine, "guard", len(results), len(todo))
    else:
        cpus = []
        for i in todo:
            cpu = time.process_time()
            results[i] = _exclude_one(caps[i], state.states, cases[i])
            cpus.append(time.process_time() - cpu)
        dispatch.unit_seconds += sum(results[i][2] for i in todo)
        dispatch.batches.append(cpus)
    out: list[CapState] = []
    marked = 0
    for i, cap in enumerate(caps):
        if i in results:
            parts, n, _ = results[i]
            out += parts
            marked += n
        else:
            out.append(cap)
    return out, marked


__all__ = ["ABSTRACT_CHUNK", "GUARD_UNITS", "abstract_states", "guard_all"]
