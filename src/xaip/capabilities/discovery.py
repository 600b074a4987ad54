"""Algorithm 1 end to end: traces → abstraction → candidates → lifting → queries → model.

Entry points: :func:`discover` for any simulator, agent and vocabulary (plus, ideally, a
refinement function from abstract to concrete states), and :func:`discover_game` for the
four bundled games.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.agents.agents import Agent, AnyOf, SearchAgent
from xaip.agents.policy import PolicyAgent, greedy_policy
from xaip.agents.simulator import OutOfTime, check_deadline, deadline
from xaip.capabilities.answers import (
    AnswerStore,
    Asker,
    MemoryStore,
    StoredTrace,
    answer_trace,
    install_agent,
    query_key,
    wall_deadline,
    within,
)
from xaip.capabilities.candidates import ABSENT, POS, ground_candidates
from xaip.capabilities.focus import not_examined
from xaip.capabilities.focus import select as focus_select
from xaip.capabilities.gameover import probe_game_over
from xaip.capabilities.generalise import test_generalisation
from xaip.capabilities.lifting import default_lifted_types, merge
from xaip.capabilities.model import (
    Capability,
    CapabilityModel,
    DiscoveryStats,
    Literal,
    OpenTuple,
    QueryRecord,
)
from xaip.capabilities.pal import (
    CapState,
    build_capability,
    default_eff,
    default_pre,
    ground_pattern,
)
from xaip.capabilities.pool import StatePool
from xaip.capabilities.queries import EngineConfig, QueryEngine, Refine, spent
from xaip.capabilities.region import ROOT_VISITS, Listing
from xaip.capabilities.regrounding import grounded_units
from xaip.capabilities.rounds import Dispatch, Recipe, abstract_states, guard_all
from xaip.capabilities.split import refuted, replace, unfinished
from xaip.capabilities.traces import (
    Abstractor,
    AbstractTrace,
    Trace,
    abstract_trace,
    random_states,
    random_tasks,
    replay,
)
from xaip.errors import InputError
from xaip.runtime.budget import Budget, BudgetClock
from xaip.runtime.executors import Executor, get_executor
from xaip.runtime.progress import Progress, report
from xaip.runtime.status import Status
from xaip.vocab.core import Vocabulary


@dataclass(frozen=True)
class DiscoveryConfig:
    """Settings of one discovery run.

    ``tasks`` random tasks give the traces; ``random_states`` random-walk states join the
    trace states as possible starts of queries (default: ``states_per_object`` = 4 per
    object, at most 150; on the benchmark rows 8 per object found nothing more and every
    scan of the pool took longer).
    ``lifted_types`` are the types whose objects become parameters (default: types with
    more than four objects). ``recheck`` earlier queries are asked again at the end to
    detect non-determinism. ``generalise`` asks the agent to apply each lifted capability
    with a few bindings it was never seen with, and marks it unreliable on a failure
    (:mod:`~xaip.capabilities.generalise`). ``split`` re-learns the lifted capabilities
    that discovery's own evidence refuted as grounded ones (:mod:`~xaip.capabilities.split`).
    ``budget`` bounds the whole run:
    ``max_seconds`` every phase (traces, the state pool, queries), ``max_nodes`` the number
    of reachability queries;
    when it runs out the model is built from what was learned, the status is
    ``budget_exhausted`` and ``stats.exhausted`` says so.
    """

    tasks: int = 12
    walk_length: int = 12
    random_states: int | None = None
    states_per_object: int = 4
    state_walk: int = 20
    seed: int = 0
    lifted_types: tuple[str, ...] | None = None
    trace_budget: Budget = field(default_factory=lambda: Budget(max_nodes=500_000))
    engine: EngineConfig = field(default_factory=EngineConfig)
    recheck: int = 0
    budget: Budget | None = None
    generalise: bool = True
    split: bool = True
    #: Capability or predicate names to ask about only (:mod:`~xaip.capabilities.focus`).
    focus: tuple[str, ...] = ()
    #: States the guard's listing goes to from the start (``--listing-limit``; beyond it
    #: the listing is cut and the answer says so: :class:`~xaip.capabilities.region.
    #: Listing`).
    listing_limit: int = ROOT_VISITS


@dataclass(frozen=True)
class DiscoveryResult:
    """A capability model with the evidence and costs behind it (an explainer result:
    see :mod:`xaip.contract`). ``verified`` is set only by
    :func:`xaip.capabilities.checks.check` through :func:`xaip.contract.with_check`."""

    model: CapabilityModel
    status: Status
    stats: DiscoveryStats
    seconds: float
    traces: tuple[Trace, ...] = field(compare=False, repr=False)
    abstract_traces: tuple[AbstractTrace, ...] = field(compare=False, repr=False)
    queries: tuple[QueryRecord, ...] = field(compare=False, repr=False)
    start: Any = field(default=None, compare=False, repr=False)
    verified: bool = False
    #: Seconds spent in work an executor's workers share (the agent's traces, the query
    #: passes' and the game-over guard's units: :mod:`~xaip.capabilities.rounds`); over a
    #: serial run's ``seconds``, the parallel fraction of Amdahl's law.
    parallel_seconds: float = field(default=0.0, compare=False, repr=False)
    #: The seconds of each unit, per batch that could run side by side (serial runs).
    unit_batches: tuple[tuple[float, ...], ...] = field(default=(), compare=False,
                                                        repr=False)
    #: What the guard's listing covered (``None``: the run ended before it); its
    #: ``truncated`` says the guard saw part of the level only.
    listing: Listing | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        model = self.model.to_dict()
        return {
            "status": str(self.status),
            "verified": self.verified,
            "name": self.model.name,
            "capabilities": [c.to_dict() for c in self.model.capabilities],
            "queries": self.stats.queries,
            "seconds": self.seconds,
            "seconds_per_query": self.stats.seconds_per_query,
            "stats": self.stats.to_dict(),
            "listing": None if self.listing is None else self.listing.to_dict(),
            "model": {
                "predicates": model["predicates"],
                "types": list(self.model.types),
                "constants": model["constants"],
            },
        }


def query_log(result: DiscoveryResult) -> list[dict[str, Any]]:
    """Every query of the run, as JSON-safe records (for ``--json`` consumers that want
    the evidence, not only the model)."""
    return [q.to_dict() for q in result.queries]


def _collect_traces(simulator: Any, agent: Agent[Any], start: Any, config: DiscoveryConfig,
                    store: AnswerStore, clock: BudgetClock | None,
                    executor: Executor | None) -> list[Trace]:
    """The agent's traces on the random tasks. The tasks are independent, so the new ones
    go to the executor as one batch; the run's deadline is checked before it starts and
    bounds each task's own budget."""
    tasks = random_tasks(simulator, start, config.tasks, config.seed,
                         walk_length=config.walk_length)
    check_deadline()
    deadline = wall_deadline(clock)
    keys = ["task:" + query_key(task.start, task.goal) for task in tasks]
    stored = [store.get_trace(key) for key in keys]
    first_of = {key: i for i, key in reversed(list(enumerate(keys)))}
    missing = [i for i, s in enumerate(stored) if s is None and first_of[keys[i]] == i]
    fresh = dict(zip(missing, answer_trace_batch(agent, [tasks[i] for i in missing],
                                                 config.trace_budget, executor, deadline),
                     strict=True))
    for i, trace in fresh.items():
        store.put_trace(keys[i], StoredTrace(trace.actions, trace.status, trace.reason))
    traces = []
    for i, (task, found) in enumerate(zip(tasks, stored, strict=True)):
        if i in fresh:
            traces.append(fresh[i])
        elif found is None:  # a repeated task: the same trace, replayed
            again = fresh[first_of[keys[i]]]
            traces.append(replay(simulator, task, again.actions, again.status, again.reason))
        else:
            traces.append(replay(simulator, task, found.actions, found.status, found.reason))
    check_deadline()
    return traces


def answer_trace_batch(agent: Agent[Any], tasks: list[Any], budget: Budget,
                       executor: Executor | None, deadline: float | None = None) -> list[Trace]:
    """Run the agent on ``tasks`` (here, or on the executor's workers), each task's
    ``budget`` cut to what is left before the run's wall-clock ``deadline`` when it
    starts (see :func:`~xaip.capabilities.answers.wall_deadline`)."""
    from xaip.capabilities.traces import run_task

    if executor is None:
        return [run_task(agent, task, within(budget, deadline)) for task in tasks]
    return executor.map(answer_trace, [(task, budget, deadline) for task in tasks])


def discover(
    simulator: Any,
    agent: Agent[Any],
    vocabulary: Vocabulary,
    *,
    refine: Refine | None = None,
    start: Any = None,
    config: DiscoveryConfig | None = None,
    store: AnswerStore | None = None,
    progress: Progress | None = None,
    name: str = "capabilities",
    budget: Budget | None = None,
    executor: Executor | None = None,
    context: Recipe | None = None,
) -> DiscoveryResult:
    """Discover the capabilities of ``agent`` acting in ``simulator``, described in
    ``vocabulary`` (Algorithm 1).

    ``refine(full_abstract_state, like)`` returns a concrete state with that abstraction
    (or ``None``); without it, query goals are abstract states tested by abstraction,
    which only search agents can pursue. ``start`` defaults to the simulator's current
    state. Answers go to ``store`` (see :class:`xaip.capabilities.store.SQLiteStore`), so a
    run with the same store resumes without asking again. ``budget`` (default
    ``config.budget``) bounds the whole run. ``executor`` (from
    :func:`xaip.runtime.get_executor` with :func:`~xaip.capabilities.answers.install_agent`
    as initializer) answers the agent's queries on its workers; the result is the same as
    without it. With ``context`` too -- ``(factory, args)``, picklable, where
    ``factory(*args)`` returns the vocabulary and ``refine`` (e.g. ``(game_context,
    ("zelda",))``) -- the workers also generate the queries and guard the model
    (:mod:`~xaip.capabilities.rounds`); without it that work stays in this process.
    """
    cfg = config or DiscoveryConfig()
    limit = budget if budget is not None else cfg.budget
    clock = limit.start() if limit is not None else None
    with deadline(clock):
        return _discover(simulator, agent, vocabulary, refine, start, cfg, store, progress,
                         name, clock, Dispatch(executor, context))


def _discover(simulator: Any, agent: Agent[Any], vocabulary: Vocabulary, refine: Refine | None,
              start: Any, cfg: DiscoveryConfig, store: AnswerStore | None,
              progress: Progress | None, name: str, clock: BudgetClock | None,
              dispatch: Dispatch) -> DiscoveryResult:
    executor = dispatch.executor
    answers: AnswerStore = store if store is not None else MemoryStore()
    began = time.perf_counter()
    first = simulator.get_state() if start is None else start
    abstractor = Abstractor(vocabulary)
    caps: list[CapState] = []
    traces: list[Trace] = []
    abstract_traces: list[AbstractTrace] = []
    lifted_candidates: list[Any] = []
    objects: dict[str, str] = {}
    lifted: frozenset[str] = frozenset()
    candidates: list[Any] = []
    asker = Asker(agent, answers, cfg.engine.query_budget, executor, clock)
    engine: QueryEngine | None = None
    finished = True
    mismatches = overgeneral = game_over_claims = regrounded = 0
    trace_seconds = 0.0
    transitions = pal = settled_traces = 0
    skipped: list[CapState] = []  # not examined (--focus)
    listing: Listing | None = None  # what the guard's listing covered
    try:
        abstractor.full(first)
        check_deadline()
        traces = _collect_traces(simulator, agent, first, cfg, answers, clock, executor)
        trace_seconds = time.perf_counter() - began
        dispatch.unit_seconds += trace_seconds
        dispatch.batches.append([trace_seconds / max(1, len(traces))] * len(traces))
        abstract_traces = [abstract_trace(t, abstractor) for t in traces]
        transitions = sum(len(t.states) - 1 for t in abstract_traces)
        report(progress, "traces", len(traces), None,
               f"{transitions} abstract transitions")

        pool = StatePool(abstractor)
        for trace in traces:
            for state in trace.states:
                pool.add(state)
        roots = [first, *(t.states[-1] for t in traces)]
        count = cfg.random_states if cfg.random_states is not None else \
            min(150, cfg.states_per_object * len(abstractor.objects))
        for state in random_states(simulator, roots, count, cfg.seed, cfg.state_walk):
            check_deadline()
            pool.add(state)

        objects = dict(abstractor.objects)
        lifted = frozenset(cfg.lifted_types) if cfg.lifted_types is not None \
            else default_lifted_types(objects)
        unknown = lifted - set(objects.values())
        if unknown and cfg.lifted_types is not None and not set(cfg.lifted_types) & set(
                objects.values()):
            raise InputError(f"lifted types {', '.join(sorted(unknown))} are not types of "
                             "the vocabulary's objects")
        constants = {o: t for o, t in objects.items() if t not in lifted}
        candidates = ground_candidates(abstract_traces)
        lifted_candidates = merge(candidates, objects, lifted)
        predicates = [(p.name, p.parameters) for p in vocabulary.predicates]
        possible: set[tuple[Any, ...]] = set()
        for ps in pool.states:
            for atom in ps.fluent:
                possible.add(ground_pattern(atom, objects, lifted))
        for i, lc in enumerate(lifted_candidates):
            check_deadline()
            caps.append(build_capability(f"c{i + 1}", lc, predicates, constants, possible))
        if cfg.focus:
            caps[:], skipped = focus_select(caps, cfg.focus)
        pal = sum(2 * len(c.atoms) for c in caps)
        settled_traces = sum(_settled(c) for c in caps)
        report(progress, "candidates", len(caps), None,
               f"{len(candidates)} grounded candidates, {pal} PAL tuples")

        engine = QueryEngine(asker, abstractor, refine, caps, pool, cfg.engine, progress)
        engine.dispatch = dispatch
        finished = engine.complete(clock)
        game_over: Any = []
        nearby: list[Any] = []
        # Each step below makes the model's claims sounder: one skipped because the budget
        # ran out leaves the run unfinished (budget_exhausted), never silently complete.
        finished = finished and not _out(clock)
        if finished:
            known = [ps.concrete for ps in pool.states]
            known += [s for trace in traces for s in trace.states]
            roots = [first, *(s for trace in traces for s in trace.states)]
            game_over = probe_game_over(simulator, known, abstractor, live=nearby,
                                        roots=roots, abstract=lambda states, table:
                                        abstract_states(engine, states, table),
                                        root_visits=cfg.listing_limit)
            listing = game_over.listing()
            caps[:], game_over_claims = guard_all(engine, game_over)
        finished = finished and not (cfg.generalise and _out(clock))
        if finished and cfg.generalise:
            overgeneral, excluded = test_generalisation(engine, cfg.seed, nearby=nearby,
                                                        clock=clock)
            game_over_claims += excluded
        old = refuted(caps) if finished and cfg.split and lifted else []
        finished = finished and not (old and _out(clock))
        if finished and old:
            sources = {f"c{i + 1}": lc for i, lc in enumerate(lifted_candidates)}
            new = grounded_units(engine, old, sources, objects, predicates, pool)
            report(progress, "regrounding", len(new), None,
                   f"{len({c.parent or c.name for c in old})} refuted lifted "
                   f"capabilities re-learned as {len(new)} grounded ones")
            grounded_engine = QueryEngine(asker, abstractor, refine, new, pool,
                                          cfg.engine, progress)
            grounded_engine.dispatch = dispatch
            finished = grounded_engine.complete(clock) and not _out(clock)
            if finished:
                new[:], marked = guard_all(grounded_engine, game_over)
                game_over_claims += marked
            if not finished:  # neither completed nor guarded: not presented as sound
                unfinished(new)
            caps[:] = replace(caps, old, new)
            regrounded = len({c.parent or c.name for c in old})
            engine.plans += grounded_engine.plans
        if finished and cfg.recheck and not _out(clock):
            mismatches = engine.recheck(cfg.recheck)
    except OutOfTime:
        finished = False
    constants = {o: t for o, t in objects.items() if t not in lifted or regrounded}
    model = build_model(name, vocabulary, caps, constants, lifted, lifted_candidates)
    if skipped:
        model = not_examined(model, skipped, cfg.focus)
    records = tuple(asker.records)
    seconds = time.perf_counter() - began
    stats = DiscoveryStats(
        traces=len(traces),
        transitions=transitions,
        ground_candidates=len(candidates),
        capabilities=len(caps),
        pal_tuples=pal,
        settled_by_traces=settled_traces,
        settled_by_queries=sum(_settled(c) for c in caps) - settled_traces,
        open_tuples=sum(len(c.open_tuples()) for c in caps),
        queries=len(records),
        asked=sum(1 for r in records if not r.cached),
        cached=sum(1 for r in records if r.cached),
        failed=sum(1 for r in records if r.reached is False),
        errors=sum(1 for r in records if r.reached is None),
        plans=engine.plans if engine is not None else 0,
        seconds=seconds,
        query_seconds=asker.seconds,
        trace_seconds=trace_seconds,
        nondeterministic=mismatches,
        exhausted=not finished,
        overgeneral=overgeneral,
        game_over=game_over_claims,
        split=regrounded,
    )
    report(progress, "done", len(records), len(records),
           f"{stats.asked} asked, {stats.cached} from the store, {seconds:.2f} s")
    status = Status.COMPLETE if finished else Status.BUDGET_EXHAUSTED
    return DiscoveryResult(model, status, stats, seconds, tuple(traces),
                           tuple(abstract_traces), records, first,
                           parallel_seconds=min(seconds, dispatch.unit_seconds),
                           unit_batches=tuple(tuple(b) for b in dispatch.batches),
                           listing=listing)


def _out(clock: BudgetClock | None) -> bool:
    """Whether the run's budget is spent."""
    return clock is not None and spent(clock)


def _settled(cap: CapState) -> int:
    return sum(1 for a in cap.atoms for t in (cap.pre, cap.eff) if len(t[a]) == 1)


def build_model(name: str, vocabulary: Vocabulary, caps: list[CapState],
                constants: Mapping[str, str], lifted: frozenset[str],
                lifted_candidates: Any = None) -> CapabilityModel:
    """Freeze the learner's tables into a :class:`CapabilityModel` (the chosen mode of an
    open tuple: see :func:`xaip.capabilities.pal.default_pre`)."""
    from xaip.render.capabilities import card_text  # the card is part of the model's data

    capabilities = []
    for cap in caps:
        pre: list[Literal] = []
        eff: list[Literal] = []
        open_tuples: list[OpenTuple] = []
        for atom in cap.atoms:
            p = default_pre(cap, atom)
            e = default_eff(cap, atom)
            if p != ABSENT:
                pre.append(Literal(atom, p == POS))
            if e != ABSENT and e != p:
                eff.append(Literal(atom, e == POS))
            for loc, modes, chosen in (("pre", cap.pre[atom], p), ("eff", cap.eff[atom], e)):
                if len(modes) > 1:
                    reason = "ambiguous" if (loc, atom) in cap.queried else "unobservable"
                    open_tuples.append(OpenTuple(loc, atom, tuple(sorted(modes)), chosen,
                                                 reason))
        pre.sort(key=lambda lit: (str(lit.atom), lit.positive))
        eff.sort(key=lambda lit: (not lit.positive, str(lit.atom)))
        example = cap.example if lifted_candidates is not None else None
        draft = Capability(cap.name, cap.params, tuple(pre), tuple(eff), "", cap.instances,
                           tuple(open_tuples), cap.reliable, tuple(cap.notes), example)
        capabilities.append(Capability(
            draft.name, draft.parameters, draft.preconditions, draft.effects,
            card_text(draft, vocabulary), draft.instances, draft.open, draft.reliable,
            draft.notes, example))
    types = tuple(t.name for t in vocabulary.types)
    return CapabilityModel(
        name,
        tuple((p.name, p.parameters) for p in vocabulary.predicates),
        types,
        tuple(sorted(constants.items())),
        tuple(capabilities),
    )


# --------------------------------------------------------------------------- bundled games

AGENTS = ("search", "policy")
#: How far the bundled policy agent looks for a way out of a local minimum.
POLICY_ESCAPE = 6


def game_refine(game: str) -> Refine:
    """The bundled game's refinement: the first concrete state from its
    :class:`~xaip.vocab.registry.GameSpec` concretisation (hidden parts such as facing
    copied from ``like``)."""
    from xaip.vocab.registry import get_game

    spec = get_game(game)
    # Where the vocabulary cannot see the player's facing, a waypoint is the place with
    # *any* facing: asking for ``like``'s facing would turn a turn the agent cannot make in
    # place into a false "cannot". ``like``'s facing comes first, as the representative.
    any_facing = spec.hidden_facing
    # The only part of ``like`` a bundled game copies is the facing, so results are shared
    # between templates with the same facing (discovery refines the same waypoints from
    # many start states).
    cache: dict[tuple[frozenset[Any], Any], Any] = {}

    def refine(atoms: frozenset[Any], like: Any) -> Any:
        key = (atoms, getattr(like, "facing", None))
        if key in cache:
            return cache[key]
        states = spec.concretize(atoms, like, None if any_facing else 1)
        if len(cache) > 100_000:
            cache.clear()
        if not states:
            found = None
        elif any_facing and len(states) > 1:
            found = AnyOf(tuple(states))
        else:
            found = states[0]
        cache[key] = found
        return found

    return refine


def game_context(game: str) -> tuple[Vocabulary, Refine]:
    """The vocabulary and refinement of a bundled game, built from its name (the recipe
    executor workers build them from: :class:`~xaip.capabilities.rounds.Dispatch`)."""
    from xaip.vocab.registry import get_game

    return get_game(game).vocabulary(), game_refine(game)


def make_agent(simulator: Any, kind: str, budget: Budget | None = None) -> Agent[Any]:
    """A search (A*) or policy (greedy, goal-directed) agent for a simulator."""
    if kind == "search":
        return SearchAgent(simulator, budget=budget or Budget(max_nodes=500_000))
    if kind == "policy":
        # a hand-coded, myopic policy: greedy toward the target, out of dips of up to six
        # actions (more capabilities seen than with pure greedy, still no planning)
        progress = getattr(simulator, "progress_estimate", None)
        return PolicyAgent(simulator, greedy_policy(simulator, progress,
                                                    escape=POLICY_ESCAPE))
    raise InputError(f"unknown agent '{kind}'; use search or policy")


def game_agent(game: str, rows: int, cols: int, seed: int, kind: str) -> Agent[Any]:
    """The agent of a bundled game's level, built from plain data (so that executor
    workers can build their own copy: see :func:`~xaip.capabilities.answers.install_agent`)."""
    from xaip.vocab.registry import get_game

    return make_agent(get_game(game).make(rows, cols, seed), kind)


def discover_game(
    game: str,
    rows: int,
    cols: int,
    *,
    agent: str = "search",
    seed: int = 0,
    store: AnswerStore | None = None,
    config: DiscoveryConfig | None = None,
    progress: Progress | None = None,
    agent_factory: Callable[[Any], Agent[Any]] | None = None,
    budget: Budget | None = None,
    executor: str = "serial",
    workers: int | None = None,
) -> tuple[DiscoveryResult, Any]:
    """Discover the capabilities of an agent in a bundled game's random level.

    ``budget`` (default ``config.budget``) bounds the whole run, level generation
    included. ``executor`` (``serial``, ``processes`` or ``ray``, with ``workers``) is where
    the agent answers queries; every worker builds its own copy of the level and agent,
    and the result is the same as the serial one. Returns the result and the simulator
    (for pictures and checks; ``None`` when the budget ran out while generating the
    level)."""
    from xaip.vocab.registry import check_grid, get_game

    spec = get_game(game)
    check_grid(rows, cols)
    cfg = config or DiscoveryConfig(seed=seed, lifted_types=("cell",))
    if cfg.lifted_types is None:
        cfg = DiscoveryConfig(**{**cfg.__dict__, "lifted_types": ("cell",)})
    limit = budget if budget is not None else cfg.budget
    clock = limit.start() if limit is not None else None
    name = f"{spec.name}-{rows}x{cols}-{agent}"
    began = time.perf_counter()
    try:
        with deadline(clock):
            simulator = spec.make(rows, cols, seed)
            first = simulator.reset()
    except OutOfTime:
        return _unfinished(name, spec.vocabulary(), time.perf_counter() - began), None
    if agent_factory is not None:
        the_agent = agent_factory(simulator)
    else:
        the_agent = make_agent(simulator, agent)
    pool: Executor | None = None
    if executor != "serial":
        if agent_factory is not None:
            raise InputError("an agent factory runs only with the serial executor")
        pool = get_executor(executor, workers, install_agent,
                            (game_agent, spec.name, rows, cols, seed, agent))
    dispatch = Dispatch(pool, (game_context, (spec.name,)))
    try:
        with deadline(clock):
            result = _discover(simulator, the_agent, spec.vocabulary(), game_refine(spec.name),
                               first, cfg, store, progress, name, clock, dispatch)
    finally:
        if pool is not None:
            pool.close()
    return result, simulator


def _unfinished(name: str, vocabulary: Vocabulary, seconds: float) -> DiscoveryResult:
    """The result of a run whose budget ran out before any agent was asked anything."""
    model = build_model(name, vocabulary, [], {}, frozenset())
    stats = DiscoveryStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, seconds, 0.0, 0.0,
                           exhausted=True)
    return DiscoveryResult(model, Status.BUDGET_EXHAUSTED, stats, seconds, (), (), ())


__all__ = [
    "AGENTS",
    "DiscoveryConfig",
    "DiscoveryResult",
    "build_model",
    "discover",
    "discover_game",
    "game_agent",
    "game_context",
    "game_refine",
    "make_agent",
    "query_log",
]
