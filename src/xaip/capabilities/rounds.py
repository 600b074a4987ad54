"""Discovery's rounds: a query pass, the game-over guard and the listing's abstraction as
independent units of work that an executor's workers run side by side, merged in order.

Why: the agent's answers are only part of a discovery run; generating the queries (matching
requirements in the state pool, refining waypoints, planning over the candidate model),
listing what the simulator reaches and guarding the model against closed states cost as
much again, and all of it ran in the main process, so more workers could not make a run
much faster (issue 26: 22-36% of a serial run was parallel work). Here:

- *a query pass* (:func:`run_pass`) is cut into units of a few open tuples of one
  capability (:func:`plan_units`: at least ``UNITS_PER_PASS`` units a pass, so that a
  pass of six lifted capabilities, one of them taking most of the time, still keeps 16 or
  32 workers busy). A unit completes its tuples from the state the pass started in -- the
  state pool, every capability's tables, the answers known so far -- with its own query
  engine, asking the agent itself. The results (the capability's tables, the states added
  to the pool, the queries asked and their answers) are merged in order: the first unit
  of a capability replaces its tables, a later one's evidence (each execution and failure
  it recorded) is applied to them again, as evidence about another capability (a
  means-ends step) is; states join the pool, queries are recorded and stored as if asked
  then (a query another unit already asked is a repeat, one the store holds is cached). A
  unit does not see what another learned in the same pass, only from the next pass on;
- *the game-over guard* and *the listing's abstraction* (:mod:`~xaip.capabilities.
  guarding`): the offending cases of every capability in every chunk of closed states,
  then one exclusion per capability; the listed states abstracted in chunks.

A unit's result depends only on the pass's state and the unit, never on which process ran
it or what else that process ran before: a unit starts from a fresh copy of the pass's
state, a fresh engine, and an agent with no memory of earlier searches
(:meth:`~xaip.agents.SearchAgent.forget`; the memory changes an answer's reason, not
whether it was reached). So the serial run (units in this process, one after another) and
a run on N workers give the same model, queries and answers; how units are cut depends on
the pass only, never on the number of workers.

Workers build the vocabulary and refinement once from a picklable recipe
(:class:`Dispatch`'s ``context``: a module-level function and its arguments, e.g.
:func:`xaip.capabilities.discovery.game_context`); without one, units run in this process.
Units are batched, several to a task, and a worker keeps the last pass's state it
unpickled (:func:`resident`), so each worker unpickles a pass's state once, not once per
task.
"""

from __future__ import annotations

import contextlib
import copy
import copyreg
import dataclasses
import io
import itertools
import os
import pickle
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.agents.simulator import OutOfTime, deadline
from xaip.capabilities import answers as answers_module
from xaip.capabilities.answers import (
    Answer,
    Asker,
    MemoryStore,
    query_key,
    wall_deadline,
    without_memory,
)
from xaip.capabilities.merging import PassResult, merge, record_history, slim
from xaip.capabilities.pal import CapState, observe, refute
from xaip.capabilities.pool import StatePool
from xaip.capabilities.queries import EngineConfig, QueryEngine, Refine
from xaip.capabilities.schedule import (
    MIN_TUPLES,
    UNITS_PER_PASS,
    History,
    Unit,
    deal,
    plan_pass,
)
from xaip.capabilities.traces import Abstractor
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import Budget, BudgetClock
from xaip.runtime.executors import Executor
from xaip.runtime.progress import report

#: ``factory(*args) -> (vocabulary, refine)``: how a worker builds what units need.
Recipe = tuple[Callable[..., tuple[Any, Refine | None]], tuple[Any, ...]]


@dataclass
class Dispatch:
    """Where a discovery run's units go: ``executor`` (``None``: this process) and the
    ``context`` recipe workers build the vocabulary and refinement from (``None``: this
    process too). ``unit_seconds`` sums the time units took (in this process or, as the
    workers measured it, on theirs): the work a pool of workers shares."""

    executor: Executor | None = None
    context: Recipe | None = None
    unit_seconds: float = 0.0
    #: The CPU seconds of each unit run in this process, per batch of units that could
    #: run side by side (a pass, the listing, a round of the guard): how well N workers
    #: could share them (the benchmark schedules them). CPU, not wall-clock, time: on a
    #: machine busy with other work a unit's wall time is mostly waiting for a core.
    batches: list[list[float]] = field(default_factory=list)
    #: Per capability, the tuples tried and queries posed in its last pass: how the next
    #: pass is cut (:mod:`~xaip.capabilities.schedule`; counts, the same in every run).
    history: History = field(default_factory=History)

    @property
    def remote(self) -> bool:
        return self.executor is not None and self.context is not None and \
            self.executor.workers > 1


# --------------------------------------------------------------------------- the pass


@dataclass
class PassState:
    """What every unit of a pass starts from (pickled once, unpickled per unit)."""

    caps: list[CapState]
    pool: list[Any]
    objects: dict[str, str]
    config: EngineConfig
    offsets: dict[str, int]
    answers: dict[str, Answer]
    query_budget: Budget
    nodes: int | None
    deadline: float | None


class _SnapshotStore(MemoryStore):
    """The answers known when the pass started, read-only to the unit. What the unit would
    store is kept in ``written`` and, in the main process, written through to ``sink`` (the
    run's store) at once: a run killed inside a pass loses only the query in flight, as
    before passes ran in units (on workers, the main process writes a task's answers when
    the task comes back)."""

    def __init__(self, known: dict[str, Answer], sink: Any = None) -> None:
        super().__init__()
        self.known = known
        self.sink = sink
        self.written: list[tuple[str, str, Answer]] = []

    def get_answer(self, key: str) -> Answer | None:
        return self.known.get(key)

    def put_answer(self, key: str, capability: str, answer: Answer) -> None:
        self.written.append((key, capability, answer))
        if self.sink is not None:
            self.sink.put_answer(key, capability, answer)


class _MergeStore:
    """The run's store while a pass is merged: the answers units already wrote in this pass
    look new (so the merge records them as asked, not as found in the store) and are not
    written twice."""

    def __init__(self, store: Any, written: set[str]) -> None:
        self.store = store
        self.written = written

    def get_answer(self, key: str) -> Answer | None:
        return None if key in self.written else self.store.get_answer(key)

    def put_answer(self, key: str, capability: str, answer: Answer) -> None:
        if key not in self.written:
            self.store.put_answer(key, capability, answer)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


class _LoggingAsker(Asker):
    """An asker that keeps every query posed and every answer computed, for the merge."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.log: list[tuple[str, Any, Any]] = []
        self.computed: dict[str, Answer] = {}

    def ask_many(self, queries: Sequence[tuple[str, Any, Any]]) \
            -> list[tuple[bool | None, Any]]:
        self.log.extend(queries)
        return super().ask_many(queries)

    def _compute(self, pairs: Sequence[tuple[Any, Any]], keys: Sequence[str] | None = None) \
            -> list[Answer]:
        out = super()._compute(pairs, keys)
        names = keys if keys is not None else [query_key(s, g) for s, g in pairs]
        self.computed.update(zip(names, out, strict=True))
        return out


#: Where in the state pool a capability's later parts start looking for start states
#: (the first part starts where the capability's last pass stopped).
PART_STRIDE = 7 * 1_009


def plan_units(caps: Sequence[CapState], todo: Sequence[int], max_tries: int = 3,
               units: int = UNITS_PER_PASS, smallest: int = MIN_TUPLES,
               history: History | None = None) -> list[Unit]:
    """The units of a pass over the capabilities ``todo``, cut by estimated cost
    (:func:`~xaip.capabilities.schedule.plan_pass`)."""
    return plan_pass(caps, todo, max_tries, history, units, smallest)[0]


def _pass_unit(state: PassState, base: StatePool, unit: Unit, abstractor: Abstractor,
               refine: Refine | None, agent: Any, sink: Any = None) -> PassResult:
    """Unit ``unit`` of a pass: its capability completes its tuples from ``state`` and
    the pool ``base`` built from it (module docstring); neither is changed."""
    began, cpu = time.perf_counter(), time.process_time()
    index, part, tuples = unit
    caps = list(state.caps)  # read only, but for the unit's own copy of its capability
    caps[index] = _fresh(caps[index])
    pool = _copy_pool(base)
    known = len(pool.states)
    clock: BudgetClock | None = None
    if state.nodes is not None or state.deadline is not None:
        seconds = None if state.deadline is None else max(0.0, state.deadline - time.time())
        clock = Budget(max_nodes=state.nodes, max_seconds=seconds).start()
    snapshot = _SnapshotStore(state.answers, sink)
    asker = _LoggingAsker(agent, snapshot, state.query_budget, None, clock)
    engine = QueryEngine(asker, abstractor, refine, caps, pool, state.config)
    cap = caps[index]
    engine.focus = cap
    engine.evidence = [] if part else None
    engine._offset = state.offsets.get(cap.name, 7 * index) + PART_STRIDE * part  # noqa: SLF001
    # An answer must not depend on what this process searched before, nor what the main
    # process asks after a pass on what its agent searched in a serial run's units; and
    # the agent keeps nothing of what it exhausts inside the unit: the reachable set a
    # search agent completes for its memory cost as much again as the search, and within
    # a unit of a few tuples it answered 8 of 937 queries (cookmepasta 8x8; the units'
    # CPU fell from 9.2 s to 7.7 s without it). Answers are the same either way.
    try:
        with without_memory(agent), deadline(clock):
            progress, finished = engine.complete_capability(cap, clock, tuples)
    except OutOfTime:
        progress, finished = True, False
    return PassResult(cap, [ps.concrete for ps in pool.states[known:]], asker.log,
                      asker.computed, engine._offset, engine.plans,  # noqa: SLF001
                      progress, finished, time.perf_counter() - began,
                      time.process_time() - cpu, engine.foreign, snapshot.written, part,
                      tuples, engine.evidence or [])


def _base_pool(state: PassState, abstractor: Abstractor) -> StatePool:
    """The pass's state pool, built once per task (units copy it)."""
    abstractor.objects.update(state.objects)
    pool = StatePool(abstractor)
    for concrete in state.pool:
        pool.add(concrete)
    return pool


def _copy_pool(base: StatePool) -> StatePool:
    """A pool a unit may add to without changing ``base`` (pool states are never changed
    once made, so they are shared)."""
    pool = StatePool(base.abstractor)
    pool.states = list(base.states)
    pool._seen = set(base._seen)  # noqa: SLF001 - a copy of its own kind
    pool._abstract = set(base._abstract)  # noqa: SLF001
    return pool


_IMMUTABLE = (str, int, float, bool, type(None), frozenset, Atom)


def _fresh(value: Any) -> Any:
    """A copy of ``value`` that shares nothing mutable with it: containers are rebuilt,
    immutable values (atoms, abstract states, frozen dataclasses) shared. Why not
    :func:`copy.deepcopy`: it rebuilds every abstract state of every capability's
    executions, per unit."""
    if isinstance(value, _IMMUTABLE):
        return value
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    if isinstance(value, set):
        return set(value)
    if type(value) is tuple:
        return tuple(_fresh(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if value.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            return value
        new = copy.copy(value)
        for f in dataclasses.fields(value):
            setattr(new, f.name, _fresh(getattr(value, f.name)))
        return new
    return copy.deepcopy(value)


def run_pass(engine: QueryEngine, clock: BudgetClock | None) -> tuple[bool, bool]:
    """One query pass over ``engine``'s capabilities (module docstring); returns whether
    any mode set shrank and whether the budget lasted."""
    dispatch: Dispatch = engine.dispatch or Dispatch()
    asker = engine.asker
    caps = engine.caps
    nodes = None
    if clock is not None and clock.budget.max_nodes is not None:
        nodes = max(0, clock.budget.max_nodes - clock.nodes)
    offsets = engine.offsets
    state = PassState(caps, [ps.concrete for ps in engine.pool.states],
                      dict(engine.abstractor.objects), engine.config, dict(offsets),
                      known_answers(asker), asker.query_budget, nodes, wall_deadline(clock))
    units, costs, lives = plan_pass(caps, range(len(caps)), engine.config.max_tries,
                                    dispatch.history, pool=len(engine.pool))
    foreign: list[tuple[Any, ...]] = []
    results = _map_units(dispatch, engine, state, units, costs)
    record_history(dispatch.history, caps, units, lives, results)
    store = asker.store
    asker.store = _MergeStore(store, {key for r in results for key, _, _ in r.stored})
    try:
        progress, finished = merge(engine, clock, units, results, foreign)
    finally:
        asker.store = store
    by_name = {cap.name: cap for cap in caps}
    for kind, name, binding, before, target, effects in foreign:
        other = by_name.get(name)
        if other is None:
            continue
        if kind == "observe":
            progress |= observe(other, binding, before, target)
        else:
            progress |= refute(other, binding, before, target, effects=effects)
    return progress, finished


def known_answers(asker: Asker) -> dict[str, Answer]:
    """Every answer the asker's store holds (this run's and, on a resumed run, the earlier
    runs'), so units do not ask the agent again what the main process would find stored."""
    store = asker.store
    if isinstance(store, MemoryStore) and not isinstance(store, _SnapshotStore):
        return dict(store._answers)  # noqa: SLF001 - the in-memory store's own table
    table = getattr(store, "_store", None)  # a SQLiteStore's run store
    if table is None or not hasattr(table, "items"):
        return {}
    out: dict[str, Answer] = {}
    for key, _ in table.items("answers"):
        found = store.get_answer(key)
        if found is not None:
            out[key] = found
    return out


# --------------------------------------------------------------------------- dispatch

#: Per worker process: the context built from each recipe (vocabulary and refinement).
_CONTEXTS: dict[Any, tuple[Abstractor, Refine | None]] = {}


def _context(recipe: Recipe) -> tuple[Abstractor, Refine | None]:
    found = _CONTEXTS.get(recipe)
    if found is None:
        factory, args = recipe
        vocabulary, refine = factory(*args)
        found = _CONTEXTS[recipe] = (Abstractor(vocabulary), refine)
    return found


def run_units(item: tuple[Callable[..., list[Any]], Recipe, Shared, list[Any]]) -> list[Any]:
    """A worker's task: ``fn(state, units, abstractor, refine)`` for the units ``units``
    of the pass, guard or listing whose state ``shared`` carries (module-level, so
    executors can send it; see :func:`resident`)."""
    fn, recipe, shared, units = item
    abstractor, refine = _context(recipe)
    return fn(resident(shared), units, abstractor, refine)


#: Per worker process: the last state unpickled, by its token.
_RESIDENT: list[Any] = [None, None]
_TOKENS = itertools.count()


def new_token() -> tuple[int, int]:
    """A name for a state sent to the workers, unique to this process and call."""
    return os.getpid(), next(_TOKENS)


#: A pickled state larger than this goes to the workers once, not inside every task.
SHARE_BYTES = 1 << 20


@dataclass(frozen=True)
class Shared:
    """A pickled state as a task carries it: the bytes themselves (``data``), or where
    every worker can read them once -- a file on this machine (``path``, for a pool of
    local processes) or Ray's object store (``ref``).

    Why: every task of a round carries its state, and a round has three tasks per
    worker. The guard's state on Cook-Me-Pasta 8x8 is 130 MB (the listing's reach sets
    are 92 MB of it): inline, 16 workers' 48 tasks would push 6 GB through the pool's
    pipes from the main process, the serial part of the run."""

    token: Any
    data: bytes | None = None
    path: str | None = None
    ref: Any = None

    def load(self) -> bytes:
        if self.data is not None:
            return self.data
        if self.path is not None:
            with open(self.path, "rb") as handle:
                return handle.read()
        import ray  # only a Ray executor makes a reference

        out: bytes = ray.get(self.ref)
        return out


@contextlib.contextmanager
def share(dispatch: Dispatch, data: bytes) -> Iterator[Shared]:
    """``data`` made available to ``dispatch``'s workers for one round (or several that
    reuse the state): inline when small or without workers; large, in a temporary file a
    pool of local processes reads (removed when the round is over) or in Ray's object
    store (:meth:`~xaip.runtime.executors.RayExecutor.put`)."""
    token = new_token()
    executor = dispatch.executor
    if executor is None or len(data) < SHARE_BYTES:
        yield Shared(token, data=data)
        return
    put = getattr(executor, "put", None)
    if callable(put):
        yield Shared(token, ref=put(data))
        return
    if executor.name != "processes":
        yield Shared(token, data=data)
        return
    handle, path = tempfile.mkstemp(prefix="xaip-round-", suffix=".pickle")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        yield Shared(token, path=path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def resident(shared: Shared) -> Any:
    """The state ``shared`` carries, unpickled once per worker: a round's tasks all carry
    the same state, and a worker that runs several of them keeps the first one's (units
    never change it). Why: with the pass cut into many units, unpickling the state per
    task made the workers' CPU twice the serial run's (issue 26)."""
    if _RESIDENT[0] != shared.token:
        _RESIDENT[:] = [None, None]  # the old state is freed before the new one is built
        _RESIDENT[:] = [shared.token, pickle.loads(shared.load())]
    return _RESIDENT[1]


def pass_units(state: PassState, units: list[Unit], abstractor: Abstractor,
               refine: Refine | None) -> list[bytes]:
    """A worker's share of a pass: its units, from one pool built from the state (a later
    part sends back its notes, not its capability's tables: :func:`~xaip.capabilities.
    merging.slim`), pickled here with :func:`dumps` (:func:`unpack` reads them). Why:
    the executor pickles a task's result with the plain pickler, whose atoms (in every
    abstract state of the evidence and the tables) unpickle several times slower -- in
    the main process, the serial part of a run on workers."""
    base = _worker_pool(state, abstractor)
    agent = answers_module._WORKER_AGENT  # noqa: SLF001 - this worker's agent
    return [dumps([slim(_pass_unit(state, base, unit, abstractor, refine, agent),
                        state.caps[unit[0]]) for unit in units])]


def unpack(batch: list[Any]) -> list[Any]:
    """A worker's results as :func:`pass_units` packed them (one blob), else as they are."""
    if len(batch) == 1 and isinstance(batch[0], bytes):
        out: list[Any] = pickle.loads(batch[0])
        return out
    return batch


#: Per worker process: the pool built from the last pass's state (by identity).
_POOL: list[Any] = [None, None]


def _worker_pool(state: PassState, abstractor: Abstractor) -> StatePool:
    """The pass's pool, built once per worker and pass (kept beside its state)."""
    if _POOL[0] is not state:
        _POOL[:] = [state, _base_pool(state, abstractor)]
    pool: StatePool = _POOL[1]
    return pool


def send_units(dispatch: Dispatch, fn: Callable[..., list[Any]], state: Any,
               units: list[Any], shared: Shared | None = None) \
        -> Iterator[tuple[int, list[Any]]]:
    """Run ``fn`` over ``units`` on the workers in batches (``state`` pickled once and
    shared for the round, or ``shared`` if given: a later round that reuses a state the
    workers hold already): ``(first unit's position, results)`` as each batch comes
    back."""
    assert dispatch.executor is not None and dispatch.context is not None
    with contextlib.ExitStack() as stack:
        if shared is None:
            shared = stack.enter_context(share(dispatch, dumps(state)))
        size = max(1, len(units) // (3 * dispatch.executor.workers))
        starts = list(range(0, len(units), size))
        tasks = [(fn, dispatch.context, shared, units[a:a + size]) for a in starts]
        for position, batch in dispatch.executor.completed(run_units, tasks):
            yield starts[position], batch


def send_dealt(dispatch: Dispatch, fn: Callable[..., list[Any]], state: Any,
               units: list[Any], costs: Sequence[float]) -> Iterator[tuple[list[int], list[Any]]]:
    """Run ``fn`` over ``units`` on the workers, dealt into tasks by their estimated
    ``costs`` (:func:`~xaip.capabilities.schedule.deal`, three tasks per worker, the
    heaviest sent first; the state pickled once and shared): ``(positions, results)`` as
    each task comes back."""
    assert dispatch.executor is not None and dispatch.context is not None
    groups = deal(costs, 3 * dispatch.executor.workers)
    with share(dispatch, dumps(state)) as shared:
        tasks = [(fn, dispatch.context, shared, [units[k] for k in group])
                 for group in groups]
        for index, batch in dispatch.executor.completed(run_units, tasks):
            yield groups[index], batch


def _map_units(dispatch: Dispatch, engine: QueryEngine, state: PassState,
               units: list[Unit], costs: list[float] | None = None) -> list[PassResult]:
    """The pass's ``units`` run on the workers when there are any (dealt into tasks by
    their estimated ``costs``, the state pickled once), else here; results in the order
    of ``units``. Units never change the state they start from, so where they run and how
    they are batched does not change their results."""
    if not units:
        return []
    if dispatch.remote:
        done: dict[int, PassResult] = {}
        weights = costs if costs is not None else [1.0] * len(units)
        for positions, batch in send_dealt(dispatch, pass_units, state, units, weights):
            for position, result in zip(positions, unpack(batch), strict=True):
                done[position] = result
                for key, name, answer in result.stored:  # kept at once (a killed run)
                    engine.asker.store.put_answer(key, name, answer)
            _report_units(engine, "pass", len(done), len(units))
        results = [done[k] for k in range(len(units))]
        dispatch.unit_seconds += sum(r.seconds for r in results)
        return results
    # the pass's pool is the engine's, as it is when the pass starts (a worker builds it
    # from the states: :func:`_worker_pool`); units copy it and never change its states
    base = _copy_pool(engine.pool)
    out = []
    for unit in units:
        result = _pass_unit(state, base, unit, engine.abstractor, engine.refine_fn,
                            engine.asker.agent, engine.asker.store)
        dispatch.unit_seconds += result.seconds
        out.append(result)
        _report_units(engine, "pass", len(out), len(units))
    dispatch.batches.append([r.cpu for r in out])
    return out


def _report_units(engine: QueryEngine, kind: str, done: int, total: int) -> None:
    """Progress inside a pass, guard or listing: how many of its units are done."""
    if engine.progress is not None:
        what = {"pass": "completed", "guard": "guarded", "listing": "abstracted",
                "regrounding": "built"}
        report(engine.progress, kind, done, total, f"{done}/{total} units {what[kind]}")


def _reduce_atom(atom: Atom) -> tuple[Any, ...]:
    return Atom, (atom.predicate, atom.args, atom.location)


def dumps(value: Any) -> bytes:
    """``pickle.dumps`` with atoms pickled as their constructor's arguments (a slotted
    frozen dataclass otherwise pickles through ``dataclasses``' generic state functions,
    several times slower to unpickle; a pass's state holds hundreds of thousands)."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    table = copyreg.dispatch_table.copy()
    table[Atom] = _reduce_atom
    pickler.dispatch_table = table
    pickler.dump(value)
    return out.getvalue()


from xaip.capabilities.guarding import abstract_states, guard_all  # noqa: E402 - uses this module

__all__ = ["Dispatch", "Shared", "abstract_states", "guard_all", "known_answers",
           "plan_units", "run_pass", "run_units", "share"]
