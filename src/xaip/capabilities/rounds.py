"""Discovery's rounds: a query pass and the game-over guard as independent units of work
that an executor's workers run side by side, merged in input order.

Why: the agent's answers are only part of a discovery run; generating the queries (matching
requirements in the state pool, refining waypoints, planning over the candidate model) and
guarding the model against game-over states cost as much again, and both ran in the main
process, so more workers could not make a run much faster (issue 26: 22-36% of a serial run
was parallel work). Here the unit is one capability:

- *a query pass* (:func:`run_pass`): every capability completes its open tuples from the
  state the pass started in -- the state pool, the other capabilities' tables, the answers
  known so far -- with its own query engine, asking the agent itself. The results (its
  tables, the states it added to the pool, the queries it asked and their answers) are
  merged in capability order: tables replaced, states added to the pool, queries recorded
  and stored as if asked then (a query another capability already asked is a repeat, one
  the store holds is cached). A capability does not see what another learned in the same
  pass, only from the next pass on;
- *the game-over guard* (:func:`guard_all`): :func:`xaip.capabilities.gameover.guard`
  treats every capability on its own, so each is guarded in a unit and the parts are
  concatenated in order.

A unit's result depends only on the pass's state and the capability, never on which
process ran it or what else that process ran before: a unit starts from a fresh copy of
the pass's state (unpickled from one blob), a fresh engine, and an agent with no memory of
earlier searches (:meth:`~xaip.agents.SearchAgent.forget`; the memory changes an answer's
reason, not whether it was reached). So the serial run (units in this process, one after
another) and a run on N workers give the same model, queries and answers.

Workers build the vocabulary and refinement once from a picklable recipe
(:class:`Dispatch`'s ``context``: a module-level function and its arguments, e.g.
:func:`xaip.capabilities.discovery.game_context`); without one, units run in this process.
Small units are batched, several to a task, so the pass's state is pickled once per task.
"""

from __future__ import annotations

import copy
import copyreg
import dataclasses
import io
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.agents.simulator import OutOfTime, deadline
from xaip.capabilities import answers as answers_module
from xaip.capabilities.answers import Answer, Asker, MemoryStore, query_key, wall_deadline
from xaip.capabilities.gameover import guard
from xaip.capabilities.matching import Matcher
from xaip.capabilities.pal import CapState, observe, refute
from xaip.capabilities.pool import PoolState, StatePool
from xaip.capabilities.queries import EngineConfig, QueryEngine, Refine, spent
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
    #: The seconds of each unit, per batch of units that could run side by side (a pass,
    #: a guard): how well N workers could share them (the benchmark schedules them).
    batches: list[list[float]] = field(default_factory=list)

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


@dataclass
class PassResult:
    """One capability's pass: its tables, the states it added to the pool (in order), the
    queries it posed (in order) with the answers it computed, and its counters."""

    cap: CapState
    added: list[Any]
    asked: list[tuple[str, Any, Any]]
    computed: dict[str, Answer]
    offset: int
    plans: int
    progress: bool
    finished: bool
    seconds: float = 0.0
    #: Evidence about other capabilities (means-ends steps), applied after the merge.
    foreign: list[tuple[Any, ...]] = field(default_factory=list)
    #: The answers the unit would have stored: ``(key, capability, answer)``.
    stored: list[tuple[str, str, Answer]] = field(default_factory=list)


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


def _pass_unit(state: PassState, base: StatePool, index: int, abstractor: Abstractor,
               refine: Refine | None, agent: Any, sink: Any = None) -> PassResult:
    """Capability ``index`` completes its open tuples from ``state`` and the pool ``base``
    built from it (module docstring); neither is changed."""
    began = time.perf_counter()
    forget = getattr(agent, "forget", None)
    if callable(forget):
        forget()  # an answer must not depend on what this process searched before
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
    engine._offset = state.offsets.get(cap.name, 7 * index)  # noqa: SLF001 - its own engine
    try:
        with deadline(clock):
            progress, finished = engine.complete_capability(cap, clock)
    except OutOfTime:
        progress, finished = True, False
    finally:
        if callable(forget):
            # nor what the process asks after it: the main process asks its own agent
            # after a pass, and that agent ran the units only in a serial run
            forget()
    return PassResult(cap, [ps.concrete for ps in pool.states[known:]], asker.log,
                      asker.computed, engine._offset, engine.plans,  # noqa: SLF001
                      progress, finished, time.perf_counter() - began, engine.foreign,
                      snapshot.written)


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
    todo = [i for i, cap in enumerate(caps) if cap.open_tuples()]
    foreign: list[tuple[Any, ...]] = []
    results = _map_units("pass", dispatch, engine, state, todo)
    store = asker.store
    asker.store = _MergeStore(store, {key for r in results for key, _, _ in r.stored})
    try:
        progress, finished = _merge(engine, clock, todo, results, foreign)
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


def _merge(engine: QueryEngine, clock: BudgetClock | None, todo: list[int],
           results: list[PassResult], foreign: list[tuple[Any, ...]]) -> tuple[bool, bool]:
    """Merge a pass's ``results`` (of the capabilities ``todo``) in capability order,
    until the run's budget is spent; evidence about other capabilities goes to
    ``foreign``."""
    asker = engine.asker
    caps = engine.caps
    progress, finished = False, True
    for i, result in zip(todo, results, strict=True):
        if clock is not None and spent(clock):
            finished = False
            break
        cap = caps[i]
        cap.__dict__.update(result.cap.__dict__)  # same object: lists elsewhere hold it
        for concrete in result.added:
            engine.pool.add(concrete)
        before = len(asker.records)
        asker._ahead.update(result.computed)  # noqa: SLF001 - answered, as a look-ahead is
        asker.ask_many(result.asked)
        if clock is not None:
            clock.nodes += len(asker.records) - before
        engine.offsets[cap.name] = result.offset
        engine.plans += result.plans
        progress |= result.progress
        finished &= result.finished
        foreign += result.foreign
        if engine.progress is not None:
            settled = sum(1 for c in caps if c.settled())
            report(engine.progress, "queries", len(asker.records), None,
                   f"settled {settled}/{len(caps)} capabilities")
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


# --------------------------------------------------------------------------- the guard


@dataclass
class GuardState:
    """What every guard unit starts from: the capabilities, the states to guard against
    (:func:`~xaip.capabilities.gameover.probe_game_over`'s places, as they are) and the
    matcher's settings."""

    caps: list[CapState]
    states: list[PoolState]
    objects: dict[str, str]
    max_bindings: int
    config: EngineConfig = field(default_factory=EngineConfig)


def _guard_unit(state: GuardState, index: int, abstractor: Abstractor,
                refine: Refine | None) -> tuple[list[CapState], int, float]:
    began = time.perf_counter()
    abstractor.objects.update(state.objects)
    engine = QueryEngine(None, abstractor, refine, state.caps,  # type: ignore[arg-type]
                         StatePool(abstractor), state.config)
    matcher = Matcher(state.objects, state.max_bindings)
    out, marked = guard([state.caps[index]], state.states, matcher,
                        lambda target, like: engine.refine(target, like) is not None)
    return out, marked, time.perf_counter() - began


def guard_all(engine: QueryEngine, game_over: list[PoolState]) -> tuple[list[CapState], int]:
    """:func:`~xaip.capabilities.gameover.guard` of ``engine``'s capabilities, one unit per
    capability (module docstring); the same capabilities and count as one call."""
    dispatch: Dispatch = engine.dispatch or Dispatch()
    caps = engine.caps
    if not game_over:
        return caps, 0
    if not dispatch.remote:
        out: list[CapState] = []
        marked = 0
        times: list[float] = []
        for cap in caps:
            began = time.perf_counter()
            parts, n = guard([cap], game_over, engine.matcher,
                             lambda target, like: engine.refine(target, like) is not None)
            times.append(time.perf_counter() - began)
            out += parts
            marked += n
        dispatch.unit_seconds += sum(times)
        dispatch.batches.append(times)
        return out, marked
    assert dispatch.executor is not None and dispatch.context is not None
    # a unit reads only its own capability, so a task carries only its units' ones
    size = max(1, len(caps) // (3 * dispatch.executor.workers))
    tasks = []
    for i in range(0, len(caps), size):
        part = caps[i:i + size]
        state = GuardState(part, game_over, dict(engine.matcher.object_type),
                           engine.matcher.max_bindings, engine.config)
        tasks.append(("guard", dispatch.context, dumps(state), list(range(len(part)))))
    done: dict[int, list[Any]] = {}
    for position, batch in dispatch.executor.completed(run_units, tasks):
        done[position] = batch
        _report_units(engine, "guard", sum(map(len, done.values())), len(caps))
    out, marked = [], 0
    for position in range(len(tasks)):
        for parts, n, seconds in done[position]:
            out += parts
            marked += n
            dispatch.unit_seconds += seconds
    return out, marked


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


def run_units(item: tuple[str, Recipe, bytes, list[int]]) -> list[Any]:
    """A worker's task: the units ``indices`` of a pass or guard whose state is ``blob``
    (module-level, so executors can send it)."""
    kind, recipe, blob, indices = item
    abstractor, refine = _context(recipe)
    state = pickle.loads(blob)
    if kind == "pass":
        base = _base_pool(state, abstractor)
        agent = answers_module._WORKER_AGENT  # noqa: SLF001 - this worker's agent
        return [_pass_unit(state, base, i, abstractor, refine, agent) for i in indices]
    return [_guard_unit(state, i, abstractor, refine) for i in indices]


def _map_units(kind: str, dispatch: Dispatch, engine: QueryEngine, state: Any,
               indices: list[int]) -> list[Any]:
    """The units ``indices`` run on the workers when there are any (batched: the state is
    pickled once, each task unpickles it once), else here; results in the order of
    ``indices``. Units never change the state they start from, so where they run and how
    they are batched does not change their results."""
    if not indices:
        return []
    if dispatch.remote:
        assert dispatch.executor is not None and dispatch.context is not None
        blob = dumps(state)
        size = max(1, len(indices) // (3 * dispatch.executor.workers))
        tasks = [(kind, dispatch.context, blob, indices[i:i + size])
                 for i in range(0, len(indices), size)]
        done: dict[int, list[Any]] = {}
        for position, batch in dispatch.executor.completed(run_units, tasks):
            done[position] = batch
            _report_units(engine, kind, sum(map(len, done.values())), len(indices))
            for result in batch if kind == "pass" else ():
                for key, name, answer in result.stored:  # kept at once (a killed run)
                    engine.asker.store.put_answer(key, name, answer)
        results = [r for position in range(len(tasks)) for r in done[position]]
        dispatch.unit_seconds += sum(r.seconds if kind == "pass" else r[2] for r in results)
        return results
    assert kind == "pass", "guard units run remotely only (guard_all runs them here)"
    began = time.perf_counter()
    base = _base_pool(state, engine.abstractor)
    dispatch.unit_seconds += time.perf_counter() - began
    out = []
    for index in indices:
        result = _pass_unit(state, base, index, engine.abstractor, engine.refine_fn,
                            engine.asker.agent, engine.asker.store)
        dispatch.unit_seconds += result.seconds
        out.append(result)
        _report_units(engine, kind, len(out), len(indices))
    dispatch.batches.append([r.seconds for r in out])
    return out


def _report_units(engine: QueryEngine, kind: str, done: int, total: int) -> None:
    """Progress inside a pass or guard: how many of its capabilities are done."""
    if engine.progress is not None:
        report(engine.progress, kind, done, total,
               f"{done}/{total} capabilities " + ("completed" if kind == "pass" else "guarded"))


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


__all__ = ["Dispatch", "guard_all", "known_answers", "run_pass", "run_units"]
